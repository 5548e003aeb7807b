"""Read YAML or JSON keeping the line and column of every node, for error messages."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import yaml

from hygiene_pddl.errors import InputError, Location


class PositionedDocument:
    """A parsed YAML/JSON document plus the node tree that knows where each value sits."""

    def __init__(self, path: Path, text: str):
        self.path = path
        try:
            self.node = yaml.compose(text, Loader=yaml.SafeLoader)
            self.data = yaml.safe_load(text)
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark
            raise InputError(
                f"not valid YAML/JSON: {exc.problem}",
                Location(str(path), mark.line + 1 if mark else None, mark.column + 1 if mark else None),
            ) from None

    @classmethod
    def read(cls, path: Path) -> PositionedDocument:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"cannot read file: {exc}", Location(str(path))) from None
        return cls(Path(path), text)

    def location(self, path: Sequence[str | int]) -> Location:
        """Location of the deepest existing node along ``path`` (keys and list indices)."""
        node = self.node
        for step in path:
            nxt = None
            if isinstance(node, yaml.MappingNode):
                for key, value in node.value:
                    if key.value == str(step):
                        nxt = value
                        break
            elif isinstance(node, yaml.SequenceNode) and isinstance(step, int):
                if 0 <= step < len(node.value):
                    nxt = node.value[step]
            if nxt is None:
                break
            node = nxt
        dotted = ".".join(str(s) for s in path) or None
        if node is None:
            return Location(str(self.path), path=dotted)
        return Location(str(self.path), node.start_mark.line + 1, node.start_mark.column + 1, dotted)

"""Read YAML or JSON keeping the line and column of every node, for error messages.

Files ending in ``.json`` are read as strict JSON (Python's json module); everything else as YAML.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import yaml

from hygiene_pddl.errors import InputError, Location
from hygiene_pddl.jsonpos import index_positions, line_column


class PositionedDocument:
    """A parsed YAML/JSON document plus the node tree that knows where each value sits."""

    def __init__(self, path: Path, text: str):
        self.path = path
        self.node = None
        self.json_positions: dict[tuple, int] | None = None
        if path.suffix == ".json":
            try:
                self.data = json.loads(text)
            except json.JSONDecodeError as exc:
                lines = text.splitlines()
                found = lines[exc.lineno - 1].strip() if exc.lineno <= len(lines) else None
                raise InputError(f"not valid JSON: {exc.msg}", Location(str(path), exc.lineno, exc.colno),
                                 found=found) from None
            self.text = text
            self.json_positions = index_positions(text)
            return
        try:
            self.node = yaml.compose(text, Loader=yaml.SafeLoader)
            self.data = yaml.safe_load(text)
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark
            raise InputError(
                f"not valid YAML: {exc.problem}",
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
        dotted = ".".join(str(s) for s in path) or None
        if self.json_positions is not None:
            for n in range(len(path), -1, -1):
                key = tuple(path[:n])
                if key in self.json_positions:
                    line, column = line_column(self.text, self.json_positions[key])
                    return Location(str(self.path), line, column, dotted)
            return Location(str(self.path), path=dotted)
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
        if node is None:
            return Location(str(self.path), path=dotted)
        return Location(str(self.path), node.start_mark.line + 1, node.start_mark.column + 1, dotted)

"""Read YAML or JSON keeping the line and column of every node, for error messages.

Files ending in ``.json`` are read as strict JSON (:mod:`hygiene_pddl.jsonpos`); everything else as YAML,
through libyaml's C parser when PyYAML has it (about ten times faster than the pure-Python one; both keep
every node's position). YAML is parsed once: the node tree gives the positions and is then constructed
into data with the safe constructor (no ``!!python`` tags). Before construction the tree is checked:
mapping keys must be distinct strings (``yes:``, ``~:`` or ``1234:`` would become a boolean, None or an
integer), aliases must not expand beyond :data:`~hygiene_pddl.limits.MAX_YAML_NODES` nodes (alias bombs)
nor refer to themselves, nesting and number literals stay within the limits.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Sequence
from pathlib import Path

import jsonschema
import yaml

from hygiene_pddl.errors import InputError, Location
from hygiene_pddl.jsonpos import line_column, scan
from hygiene_pddl.limits import MAX_NESTING, MAX_UNITS, MAX_YAML_NODES, nesting_too_deep, number_too_long

#: libyaml's parser with the safe constructor when available, else the pure-Python safe loader.
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_STR = "tag:yaml.org,2002:str"
_NUMERIC = ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")


def _strict_integer(checker, value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@functools.cache
def _anchored(pattern: str) -> re.Pattern:
    """``pattern`` with a final ``$`` meaning the end of the text (in Python it also matches before a
    final newline, so ``"spoon\\n"`` passed ``^[a-z]+$``)."""
    return re.compile(pattern[:-1] + r"\Z" if pattern.endswith("$") and not pattern.endswith(r"\$") else pattern)


def _pattern(validator, pattern: str, instance, schema):  # noqa: ARG001 - jsonschema keyword signature
    if validator.is_type(instance, "string") and not _anchored(pattern).search(instance):
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


#: JSON Schema draft 2020-12 whose "integer" means an integer literal (``16.0`` is a number, not an
#: integer) and whose patterns end where the text ends.
StrictValidator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator, validators={"pattern": _pattern},
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("integer", _strict_integer))


class PositionedDocument:
    """A parsed YAML/JSON document plus the node tree that knows where each value sits."""

    def __init__(self, path: Path, text: str):
        self.path = path
        self.text = text
        self.node: yaml.Node | None = None
        self._positions: dict[tuple, int] | None = None
        self._is_json = path.suffix == ".json"
        if self._is_json:
            self._positions = scan(text, str(path))
            try:
                self.data = json.loads(text)
            except json.JSONDecodeError as exc:
                raise self._at(exc.pos, f"not valid JSON: {exc.msg}") from None
            if self._positions is None:  # pragma: no cover - the scanner and json disagree: a bug
                raise AssertionError(f"{path}: the JSON scanner refused text json.loads reads")
            return
        loader = None
        try:
            loader = LOADER(text)  # the pure-Python reader checks the characters here
            self.node = loader.get_single_node()
            if self.node is not None:
                _TreeCheck(self).run(self.node)
            self.data = loader.construct_document(self.node) if self.node is not None else None
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            raise InputError(f"not valid YAML: {exc.problem or exc.context}",
                             Location(str(path), mark.line + 1, mark.column + 1) if mark else
                             Location(str(path))) from None
        except yaml.reader.ReaderError as exc:  # a character YAML does not allow
            offset = exc.position
            if LOADER is not yaml.SafeLoader:  # libyaml counts bytes
                offset = len(text.encode("utf-8")[:offset].decode("utf-8", "ignore"))
            char = exc.character if isinstance(exc.character, int) else ord(exc.character)
            raise self._at(offset, f"not valid YAML: character U+{char:04X} is not allowed "
                                   "(control characters other than tab and line breaks)") from None
        except RecursionError:  # the pure-Python composer nests by recursion
            raise InputError(nesting_too_deep("YAML lists and mappings"), Location(str(path))) from None
        finally:
            if loader is not None:
                loader.dispose()

    def _at(self, offset: int, message: str) -> InputError:
        line, column = line_column(self.text, offset)
        lines = self.text.splitlines()
        found = lines[line - 1].strip() if line <= len(lines) else None
        return InputError(message, Location(str(self.path), line, column), found=found or None)

    @classmethod
    def of_data(cls, path: Path, data: object) -> PositionedDocument:
        """A JSON document for data built in memory (the episode builder's): the data as JSON reads it back,
        its text (``indent=1``) and positions computed only when an error needs a location. What the strict
        scanner refuses in a file cannot come from ``json.dumps`` except non-finite floats, which
        :meth:`check_magnitudes` refuses."""
        doc = cls.__new__(cls)
        doc.path, doc.node, doc._positions, doc._is_json = path, None, None, True
        doc.text = json.dumps(data, indent=1)
        doc.data = json.loads(doc.text)
        return doc

    @property
    def json_positions(self) -> dict[tuple, int] | None:
        """Offsets of a JSON document's values by path (None for YAML)."""
        if self._is_json and self._positions is None:
            self._positions = scan(self.text, str(self.path)) or {}
        return self._positions

    @classmethod
    def read(cls, path: Path) -> PositionedDocument:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            raise InputError(f"cannot read file: {reason}", Location(str(path))) from None
        return cls(Path(path), text)

    def location(self, path: Sequence[str | int]) -> Location:
        """Location of the deepest existing node along ``path`` (keys and list indices)."""
        dotted = ".".join(str(s) for s in path) or None
        positions = self.json_positions
        if positions is not None:
            for n in range(len(path), -1, -1):
                key = tuple(path[:n])
                if key in positions:
                    line, column = line_column(self.text, positions[key])
                    return Location(str(self.path), line, column, dotted)
            return Location(str(self.path), path=dotted)
        node = self._node_at(path)[0]
        if node is None:
            return Location(str(self.path), path=dotted)
        return Location(str(self.path), node.start_mark.line + 1, node.start_mark.column + 1, dotted)

    def _node_at(self, path: Sequence[str | int]) -> tuple[yaml.Node | None, bool]:
        """The deepest YAML node along ``path``, and whether it is the node ``path`` names."""
        node = self.node
        for step in path:
            nxt = None
            if isinstance(node, yaml.MappingNode):
                nxt = next((value for key, value in node.value if key.value == str(step)), None)
            elif isinstance(node, yaml.SequenceNode) and isinstance(step, int) and 0 <= step < len(node.value):
                nxt = node.value[step]
            if nxt is None:
                return node, False
            node = nxt
        return node, True

    def reading_hint(self, path: Sequence[str | int]) -> str:
        """For a plain YAML scalar that did not read as a string (``yes``, ``~``, ``12``): how it read."""
        node, exact = self._node_at(path)
        if not exact:
            return ""
        if isinstance(node, yaml.ScalarNode) and node.tag != _STR and not node.style:
            return f" (YAML reads {node.value!r} as {node.tag.rsplit(':', 1)[-1]}; quote it if a name is meant)"
        return ""

    def check_magnitudes(self, limit: int = MAX_UNITS, what: str = "numbers") -> None:
        """Refuse any number whose magnitude exceeds ``limit`` (times, durations, amounts), at its place."""
        todo: list[tuple[object, tuple]] = [(self.data, ())]
        while todo:
            value, path = todo.pop()
            if isinstance(value, dict):
                todo += [(v, (*path, k)) for k, v in value.items()]
            elif isinstance(value, list):
                todo += [(v, (*path, i)) for i, v in enumerate(value)]
            elif isinstance(value, float) and not math.isfinite(value):
                raise InputError(f"{what} must be finite (found {value})", self.location(list(path)))
            elif isinstance(value, int | float) and not isinstance(value, bool) and abs(value) > limit:
                found = str(value) if len(str(value)) <= 24 else f"a number of {len(str(value))} digits"
                raise InputError(f"{what} above {limit} are not supported (found {found})",
                                 self.location(list(path)))


class _TreeCheck:
    """Checks a composed YAML node tree before construction, without recursion."""

    def __init__(self, doc: PositionedDocument):
        self.doc = doc

    def fail(self, node: yaml.Node, message: str) -> InputError:
        mark = node.start_mark
        return InputError(message, Location(str(self.doc.path), mark.line + 1, mark.column + 1))

    def run(self, root: yaml.Node) -> None:
        seen: set[int] = set()
        aliased = False
        todo: list[tuple[yaml.Node, int]] = [(root, 1)]
        while todo:
            node, depth = todo.pop()
            if id(node) in seen:  # an alias (or a cycle): sized below
                aliased = True
                continue
            seen.add(id(node))
            if depth > MAX_NESTING:
                raise self.fail(node, nesting_too_deep("YAML lists and mappings"))
            if isinstance(node, yaml.ScalarNode):
                complaint = number_too_long(node.value) if node.tag in _NUMERIC else None
                if complaint:
                    raise self.fail(node, complaint)
                continue
            if isinstance(node, yaml.MappingNode):
                self.keys(node)
            todo += [(c, depth + 1) for c in _children(node)]
        if aliased:
            self.expanded_size(root)

    def expanded_size(self, root: yaml.Node) -> None:
        """Refuse cycles and documents whose aliases expand beyond MAX_YAML_NODES (post-order sizes)."""
        sizes: dict[int, int] = {}
        on_path: set[int] = set()
        todo: list[tuple[yaml.Node, bool]] = [(root, False)]
        while todo:
            node, done = todo.pop()
            if done:
                on_path.discard(id(node))
                sizes[id(node)] = 1 + sum(sizes[id(c)] for c in _children(node))
                if sizes[id(node)] > MAX_YAML_NODES:
                    raise self.fail(node, f"the YAML expands to more than {MAX_YAML_NODES} nodes through "
                                          "aliases (*name); write the data out instead")
            elif id(node) in on_path:
                raise self.fail(node, "a YAML alias refers to a node that contains it (a cycle)")
            elif id(node) not in sizes:
                on_path.add(id(node))
                todo.append((node, True))
                todo += [(c, False) for c in _children(node) if id(c) not in sizes]

    def keys(self, node: yaml.MappingNode) -> None:
        seen: set[str] = set()
        for key, _ in node.value:
            if key.tag != _STR or not isinstance(key, yaml.ScalarNode):
                what = key.tag.rsplit(":", 1)[-1] if isinstance(key, yaml.ScalarNode) else "a collection"
                raise self.fail(key, f"a key must be a name, but {getattr(key, 'value', '')!r} reads as YAML "
                                     f"{what}; quote it (\"...\") if a name is meant")
            if key.value in seen:
                raise self.fail(key, f"duplicate key {key.value!r} (the second one would silently replace "
                                     "the first)")
            seen.add(key.value)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []

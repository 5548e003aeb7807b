"""Read VAL-style plan files with the Lark grammar `plan.lark`."""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from hygiene_pddl.decimals import parse_decimal
from hygiene_pddl.errors import InputError, Location
from hygiene_pddl.lexical import check_source, read_source

from .model import STATUSES, Plan, PlanStep

_STATUS = re.compile(r";\s*status\s*:\s*(\S*)\s*$", re.IGNORECASE)
_COST = re.compile(r";\s*cost\s*:(.*)$", re.IGNORECASE)
_COST_ITEM = re.compile(r"([a-z_][a-z0-9_\-]*)=(-?\d+(?:\.\d*)?)$", re.IGNORECASE)  # no `.5`, as in steps
_TRAILER = re.compile(r";\s*cost\s*=\s*(-?\d+(?:\.\d*)?)\s*(?:\([^)]*\))?\s*$", re.IGNORECASE)
if TYPE_CHECKING:
    from lark import Lark, Token, Tree
    from lark.exceptions import UnexpectedInput

#: The plain plan line (ASCII, spaces and tabs): read without Lark; any other line goes to the grammar.
_NUM = r"(-?[0-9]+(?:\.[0-9]*)?)"
_FAST_LINE = re.compile(
    r"[ \t]*(?:(?:" + _NUM + r"[ \t]*:[ \t]*)?\([ \t]*([A-Za-z_][A-Za-z0-9_\-]*(?:[ \t]+[A-Za-z_][A-Za-z0-9_\-]*)*)"
    r"[ \t]*\)(?:[ \t]*\[[ \t]*" + _NUM + r"[ \t]*\])?)?[ \t]*(;.*)?\Z")
_SHAPE = "a plan line looks like `1.5: (move robot a b) [2]` or `(move robot a b)`"
_READABLE = {
    "NAME": "an action or object name",
    "NUMBER": "a time or duration such as 1.5",
    "LPAR": "'('",
    "RPAR": "')'",
    "LSQB": "'['",
    "RSQB": "']'",
    "COLON": "':'",
    "COMMENT": "a comment (;)",
    "_NL": "end of line",
    "$END": "end of file",
}


@lru_cache(maxsize=1)
def grammar() -> Lark:
    """The plan grammar's LALR parser (built once, and only for lines the fast reader does not take)."""
    from importlib import resources

    from lark import Lark

    text = resources.files("hygiene_pddl.plans").joinpath("plan.lark").read_text("utf-8")
    return Lark(text, parser="lalr", lexer="contextual", maybe_placeholders=False)


def _number(literal: str, source: str, file: str | None, line: int, column: int) -> Fraction:
    try:
        return parse_decimal(literal)
    except ValueError as exc:  # beyond the length limit
        raise _error(str(exc), source, file, line, column) from None


def _expected(names) -> str:
    out = sorted({_READABLE.get(n, n.lower()) for n in names or ()})
    return ", ".join(out) if out else "something else"


def _error(message: str, text: str, file: str | None, line: int, column: int | None) -> InputError:
    lines = text.split("\n")
    offending = lines[line - 1].rstrip("\r") if 0 < line <= len(lines) else ""
    full = f"{message}\n  line {line}: {offending}\n  ({_SHAPE})"
    return InputError(full, Location(file, line, column))


def _syntax_error(exc: UnexpectedInput, text: str, file: str | None) -> InputError:
    from lark.exceptions import UnexpectedCharacters, UnexpectedToken

    if isinstance(exc, UnexpectedToken):
        tok = exc.token
        found = "end of line" if tok.type == "_NL" else (
            "end of file" if tok.type == "$END" else repr(str(tok)))
        expected = _expected(exc.accepts or exc.expected)
        line, column = tok.line or exc.line, tok.column or exc.column
        if tok.type == "$END":
            line = text.count("\n")
    elif isinstance(exc, UnexpectedCharacters):
        found = repr(text[exc.pos_in_stream])
        expected = _expected(exc.allowed)
        line, column = exc.line, exc.column
    else:  # pragma: no cover
        found, expected, line, column = "?", "?", exc.line, exc.column
    message = f"syntax error in plan: expected {expected}, found {found}"
    if found in ("'.'", "'-'") and column and re.match(r"-?\.[0-9]", text.split("\n")[max(line, 1) - 1][column - 1:]):
        message += " (write 0.5, not .5: VAL does not read a number that starts with a dot)"
    return _error(message, text, file, max(line, 1), column)


def _step(tree: Tree, source: str, file: str | None) -> PlanStep:
    from lark import Tree

    time = duration = None
    names: list[str] = []
    for child in tree.children:
        if isinstance(child, Tree) and child.data == "time":
            tok = child.children[0]
            time = _number(str(tok), source, file, tok.line, tok.column)
        elif isinstance(child, Tree) and child.data == "duration":
            tok = child.children[0]
            duration = _number(str(tok), source, file, tok.line, tok.column)
        else:
            names.append(str(child).lower())
    first = tree.children[0]
    line = first.children[0].line if isinstance(first, Tree) else first.line
    return PlanStep(names[0], tuple(names[1:]), time, duration, line)


class _Comment(NamedTuple):
    """A comment as the fast reader found it (the fields of Lark's token that `_annotation` reads)."""

    text: str
    line: int
    column: int

    def __str__(self) -> str:
        return self.text


def _annotation(comment: Token | _Comment, text: str, file: str | None, fields: dict) -> None:
    body = str(comment).rstrip("\r")
    m = _STATUS.match(body)
    if m:
        value = m.group(1).lower()
        if value not in STATUSES:
            raise _error(f"unknown plan status {m.group(1)!r}: expected infeasible or "
                         "undetermined", text, file, comment.line, comment.column)
        fields["status"] = value
        return

    def value(literal: str) -> Fraction:
        return _number(literal, text, file, comment.line, comment.column)

    m = _TRAILER.match(body)
    if m:
        fields["trailer_cost"] = value(m.group(1))
        return
    m = _COST.match(body)
    if m:
        matches = [_COST_ITEM.match(part) for part in m.group(1).split()]
        if all(matches):  # anything else is an ordinary comment
            fields["cost"] = tuple((i.group(1).lower(), value(i.group(2))) for i in matches)


def _fast_lines(text: str, file: str | None, steps: list[PlanStep], fields: dict) -> bool:
    """Read `text` line by line without Lark; False (nothing read) when some line is not a plain one."""
    if "\r" in text.replace("\r\n", ""):
        return False
    matches = []
    for number, line in enumerate(text.split("\n")[:-1], 1):
        m = _FAST_LINE.match(line[:-1] if line.endswith("\r") else line)
        if m is None:
            return False
        matches.append((number, m))
    for number, m in matches:
        time, names, duration, comment = m.groups()
        if names is not None:
            action, *args = names.lower().split()
            steps.append(PlanStep(
                action, tuple(args),
                None if time is None else _number(time, text, file, number, m.start(1) + 1),
                None if duration is None else _number(duration, text, file, number, m.start(3) + 1),
                number))
        if comment is not None:
            _annotation(_Comment(comment, number, m.start(4) + 1), text, file, fields)
    return True


def parse_plan(text: str, file: str | None = None) -> Plan:
    """Parse plan text; raise InputError (line:column, the offending line, what was expected)."""
    text = text.removeprefix("\ufeff")  # a byte-order mark, which VAL ignores
    if not text.endswith("\n"):
        text += "\n"
    check_source(text, file, "plan", nesting=False)
    steps: list[PlanStep] = []
    fields: dict = {}
    if not _fast_lines(text, file, steps, fields):
        _grammar_lines(text, file, steps, fields)
    if fields.get("status") and steps:
        first = steps[0]
        raise _error(f"the plan says `status: {fields['status']}` but has steps", text, file,
                     first.line or 1, 1)
    return Plan(tuple(steps), **fields)


def _grammar_lines(text: str, file: str | None, steps: list[PlanStep], fields: dict) -> None:
    from lark import Tree
    from lark.exceptions import UnexpectedInput

    try:
        tree = grammar().parse(text)
    except UnexpectedInput as exc:
        raise _syntax_error(exc, text, file) from None
    for line in tree.children:
        for child in line.children:
            if isinstance(child, Tree):
                steps.append(_step(child, text, file))
            else:
                _annotation(child, text, file, fields)


def read_plan(path: str | Path) -> Plan:
    """Read and parse the plan file at `path`."""
    try:
        text = read_source(path)
    except OSError as exc:
        raise InputError(f"cannot read plan file: {exc.strerror or exc}",
                         Location(str(path))) from None
    return parse_plan(text, str(path))

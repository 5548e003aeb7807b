"""Turn Lark exceptions into one `InputError`: file, line, column, nesting path, expected/found."""

from __future__ import annotations

import re

from lark import Lark
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from hygiene_pddl.errors import InputError, Location

_TOKEN = re.compile(r";[^\n]*|\(|\)|[^\s()]+")
_LEADING_DOT = re.compile(r"-?\.[0-9]")
_NAMED_HEADS = {":action", ":durative-action", "domain", "problem", ":domain", "at", "over"}

_READABLE = {
    "NAME": "a name",
    "VARIABLE": "a variable (?x)",
    "NUMBER": "a number",
    "REQUIREMENT": "a requirement (:typing)",
    "COMP": "a comparison (< <= = >= >)",
    "DURATION_OP": "'=', '<=' or '>='",
    "ARITH": "an operator (+ - * /)",
    "ASSIGN_OP": "assign/increase/decrease/scale-up/scale-down",
    "AT_START": "'at start'",
    "AT_END": "'at end'",
    "OVER_ALL": "'over all'",
    "TIL_AT": "'at <time>'",
    "OPTIMIZATION": "minimize or maximize",
    "HASH_T": "'#t'",
    "$END": "end of file",
}


class _Frame:
    __slots__ = ("head", "name", "keyword")

    def __init__(self) -> None:
        self.head: str | None = None
        self.name: str | None = None
        self.keyword: str | None = None

    def label(self) -> list[str]:
        if self.head is None:
            return []
        if self.head == "define":
            return [self.name] if self.name else []
        out = [f"{self.head} {self.name}" if self.name else self.head]
        return out + ([self.keyword] if self.keyword else [])


def nesting_path(text: str, offset: int) -> str:
    """The chain of open s-expressions at `offset`, e.g. ``domain > :durative-action load``."""
    stack: list[_Frame] = []
    for m in _TOKEN.finditer(text, 0, offset):
        tok = m.group()
        if tok.startswith(";"):
            continue
        if tok == "(":
            stack.append(_Frame())
        elif tok == ")":
            if stack:
                closed = stack.pop()
                if stack and stack[-1].head == "define" and closed.head in ("domain", "problem"):
                    stack[-1].name = closed.head
        elif stack:
            frame, low = stack[-1], tok.lower()
            if frame.head is None:
                frame.head = low
            elif frame.head in _NAMED_HEADS and frame.name is None and not low.startswith(":"):
                frame.name = low
            elif low.startswith(":"):
                frame.keyword = low
    return " > ".join(part for frame in stack for part in frame.label())


def _readable(parser: Lark, names: set[str] | frozenset[str]) -> str:
    out: set[str] = set()
    for name in names:
        if name in _READABLE:
            out.add(_READABLE[name])
            continue
        try:
            pattern = parser.get_terminal(name).pattern
        except KeyError:
            out.add(name)
            continue
        if pattern.type == "str":
            out.add(repr(pattern.value))
        else:
            out.add(name.lower())
    ordered = sorted(out)
    if len(ordered) > 8:
        ordered = ordered[:8] + ["..."]
    return ", ".join(ordered) if ordered else "something else"


def _line_text(text: str, line: int) -> str:
    lines = text.splitlines()
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def from_lark(exc: UnexpectedInput, parser: Lark, text: str, file: str | None,
              what: str) -> InputError:
    """One InputError for a Lark syntax error in a `what` ("domain"/"problem"/"plan") file."""
    offset = getattr(exc, "pos_in_stream", None)
    line = getattr(exc, "line", None)
    column = getattr(exc, "column", None)
    if isinstance(exc, UnexpectedToken) and exc.token.type == "$END" or isinstance(
            exc, UnexpectedEOF):
        found = "end of file"
        offset = len(text)
        line = text.count("\n") + 1
        column = len(text) - (text.rfind("\n") + 1) + 1
        expected = _readable(parser, getattr(exc, "expected", set()) or set())
    elif isinstance(exc, UnexpectedToken):
        found = repr(str(exc.token))
        offset = exc.token.start_pos
        expected = _readable(parser, exc.accepts or exc.expected)
    elif isinstance(exc, UnexpectedCharacters):
        found = repr(text[exc.pos_in_stream]) if exc.pos_in_stream < len(text) else "end of file"
        expected = _readable(parser, exc.allowed or set())
    else:  # pragma: no cover - Lark has no other subclasses today
        found, expected = "?", "?"
    path = nesting_path(text, offset or 0) or what
    message = f"syntax error in {what}: expected {expected}, found {found}"
    if offset is not None and _LEADING_DOT.match(text, offset):
        message += " (write 0.5, not .5: VAL does not read a number that starts with a dot)"
    if line is not None:
        snippet = _line_text(text, line)
        if snippet:
            message += f"\n  line: {snippet}"
    return InputError(message, Location(file, line, column, path), found=None)


def at_offset(text: str, offset: int, file: str | None, message: str, what: str) -> InputError:
    """An InputError located at character `offset` of `text`."""
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    path = nesting_path(text, offset) or what
    return InputError(message, Location(file, line, column, path))

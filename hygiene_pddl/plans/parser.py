"""Read VAL-style plan files with the Lark grammar `plan.lark`."""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache
from importlib import resources
from pathlib import Path

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from hygiene_pddl.errors import InputError, Location

from .model import STATUSES, Plan, PlanStep

_STATUS = re.compile(r";\s*status\s*:\s*(\S*)\s*$", re.IGNORECASE)
_COST = re.compile(r";\s*cost\s*:(.*)$", re.IGNORECASE)
_COST_ITEM = re.compile(r"([a-z_][a-z0-9_\-]*)=(-?(?:\d+(?:\.\d*)?|\.\d+))$", re.IGNORECASE)
_TRAILER = re.compile(r";\s*cost\s*=\s*(-?(?:\d+(?:\.\d*)?|\.\d+))\s*(?:\([^)]*\))?\s*$",
                      re.IGNORECASE)
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
    """The plan grammar's LALR parser (built once)."""
    text = resources.files("hygiene_pddl.plans").joinpath("plan.lark").read_text("utf-8")
    return Lark(text, parser="lalr", lexer="contextual", maybe_placeholders=False)


def _number(tok: Token) -> Fraction:
    text = str(tok)
    return Fraction(text[:-1] if text.endswith(".") else text)


def _expected(names) -> str:
    out = sorted({_READABLE.get(n, n.lower()) for n in names or ()})
    return ", ".join(out) if out else "something else"


def _error(message: str, text: str, file: str | None, line: int, column: int | None) -> InputError:
    lines = text.split("\n")
    offending = lines[line - 1].rstrip("\r") if 0 < line <= len(lines) else ""
    full = f"{message}\n  line {line}: {offending}\n  ({_SHAPE})"
    return InputError(full, Location(file, line, column))


def _syntax_error(exc: UnexpectedInput, text: str, file: str | None) -> InputError:
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
    return _error(f"syntax error in plan: expected {expected}, found {found}", text, file,
                  max(line, 1), column)


def _step(tree: Tree) -> PlanStep:
    time = duration = None
    names: list[str] = []
    for child in tree.children:
        if isinstance(child, Tree) and child.data == "time":
            time = _number(child.children[0])
        elif isinstance(child, Tree) and child.data == "duration":
            duration = _number(child.children[0])
        else:
            names.append(str(child).lower())
    first = tree.children[0]
    line = first.children[0].line if isinstance(first, Tree) else first.line
    return PlanStep(names[0], tuple(names[1:]), time, duration, line)


def _annotation(comment: Token, text: str, file: str | None, fields: dict) -> None:
    body = str(comment).rstrip("\r")
    m = _STATUS.match(body)
    if m:
        value = m.group(1).lower()
        if value not in STATUSES:
            raise _error(f"unknown plan status {m.group(1)!r}: expected infeasible or "
                         "undetermined", text, file, comment.line, comment.column)
        fields["status"] = value
        return
    m = _TRAILER.match(body)
    if m:
        fields["trailer_cost"] = Fraction(m.group(1).rstrip(".") or "0")
        return
    m = _COST.match(body)
    if m:
        matches = [_COST_ITEM.match(part) for part in m.group(1).split()]
        if all(matches):  # anything else is an ordinary comment
            fields["cost"] = tuple((i.group(1).lower(), Fraction(i.group(2).rstrip(".")))
                                   for i in matches)


def parse_plan(text: str, file: str | None = None) -> Plan:
    """Parse plan text; raise InputError (line:column, the offending line, what was expected)."""
    if not text.endswith("\n"):
        text += "\n"
    try:
        tree = grammar().parse(text)
    except UnexpectedInput as exc:
        raise _syntax_error(exc, text, file) from None
    steps: list[PlanStep] = []
    fields: dict = {}
    for line in tree.children:
        for child in line.children:
            if isinstance(child, Tree):
                steps.append(_step(child))
            else:
                _annotation(child, text, file, fields)
    if fields.get("status") and steps:
        first = steps[0]
        raise _error(f"the plan says `status: {fields['status']}` but has steps", text, file,
                     first.line or 1, 1)
    return Plan(tuple(steps), **fields)


def read_plan(path: str | Path) -> Plan:
    """Read and parse the plan file at `path`."""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise InputError(f"cannot read plan file: {exc.strerror or exc}",
                         Location(str(path))) from None
    return parse_plan(text, str(path))

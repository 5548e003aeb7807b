"""Read VAL-style plan files with the Lark grammar `plan.lark`."""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache
from importlib import resources
from pathlib import Path

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from hygiene_pddl.decimals import parse_decimal
from hygiene_pddl.errors import InputError, Location
from hygiene_pddl.lexical import check_source, read_source

from .model import STATUSES, Plan, PlanStep

_WS = re.compile(r"[ \t\f\r\v]+")
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


def _number(literal: str, source: str, file: str | None, line: int, column: int) -> Fraction:
    try:
        return parse_decimal(literal)
    except ValueError as exc:
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


def _step(tree: Tree, source: str, file: str | None) -> PlanStep:
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


@lru_cache(maxsize=1)
def _line_pattern() -> re.Pattern:
    """A plan line with at most one step, in the grammar's own terminals (plan.lark), for the fast path."""
    num, name, comment = (grammar().get_terminal(n).pattern.to_regexp() for n in ("NUMBER", "NAME", "COMMENT"))
    ws = r"[ \t\f\r\v]*"
    step = (rf"(?:(?P<time>{num}){ws}:{ws})?\({ws}(?P<names>(?:{name})(?:[ \t\f\r\v]+(?:{name}))*){ws}\){ws}"
            rf"(?:\[{ws}(?P<duration>{num}){ws}\]{ws})?")
    return re.compile(rf"{ws}(?:{step})?(?P<comment>{comment})?")


def _fast_lines(text: str, file: str | None, steps: list[PlanStep], fields: dict) -> bool:
    """Read ``text`` line by line with :func:`_line_pattern` (the grammar's language for one step a line,
    some hundred times faster than the LALR parser); False, with nothing read, when a line needs the parser."""
    pattern = _line_pattern()
    matches = [pattern.fullmatch(line) for line in text.split("\n")[:-1]]
    if not all(matches):
        return False
    for number, m in enumerate(matches, start=1):
        if m.group("names"):
            time, duration = m.group("time"), m.group("duration")
            names = _WS.split(m.group("names").lower())
            steps.append(PlanStep(
                names[0], tuple(names[1:]),
                None if time is None else _number(time, text, file, number, m.start("time") + 1),
                None if duration is None else _number(duration, text, file, number, m.start("duration") + 1),
                number))
        if m.group("comment"):
            _annotation(Token("COMMENT", m.group("comment"), line=number, column=m.start("comment") + 1),
                        text, file, fields)
    return True


def _parsed_lines(text: str, file: str | None, steps: list[PlanStep], fields: dict) -> None:
    """Read ``text`` with the LALR parser (any plan; positioned syntax errors)."""
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


def parse_plan(text: str, file: str | None = None) -> Plan:
    """Parse plan text; raise InputError (line:column, the offending line, what was expected)."""
    if not text.endswith("\n"):
        text += "\n"
    check_source(text, file, "plan", nesting=False)
    steps: list[PlanStep] = []
    fields: dict = {}
    if not _fast_lines(text, file, steps, fields):
        _parsed_lines(text, file, steps, fields)
    if fields.get("status") and steps:
        first = steps[0]
        raise _error(f"the plan says `status: {fields['status']}` but has steps", text, file,
                     first.line or 1, 1)
    return Plan(tuple(steps), **fields)


def read_plan(path: str | Path) -> Plan:
    """Read and parse the plan file at `path`."""
    try:
        text = read_source(path)
    except OSError as exc:
        raise InputError(f"cannot read plan file: {exc.strerror or exc}",
                         Location(str(path))) from None
    return parse_plan(text, str(path))

"""Lexical rules of PDDL and plan files as VAL reads them, checked before the grammar sees the text.

VAL's lexer reads bytes: a name or a number is ASCII, a comment runs from ``;`` to the next line feed (a
lone carriage return does not end it). Python's regular expressions are wider: ``\\d`` matches a fullwidth
``２`` and a case-insensitive ``[a-z]`` matches the Kelvin sign ``K`` and the long ``ſ``, which then fold
into names and keywords VAL never reads. So a character outside ASCII is refused outside comments (a
byte-order mark at the very start is ignored, as in VAL), and so is nesting beyond the limit.
"""

from __future__ import annotations

import re
import unicodedata

from hygiene_pddl.errors import InputError, Location
from hygiene_pddl.jsonpos import line_column
from hygiene_pddl.limits import MAX_NESTING, nesting_too_deep

#: Words VAL's lexer (pddl+.l) reads as keywords wherever they stand, so they cannot name anything.
VAL_KEYWORDS = frozenset({
    "define", "domain", "problem", "and", "or", "not", "imply", "exists", "forall", "when", "either",
    "minimize", "maximize", "is-violated", "duration", "total-time", "number", "increase", "decrease",
    "scale-up", "scale-down", "assign", "preference", "always", "sometime", "within", "at-most-once",
    "sometime-after", "sometime-before", "always-within", "hold-during", "hold-after", "after",
    "supply-demand", "name"})
#: Words that VAL reads as one token when they follow each other (``at start``, ``at end``, ``over all``,
#: ``at 5``): a constant with such a name can meet its neighbour in an atom and turn into a keyword.
TEMPORAL_WORDS = frozenset({"at", "over", "all", "start", "end"})

COMMENT = re.compile(r";[^\n]*")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_PARENS = re.compile(r"[()]")


def read_source(path) -> str:
    """The text of a PDDL or plan file as VAL sees it: only a line feed ends a line; a leading byte-order mark
    is dropped, as VAL ignores it."""
    with open(path, encoding="utf-8-sig", errors="replace", newline="") as f:
        return f.read()


def blank_comments(text: str) -> str:
    """``text`` with every comment replaced by spaces (offsets unchanged)."""
    return COMMENT.sub(lambda m: " " * len(m.group()), text)


def check_source(text: str, file: str | None, what: str, nesting: bool = True) -> str:
    """Refuse non-ASCII outside comments and (``nesting``) parentheses nested beyond the limit.

    Returns the text with comments blanked, for further scans.
    """
    clean = blank_comments(text)
    m = _NON_ASCII.search(clean, 1 if clean.startswith("\ufeff") else 0)
    if m:
        ch = m.group()
        name = unicodedata.name(ch, "") if ch != "\ufffd" else "a byte that is not UTF-8"
        raise _at(text, m.start(), file, f"character {ch!r} (U+{ord(ch):04X} {name}) in a {what} file: "
                                         "names, keywords and numbers are ASCII (only comments may hold "
                                         "other characters)")
    if nesting:
        depth = 0
        for p in _PARENS.finditer(clean):
            depth += 1 if p.group() == "(" else -1
            if depth > MAX_NESTING:
                raise _at(text, p.start(), file, nesting_too_deep(f"{what} parentheses"))
    return clean


def _at(text: str, offset: int, file: str | None, message: str) -> InputError:
    line, column = line_column(text, offset)
    return InputError(message, Location(file, line, column))

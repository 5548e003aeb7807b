"""The input limits every reader enforces (README, exit-code table); beyond one a command exits 2 naming the place.

They keep malformed or hostile input from crashing (Python's recursion and integer-conversion limits, float
overflow) or hanging a command (planners over absurd horizons, alias bombs).
"""

from __future__ import annotations

#: Nesting of parentheses in PDDL files, and of lists and mappings in JSON and YAML files.
MAX_NESTING = 100
#: Characters of one number literal (PDDL, plans, JSON, YAML).
MAX_NUMBER_CHARS = 1000
#: Integer literals (no decimal point) in PDDL and plan files: VAL reads them as a 32-bit C int (atoi).
MAX_INT_LITERAL = 2**31 - 1
#: Times, durations, horizons and amounts in instances, references and registries (in TU or units).
MAX_UNITS = 10**9
#: Stock levels the classical flavour writes as objects (Fast Downward, SymK, ENHSP read that flavour).
MAX_STOCK_LEVELS = 1000
#: Time units after the decision time in a problem that declares its makespan with ticks (one object per TU).
MAX_TICKS = 10**4
#: Nodes of a YAML document with its aliases expanded (an alias bomb expands to billions).
MAX_YAML_NODES = 10**6


def number_too_long(text: str) -> str | None:
    """The complaint about a number literal longer than MAX_NUMBER_CHARS, or None."""
    if len(text) <= MAX_NUMBER_CHARS:
        return None
    return f"a number of {len(text)} characters (at most {MAX_NUMBER_CHARS} are supported)"


def nesting_too_deep(what: str) -> str:
    return f"{what} nested deeper than {MAX_NESTING} levels (the supported limit)"

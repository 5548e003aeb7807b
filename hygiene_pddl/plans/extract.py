"""The tolerant plan reader: the plan inside a planner's plan file or console output.

Planners print their plans among other lines (search progress, statistics) and with small quirks:
LPG-td writes ``[2.0000])`` after timed initial literals, OPTIC/POPF print every improved plan in turn.
:func:`extract_plan` keeps the lines shaped like plan steps, takes the last run of them (the last,
best plan of an anytime planner), repairs the known quirks, and reads the result with the strict
reader (:func:`hygiene_pddl.plans.parser.parse_plan`), so times stay exact rationals.
"""

from __future__ import annotations

import re

from hygiene_pddl.plans.model import Plan
from hygiene_pddl.plans.parser import parse_plan

_STEP = re.compile(r"^\s*(?:-?\d+(?:\.\d*)?\s*:)?\s*\(\s*[a-z_][\w\-]*(?:\s+[\w\-]+)*\s*\)\s*"
                   r"(?:\[\s*-?\d+(?:\.\d*)?\s*\]\)?)?\s*(?:;.*)?$", re.IGNORECASE)
_LPG_BRACKET = re.compile(r"\]\)(\s*(?:;.*)?)$")
_FD_COST = re.compile(r"^\s*;\s*cost\s*=", re.IGNORECASE)
_NEUTRAL = re.compile(r"^\s*(;.*)?$")  # blank lines and comments neither start nor end a plan


def plan_lines(text: str) -> list[str]:
    """The last run of step-shaped lines, with Fast Downward's ``; cost = N`` trailer; blank lines and
    comments neither start nor end a run (and other comments are dropped: they are the planner's)."""
    runs: list[list[str]] = []
    current: list[str] = []
    for line in text.replace("\r\n", "\n").split("\n"):
        if _STEP.match(line):
            current.append(_LPG_BRACKET.sub(r"]\1", line.strip()))
        elif _NEUTRAL.match(line):
            if current and _FD_COST.match(line):  # other comments are the planner's, not plan annotations
                current.append(line.strip())
        elif current:
            runs.append(current)
            current = []
    if current:
        runs.append(current)
    return runs[-1] if runs else []


def extract_plan(text: str, source: str | None = None) -> Plan:
    """The plan in a planner's output (an empty plan when it holds no step line)."""
    lines = plan_lines(text)
    return parse_plan("\n".join(lines) + "\n", source) if lines else Plan()

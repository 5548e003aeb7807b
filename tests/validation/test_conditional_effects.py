"""Conditional effects in durative actions, checked against VAL's recorded behaviour.

Each row: a plan and the effects (e1..e8 of object a) true at its end, as VAL 3c7a1f3 reports
them (None: VAL rejects the plan). Notable VAL behaviour reproduced here: the at-end part of a
condition spanning start and end is ignored (e6), and a `forall` around
`(when (at start C) (at end E))` fires for every binding whatever C (e8).
"""

from pathlib import Path

import pytest

from hygiene_pddl.pddl import parse_problem, read_domain
from hygiene_pddl.plans import parse_plan
from hygiene_pddl.validation.pddl_level import PddlValidator

DOMAIN = read_domain(Path(__file__).parent / "data" / "condfx-domain.pddl")
EFFECTS = ("e1", "e2", "e3", "e4", "e5", "e6", "e8")
ALL = set(EFFECTS)

CASES = [
    ("0: (act a) [1]", ALL),
    ("0: (unsetc a)\n0.5: (act a) [1]", {"e5", "e8"}),
    ("0: (act a) [1]\n0.5: (unsetc a)", ALL - {"e2"}),
    ("0: (act a) [1]\n0.5: (unsetd a)", ALL - {"e4", "e5"}),
    ("0: (unsetd a)\n0.5: (act a) [1]\n1.2: (setd a)", ALL - {"e4", "e5"}),
    ("0: (unsetc a)\n0: (unsetd a)\n0.5: (act a) [1]", {"e8"}),
    ("0: (act a) [1]\n0.999: (unsetc a)", None),
    ("0: (act a) [1]\n0.999: (unsetd a)", ALL),
    ("0: (act b) [1]", {"e8"}),
]


def _problem(goal: str):
    return parse_problem(f"(define (problem p) (:domain condfx) (:objects a b - item)"
                         f" (:init (c a) (d a)) (:goal {goal}))")


@pytest.mark.parametrize("plan, true_at_end", CASES)
def test_effects_at_end_match_val(plan, true_at_end):
    for e in EFFECTS:
        r = PddlValidator(DOMAIN, _problem(f"({e} a)")).validate(parse_plan(plan))
        if true_at_end is None:
            assert not r.valid and r.reason.name != "GOAL"
        else:
            assert r.valid is (e in true_at_end), e

"""The temporal metric ranks the same two plans as the profile does (issue 3): in spoon-fruit,
wash < replace under spare-parts-first and replace < wash under water-first."""

from fractions import Fraction

from hygiene_pddl.pddl import read_domain, read_problem
from hygiene_pddl.plans.parser import parse_plan
from hygiene_pddl.validation.pddl_level import PddlValidator
from tests.compiler.conftest import ROOT

WASH = """0.000: (wash-pad right right-pad) [3.000]
3.010: (pick right apple apple-skin counter right-pad) [1.000]
4.020: (place right apple plate apple-skin plate-top) [1.000]
"""
REPLACE = """0.000: (replace-pad right right-pad) [2.000]
2.010: (pick right apple apple-skin counter right-pad) [1.000]
3.020: (place right apple plate apple-skin plate-top) [1.000]
"""


def _metric(profile: str, plan: str) -> Fraction:
    stem = ROOT / "problems" / "spoon_fruit" / f"spoon_fruit-wash_then_touch-{profile}"
    validator = PddlValidator(read_domain(ROOT / "domains" / "spoon_fruit.pddl"), read_problem(f"{stem}.pddl"))
    result = validator.validate(parse_plan(plan))
    assert result.valid, result.failure
    return result.metric_value


def test_wash_ranks_below_replace_when_spare_parts_come_first():
    assert _metric("spare_parts_first", WASH) < _metric("spare_parts_first", REPLACE)


def test_replace_ranks_below_wash_when_water_comes_first():
    assert _metric("water_first", REPLACE) < _metric("water_first", WASH)

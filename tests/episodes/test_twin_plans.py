"""A pair's swap check carries a plan's world actions to the twin instance (hygiene_pddl.episodes.reference).

The makespan declaration ``(finish tuK)`` belongs to the problem: a profile pair can have one member whose problem
weighs makespan in whole TU (ticks) and one whose problem does not, and the swap must still read the plan.
"""

from dataclasses import replace
from pathlib import Path

import pytest

from compiler.problem import instance_uses_ticks
from hygiene_pddl.episodes.reference import Certified, admit_pair, for_twin
from hygiene_pddl.instances import load_instance
from hygiene_pddl.planners.nsp import HygieneNSP
from hygiene_pddl.registries import load_registries
from hygiene_pddl.validation.instance_level import evaluate_plan

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "mechanics"


@pytest.fixture(scope="module")
def reg():
    return load_registries()


def _twins(reg, key):
    inst = load_instance(EXAMPLES / f"{key}.json", reg)
    by_ticks = {}
    for name, profile in sorted(reg.profiles.items()):
        twin = replace(inst, profile=profile)
        by_ticks.setdefault(instance_uses_ticks(reg, twin), (name, twin))
    assert set(by_ticks) == {True, False}, "the example needs a profile with ticks and one without"
    return by_ticks[True][1], by_ticks[False][1]


@pytest.mark.parametrize("key", ["washer-soil-water_first", "fridge_handle-dirty"])
def test_a_plan_crosses_between_a_ticks_problem_and_one_without(reg, key):
    with_ticks, without = _twins(reg, key)
    for a, b in ((with_ticks, without), (without, with_ticks)):
        res = HygieneNSP().solve(a, 30, reg)
        own = evaluate_plan(reg, a, for_twin(reg, a, res.plan_text))
        assert own.valid and own.cost == res.cost  # the transfer onto its own instance changes nothing
        crossed = evaluate_plan(reg, b, for_twin(reg, b, res.plan_text))
        assert crossed.valid, crossed.findings
        # the same schedule: every dimension but the makespan's rounding is the same
        assert {k: v for k, v in crossed.cost.as_dict().items() if k != "makespan"} == \
            {k: v for k, v in res.cost.as_dict().items() if k != "makespan"}
        assert abs(crossed.cost.as_dict()["makespan"] - res.cost.as_dict()["makespan"]) < 1


def test_a_profile_pair_with_ticks_on_one_side_is_judged_not_refused(reg):
    with_ticks, without = _twins(reg, "washer-soil-water_first")
    certs = []
    for inst in (with_ticks, without):
        res = HygieneNSP().solve(inst, 30, reg)
        certs.append((inst, Certified(inst.id, True, res.cost, res.steps, res.plan_text, ())))
    why = admit_pair(reg, "profile", "general", certs[0], certs[1])
    assert "cannot" not in why and "not valid" not in why, why

"""Gripper ties in reference plans follow the family's handedness (hygiene_pddl/episodes/handedness.py)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from hygiene_pddl.certify import SearchStatus, exact_search
from hygiene_pddl.episodes.handedness import mirrored, mirrored_steps, right_handed
from hygiene_pddl.episodes.reference import certify
from hygiene_pddl.instances import load_instance
from hygiene_pddl.planners.base import plan_text
from hygiene_pddl.plans.parser import parse_plan
from hygiene_pddl.registries import load_registries
from hygiene_pddl.validation.instance_level import evaluate_plan

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "mechanics"
REG = load_registries()
LEFT, RIGHT = "mech_rinse_or_wash", "mech_fridge_handle"  # one family name of each hand


def _load(key: str):  # noqa: ANN202
    return load_instance(EXAMPLES / f"{key}.json", REG)


def test_half_of_the_families_are_right_handed():
    assert not right_handed(LEFT) and right_handed(RIGHT)
    share = sum(map(right_handed, REG.families)) / len(REG.families)
    assert 0.4 <= share <= 0.6


@pytest.mark.parametrize("key", ["gloves-canonical", "washer-soil-water_first", "fridge_handle-dirty"])
def test_a_plan_and_its_mirror_cost_the_same(key):
    inst = _load(key)
    assert mirrored(REG, mirrored(REG, inst)) == inst
    r = exact_search(REG, inst, max_actions=None, time_limit=30)
    assert r.status is SearchStatus.OPTIMAL
    back = mirrored_steps(REG, r.steps)
    assert {s.args for s in back} != {s.args for s in r.steps}
    text = plan_text(REG, mirrored(REG, inst), list(back), "test", r.cost)
    assert evaluate_plan(REG, mirrored(REG, inst), parse_plan(text)).cost == r.cost


@pytest.mark.parametrize("key", ["rinse_or_wash-soil", "spare_spoon-stocked"])
def test_a_tie_goes_to_the_familys_hand_at_the_same_cost(key):
    inst = _load(key)
    left, right = (certify(REG, replace(inst, family=f), time_limit=30) for f in (LEFT, RIGHT))
    assert left.ok and right.ok and left.cost == right.cost

    def treated(c):  # noqa: ANN001, ANN202
        return [s.args[0] for s in c.steps if REG.actions[s.name].treats]

    assert treated(left) == ["left"] and treated(right) == ["right"]
    for c in (left, right):  # the reference plan is a plan of the instance itself, at the certified cost
        assert evaluate_plan(REG, inst, parse_plan(c.plan_text)).cost == c.cost

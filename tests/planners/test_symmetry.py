"""Interchangeable objects (planners/symmetry.py) and the symmetry breaking in hygiene-nsp's joint model."""

import copy
import json

import pytest

from hygiene_pddl.episodes.scaling import scaled_instance_data
from hygiene_pddl.instances.loader import instance_from_data
from hygiene_pddl.planners.base import PlanStatus
from hygiene_pddl.planners.grounding import ground_all
from hygiene_pddl.planners.joint import build_joint_model, solution
from hygiene_pddl.planners.lexsat import lexsolve
from hygiene_pddl.planners.nsp import SETTINGS, HygieneNSP
from hygiene_pddl.planners.symmetry import interchangeable_classes
from hygiene_pddl.registries import load_registries
from hygiene_pddl.replay import replay
from tests.benchmark_files import PROBLEMS

REG = load_registries()
SPOON = json.loads((PROBLEMS / "spoon_fruit" / "spoon_fruit-wash_then_touch-water_first.json").read_text())
BOWL = json.loads((PROBLEMS / "bowl_to_sink" / "bowl_to_sink-left_side_brush.json").read_text())


def test_copies_are_interchangeable_and_the_benchmark_objects_are_not():
    assert interchangeable_classes(instance_from_data(SPOON, REG)) == []
    inst = instance_from_data(scaled_instance_data(SPOON, 3), REG)
    assert interchangeable_classes(inst) == [["apple", "apple2", "apple3"]]


def test_a_difference_in_facts_goals_hazards_or_history_breaks_the_class():
    data = scaled_instance_data(SPOON, 3)
    moved = copy.deepcopy(data)  # apple3 starts on the plate
    for key in ("initial", "observations"):
        moved[key]["facts"] = sorted({f.replace("(at apple3 counter)", "(at apple3 plate)") for f in
                                      moved[key]["facts"]})
    assert interchangeable_classes(instance_from_data(moved, REG)) == [["apple", "apple2"]]
    dirty = copy.deepcopy(data)
    dirty["initial"]["hazards"].append({"carrier": ["apple2", "skin"], "hazard": "raw_meat_bacteria"})
    assert interchangeable_classes(instance_from_data(dirty, REG)) == [["apple", "apple3"]]
    handled = copy.deepcopy(data)  # apple3 was picked and put back in the history
    t = max(r["start"] + r.get("duration", 0) for r in handled["history"])
    handled["history"] += [{"args": ["right", "apple3", "skin", "counter"], "duration": 1, "kind": "action",
                            "name": "pick", "start": t},
                           {"args": ["right", "apple3", "counter"], "duration": 1, "kind": "action",
                            "name": "place", "start": t + 1}]
    handled["decision_time"] = t + 2
    handled["horizon"] += 2
    assert interchangeable_classes(instance_from_data(handled, REG)) == [["apple", "apple2"]]


def _solve(inst, classes):
    state = replay(inst, REG)
    planner = HygieneNSP()
    actions = ground_all(REG, inst, state, focus=True)
    bound, _ = planner.bounds(REG, inst, state, actions)
    jm = build_joint_model(REG, inst, state, actions, bound, True, classes)
    stages, tie = planner._stages(jm)
    res = lexsolve(jm.model, stages, time_limit=60, tie_break=tie, settings=SETTINGS,
                   lower_bounds={d: 0 for d, _ in stages})
    return res, *solution(jm, res)


@pytest.mark.parametrize(("base", "copies"), [(SPOON, 2), (SPOON, 3), (BOWL, 3)])
def test_breaking_the_symmetry_keeps_the_optimum_and_orders_first_uses(base, copies):
    inst = instance_from_data(scaled_instance_data(base, copies), REG)
    classes = interchangeable_classes(inst)
    assert classes
    plain, _, plain_cost = _solve(inst, [])
    broken, steps, cost = _solve(inst, classes)
    assert plain.status.value == broken.status.value == "optimal"
    assert cost == plain_cost
    for cls in classes:
        first = [min((i for i, s in enumerate(steps) if obj in s.args), default=len(steps)) for obj in cls]
        assert first == sorted(first)


def test_hygiene_nsp_plans_scaled_tasks():
    inst = instance_from_data(scaled_instance_data(BOWL, 3), REG)
    # the copies start where the bowl started; the history moved the bowl itself, so it is not one of them
    assert interchangeable_classes(inst) == [["bowl2", "bowl3"]]
    result = HygieneNSP(relax=False).solve(inst, 60, REG)  # the joint model, where the symmetry is broken
    assert result.status is PlanStatus.PLAN and result.proved_optimal
    picked = [s.args[1] for s in result.steps if s.name == "pick"]
    assert sorted(picked) == ["bowl", "bowl2", "bowl3"]
    assert picked.index("bowl2") < picked.index("bowl3")

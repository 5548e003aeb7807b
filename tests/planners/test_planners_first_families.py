"""Planners on the first families (issue 5): every returned plan passes both validator levels, the
continuations are the hand-computed ones, and no-plan answers are honest."""

import json
from pathlib import Path

import pytest

from hygiene_pddl.instances import load_instance, load_reference
from hygiene_pddl.instances.loader import instance_from_data
from hygiene_pddl.planners import catalogue
from hygiene_pddl.planners.base import PlanStatus
from hygiene_pddl.planners.nsp import HygieneNSP
from hygiene_pddl.plans.parser import parse_plan
from hygiene_pddl.registries import load_registries
from hygiene_pddl.validation.instance_level import evaluate_plan
from hygiene_pddl.validation.pddl_level import validate_files
from tests.benchmark_files import instances as first_family_instances

ROOT = Path(__file__).resolve().parents[2]
INSTANCES = first_family_instances()
REG = load_registries()


def _solve(planner: str, path: Path):
    inst = load_instance(path, REG)
    return inst, catalogue()[planner].factory().solve(inst, 60, REG)


class _Solved(dict):
    """(planner, instance file name) -> (instance, result), solved on first use: under xdist the tests of this
    module run on both workers, and each solves only what its own tests read."""

    def __missing__(self, key):
        planner, name = key
        self[key] = _solve(planner, next(p for p in INSTANCES if p.name == name))
        return self[key]


@pytest.fixture(scope="module")
def results():
    return _Solved()


@pytest.mark.parametrize("planner", ["hygiene-nsp", "fd-cpsat"])
@pytest.mark.parametrize("path", INSTANCES, ids=lambda p: p.stem)
def test_plan_passes_both_levels_at_the_reference_optimum(results, planner, path, tmp_path):
    inst, result = results[(planner, path.name)]
    ref = load_reference(path.with_name(path.stem + ".reference.json"))
    assert result.status is PlanStatus.PLAN, result.notes
    report = evaluate_plan(REG, inst, parse_plan(result.plan_text), ref)
    assert report.valid, report.findings
    assert report.cost == result.cost  # the modelled cost is the evaluator's cost
    assert report.optimal, (report.cost, ref.optimal_cost)
    plan_file = tmp_path / "plan.txt"
    plan_file.write_text(result.plan_text)
    pddl = validate_files(ROOT / "domains" / f"{inst.family}.pddl", path.with_name(path.stem + ".pddl"), plan_file)
    assert pddl.valid, pddl.failure


def _treatments(result) -> list[str]:
    return [s.name for s in result.steps if s.name in ("wash-pad", "replace-pad", "disinfect-pad")]


def test_spoon_fruit_profiles_choose_wash_or_replace(results):
    _, spare = results[("hygiene-nsp", "spoon_fruit-wash_then_touch-spare_parts_first.json")]
    _, water = results[("hygiene-nsp", "spoon_fruit-wash_then_touch-water_first.json")]
    assert _treatments(spare) == ["wash-pad"] and spare.steps[0].args == ("right",)
    assert _treatments(water) == ["replace-pad"] and water.steps[0].args == ("right",)
    assert spare.cost.as_dict() == {**dict.fromkeys(spare.cost.as_dict(), 0), "water": 2, "cleaning_agent": 1,
                                    "active_robot_time": 5, "makespan": 5}
    assert water.cost.as_dict() == {**dict.fromkeys(water.cost.as_dict(), 0), "replacement_parts": 1,
                                    "solid_waste": 1, "active_robot_time": 4, "makespan": 4}


def test_spoon_fruit_history_order_changes_the_continuation(results):
    for profile in ("spare_parts_first", "water_first"):
        _, touched_late = results[("hygiene-nsp", f"spoon_fruit-wash_then_touch-{profile}.json")]
        _, touched_early = results[("hygiene-nsp", f"spoon_fruit-touch_then_wash-{profile}.json")]
        assert _treatments(touched_early) == [] and _treatments(touched_late) != []
        assert touched_early.cost != touched_late.cost


def test_bowl_to_sink_control_gives_the_same_continuation(results):
    for planner in ("hygiene-nsp", "fd-cpsat"):
        _, left = results[(planner, "bowl_to_sink-left_side_brush.json")]
        _, right = results[(planner, "bowl_to_sink-right_side_brush.json")]
        assert left.cost == right.cost
        assert [(s.start, s.name, s.args) for s in left.steps] == [(s.start, s.name, s.args) for s in right.steps]


def test_hot_cocoa_marshmallows_go_in_while_cooking(results):
    for profile in ("time_first", "energy_first"):
        _, r = results[("hygiene-nsp", f"hot_cocoa-{profile}.json")]
        assert r.cost["makespan"] == 13
        cook = next(s for s in r.steps if s.name == "cook")
        add = next(s for s in r.steps if s.name == "add-while-cooking")
        assert cook.start <= add.start and add.start + add.duration <= cook.start + cook.duration


def _variant(path: Path, **changes) -> object:
    data = json.loads(path.read_text())
    for key, value in changes.items():
        data[key] = value
    return instance_from_data(data, REG, path.stem + "-variant")


def test_no_stock_for_any_treatment_is_proved_infeasible():
    path = ROOT / "problems/spoon_fruit/spoon_fruit-wash_then_touch-spare_parts_first.json"
    data = json.loads(path.read_text())
    data["initial"]["stocks"] = {"water": 4, "cleaning_agent": 2, "spare_pads": 0}  # the history used 4 and 2
    data["resources"] = {"water": 0, "cleaning_agent": 0, "spare_pads": 0}
    inst = instance_from_data(data, REG, "no-stock")
    result = HygieneNSP().solve(inst, 60, REG)
    assert result.status is PlanStatus.INFEASIBLE
    assert "; status: infeasible" in result.plan_text
    assert evaluate_plan(REG, inst, parse_plan(result.plan_text)).claimed_status == "infeasible"


def test_too_little_time_is_undetermined_not_infeasible():
    inst = load_instance(ROOT / "problems/hot_cocoa/hot_cocoa-time_first.json", REG)
    result = HygieneNSP().solve(inst, 0.001, REG)
    assert result.status is not PlanStatus.INFEASIBLE
    if result.status is PlanStatus.UNDETERMINED:
        assert "; status: undetermined" in result.plan_text


def test_full_and_projected_state_agree():
    for path in INSTANCES:
        inst = load_instance(path, REG)
        full = HygieneNSP(project=False).solve(inst, 60, REG)
        projected = HygieneNSP(project=True).solve(inst, 60, REG)
        assert (full.status, full.cost) == (projected.status, projected.cost), path.name


def test_results_are_reproducible():
    inst = load_instance(ROOT / "problems/spoon_fruit/spoon_fruit-wash_then_touch-water_first.json", REG)
    a, b = HygieneNSP().solve(inst, 60, REG), HygieneNSP().solve(inst, 60, REG)
    assert a.plan_text == b.plan_text

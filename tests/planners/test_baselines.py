"""history-blind (plans from observations only) and treat-always (treat before every protected contact)."""

import json
from pathlib import Path

import pytest

from hygiene_pddl.instances import load_instance, load_reference
from hygiene_pddl.instances.loader import instance_from_data
from hygiene_pddl.planners import catalogue
from hygiene_pddl.planners.base import PlanStatus
from hygiene_pddl.planners.baselines import HistoryBlind, TreatAlways, blind_state
from hygiene_pddl.plans.parser import parse_plan
from hygiene_pddl.registries import load_registries
from hygiene_pddl.replay import replay
from hygiene_pddl.validation.instance_level import Problem, evaluate_plan

ROOT = Path(__file__).resolve().parents[2]
REG = load_registries()
PROFILES = ("spare_parts_first", "water_first")


def _path(history: str, profile: str) -> Path:
    return ROOT / f"problems/spoon_fruit/spoon_fruit-{history}-{profile}.json"


def _run(planner, path: Path):
    inst = load_instance(path, REG)
    result = planner.solve(inst, 30, REG)
    report = evaluate_plan(REG, inst, parse_plan(result.plan_text),
                           load_reference(path.with_name(path.stem + ".reference.json")))
    return result, report


def test_registered():
    for name in ("history-blind", "treat-always"):
        assert catalogue()[name].available() == (True, "")


def test_blind_state_keeps_only_the_initial_hazard_sources():
    inst = load_instance(_path("wash_then_touch", "water_first"), REG)
    truth = replay(inst, REG)
    belief = blind_state(inst, truth)
    assert {(f.carrier, f.hazard) for f in belief.contamination} == {(("tray", "rim"), "raw_meat_bacteria")}
    assert ("right", "pad") in truth.carried()  # what the history spread, and the blind planner misses
    assert belief.facts == truth.facts and belief.stocks == truth.stocks


@pytest.mark.parametrize("profile", PROFILES)
def test_history_blind_touches_the_apple_with_the_contaminated_pad(profile):
    result, report = _run(HistoryBlind(), _path("wash_then_touch", profile))
    assert result.status is PlanStatus.PLAN
    assert [s.name for s in result.steps] == ["pick", "place"]  # no treatment: it believes the pads are clean
    assert not report.valid
    finding = report.findings[0]
    assert finding.problem is Problem.HYGIENE and "apple skin" in finding.message
    assert "right pad" in finding.provenance


@pytest.mark.parametrize("profile", PROFILES)
def test_history_blind_is_right_when_the_history_does_not_matter(profile):
    result, report = _run(HistoryBlind(), _path("touch_then_wash", profile))
    assert result.status is PlanStatus.PLAN
    assert report.valid and report.optimal
    # optimal here, but its model is a belief, not the task: it never claims a proof of optimality
    assert not result.proved_optimal and any("own model only" in n for n in result.notes)


@pytest.mark.parametrize("history", ["touch_then_wash", "wash_then_touch"])
@pytest.mark.parametrize("profile", PROFILES)
def test_treat_always_is_safe_and_treats_before_the_apple(history, profile):
    result, report = _run(TreatAlways(), _path(history, profile))
    assert result.status is PlanStatus.PLAN
    assert report.valid, report.findings
    names = [(s.name, s.args[0]) for s in result.steps]
    pick = names.index(("pick", "right")) if ("pick", "right") in names else names.index(("pick", "left"))
    gripper = names[pick][1]
    assert names[pick - 1] == ("wash-pad", gripper)  # water allows: wash, right before the protected contact
    assert result.cost == report.cost


@pytest.mark.parametrize("profile", PROFILES)
def test_treat_always_costs_more_than_the_reference_when_the_pad_is_clean(profile):
    result, report = _run(TreatAlways(), _path("touch_then_wash", profile))
    ref = load_reference(_path("touch_then_wash", profile).with_name(f"spoon_fruit-touch_then_wash-{profile}"
                                                                      ".reference.json"))
    assert report.valid and not report.optimal
    assert not result.proved_optimal  # optimal in its restricted model only
    assert report.cost.key(load_instance(_path("touch_then_wash", profile), REG).profile) > \
        ref.optimal_cost.key(load_instance(_path("touch_then_wash", profile), REG).profile)
    assert report.first_worse[0] == "water"


def test_treat_always_replaces_when_water_does_not_allow_a_wash():
    path = _path("wash_then_touch", "spare_parts_first")
    data = json.loads(path.read_text())
    data["initial"]["stocks"] = {"water": 4, "cleaning_agent": 2, "spare_pads": 2}  # the history used 4 and 2
    data["resources"] = {"water": 0, "cleaning_agent": 0, "spare_pads": 2}
    inst = instance_from_data(data, REG, "no-water")
    result = TreatAlways().solve(inst, 30, REG)
    assert result.status is PlanStatus.PLAN
    assert [s.name for s in result.steps] == ["replace-pad", "pick", "place"]
    assert evaluate_plan(REG, inst, parse_plan(result.plan_text)).valid


def test_treat_always_never_claims_infeasibility_from_its_restriction():
    path = _path("touch_then_wash", "water_first")
    data = json.loads(path.read_text())
    data["initial"]["stocks"] = {"water": 4, "cleaning_agent": 2, "spare_pads": 0}
    data["resources"] = {"water": 0, "cleaning_agent": 0, "spare_pads": 0}
    inst = instance_from_data(data, REG, "no-treatment")
    # the pad is clean, so the task is feasible without a treatment; the rule needs one and cannot have it
    result = TreatAlways().solve(inst, 30, REG)
    assert result.status is PlanStatus.UNDETERMINED
    assert any("proves nothing about the task" in n for n in result.notes)
    nsp = catalogue()["hygiene-nsp"].factory().solve(inst, 30, REG)
    assert nsp.status is PlanStatus.PLAN


def test_treat_always_takes_the_bound_from_the_task_not_6_actions():
    # a v2 instance whose reference has 7 actions and treat-always's plan 8 (history-blind and rule-sat share the
    # bound through baselines.joint_plan): with the v1 bound of 6 there is no plan (session 14's first run on v2:
    # treat-always without a plan on 92 of 103 instances)
    path = next((ROOT / "problems" / "clean_a_small_pet_cage-fresh_liner").glob("*-1976c698.json"))
    inst = load_instance(path, REG)
    assert len(load_reference(path.with_name(path.stem + ".reference.json")).plan) > 6
    result = TreatAlways().solve(inst, 20, REG)
    assert result.status is PlanStatus.PLAN and not result.proved_optimal and len(result.steps) > 6
    assert evaluate_plan(REG, inst, parse_plan(result.plan_text)).valid
    assert TreatAlways(max_actions=6).solve(inst, 20, REG).status is not PlanStatus.PLAN

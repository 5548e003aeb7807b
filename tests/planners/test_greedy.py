"""The greedy sequential first plan (planners/greedy.py) and the hint it gives hygiene-nsp's model."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from hygiene_pddl.episodes.scaling import scaled_instance_data
from hygiene_pddl.instances import load_instance
from hygiene_pddl.instances.loader import instance_from_data
from hygiene_pddl.planners.base import ChosenStep, PlanStatus, plan_text
from hygiene_pddl.planners.greedy import SequentialSearch
from hygiene_pddl.planners.grounding import ground_all
from hygiene_pddl.planners.joint import build_joint_model, completed_hint
from hygiene_pddl.planners.lexsat import evaluate
from hygiene_pddl.planners.nsp import HygieneNSP
from hygiene_pddl.planners.symmetry import interchangeable_classes
from hygiene_pddl.plans.parser import parse_plan
from hygiene_pddl.registries import load_registries
from hygiene_pddl.replay import replay
from hygiene_pddl.validation.instance_level import evaluate_plan
from tests.benchmark_files import PROBLEMS, one_per_family

REG = load_registries()
SPOON = json.loads((PROBLEMS / "spoon_fruit" / "spoon_fruit-wash_then_touch-water_first.json").read_text())


def _greedy(inst, bound=8):
    state = replay(inst, REG)
    actions = ground_all(REG, inst, state, focus=True)
    return state, actions, SequentialSearch(REG, inst, state, actions).search(bound)


def _text(inst, plan, reg=REG):
    steps, t = [], 0
    for i, a in enumerate(plan):
        steps.append(ChosenStep(t, a.name, a.args, a.duration, 2 * i))
        t += a.duration
    return plan_text(reg, inst, steps, "greedy", None)


def test_the_greedy_plan_treats_the_pad_the_profile_prefers():
    inst = instance_from_data(scaled_instance_data(SPOON, 2), REG)  # water first: replace, not wash
    _, _, plan = _greedy(inst)
    assert [a.text() for a in plan] == ["(replace-pad right)", "(pick right apple skin counter)",
                                        "(place right apple plate)", "(pick right apple2 skin counter)",
                                        "(place right apple2 plate)"]
    assert evaluate_plan(REG, inst, parse_plan(_text(inst, plan))).valid


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(one_per_family()))
def test_every_greedy_plan_passes_the_instance_level_validator(path):
    inst = load_instance(path, REG)
    _, _, plan = _greedy(inst)
    if plan is not None:
        report = evaluate_plan(REG, inst, parse_plan(_text(inst, plan)))
        assert report.valid, (path.name, [a.text() for a in plan], report.findings)


def test_no_plan_within_a_too_small_bound():
    inst = instance_from_data(scaled_instance_data(SPOON, 2), REG)
    assert _greedy(inst, bound=4)[2] is None  # five actions are needed


def test_the_completed_hint_is_a_solution_with_renamed_look_alikes():
    inst = instance_from_data(scaled_instance_data(SPOON, 3), REG)
    state, actions, plan = _greedy(inst)
    classes = interchangeable_classes(inst)
    jm = build_joint_model(REG, inst, state, actions, 8, True, classes)
    backwards = [plan[0], *plan[5:7], *plan[3:5], *plan[1:3]]  # apple3, apple2, apple: renamed on the way in
    hint = completed_hint(jm, backwards, classes, 5.0)
    assert hint is not None
    used = [a.text() for j, a in enumerate(jm.actions) if evaluate(jm.used[j], hint)]
    assert sorted(used) == sorted(a.text() for a in plan)
    assert completed_hint(jm, [plan[0], plan[0]], classes, 5.0) is None  # one ground action used twice


def test_hygiene_nsp_with_and_without_the_hint_agree():
    inst = instance_from_data(scaled_instance_data(SPOON, 4), REG)
    hinted = HygieneNSP(relax=False).solve(inst, 60, REG)
    cold = HygieneNSP(hint=False, relax=False).solve(inst, 60, REG)
    assert hinted.status is cold.status is PlanStatus.PLAN
    assert hinted.proved_optimal and cold.proved_optimal
    assert hinted.cost == cold.cost


def test_longer_tasks_get_a_capped_separate_tie_break(monkeypatch):
    import hygiene_pddl.planners.nsp as nsp

    calls = []
    real = nsp.lexsolve

    def recording(model, stages, **kwargs):
        calls.append((stages, kwargs))
        return real(model, stages, **kwargs)

    monkeypatch.setattr(nsp, "lexsolve", recording)
    long_task = instance_from_data(scaled_instance_data(SPOON, 6), REG)  # bound 12 + 2
    result = HygieneNSP(relax=False).solve(long_task, 60, REG)  # the joint model, not the relaxation's proof
    assert result.status is PlanStatus.PLAN and result.proved_optimal and len(result.steps) == 13
    stages, kwargs = calls[-1]
    assert kwargs["tie_break_deterministic_time"] == nsp.TIE_BREAK_DTIME and kwargs["tie_break"] is not None
    assert kwargs["hint"] is not None and "tie_break" not in stages[-1][0]
    calls.clear()
    HygieneNSP(relax=False).solve(instance_from_data(SPOON, REG), 60, REG)  # benchmark task: joined, uncapped
    stages, kwargs = calls[-1]
    assert kwargs["tie_break_deterministic_time"] is None and kwargs["hint"] is None


def test_the_staged_search_plans_the_laundry_family_within_few_nodes(tmp_path):
    # wash (the hot programme: the towel is mouldy), dry, fold and shelve two garments, with pads that touched the
    # dirty laundry: without the helpful actions' queue the second stage met a plateau of about 1200 nodes. The
    # family as it was before session 9 (tests/fixtures/families: the packaged one now starts in the running wash)
    import shutil
    from pathlib import Path

    from hygiene_pddl.episodes.builder import realise
    from hygiene_pddl.episodes.designs import family_designs
    from hygiene_pddl.registries import load_registries
    from hygiene_pddl.registries.loader import DATA_DIR

    root = Path(__file__).resolve().parents[2]
    name = "doing_laundry-wash_dry_fold"
    data = tmp_path / "data"
    shutil.copytree(DATA_DIR, data)
    shutil.copy(root / "tests" / "fixtures" / "families" / f"{name}-two_garments.yaml",
                data / "families" / f"{name}.yaml")
    reg = load_registries(data)
    arch, design = next(iter(family_designs(reg, reg.families[name]).items()))
    ep = realise(reg, name, arch, design)[0]
    inst = instance_from_data(ep.public(reg), reg, ep.id)
    state = replay(inst, reg)
    plan = SequentialSearch(reg, inst, state, ground_all(reg, inst, state)).staged(48, max_nodes=300)
    assert plan is not None and len(plan) >= 20
    report = evaluate_plan(reg, inst, parse_plan(_text(inst, plan, reg)))
    assert report.valid, report.findings[:1]


def test_the_joint_model_stops_building_at_its_deadline():
    import time

    import pytest

    from hygiene_pddl.planners.joint import OutOfTime

    inst = instance_from_data(SPOON, REG)
    state = replay(inst, REG)
    actions = ground_all(REG, inst, state, focus=True)
    with pytest.raises(OutOfTime):
        build_joint_model(REG, inst, state, actions, 8, deadline=time.perf_counter() - 1)
    assert build_joint_model(REG, inst, state, actions, 8, deadline=time.perf_counter() + 60).slots == 16

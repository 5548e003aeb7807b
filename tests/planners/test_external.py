"""External engines through unified-planning: flavours, adaptations, mapping plans back, honest failures.

The engine runs (``ENGINE`` mark) start real planners on one spoon_fruit instance with a 20 s limit; set
``HYGIENE_SKIP_ENGINES=1`` to skip them (the rest of the file needs a few seconds).
"""

import os
from pathlib import Path

import pytest

from hygiene_pddl import cli
from hygiene_pddl.instances import load_instance, load_reference
from hygiene_pddl.planners import catalogue, external
from hygiene_pddl.planners.base import PlanStatus
from hygiene_pddl.planners.external import (
    ENGINES,
    FLAVOUR_LABEL,
    ExternalPlanner,
    call_engine,
    engine_available,
    grid,
    list_schedule,
    render_numeric,
    sequential_to_happenings,
)
from hygiene_pddl.plans.parser import parse_plan
from hygiene_pddl.registries import load_registries
from hygiene_pddl.validation.instance_level import evaluate_plan
from hygiene_pddl.validation.pddl_level import validate_files

ROOT = Path(__file__).resolve().parents[2]
REG = load_registries()
SPOON = ROOT / "problems/spoon_fruit/spoon_fruit-wash_then_touch-water_first.json"
COCOA = ROOT / "problems/hot_cocoa/hot_cocoa-time_first.json"
ENGINE = pytest.mark.skipif(os.environ.get("HYGIENE_SKIP_ENGINES") == "1", reason="HYGIENE_SKIP_ENGINES=1")


def _reference(path: Path):
    return load_reference(path.with_name(path.stem + ".reference.json"))


def test_every_engine_is_registered_with_an_honest_availability():
    planners = catalogue()
    for key in ENGINES:
        info = planners[f"external:{key}"]
        ok, why = info.available()
        assert isinstance(ok, bool) and (ok or why)
        assert "adaptations" in info.description


def test_planners_command_lists_every_planner_with_its_reason(capsys):
    assert cli.main(["planners"]) == 0
    out = capsys.readouterr().out
    for name, info in catalogue().items():
        assert name in out
        ok, why = info.available()
        assert ("available" if ok else f"unavailable: {why}") in out
    for name in ("rule-sat", "history-blind", "treat-always", "external:kairos", "external:fast-downward"):
        assert name in out


def test_unavailable_engine_says_why_and_answers_undetermined(monkeypatch):
    monkeypatch.setattr(external.shutil, "which", lambda _: None)
    ok, why = engine_available("enhsp")
    assert not ok and "java" in why.lower()
    result = ExternalPlanner("enhsp").solve(load_instance(SPOON, REG), 5, REG)
    assert result.status is PlanStatus.UNDETERMINED
    assert any("cannot run here" in n and "java" in n.lower() for n in result.notes)


def test_numeric_flavour_has_numeric_stocks_and_no_levels():
    from unified_planning.io import PDDLReader

    domain, problem = render_numeric(REG, load_instance(SPOON, REG))
    assert "level" not in domain and "minus-" not in domain and "level" not in problem
    assert "(>= (stock-water) 2)" in domain and "(decrease (stock-water) 2)" in domain
    assert "(= (stock-water) 6)" in problem and "(= (stock-spare_pads) 2)" in problem
    up = PDDLReader().parse_problem_string(domain, problem)
    assert {"NEGATIVE_CONDITIONS", "CONDITIONAL_EFFECTS", "ACTIONS_COST"} <= set(up.kind.features)
    assert not up.kind.has_continuous_time()
    assert {f.name for f in up.fluents} >= {"stock-water", "stock-cleaning_agent", "stock-spare_pads"}


def test_classical_plans_drop_levels_merge_halves_and_list_schedule():
    inst = load_instance(COCOA, REG)
    fd_plan = [(name, args.split(), None, None) for name, args in [
        ("pick", "left marshmallows marshmallows-bag counter left-pad"), ("cook-start", "pot stove"),
        ("add-while-cooking", "left marshmallows pot marshmallows-contents pot-inside"), ("cook-end", "pot stove"),
        ("pick", "right pot pot-handle stove right-pad"), ("pour", "right pot mug pot-inside mug-inside")]]
    actions, happenings = sequential_to_happenings(REG, inst, fd_plan, drop_levels=True)
    assert [a[0] for a in actions] == ["pick", "cook", "add-while-cooking", "pick", "pour"]
    assert happenings[1] == (1, "start") and happenings[3] == (1, "end")
    steps = list_schedule(REG, inst, actions, happenings)
    assert [(s.start, s.name) for s in steps] == [(0, "pick"), (0, "cook"), (1, "add-while-cooking"), (10, "pick"),
                                                 (11, "pour")]
    spoon = load_instance(SPOON, REG)
    actions, _ = sequential_to_happenings(REG, spoon, [("replace-pad", ["right", "right-pad", "n2", "n1"], None, None)],
                                          drop_levels=True)
    assert actions == [("replace-pad", ("right",))]


def test_grid_rounds_to_the_nearest_tu():
    from fractions import Fraction

    assert [grid(Fraction(x)) for x in ("0.0003", "2.001", "3.2", "4.5", "5.49")] == [0, 2, 3, 5, 5]


def test_temporal_plans_go_on_the_tu_grid_with_epsilon_separation():
    inst = load_instance(SPOON, REG)
    lpg_like = [["replace-pad", ["right", "right-pad"], "3/10000", "2"],
                ["pick", ["right", "apple", "apple-skin", "counter", "right-pad"], "4001/2000", "1"],
                ["place", ["right", "apple", "plate", "apple-skin", "plate-top"], "3.0008", "1"]]
    steps, text, notes = ExternalPlanner("lpg")._temporal(REG, inst, lpg_like)
    assert [(s.start, s.name) for s in steps] == [(0, "replace-pad"), (2, "pick"), (3, "place")]
    assert "2.010: (pick right apple apple-skin counter right-pad) [1.000]" in text and notes == []
    report = evaluate_plan(REG, inst, parse_plan(text), _reference(SPOON))
    assert report.valid and report.optimal


@pytest.mark.parametrize("start", ["fork", "spawn"])
def test_engine_crash_is_undetermined_with_the_reason(monkeypatch, start):
    monkeypatch.setattr(external, "ENGINE_START", start)
    monkeypatch.setattr(external, "render_for", lambda spec, reg, inst: ("(define (domain broken", "(define"))
    result = ExternalPlanner("fast-downward").solve(load_instance(SPOON, REG), 20, REG)
    assert result.status is PlanStatus.UNDETERMINED and result.steps == ()
    assert any("CRASH" in n for n in result.notes)
    assert "; status: undetermined" in result.plan_text


@pytest.mark.parametrize("start", ["fork", "spawn"])
def test_engine_past_the_time_limit_is_killed(monkeypatch, start):
    from hygiene_pddl.planners.external import render_for

    monkeypatch.setattr(external, "ENGINE_START", start)
    domain, problem = render_for(ENGINES["kairos"], REG, load_instance(COCOA, REG))
    out = call_engine("kairos", domain, problem, time_limit=0.1, grace=0.0)  # killed after 1 s
    assert out["status"] == "KILLED" and "killed" in out["error"]


@pytest.mark.parametrize("status", ["KILLED", "TIMEOUT"])
def test_an_engine_out_of_time_is_a_timeout_not_an_answer(monkeypatch, status):
    monkeypatch.setattr(external, "call_engine", lambda *a, **k: {"status": status, "error": "no answer"})
    result = ExternalPlanner("kairos").solve(load_instance(COCOA, REG), 5, REG)
    assert result.status is PlanStatus.UNDETERMINED and result.timed_out
    monkeypatch.setattr(external, "call_engine", lambda *a, **k: {"status": "UNSOLVABLE_INCOMPLETELY"})
    assert not ExternalPlanner("kairos").solve(load_instance(COCOA, REG), 5, REG).timed_out


@ENGINE
@pytest.mark.parametrize("key", sorted(ENGINES))
def test_engine_on_spoon_fruit_gives_an_accepted_plan_or_an_honest_answer(key, tmp_path):
    ok, why = engine_available(key)
    if not ok:
        pytest.skip(f"{key} unavailable here: {why}")
    inst = load_instance(SPOON, REG)
    result = ExternalPlanner(key).solve(inst, 20, REG)
    assert result.planner == f"external:{key}"
    assert result.notes and result.notes[0].startswith(FLAVOUR_LABEL[ENGINES[key].flavour] + " flavour")
    if result.status is PlanStatus.PLAN:
        report = evaluate_plan(REG, inst, parse_plan(result.plan_text), _reference(SPOON))
        assert report.valid, (key, report.findings, result.plan_text)
        assert report.cost == result.cost
        assert [s.name for s in result.steps][-2:] == ["pick", "place"]
        assert result.steps[0].name in ("wash-pad", "replace-pad")  # the contaminated right pad is treated
        assert not result.proved_optimal
        (tmp_path / "plan.txt").write_text(result.plan_text)
        pddl = validate_files(ROOT / "domains/spoon_fruit.pddl", SPOON.with_suffix(".pddl"), tmp_path / "plan.txt")
        assert pddl.valid, pddl.failure  # both validator levels agree
    else:
        assert result.status is PlanStatus.UNDETERMINED
        assert any(n.startswith("engine status") for n in result.notes)


@ENGINE
@pytest.mark.parametrize("key", ["tamer", "aries", "lpg"])
def test_engines_on_the_lowered_files_give_a_valid_plan_in_seconds(key):
    """TAMER, Aries and LPG-td read hygiene-pddl's lowering (`compile --for KEY`), not unified-planning's
    compilers (minutes on the v2 domains, and broken on the makespan ticks); external:lpg runs the binary."""
    ok, why = engine_available(key)
    if not ok:
        pytest.skip(f"{key} unavailable here: {why}")
    inst = load_instance(SPOON, REG)
    result = catalogue()[f"external:{key}"].factory().solve(inst, 30, REG)
    assert result.status is PlanStatus.PLAN, result.notes
    report = evaluate_plan(REG, inst, parse_plan(result.plan_text), _reference(SPOON))
    assert report.valid and report.cost == result.cost, report.findings
    assert dict(result.timings)["total"] < 30

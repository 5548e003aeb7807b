"""Scaled tasks (hygiene_pddl/episodes/scaling.py): well-formed instances whose plans grow with the copies,
checked by both validators."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.render import render_domain, render_problem
from hygiene_pddl.episodes.scaling import delivered_items, scaled_instance_data
from hygiene_pddl.instances.loader import instance_from_data
from hygiene_pddl.planners.base import PlanStatus
from hygiene_pddl.planners.nsp import HygieneNSP
from hygiene_pddl.plans.parser import parse_plan
from hygiene_pddl.registries import load_registries
from hygiene_pddl.replay import replay
from hygiene_pddl.validation.instance_level import evaluate_plan
from hygiene_pddl.validation.pddl_level import validate_files
from tests.benchmark_files import PROBLEMS, one_per_family

REG = load_registries()
SPOON = json.loads((PROBLEMS / "spoon_fruit" / "spoon_fruit-wash_then_touch-water_first.json").read_text())
BASES = [p for p in one_per_family() if delivered_items(json.loads(p.read_text()))]


def test_one_copy_is_the_instance():
    assert scaled_instance_data(SPOON, 1) == SPOON


def test_copies_of_the_delivered_item():
    data = scaled_instance_data(SPOON, 3)
    assert data["id"] == "spoon_fruit-wash_then_touch-water_first-x3"
    assert data["goals"] == ["(at apple plate)", "(safe apple)", "(at apple2 plate)", "(safe apple2)",
                             "(at apple3 plate)", "(safe apple3)"]
    assert data["objects"]["apple3"] == "apple"
    assert "(at apple2 counter)" in data["initial"]["facts"] and "(at apple3 counter)" in data["observations"]["facts"]
    assert data["horizon"] == SPOON["horizon"] + 8
    assert SPOON["goals"] == ["(at apple plate)", "(safe apple)"]  # the input is left alone


def test_scaled_plan_is_longer_and_valid_at_both_levels(tmp_path):
    data = scaled_instance_data(SPOON, 3)
    inst = instance_from_data(data, REG)
    result = HygieneNSP().solve(inst, 60, REG)
    assert result.status is PlanStatus.PLAN and result.proved_optimal
    assert len(result.steps) == 3 + 2 * 2  # the replacement, then a pick and a place per apple
    report = evaluate_plan(REG, inst, parse_plan(result.plan_text))
    assert report.valid, report.findings
    assert report.cost == result.cost
    (tmp_path / "d.pddl").write_text(render_domain(REG, inst.family))
    (tmp_path / "p.pddl").write_text(render_problem(REG, inst)[0])
    (tmp_path / "plan.txt").write_text(result.plan_text)
    pddl = validate_files(tmp_path / "d.pddl", tmp_path / "p.pddl", tmp_path / "plan.txt")
    assert pddl.valid, pddl.failure


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(BASES), st.integers(min_value=1, max_value=4))
def test_scaled_instances_load_and_keep_the_hygiene_state(path, copies):
    data = json.loads(path.read_text())
    scaled = scaled_instance_data(data, copies)
    assert scaled == scaled_instance_data(data, copies)  # deterministic
    safe = [i for i, _ in delivered_items(data) if f"(safe {i})" in data["goals"]]  # format 2: each copy too
    assert len(scaled["goals"]) == len(data["goals"]) + (copies - 1) * (len(delivered_items(data)) + len(safe))
    base, inst = instance_from_data(data, REG), instance_from_data(scaled, REG)
    before, after = replay(base, REG).carried(), replay(inst, REG).carried()
    assert {c: hs for c, hs in after.items() if c[0] in dict(base.objects) or c[0] in REG.grippers} == before


def test_scale_command_writes_a_task_that_compiles(tmp_path, capsys):
    from hygiene_pddl.cli import main
    from hygiene_pddl.instances import load_instance
    from hygiene_pddl.pddl import read_problem

    out = tmp_path / "longer.json"
    src = PROBLEMS / "spoon_fruit" / "spoon_fruit-wash_then_touch-water_first.json"
    assert main(["scale", str(src), "--copies", "3", "-o", str(out)]) == 0
    assert "spoon_fruit-wash_then_touch-water_first-x3" in capsys.readouterr().out
    assert load_instance(out, REG).goals[-2:] == (("at", "apple3", "plate"), ("safe", "apple3"))
    assert main(["compile", str(out), "-o", str(tmp_path / "pddl")]) == 0
    problem = read_problem(tmp_path / "pddl" / "problem.pddl")
    assert {"apple2", "apple3"} <= {o.name for o in problem.objects}


def test_scale_command_rejects_what_it_cannot_scale(tmp_path, capsys):
    from hygiene_pddl.cli import main

    cocoa = PROBLEMS / "hot_cocoa" / "hot_cocoa-time_first.json"
    assert main(["scale", str(cocoa), "--copies", "2", "-o", str(tmp_path / "x.json")]) == 2
    err = capsys.readouterr().err
    assert "hot_cocoa-time_first.json: at goals: no goal (at ITEM PLACE)" in err and "Traceback" not in err
    spoon = PROBLEMS / "spoon_fruit" / "spoon_fruit-wash_then_touch-water_first.json"
    assert main(["scale", str(spoon), "--copies", "0", "-o", str(tmp_path / "x.json")]) == 2
    assert "--copies must be at least 1, not 0" in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()


def test_a_taken_copy_name_is_skipped():
    data = json.loads(json.dumps(SPOON))
    data["objects"]["apple2"] = data["objects"]["apple"]  # an object named like the first copy already exists
    scaled = scaled_instance_data(data, 3)
    assert [g for g in scaled["goals"] if g.startswith("(at")] == ["(at apple plate)", "(at apple3 plate)",
                                                                    "(at apple4 plate)"]
    assert "apple2" not in str(scaled["initial"]["hazards"]) and "(at apple2 counter)" not in scaled["initial"]["facts"]
    instance_from_data(scaled, REG)

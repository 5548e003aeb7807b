"""One semantics at both validator levels, equal to VAL's (issues 12 and 16).

Each case states VAL's own verdict, measured with Validate (KCL-Planning/VAL 3c7a1f3) on the same files;
the tests check that the PDDL level and the instance level both give it: happenings merge in VAL's doubles,
over-all conditions hold on the open interval, a timed literal (an ongoing action's end, the deadline) is a
happening of its own, and a well-typed but inapplicable step makes the plan invalid (exit 1), not unreadable.
"""

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from compiler.render import render_domain, render_problem
from hygiene_pddl.episodes.reference import chosen_steps
from hygiene_pddl.instances import load_instance, load_reference
from hygiene_pddl.instances.loader import instance_from_data
from hygiene_pddl.pddl import read_domain, read_problem
from hygiene_pddl.planners.base import ChosenStep, plan_text
from hygiene_pddl.plans import parse_plan
from hygiene_pddl.registries import load_registries
from hygiene_pddl.validation.instance_level import Problem, evaluate_plan
from hygiene_pddl.validation.pddl_level import PddlValidator

ROOT = Path(__file__).resolve().parents[2]
REG = load_registries()
SPOON = ROOT / "problems" / "spoon_fruit"
COCOA = ROOT / "problems" / "hot_cocoa" / "hot_cocoa-energy_first.json"


def _levels(domain: Path, problem: Path, inst, text: str) -> tuple[bool, bool, object]:
    plan = parse_plan(text)
    pddl = PddlValidator(read_domain(domain), read_problem(problem)).validate(plan)
    report = evaluate_plan(REG, inst, plan)
    return pddl.valid, report.valid, report


def _spoon(stem: str):
    path = SPOON / f"{stem}.json"
    return ROOT / "domains" / "spoon_fruit.pddl", path.with_suffix(".pddl"), load_instance(path, REG)


# VAL: 2.01 + 1 = 3.0099999999999998 in doubles, so a start at 3.011 is more than 0.001 after that end
# (valid), while 3.0109 is within it (one happening: the place needs the holding the pick adds; invalid).
@pytest.mark.parametrize("start, val", [("3.011", True), ("3.0109", False)])
def test_happenings_merge_in_vals_doubles(start, val):
    text = (f"0: (replace-pad right right-pad) [2]\n2.01: (pick right apple apple-skin counter right-pad) [1]\n"
            f"{start}: (place right apple plate apple-skin plate-top) [1]\n")
    assert _levels(*_spoon("spoon_fruit-wash_then_touch-water_first"), text)[:2] == (val, val)


def test_over_all_conditions_hold_on_the_open_interval():
    # add-while-cooking needs (cooking pot) over all and ends with the cook, whose end deletes it: VAL: valid
    text = """0.000: (cook pot stove) [10.000]
0.000: (pick left marshmallows marshmallows-bag counter left-pad) [1.000]
9.000: (add-while-cooking left marshmallows pot marshmallows-contents pot-inside) [1.000]
10.010: (pick right pot pot-handle stove right-pad) [1.000]
11.020: (pour right pot mug pot-inside mug-inside) [2.000]
13.030: (finish tu13)
"""
    inst = load_instance(COCOA, REG)
    assert _levels(ROOT / "domains" / "hot_cocoa.pddl", COCOA.with_suffix(".pddl"), inst, text)[:2] == (True, True)


# The deadline literal of spoon_fruit is (at 5.5 (not (in-time))); every action needs (in-time) at its end.
@pytest.mark.parametrize("start, val", [("4.4985", True), ("4.4995", False), ("4.5", False)])
def test_an_end_in_one_happening_with_the_deadline_literal_is_invalid(start, val):
    text = ("0.000: (wash-pad right right-pad) [3.000]\n3.010: (pick right apple apple-skin counter right-pad) [1]\n"
            f"{start}: (place right apple plate apple-skin plate-top) [1.000]\n")
    pddl, instance, report = _levels(*_spoon("spoon_fruit-wash_then_touch-spare_parts_first"), text)
    assert (pddl, instance) == (val, val)
    if not val:
        assert report.findings[0].problem is Problem.HORIZON


@pytest.fixture(scope="module")
def cooking(tmp_path_factory):
    """Hot cocoa decided at t=5 while the cook (2-12) runs: its end is the timed literal (at 7 (cooked pot))."""
    data = json.loads(COCOA.read_text())
    data["id"] = "hot_cocoa-cooking"
    data["history"].append({"kind": "action", "name": "cook", "args": ["pot", "stove"], "start": 2,
                            "duration": 10})
    data["decision_time"], data["horizon"] = 5, 20
    data["observations"]["facts"] = sorted(data["observations"]["facts"] + ["(cooking pot)"])
    inst = instance_from_data(data, REG, "hot_cocoa-cooking")
    folder = tmp_path_factory.mktemp("cooking")
    (folder / "d.pddl").write_text(render_domain(REG, inst.family))
    (folder / "p.pddl").write_text(render_problem(REG, inst)[0])
    (folder / "i.json").write_text(json.dumps(data))
    assert "(at 7 (cooked pot))" in (folder / "p.pddl").read_text()
    return folder, inst


# The running cook keeps the pot on the stove until its end, the timed literal at 7 that deletes (keep-at pot
# stove). VAL puts a pick of the pot and the literal in one happening and reads the pick's (not (keep-at pot
# stove)) before it: invalid at 6.9995, 7 and 7.0005; valid from 7.0011 on.
@pytest.mark.parametrize("pick, val", [("6.9995", False), ("7", False), ("7.0005", False), ("7.0011", True),
                                       ("7.01", True)])
def test_a_timed_literal_is_a_happening_of_its_own(cooking, pick, val):
    folder, inst = cooking
    pour = Fraction(pick) + Fraction(101, 100)
    text = f"""0: (pick left marshmallows marshmallows-bag counter left-pad) [1]
1.01: (add-while-cooking left marshmallows pot marshmallows-contents pot-inside) [1]
{pick}: (pick right pot pot-handle stove right-pad) [1]
{float(pour)}: (pour right pot mug pot-inside mug-inside) [2]
{float(pour + 2) + 0.01}: (finish tu10)
"""
    pddl, instance, report = _levels(folder / "d.pddl", folder / "p.pddl", inst, text)
    assert (pddl, instance) == (val, val)
    if not val:  # the instance level: the running cook's over-all condition, read in the literal's happening
        assert report.findings[0].problem is Problem.CONDITION and "running until" in report.findings[0].message


def test_plan_writer_puts_a_dependent_step_epsilon_after_the_literal(cooking):
    folder, inst = cooking
    steps = [ChosenStep(0, "pick", ("left", "marshmallows", "bag", "counter"), 1, 0),
             ChosenStep(1, "add-while-cooking", ("left", "marshmallows", "pot"), 1, 1),
             ChosenStep(7, "pick", ("right", "pot", "handle", "stove"), 1, 2),
             ChosenStep(8, "pour", ("right", "pot", "mug"), 2, 3)]
    plan = parse_plan(plan_text(REG, inst, steps, "test", None))
    pick = next(s for s in plan.steps if s.action == "pick" and s.args[0] == "right")
    assert pick.time == Fraction(701, 100)
    pddl = PddlValidator(read_domain(folder / "d.pddl"), read_problem(folder / "p.pddl")).validate(plan)
    assert pddl.valid and evaluate_plan(REG, inst, plan).valid


def test_an_inapplicable_well_typed_step_is_an_invalid_plan_at_both_levels(tmp_path):
    # the right gripper with the left pad: VAL executes the step and its precondition (pad-of right left-pad)
    # fails (invalid); the instance level says the same instead of "unreadable input"
    stem = SPOON / "spoon_fruit-wash_then_touch-spare_parts_first"
    plan = tmp_path / "swap.plan"
    plan.write_text("0.000: (wash-pad right right-pad) [3.000]\n"
                    "3.010: (pick right apple apple-skin counter left-pad) [1.000]\n"
                    "4.020: (place right apple plate apple-skin plate-top) [1.000]\n")
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "validate_plan.py"),
                          str(ROOT / "domains" / "spoon_fruit.pddl"), f"{stem}.pddl", str(plan), "--instance",
                          f"{stem}.json", "--json"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 1, run.stdout + run.stderr
    data = json.loads(run.stdout)
    assert data["valid"] is False and data["levels_agree"] is True and data["reason"] == "precondition"
    finding = data["instance_level"]["findings"][0]
    assert finding["problem"] == "condition" and finding["step"] == 2 and "left-pad" in finding["message"]


def test_the_reference_plans_stay_valid_at_both_levels():
    # a plan writer's output of every first-family reference still passes both levels (the epsilon rules)
    for path in sorted(SPOON.glob("*.json")):
        if path.name.endswith(".reference.json"):
            continue
        inst, ref = load_instance(path, REG), load_reference(path.with_name(path.stem + ".reference.json"))
        steps = chosen_steps(ref.plan)
        plan = parse_plan(plan_text(REG, inst, steps, "reference", ref.optimal_cost))
        domain = read_domain(ROOT / "domains" / "spoon_fruit.pddl")
        pddl = PddlValidator(domain, read_problem(path.with_suffix(".pddl")))
        assert pddl.validate(plan).valid and evaluate_plan(REG, inst, plan, ref).optimal

"""Issue 17, job 2: advice names every failing condition and never a fact that cannot change; a correct
infeasibility claim is accepted; steps are numbered from 1 at both levels."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hygiene_pddl.pddl import parse_domain, parse_problem, read_domain, read_problem
from hygiene_pddl.plans import parse_plan
from hygiene_pddl.validation.pddl_level import PddlValidator
from tests.benchmark_files import an_infeasible_instance

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "validate_plan.py"
DOMAIN = """(define (domain toy) (:requirements :typing :durative-actions)
 (:types block)
 (:predicates (free ?b - block) (done ?b - block) (ready) (heavy ?b - block) (lit))
 (:durative-action work :parameters (?b - block) :duration (= ?duration 1)
  :condition (and (at start (free ?b)) (at start (heavy ?b)) (at start (lit)))
  :effect (and (at start (not (free ?b))) (at end (free ?b)) (at end (done ?b))))
 (:durative-action light :parameters () :duration (= ?duration 1)
  :condition (at start (ready)) :effect (at end (lit))))"""
PROBLEM = """(define (problem t1) (:domain toy) (:objects a b - block)
 (:init (free a) (heavy b)) (:goal (and (done a) (done b))))"""


def _advice(plan: str):
    validator = PddlValidator(parse_domain(DOMAIN), parse_problem(PROBLEM))
    return validator.validate(parse_plan(plan))


def test_every_failing_condition_of_every_member_of_the_failing_happening():
    result = _advice("0: (work a) [1]\n0: (work b) [1]\n")
    f = result.failure
    assert f.action == "(work a) - start" and f.step_index == 0  # VAL names the first failing member
    assert f.condition == "(heavy a) and (lit)"
    assert list(f.unsatisfied) == [
        "step 1 (work a) - start: (heavy a) is false in every state (no action or timed literal changes heavy)",
        "step 1 (work a) - start: set (lit) to true",
        "step 2 (work b) - start: set (free b) to true",
        "step 2 (work b) - start: set (lit) to true"]
    assert "step 2 (work b) - start: set (free b) to true before the happening at 0" in result.advice


def test_a_fact_no_action_changes_is_never_advised_to_change():
    result = _advice("0: (work b) [1]\n")
    assert list(result.failure.unsatisfied) == ["set (free b) to true", "set (lit) to true"]
    static = _advice("0: (light) [1]\n")
    assert list(static.failure.unsatisfied) == [
        "(ready) is false in every state (no action or timed literal changes ready)"]
    assert "set (ready)" not in static.advice and "before" not in static.advice


def test_benchmark_advice_never_sets_a_static_hazard_relation():
    stem = ROOT / "problems" / "spoon_fruit" / "spoon_fruit-wash_then_touch-spare_parts_first"
    plan = parse_plan("0.000: (pick right apple apple-skin counter right-pad) [1.000]\n"
                      "1.010: (place right apple plate apple-skin plate-top) [1.000]\n")
    result = PddlValidator(read_domain(ROOT / "domains" / "spoon_fruit.pddl"),
                           read_problem(f"{stem}.pddl")).validate(plan)
    assert not result.valid and "(unsafe" not in result.advice
    assert "set (contaminated right-pad raw_meat_bacteria) to false" in result.advice


def _validate(stem: Path, plan_text: str, tmp_path: Path, *extra: str) -> subprocess.CompletedProcess:
    plan = tmp_path / "answer.plan"
    plan.write_text(plan_text)
    family = stem.parent.name
    return subprocess.run([sys.executable, str(SCRIPT), str(ROOT / "domains" / f"{family}.pddl"), f"{stem}.pddl",
                           str(plan), "--instance", f"{stem}.json", "--json", *extra],
                          capture_output=True, text=True, timeout=120)


INFEASIBLE = an_infeasible_instance().with_suffix("")
FEASIBLE = ROOT / "problems" / "spoon_fruit" / "spoon_fruit-wash_then_touch-spare_parts_first"


def test_a_correct_infeasibility_claim_is_accepted(tmp_path):
    assert json.loads(INFEASIBLE.with_suffix(".reference.json").read_text())["feasible"] is False
    run = _validate(INFEASIBLE, "; status: infeasible\n", tmp_path, "--reference", f"{INFEASIBLE}.reference.json")
    assert run.returncode == 0, run.stdout + run.stderr
    data = json.loads(run.stdout)
    assert data["valid"] is True and data["exit"] == 0 and data["levels_agree"] is None
    assert data["status"] == "invalid"  # the PDDL level validates an empty plan, as VAL does
    assert data["instance_level"]["claimed_status"] == "infeasible"
    assert data["instance_level"]["reference_feasible"] is False


@pytest.mark.parametrize("stem, reference, hint", [(FEASIBLE, True, "safe continuation"),
                                                   (INFEASIBLE, False, "claims")])
def test_a_claim_that_cannot_be_confirmed_is_invalid(tmp_path, stem, reference, hint):
    extra = ("--reference", f"{stem}.reference.json") if reference else ()
    run = _validate(stem, "; status: infeasible\n", tmp_path, *extra)
    assert run.returncode == 1, run.stdout + run.stderr
    data = json.loads(run.stdout)
    assert data["valid"] is False and hint in data["instance_level"]["findings"][0]["message"]


def test_steps_are_numbered_from_one_at_both_levels(tmp_path):
    run = _validate(FEASIBLE, "0.000: (wash-pad right right-pad) [3.000]\n"
                              "3.010: (pick right apple apple-skin counter right-pad) [1.000]\n"
                              "4.020: (place right apple plate apple-skin plate-top) [2.000]\n", tmp_path)
    data = json.loads(run.stdout)
    assert data["failure"]["step"] == 3 and data["instance_level"]["findings"][0]["step"] == 3
    assert data["instance_level"]["findings"][0]["problem"] == "duration"

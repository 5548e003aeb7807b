"""The metric ranks plans as the profile does for every plan VAL accepts, epsilon offsets included (world model v2
§3, proof in compiler/metric.py): plan pairs that differ only in offsets and in a later dimension."""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import pytest

from compiler.problem import instance_uses_ticks
from hygiene_pddl.instances.loader import instance_from_data
from hygiene_pddl.pddl import read_domain
from hygiene_pddl.pddl.parser import parse_problem
from hygiene_pddl.plans import read_plan
from hygiene_pddl.registries import load_registries
from hygiene_pddl.validation.instance_level import evaluate_plan
from hygiene_pddl.validation.pddl_level import PddlValidator

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "v2_val"
VAL = {(e["case"], e["plan"]): e for e in json.loads((HERE / "manifest.json").read_text())}
REG = load_registries()
#: (case, plan a, plan b): a carries 0.3 TU of epsilon drift, b has one more unit of active robot time
PAIRS = [("v2-wipe-time-first", "schedule.drift.plan", "extra-place.plan"),  # makespan > active time: ticks
         ("v2-wipe", "schedule.drift.plan", "extra-place.plan")]  # canonical, makespan last: (total-time)


def _inst(case: str):
    return instance_from_data(json.loads((HERE / case / "instance.json").read_text()), REG, case)


def _cost(case: str, plan: str):
    report = evaluate_plan(REG, _inst(case), read_plan(HERE / case / plan))
    assert report.valid, report.findings
    return report.cost


def _metric(case: str, plan: str, problem_text: str | None = None) -> Fraction:
    problem = parse_problem(problem_text or (HERE / case / "problem.pddl").read_text())
    result = PddlValidator(read_domain(HERE / case / "domain.pddl"), problem).validate(read_plan(HERE / case / plan))
    assert result.valid, result.failure
    return result.metric_value


@pytest.mark.parametrize("case,a,b", PAIRS)
def test_drift_pair_ranks_as_the_profile(case, a, b):
    inst = _inst(case)
    ca, cb = _cost(case, a), _cost(case, b)
    differ = [d for d in inst.profile.order if ca[d] != cb[d]]
    assert differ == ["active_robot_time"] and ca["makespan"] == cb["makespan"]
    assert inst.profile.better(ca, cb)
    assert Fraction(VAL[(case, a)]["val_final_value"]) < Fraction(VAL[(case, b)]["val_final_value"])
    assert _metric(case, a) < _metric(case, b)


def test_time_first_declares_makespan_and_canonical_weighs_total_time():
    assert instance_uses_ticks(REG, _inst("v2-wipe-time-first"))
    assert not instance_uses_ticks(REG, _inst("v2-wipe"))
    def metric(case: str) -> str:
        return re.search(r"\(:metric (.*)\)\n", (HERE / case / "problem.pddl").read_text()).group(1)

    assert "(total-time)" not in metric("v2-wipe-time-first") and "(cost-makespan)" in metric("v2-wipe-time-first")
    assert "    (finished)" in (HERE / "v2-wipe-time-first" / "problem.pddl").read_text()
    assert "(total-time)" in metric("v2-wipe") and "(cost-makespan)" not in metric("v2-wipe")


def test_total_time_weighting_would_misrank_the_time_first_pair():
    """Why whole TU: the same plans under a makespan weight on (total-time) (v1's metric) rank the drifting plan
    worse although the profile ranks it better."""
    case, a, b = PAIRS[0]
    text = (HERE / case / "problem.pddl").read_text()
    w = int(re.search(r"\(\* (\d+) \(cost-makespan\)\)", text).group(1))
    v1 = re.sub(r"\(:metric .*\)\n", f"(:metric minimize (+ (* {w} (total-time)) (* 1 (cost-active_robot_time))))\n",
                text)
    assert _metric(case, a, v1) > _metric(case, b, v1)
    assert _metric(case, a) < _metric(case, b)


@pytest.mark.parametrize("plan,valid", [("schedule.plan", True), ("schedule.finish-high.plan", True),
                                        ("schedule.finish-low.plan", False), ("schedule.no-finish.plan", False)])
def test_the_declared_makespan_is_the_makespan_at_both_levels(plan, valid):
    case = "v2-wipe-time-first"
    assert (VAL[(case, plan)]["val_verdict"] == "valid") is valid
    report = evaluate_plan(REG, _inst(case), read_plan(HERE / case / plan))
    assert report.valid is valid, report.findings
    if valid:
        declared = int(re.search(r"\(finish tu(\d+)\)", (HERE / case / plan).read_text()).group(1))
        assert report.cost["makespan"] == declared

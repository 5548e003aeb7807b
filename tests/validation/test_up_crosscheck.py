"""Cross-check with unified-planning's validators where they apply.

Known exceptions (not compared): UP ignores VAL's epsilon (so plans with happenings 0 < gap <=
tolerance/10 apart are skipped), and UP's makespan counts timed initial literals after the last
action while VAL's total-time stops at the plan's last happening (only verdicts are compared).
"""

import warnings
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest

from hygiene_pddl.pddl import read_domain, read_problem
from hygiene_pddl.plans import Plan, read_plan, write_plan
from hygiene_pddl.validation.pddl_level import PddlValidator

from .helpers import CLASSICAL, CLASSICAL_PROBLEM

up = pytest.importorskip("unified_planning")
DATA = Path(__file__).parent / "data" / "lpg"
CONFORMANCE = Path(__file__).resolve().parents[3] / "shared" / "conformance" / "ipc-temporal"


class _Up:
    """One UP problem, validating many plan texts."""

    def __init__(self, domain_path, problem_path):
        from unified_planning.io import PDDLReader
        from unified_planning.shortcuts import get_environment

        get_environment().credits_stream = None
        self.reader = PDDLReader()
        self.problem = self.reader.parse_problem(str(domain_path), str(problem_path))

    def valid(self, plan_text: str) -> bool:
        from unified_planning.shortcuts import PlanValidator

        plan = self.reader.parse_plan_string(self.problem, plan_text)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with PlanValidator(problem_kind=self.problem.kind, plan_kind=plan.kind) as v:
                return v.validate(self.problem, plan).status.name == "VALID"


def _mutants(plan: Plan):
    steps = list(plan.steps)
    yield plan
    for k in range(len(steps)):
        yield Plan(tuple(steps[:k] + steps[k + 1:]))
        s = steps[k]
        yield Plan(tuple(steps[:k] + [replace(s, duration=s.duration * 2)] + steps[k + 1:]))


def _eps_free(plan: Plan, tol: Fraction) -> bool:
    times = sorted([s.time for s in plan.steps] + [s.time + s.duration for s in plan.steps])
    return all(b == a or b - a > tol / 10 for a, b in zip(times, times[1:], strict=False))


@pytest.mark.skipif(not CONFORMANCE.is_dir(), reason="conformance corpus missing")
@pytest.mark.parametrize("name", ["ipc2008-pegsol-p01", "ipc2004-pipesworld-deadlines-p01"])
def test_temporal_verdicts_agree_with_up_time_triggered_validator(name):
    domain, problem = name.rsplit("-", 1)
    dpath, ppath = CONFORMANCE / domain / "domain.pddl", CONFORMANCE / domain / f"{problem}.pddl"
    ours = PddlValidator(read_domain(dpath), read_problem(ppath), tolerance="0.001")
    other = _Up(dpath, ppath)
    compared = 0
    for plan in _mutants(read_plan(DATA / f"{name}.plan")):
        if not _eps_free(plan, Fraction(1, 1000)):
            continue
        assert ours.validate(plan).valid is other.valid(write_plan(plan))
        compared += 1
    assert compared >= 5


@pytest.mark.parametrize("plan", ["(move c1 c2)\n(move c2 c3)", "(move c1 c2)", "(move c2 c3)",
                                  "(move c1 c2)\n(move c2 c1)\n(move c1 c2)\n(move c2 c3)"])
def test_classical_verdicts_agree_with_up_sequential_validator(tmp_path, plan):
    (tmp_path / "d.pddl").write_text(CLASSICAL)
    (tmp_path / "p.pddl").write_text(CLASSICAL_PROBLEM.format(metric=""))
    ours = PddlValidator(read_domain(tmp_path / "d.pddl"), read_problem(tmp_path / "p.pddl"))
    from hygiene_pddl.plans import parse_plan

    other = _Up(tmp_path / "d.pddl", tmp_path / "p.pddl")
    assert ours.validate(parse_plan(plan)).valid is other.valid(plan)

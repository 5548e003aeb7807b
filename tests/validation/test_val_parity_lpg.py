"""Parity with VAL's recorded verdicts on LPG-td plans for the IPC temporal conformance problems
and on their boundary mutants (a start moved to the previous end + 0 / 0.001 / 0.0011 / 0.002 /
0.01, durations off by 0.005 / -0.009 / 0.011, a duration bracket removed)."""

import json
from functools import cache
from pathlib import Path

import pytest

from hygiene_pddl.pddl import read_domain, read_problem
from hygiene_pddl.plans import parse_plan, read_plan
from hygiene_pddl.validation.pddl_level import PddlValidator

DATA = Path(__file__).parent / "data" / "lpg"
CONFORMANCE = Path(__file__).resolve().parents[3] / "shared" / "conformance" / "ipc-temporal"
BASE = json.loads((DATA / "val_verdicts.json").read_text())["cases"]
MUTANTS = json.loads((DATA / "val_mutants.json").read_text())["cases"]
pytestmark = pytest.mark.skipif(not CONFORMANCE.is_dir(), reason="conformance corpus missing")


@cache
def validator(name: str) -> PddlValidator:
    domain, problem = name.rsplit("-", 1)
    return PddlValidator(read_domain(CONFORMANCE / domain / "domain.pddl"),
                         read_problem(CONFORMANCE / domain / f"{problem}.pddl"))


def verdict(result) -> str:
    return f"valid {result.metric_text}" if result.valid else "invalid"


@pytest.mark.parametrize("case", BASE, ids=lambda c: f"{c['plan']}@{c['tolerance']}")
def test_lpg_plans_match_val(case):
    name = case["plan"][: -len(".plan")]
    r = validator(name).validate(read_plan(DATA / case["plan"]), tolerance=case["tolerance"])
    assert r.status.value == case["val_verdict"]
    if r.valid:
        assert r.metric_text == case["val_final_value"]


def test_mutants_match_val():
    mismatches = []
    for case in MUTANTS:
        plan = parse_plan(case["plan"])
        for tol, expected in case["val"].items():
            got = verdict(validator(case["base"]).validate(plan, tolerance=tol))
            if got != expected:
                mismatches.append((case["base"], case["mutation"], tol, expected, got))
    assert not mismatches
    assert len(MUTANTS) > 200

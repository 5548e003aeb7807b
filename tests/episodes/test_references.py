"""Every certified reference plan of the committed benchmark passes both validator levels at its optimum."""

import json
from functools import cache
from pathlib import Path

import pytest

from hygiene_pddl.instances import load_instance
from hygiene_pddl.pddl import read_domain, read_problem
from hygiene_pddl.plans.parser import parse_plan
from hygiene_pddl.registries import load_registries
from hygiene_pddl.validation.instance_level import evaluate_plan
from hygiene_pddl.validation.pddl_level import PddlValidator

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / "problems" / "MANIFEST.json"
REFS = json.loads(MANIFEST.read_text())["references"] if MANIFEST.exists() else {}
REG = load_registries()


@cache
def _domain(family: str):
    return read_domain(ROOT / "domains" / f"{family}.pddl")


def _chunks(n: int) -> list[list[str]]:
    ids = sorted(REFS)
    return [ids[i::n] for i in range(n)]


@pytest.mark.skipif(not REFS, reason="no full benchmark committed")
@pytest.mark.parametrize("ids", _chunks(8), ids=lambda c: f"{len(c)} references")
def test_reference_plans_pass_both_levels(ids):
    for iid in ids:
        ref = REFS[iid]
        family = next(p.parent.name for p in (ROOT / "problems").glob(f"*/{iid}.json"))
        stem = ROOT / "problems" / family / iid
        inst = load_instance(f"{stem}.json", REG)
        plan = parse_plan(ref["plan_text"])
        report = evaluate_plan(REG, inst, plan)
        pddl = PddlValidator(_domain(family), read_problem(f"{stem}.pddl")).validate(plan)
        if ref["feasible"]:
            assert report.valid and pddl.valid, (iid, report.findings, pddl.failure)
            assert report.cost.as_dict() == {k: v for k, v in ref["optimal_cost"].items()}, iid
        else:
            assert plan.status == "infeasible", iid
            assert not pddl.valid  # an empty plan does not reach the goal

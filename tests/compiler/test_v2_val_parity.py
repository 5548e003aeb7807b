"""v2 mechanics: VAL (recorded), our PDDL level and the instance level give every plan the same verdict.

tests/fixtures/v2_val/ holds, per hand-made case (tests/compiler/v2cases.py) and hand-checked example
(examples/mechanics/), the instance, its compiled temporal domain and problem, a valid schedule written by
plan_text, named variants and mutants, and VAL's verdict and Final value on each (make.py records them; the tests
never run VAL).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from compiler.render import render_instance_domain, render_problem
from hygiene_pddl.instances.loader import instance_from_data
from hygiene_pddl.pddl import read_domain, read_problem
from hygiene_pddl.plans import read_plan
from hygiene_pddl.registries import load_registries
from hygiene_pddl.validation.instance_level import evaluate_plan
from hygiene_pddl.validation.pddl_level import PddlValidator

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "v2_val"
ENTRIES = json.loads((HERE / "manifest.json").read_text())
REG = load_registries()


@cache
def _validator(case: str) -> PddlValidator:
    return PddlValidator(read_domain(HERE / case / "domain.pddl"), read_problem(HERE / case / "problem.pddl"))


@cache
def _instance(case: str):
    return instance_from_data(json.loads((HERE / case / "instance.json").read_text()), REG, case)


def _id(e: dict) -> str:
    return f"{e['case']}/{e['plan']}"


def test_the_fixture_covers_each_mechanism_with_valid_and_invalid_plans():
    cases = {e["case"] for e in ENTRIES}
    assert len(cases) >= 20 and all(e["val_verdict"] in ("valid", "invalid") for e in ENTRIES)
    for case in cases:
        verdicts = {e["plan"]: e["val_verdict"] for e in ENTRIES if e["case"] == case}
        assert verdicts["schedule.plan"] == "valid", case
        assert "invalid" in verdicts.values(), case


@pytest.mark.parametrize("entry", ENTRIES, ids=_id)
def test_pddl_level_equals_val(entry):
    result = _validator(entry["case"]).validate(read_plan(HERE / entry["case"] / entry["plan"]))
    assert result.valid == (entry["val_verdict"] == "valid"), result.failure
    if result.valid:
        assert result.metric_text == entry["val_final_value"]


@pytest.mark.parametrize("entry", ENTRIES, ids=_id)
def test_instance_level_equals_val(entry):
    report = evaluate_plan(REG, _instance(entry["case"]), read_plan(HERE / entry["case"] / entry["plan"]))
    assert report.valid == (entry["val_verdict"] == "valid"), report.findings


@pytest.mark.parametrize("case", sorted({e["case"] for e in ENTRIES}))
def test_fixture_is_what_the_compiler_writes(case):
    """The recorded verdicts are about today's compiler output (else: run tests/fixtures/v2_val/make.py)."""
    inst = _instance(case)
    assert (HERE / case / "domain.pddl").read_text() == render_instance_domain(REG, inst)
    assert (HERE / case / "problem.pddl").read_text() == render_problem(REG, inst)[0]

"""v2 mechanics: VAL (recorded), our PDDL level and the instance level give every plan the same verdict, and
everything the compiler writes parses with VAL's Parser (0 errors, 0 warnings) and unified-planning's reader.

tests/fixtures/v2_val/ holds, per hand-made case (tests/compiler/v2cases.py) and hand-checked example
(examples/mechanics/), the instance, every file the compiler writes for it, a valid schedule written by plan_text,
named variants, mutants and classical plans, and VAL's verdict and Final value on each (make.py records them; the
tests never run VAL).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from compiler.render import render_classical, render_instance_domain, render_problem
from hygiene_pddl.instances.loader import instance_from_data
from hygiene_pddl.pddl import read_domain, read_problem
from hygiene_pddl.plans import read_plan
from hygiene_pddl.registries import load_registries
from hygiene_pddl.validation.instance_level import evaluate_plan
from hygiene_pddl.validation.pddl_level import PddlValidator

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "v2_val"
ENTRIES = json.loads((HERE / "manifest.json").read_text())
REG = load_registries()


PARSED = json.loads((HERE / "parser.json").read_text())
FILES = {"temporal": ("domain.pddl", "problem.pddl"), "classical": ("classical-domain.pddl", "classical.pddl")}


@cache
def _validator(case: str, flavour: str = "temporal") -> PddlValidator:
    domain, problem = FILES[flavour]
    return PddlValidator(read_domain(HERE / case / domain), read_problem(HERE / case / problem))


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
    validator = _validator(entry["case"], entry.get("flavour", "temporal"))
    result = validator.validate(read_plan(HERE / entry["case"] / entry["plan"]))
    assert result.valid == (entry["val_verdict"] == "valid"), result.failure
    if result.valid:
        assert result.metric_text == entry["val_final_value"]


@pytest.mark.parametrize("entry", [e for e in ENTRIES if "flavour" not in e], ids=_id)
def test_instance_level_equals_val(entry):
    report = evaluate_plan(REG, _instance(entry["case"]), read_plan(HERE / entry["case"] / entry["plan"]))
    assert report.valid == (entry["val_verdict"] == "valid"), report.findings


@pytest.mark.parametrize("case", sorted({e["case"] for e in ENTRIES}))
def test_fixture_is_what_the_compiler_writes(case):
    """The recorded verdicts are about today's compiler output (else: run tests/fixtures/v2_val/make.py)."""
    inst = _instance(case)
    cdom, cprob, _ = render_classical(REG, inst)
    written = {"domain.pddl": render_instance_domain(REG, inst), "problem.pddl": render_problem(REG, inst)[0],
               "no-total-time.pddl": render_problem(REG, inst, metric_total_time=False)[0],
               "classical-domain.pddl": cdom, "classical.pddl": cprob}
    for name, text in written.items():
        assert (HERE / case / name).read_text() == text, name


@pytest.mark.parametrize("case", sorted(PARSED))
def test_val_parser_reads_every_flavour_without_errors_or_warnings(case):
    assert PARSED[case] == {"temporal": [0, 0], "no-total-time": [0, 0], "classical": [0, 0]}


#: one case per mechanism (unified-planning's reader takes seconds per file)
UP_CASES = ["v2-cook-keeps-pot", "v2-washer-running", "v2-capacity", "v2-gloves", "v2-wipe-time-first",
            "v2-dwell-must-end", "shared_basket-canonical"]


@pytest.mark.parametrize("case", UP_CASES)
def test_unified_planning_reads_the_no_total_time_and_classical_flavours(case):
    import warnings

    from unified_planning.io import PDDLReader

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for domain, problem in (("domain.pddl", "no-total-time.pddl"), ("classical-domain.pddl", "classical.pddl")):
            parsed = PDDLReader().parse_problem(str(HERE / case / domain), str(HERE / case / problem))
            assert parsed.actions and parsed.goals

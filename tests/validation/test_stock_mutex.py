"""Two happenings that draw on one stock at the same instant interfere: each checks ``(>= (stock-s) n)`` and
decreases it, so VAL's mutex rule (and our PDDL level) rejects them unless epsilon-separated. The instance level
and the plan writer did not count stocks as read and written (found in the session-8 v2 build: 9 of 596
reference plans, e.g. a scrub and a wash both drawing water at 1.010, passed the instance level only)."""

import json
from pathlib import Path

from compiler.render import render_domain, render_problem
from hygiene_pddl.episodes.builder import candidates
from hygiene_pddl.episodes.reference import steps_of_text
from hygiene_pddl.instances.loader import instance_from_data
from hygiene_pddl.pddl import parse_domain, parse_problem
from hygiene_pddl.planners.base import plan_text
from hygiene_pddl.plans.parser import parse_plan
from hygiene_pddl.registries import load_registries
from hygiene_pddl.validation.instance_level import Problem, evaluate_plan
from hygiene_pddl.validation.pddl_level import PddlValidator

REG = load_registries()
FAMILY = "clean_rubber_bathmats-lift_wash_spray"
#: Hygiene-NSP's plan for the family's base draft as the old writer put it: scrub and wash-item both start at 1.010
SIMULTANEOUS = """0.000: (pick right mat mat-edge tub right-pad) [1.000]
0.000: (pick left brush brush-handle stool left-pad) [1.000]
1.010: (scrub left brush tub brush-bristles tub-basin) [3.000]
1.010: (wash-item right mat mat-underside) [2.000]
3.020: (place right mat tub mat-underside tub-basin) [1.000]
4.030: (pick right spray-2 spray-trigger stool right-pad) [1.000]
5.040: (spray right spray-2 mat) [1.000]
6.050: (dwell mat mat-top) [5.000]
"""


def _base():
    ep = next(ep for c in candidates(REG, [FAMILY]) if c.archetype == "single" for ep in c.episodes)
    inst = instance_from_data(ep.public(REG), REG, ep.id)
    pddl = PddlValidator(parse_domain(render_domain(REG, FAMILY)), parse_problem(render_problem(REG, inst)[0]))
    return inst, pddl


def test_two_starts_drawing_water_at_one_instant_are_rejected_by_both_levels():
    inst, pddl = _base()
    plan = parse_plan(SIMULTANEOUS)
    report = evaluate_plan(REG, inst, plan)
    assert not report.valid and report.findings[0].problem is Problem.MUTEX and report.findings[0].step == 3
    verdict = pddl.validate(plan)
    assert not verdict.valid and "(stock-water)" in verdict.failure.message


def test_the_plan_writer_separates_them_and_both_levels_accept():
    inst, pddl = _base()
    steps = steps_of_text(REG, inst, SIMULTANEOUS)
    text = plan_text(REG, inst, list(steps), "test", None)
    times = {s.action: s.time for s in parse_plan(text).steps}
    assert times["wash-item"] > times["scrub"]  # one epsilon apart
    assert evaluate_plan(REG, inst, parse_plan(text)).valid and pddl.validate(parse_plan(text)).valid


def test_the_build_rejects_a_design_whose_reference_plan_fails_a_level():
    from hygiene_pddl.episodes.pipeline import plan_failures

    inst, _ = _base()
    chosen = [c for c in candidates(REG, [FAMILY]) if c.archetype == "single"]
    good = plan_text(REG, inst, list(steps_of_text(REG, inst, SIMULTANEOUS)), "test", None)
    cost = evaluate_plan(REG, inst, parse_plan(good)).cost.as_dict()

    def certs(text):
        return {inst.id: {"problem": "", "feasible": True, "optimal_cost": cost, "plan_text": text}}

    assert plan_failures(REG, chosen, certs(good)) == {}
    why = plan_failures(REG, chosen, certs(SIMULTANEOUS))[(FAMILY, "single")]
    assert why.startswith(f"{inst.id}: the reference plan fails the instance level") and "interfere" in why
    cheaper = certs(good)
    cheaper[inst.id]["optimal_cost"] = cost | {"water": cost["water"] - 1}
    assert "another cost" in plan_failures(REG, chosen, cheaper)[(FAMILY, "single")]


FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "stock_mutex"


def test_both_levels_give_vals_recorded_verdicts():
    """VAL's verdicts on the two plans (tests/fixtures/stock_mutex/val.json, recorded with VAL's Validate; the
    tests never run VAL) equal the PDDL level's and the instance level's, on the PDDL the compiler writes today."""
    inst, pddl = _base()
    assert (FIXTURE / "domain.pddl").read_text() == render_domain(REG, FAMILY)
    assert (FIXTURE / "problem.pddl").read_text() == render_problem(REG, inst)[0]
    for name, verdict in json.loads((FIXTURE / "val.json").read_text())["verdicts"].items():
        plan = parse_plan((FIXTURE / name).read_text())
        valid = verdict == "valid"
        assert pddl.validate(plan).valid is valid and evaluate_plan(REG, inst, plan).valid is valid, name

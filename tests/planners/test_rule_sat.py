"""Rule-SAT: goals read from the request by fixed rules (never from the grounded goals), then CP-SAT."""

import dataclasses
import json
from pathlib import Path

import pytest

from hygiene_pddl.instances import load_instance, load_reference
from hygiene_pddl.instances.loader import instance_from_data
from hygiene_pddl.planners import catalogue
from hygiene_pddl.planners.base import PlanStatus
from hygiene_pddl.planners.rule_sat import RuleSat, Unreadable, read_goals
from hygiene_pddl.plans.parser import parse_plan
from hygiene_pddl.registries import load_registries
from hygiene_pddl.validation.instance_level import Problem, evaluate_plan
from tests.benchmark_files import instances as first_family_instances

ROOT = Path(__file__).resolve().parents[2]
INSTANCES = first_family_instances()
REG = load_registries()
SPOON = ROOT / "problems/spoon_fruit/spoon_fruit-wash_then_touch-water_first.json"
COCOA = ROOT / "problems/hot_cocoa/hot_cocoa-time_first.json"


def _variant(path: Path, **changes):
    data = json.loads(path.read_text())
    data.update(changes)
    return instance_from_data(data, REG, path.stem + "-variant")


def test_registered():
    assert "rule-sat" in catalogue()
    assert catalogue()["rule-sat"].available() == (True, "")


@pytest.mark.parametrize("path", INSTANCES, ids=lambda p: p.stem)
def test_reads_the_grounded_goals_from_every_committed_request(path):
    inst = load_instance(path, REG)
    assert set(read_goals(REG, inst).goals) == set(inst.goals)


def test_reads_each_rule():
    cocoa = read_goals(REG, load_instance(COCOA, REG))
    assert cocoa.goals == (("has-cocoa", "mug"), ("melted", "marshmallows"))
    assert [r.split(" ")[0] for r in cocoa.rules] == ["product", "state"]
    sink = read_goals(REG, _variant(ROOT / "problems/bowl_to_sink/bowl_to_sink-left_side_brush.json",
                                    request="Please move the bowl into the sink."))
    assert sink.goals == (("at", "bowl", "sink"),)
    both = read_goals(REG, _variant(SPOON, request="Set the apple onto the plate, then put the spoon in the sink."))
    # deliveries are safe: the apple is protected, the sink receives contaminated things
    assert both.goals == (("at", "apple", "plate"), ("at", "spoon", "sink"), ("safe", "apple"))
    assert both.rules[-1] == "deliveries are safe"


def test_reads_multi_word_object_names():
    if not {"fruit_basket", "grapes"} <= set(REG.object_types):
        pytest.skip("the registry has no fruit_basket / grapes object types")
    inst = dataclasses.replace(load_instance(SPOON, REG), request="Could you put the grapes in the fruit basket?",
                               objects=(("counter", "counter"), ("fruit_basket", "fruit_basket"), ("grapes", "grapes")))
    assert read_goals(REG, inst).goals == (("at", "grapes", "fruit_basket"), ("safe", "grapes"))
    with pytest.raises(Unreadable, match="no rule matches"):  # no verb: the rules need one
        read_goals(REG, dataclasses.replace(inst, request="Grapes into the fruit basket, thanks."))


@pytest.mark.parametrize("request_text, why", [
    ("Could you tidy up a bit?", "no rule matches"),
    ("Pop the apple onto the plate.", "no rule matches"),  # verb outside the table
    ("Please put the pear on the plate.", "'pear' names no object"),  # not in this instance
    ("Please put it on the plate.", "'it' has no single object"),  # a pronoun with nothing before it
    ("Put the plate on the apple.", "apple is not a place"),  # reads, but does not type-check
])
def test_fails_honestly_on_requests_it_cannot_read(request_text, why):
    inst = _variant(SPOON, request=request_text)
    with pytest.raises(Unreadable, match=why):
        read_goals(REG, inst)
    result = RuleSat().solve(inst, 10, REG)
    assert result.status is PlanStatus.UNDETERMINED and result.steps == ()
    assert "; status: undetermined" in result.plan_text
    assert any("cannot read the request" in n and why.split(" ")[-1] in n for n in result.notes)


def test_plans_for_the_read_goals_with_full_replay():
    inst = load_instance(SPOON, REG)
    result = RuleSat().solve(inst, 30, REG)
    assert result.status is PlanStatus.PLAN
    assert "(at apple plate)" in result.notes[0]
    report = evaluate_plan(REG, inst, parse_plan(result.plan_text), load_reference(SPOON.with_name(
        SPOON.stem + ".reference.json")))
    assert report.valid and report.optimal  # the history is replayed: the right pad is replaced first
    assert not result.proved_optimal  # goals read from text are not the task's goals: no claim about the task
    assert [s.name for s in result.steps] == ["replace-pad", "pick", "place"]


def test_ignores_the_grounded_goals():
    # the grounded goal says sink, the request says plate: Rule-SAT follows the text, and the evaluator
    # (which checks the grounded goal) rejects the plan
    inst = _variant(SPOON, goals=["(at apple sink)"])
    result = RuleSat().solve(inst, 30, REG)
    assert result.status is PlanStatus.PLAN
    assert result.steps[-1].name == "place" and result.steps[-1].args == ("right", "apple", "plate")
    report = evaluate_plan(REG, inst, parse_plan(result.plan_text))
    assert not report.valid and report.findings[0].problem is Problem.GOAL


def _v2(family: str, request: str | None = None):
    path = next(p for p in sorted((ROOT / "problems" / family).glob("*.json"))
                if not p.name.endswith(".reference.json"))
    return load_instance(path, REG) if request is None else _variant(path, request=request)


@pytest.mark.parametrize("family", ["washing_dishes-brush_and_rack",
                                    "clearing_table_after_breakfast-wipe_before_the_fruit"])
def test_reads_clauses_lists_pronouns_and_cleanliness_of_v2_requests(family):
    # "wash up the two plates and the mug ... and put them on the drying rack. They must be properly clean."
    # "the plate and the mug go to the sink, then wipe the table and put the apple back on it ..."
    inst = _v2(family)
    assert set(read_goals(REG, inst).goals) == set(inst.goals)


@pytest.mark.parametrize("family, request_text, goals", [
    ("bag_groceries-chicken_in_its_own_bag", "Please put the chicken in the second bag.",
     [("at", "chicken", "bag2")]),  # an ordinal picks by name order
    ("cook_hot_dogs-bun_on_the_lawn", "Nothing from the raw sausage may get onto the bun or the plate.",
     [("safe", "bun"), ("safe", "plate")]),
    ("cleaning_up_plates_and_food-scrape_then_wipe",
     "Please scrape the serving plate into the compost caddy, put it in the sink, and wipe the dust off the table.",
     [("scooped", "p1"), ("at", "p1", "sink"), ("safe", "table")]),  # the scraps go to the caddy, the plate not
    ("freeze_pies-box_after_the_marinade",
     "Put the apple pie in the box, put the lid on and shut the freezer. The pie and the box must stay clean.",
     [("at", "pie", "box"), ("covered", "box"), ("closed", "freezer"), ("safe", "pie"), ("safe", "box")]),
])
def test_reads_each_v2_rule(family, request_text, goals):
    assert list(read_goals(REG, _v2(family, request_text)).goals) == goals


@pytest.mark.parametrize("request_text, why", [
    ("Put the plate on the rack.", "could be any of p1, p2"),  # a singular that names two objects
    ("Put the three plates on the rack.", "2 objects, not 3"),
    ("Wash them and put them on the rack.", "'them' has no list"),
])
def test_v2_rules_never_guess(request_text, why):
    with pytest.raises(Unreadable, match=why):
        read_goals(REG, _v2("washing_dishes-brush_and_rack", request_text))

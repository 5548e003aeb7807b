"""The hand-checked v2 mechanics examples (examples/mechanics/, docs/mechanics.md) under the reference semantics.

Each example's hand optimum is met by its recorded witness plan under replay.World, and the plans the derivation
rules out are rejected for the reason it gives.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hygiene_pddl.costs import CostVector
from hygiene_pddl.hygiene import HygieneRules
from hygiene_pddl.instances import load_instance
from hygiene_pddl.literals import Literal
from hygiene_pddl.replay import PhysicalInconsistency, World
from tests.foundation.helpers import Step, run_continuation

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "mechanics"
KEYS = sorted(p.name[: -len(".hand.json")] for p in EXAMPLES.glob("*.hand.json"))


def _inst(key: str):
    return load_instance(EXAMPLES / f"{key}.json")


def _run(reg, key: str, steps):
    return run_continuation(reg, _inst(key), [Step(s, n, tuple(a)) for s, n, a in steps])


def test_every_example_has_a_hand_optimum():
    assert len(KEYS) >= 15
    assert {k.split("-")[0] for k in KEYS} == {
        "wipe_two_surfaces", "spray_and_dwell", "rinse_or_wash", "washer", "shared_basket", "gloves",
        "fridge_handle", "spare_spoon"}


@pytest.mark.parametrize("key", KEYS)
def test_witness_plan_meets_the_hand_optimum(reg, key):
    hand = json.loads((EXAMPLES / f"{key}.hand.json").read_text())
    inst = _inst(key)
    assert inst.format == 2 and not inst.notes
    if not hand["feasible"]:
        assert hand["plan"] == []
        return
    out = _run(reg, key, [(s["start"], s["name"], s["args"]) for s in hand["plan"]])
    assert out.goals_met and out.new_violations == []
    assert out.cost == CostVector.from_mapping(hand["optimal_cost"])


def test_a_dirty_cloth_recontaminates_what_it_wipes(reg):
    # the chicken cloth, untreated: its bacteria land on both surfaces (wiping lifts soil and peanut, not microbes)
    out = _run(reg, "wipe_two_surfaces-water_first", [
        (0, "pick", ["left", "cloth", "corner", "sink"]), (1, "wipe", ["left", "cloth", "kitchen_table"]),
        (3, "wipe", ["left", "cloth", "worktop"]), (0, "pick", ["right", "loaf", "crust", "shelf"]),
        (2, "place", ["right", "loaf", "kitchen_table"]), (3, "pick", ["right", "carrot", "skin", "shelf"]),
        (4, "place", ["right", "carrot", "worktop"])])
    assert out.world.hazards_on(("worktop", "top")) == {"raw_meat_bacteria"}
    assert out.world.hazards_on(("kitchen_table", "top")) == {"raw_meat_bacteria"}
    assert out.world.hazards_on(("cloth", "face")) == {"soil", "peanut_allergen", "raw_meat_bacteria"}
    assert sorted((v.carrier, v.hazard) for v in out.new_violations) == [
        (("carrot", "skin"), "raw_meat_bacteria"), (("loaf", "crust"), "raw_meat_bacteria")]


def test_a_smeared_surface_does_not_end_clean(reg):
    # the anomaly the certifier once found: smearing the worktop with the cloth before wiping it must not help
    out = _run(reg, "wipe_two_surfaces-water_first", [
        (0, "pick", ["left", "cloth", "corner", "sink"]), (1, "wipe", ["left", "cloth", "kitchen_table"]),
        (3, "place", ["left", "cloth", "worktop"]), (4, "pick", ["left", "cloth", "corner", "worktop"]),
        (5, "wipe", ["left", "cloth", "worktop"]), (0, "pick", ["right", "loaf", "crust", "shelf"]),
        (2, "place", ["right", "loaf", "kitchen_table"]), (3, "pick", ["right", "carrot", "skin", "shelf"]),
        (6, "place", ["right", "carrot", "worktop"])])
    assert ("carrot", "skin") in {v.carrier for v in out.new_violations}


def test_worktop_first_leaves_peanut_on_the_wooden_table(reg):
    out = _run(reg, "wipe_two_surfaces-waste_first", [
        (0, "pick", ["left", "cloth", "corner", "sink"]), (1, "wipe", ["left", "cloth", "worktop"]),
        (3, "rinse-item", ["left", "cloth"]), (4, "wipe", ["left", "cloth", "kitchen_table"]),
        (0, "pick", ["right", "carrot", "skin", "shelf"]), (2, "place", ["right", "carrot", "worktop"]),
        (3, "pick", ["right", "loaf", "crust", "shelf"]), (5, "place", ["right", "loaf", "kitchen_table"])])
    assert "peanut_allergen" in out.world.hazards_on(("kitchen_table", "top"))
    assert (("loaf", "crust"), "peanut_allergen") in [(v.carrier, v.hazard) for v in out.new_violations]


def test_nothing_touches_a_dwelling_surface(reg):
    with pytest.raises(PhysicalInconsistency, match=r"\(dwelling worktop\) is not false"):
        _run(reg, "spray_and_dwell-canonical", [
            (0, "pick", ["left", "disinfectant_spray", "trigger", "shelf"]),
            (1, "spray", ["left", "disinfectant_spray", "worktop"]), (2, "dwell", ["worktop"]),
            (0, "pick", ["right", "loaf", "crust", "shelf"]), (5, "place", ["right", "loaf", "worktop"])])


def test_rinsing_leaves_bacteria_that_washing_removes(reg):
    rinse = [(0, "pick", ["left", "carrot", "skin", "worktop"]), (1, "rinse-item", ["left", "carrot"]),
             (2, "place", ["left", "carrot", "side_plate"])]
    assert _run(reg, "rinse_or_wash-soil", rinse).goals_met
    out = _run(reg, "rinse_or_wash-soil-and-spill", rinse)
    assert out.world.hazards_on(("carrot", "skin")) == {"raw_meat_bacteria"}
    assert not out.goals_met


def test_an_eco_cycle_spreads_mould_through_the_load(reg):
    steps = [(0, "open", ["left", "washer"]), (0, "pick", ["right", "shirt", "fabric", "hamper"]),
             (1, "load", ["right", "shirt", "washer"]), (1, "pick", ["left", "towel", "fabric", "hamper"]),
             (2, "load", ["left", "towel", "washer"]), (2, "close", ["right", "washer"]), (3, "run-eco", ["washer"])]
    out = _run(reg, "washer-mould-water_first", steps)
    assert out.new_violations == []  # mixing in the drum is exempt from protection
    assert out.world.hazards_on(("shirt", "fabric")) == {"mould"} and not out.goals_met
    assert ("dry", "shirt") not in out.world.facts  # the cycle leaves the load wet


def test_the_washer_holds_two_items(reg):
    world = World.initial(reg, _inst("washer-soil-water_first"))
    assert world.holds(Literal(("room", "washer")))
    world.facts |= {("inside", "shirt", "washer")}
    assert world.holds(Literal(("room", "washer")))
    world.facts |= {("inside", "towel", "washer")}
    assert not world.holds(Literal(("room", "washer"))) and world.holds(Literal(("room", "washer"), False))


def test_whatever_joins_the_basket_touches_what_is_there(reg):
    out = _run(reg, "shared_basket-canonical", [
        (0, "pick", ["left", "potato", "skin", "worktop"]), (1, "put", ["left", "potato", "basket"]),
        (0, "pick", ["right", "grapes", "bunch", "worktop"]), (2, "put", ["right", "grapes", "basket"])])
    assert [(v.carrier, v.hazard) for v in out.new_violations] == [(("grapes", "bunch"), "soil")]


def test_a_glove_keeps_the_pad_clean(reg):
    out = _run(reg, "gloves-canonical", [
        (0, "don-glove", ["left"]), (1, "pick", ["left", "raw_chicken", "film", "board"]),
        (2, "place", ["left", "raw_chicken", "fridge"])])
    assert out.world.hazards_on(("left", "glove")) == {"raw_meat_bacteria"}
    assert out.world.hazards_on(("left", "pad")) == frozenset()


def test_a_dirty_handle_passes_bacteria_to_the_opener(reg):
    steps = [(0, "open", ["left", "fridge"]), (1, "pick", ["left", "loaf", "crust", "fridge"]),
             (2, "place", ["left", "loaf", "side_plate"])]
    assert _run(reg, "fridge_handle-clean", steps).goals_met
    dirty = _run(reg, "fridge_handle-dirty", steps)
    assert (("loaf", "crust"), "raw_meat_bacteria") in [(v.carrier, v.hazard) for v in dirty.new_violations]
    # same physical configuration, different hygiene state: only the replay tells them apart
    assert _inst("fridge_handle-clean").observations == _inst("fridge_handle-dirty").observations


def test_no_treatment_in_k_removes_mould_from_wood(reg):
    inst = _inst("spare_spoon-no-spare")
    rules = HygieneRules(reg, dict(inst.objects), inst.hazards)
    carrier = ("stirring_spoon", "bowl")
    treatments = {t.treatment for a in inst.actions for t in reg.actions[a].treats} - {"renew"}
    assert treatments and not any(rules.removes(t, carrier, "mould") for t in treatments)
    assert inst.remaining("spare_items") == 0

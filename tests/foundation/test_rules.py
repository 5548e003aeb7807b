"""Transfer and treatment rules one by one (SPEC §1): HygieneRules and World, few objects."""

from __future__ import annotations

import pytest

from hygiene_pddl.hygiene import HygieneRules, chain_text
from hygiene_pddl.replay import PhysicalInconsistency

from .helpers import make_world, state

RMB, PEANUT, PET, SOIL, MOULD = (
    "raw_meat_bacteria",
    "peanut_allergen",
    "pet_waste_bacteria",
    "soil",
    "mould",
)
ALL = frozenset({RMB, PEANUT, PET, SOIL, MOULD})

KITCHEN = {
    "apple": "apple",
    "spoon": "spoon",
    "tray": "tray",
    "counter": "counter",
    "plate": "plate",
    "pot": "pot",
    "microwave": "microwave",
    "table": "table",
    "bowl": "bowl",
}
LPAD, LSIDE, RPAD, RSIDE = ("left", "pad"), ("left", "side"), ("right", "pad"), ("right", "side")


# --- contact transfer ---------------------------------------------------------------------------


def test_contact_adds_hazards_both_ways_and_keeps_the_source(reg):
    w = make_world(reg, KITCHEN, [(LPAD, RMB), (("spoon", "handle"), PEANUT)])
    w.contact(LPAD, ("spoon", "handle"), 3, 0, "touch")
    assert state(w) == {LPAD: {RMB, PEANUT}, ("spoon", "handle"): {RMB, PEANUT}}


@pytest.mark.parametrize("order", ["ab", "ba"])
def test_contact_is_symmetric_in_argument_order(reg, order):
    a, b = ("tray", "rim"), RPAD
    w = make_world(reg, KITCHEN, [(a, RMB)])
    w.contact(*((a, b) if order == "ab" else (b, a)), 1, 0, "touch")
    assert state(w) == {a: {RMB}, b: {RMB}}


def test_contact_between_clean_carriers_adds_nothing(reg):
    w = make_world(reg, KITCHEN, [(("tray", "rim"), RMB)])
    w.contact(LPAD, ("spoon", "handle"), 1, 0, "touch")
    assert state(w) == {("tray", "rim"): {RMB}}


def test_contact_touches_only_the_two_carriers(reg):
    w = make_world(reg, KITCHEN, [(LPAD, RMB)])
    w.contact(LPAD, ("spoon", "head"), 1, 0, "touch")
    assert ("spoon", "handle") not in state(w) and LSIDE not in state(w) and RPAD not in state(w)


def test_provenance_extends_the_source_chain(reg):
    w = make_world(reg, KITCHEN, [(("tray", "rim"), RMB)])
    w.contact(LPAD, ("tray", "rim"), 2, 0, "pick tray")
    w.contact(LPAD, ("spoon", "handle"), 4, 1, "pick spoon")
    w.contact(("spoon", "handle"), RPAD, 9, 2, "handover")
    assert (
        chain_text(w.contamination[RPAD][RMB])
        == "tray rim → left pad at 2 → spoon handle at 4 → right pad at 9"
    )
    # the source's own chain is unchanged by later contacts
    assert chain_text(w.contamination[LPAD][RMB]) == "tray rim → left pad at 2"
    assert [link.step for link in w.contamination[RPAD][RMB]] == [None, 0, 1, 2]


def test_contact_keeps_an_existing_chain(reg):
    """A carrier that already has a hazard keeps its first provenance; nothing is rewritten."""
    w = make_world(reg, KITCHEN, [(("tray", "rim"), RMB), (LPAD, RMB)])
    w.contact(LPAD, ("tray", "rim"), 5, 0, "pick tray")
    assert chain_text(w.contamination[LPAD][RMB]) == "left pad"
    assert chain_text(w.contamination[("tray", "rim")][RMB]) == "tray rim"


# --- material pairs ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "a,b",
    [
        (("spoon", "handle"), ("pot", "handle")),  # metal–metal
        (("spoon", "head"), ("microwave", "cavity")),  # metal–glass
        (("microwave", "cavity"), ("pot", "inside")),  # glass–metal
    ],
)
def test_soil_does_not_cross_between_metal_and_glass(reg, a, b):
    rules = HygieneRules(reg, KITCHEN)
    assert not rules.crosses(SOIL, a, b) and not rules.crosses(SOIL, b, a)
    w = make_world(reg, KITCHEN, [(a, SOIL)])
    w.contact(a, b, 1, 0, "touch")
    assert state(w) == {a: {SOIL}}
    assert w.violations == []  # pot inside is food-contact, but nothing arrived


@pytest.mark.parametrize(
    "target",
    [
        ("apple", "skin"),
        ("counter", "top"),
        ("table", "top"),
        ("plate", "rim"),
        ("tray", "rim"),
        RSIDE,
    ],
)
def test_soil_crosses_onto_soft_and_porous_materials(reg, target):
    w = make_world(reg, KITCHEN, [(LPAD, SOIL)])
    w.contact(LPAD, target, 1, 0, "touch")
    assert SOIL in state(w)[target]


@pytest.mark.parametrize(
    "source,target",
    [
        (LPAD, ("spoon", "head")),  # silicone -> metal (food-contact region)
        (LSIDE, ("microwave", "cavity")),  # rubber -> glass
        (("apple", "skin"), ("pot", "inside")),  # food -> metal
    ],
)
def test_soil_does_not_cross_onto_metal_or_glass(reg, source, target):
    w = make_world(reg, KITCHEN, [(source, SOIL)])
    w.contact(source, target, 1, 0, "touch")
    assert SOIL not in state(w).get(target, frozenset())
    assert w.violations == []


def test_soil_crosses_from_metal_onto_silicone(reg):
    w = make_world(reg, KITCHEN, [(("spoon", "handle"), SOIL)])
    w.contact(("spoon", "handle"), RPAD, 1, 0, "touch")
    assert state(w)[RPAD] == {SOIL}


@pytest.mark.parametrize("hazard", [RMB, PEANUT, PET, MOULD])
def test_other_hazards_cross_every_material_pair(reg, hazard):
    w = make_world(reg, KITCHEN, [(("spoon", "handle"), hazard)])
    w.contact(("spoon", "handle"), ("microwave", "cavity"), 1, 0, "touch")
    assert state(w)[("microwave", "cavity")] == {hazard}


# --- treatments ----------------------------------------------------------------------------------


def _loaded(reg, carrier):
    return make_world(reg, KITCHEN, [(carrier, h) for h in sorted(ALL)])


@pytest.mark.parametrize(
    "carrier",
    [LPAD, LSIDE, ("spoon", "head"), ("plate", "top"), ("tray", "rim"), ("microwave", "cavity")],
)
def test_wash_removes_everything_it_lists_from_hard_materials(reg, carrier):
    w = _loaded(reg, carrier)
    assert sorted(w.treat("wash", carrier)) == sorted(ALL)
    assert carrier not in state(w)


@pytest.mark.parametrize("carrier", [("apple", "skin"), ("counter", "top"), ("table", "top")])
def test_wash_does_not_remove_mould_from_food_stone_or_wood(reg, carrier):
    w = _loaded(reg, carrier)
    assert sorted(w.treat("wash", carrier)) == sorted(ALL - {MOULD})
    assert state(w) == {carrier: {MOULD}}
    assert chain_text(w.contamination[carrier][MOULD]) == f"{carrier[0]} {carrier[1]}"


def test_wash_leaves_other_carriers_alone(reg):
    w = make_world(
        reg, KITCHEN, [(LPAD, RMB), (LSIDE, RMB), (RPAD, RMB), (("spoon", "handle"), RMB)]
    )
    w.treat("wash", LPAD)
    assert state(w) == {LSIDE: {RMB}, RPAD: {RMB}, ("spoon", "handle"): {RMB}}


@pytest.mark.parametrize("carrier", [LPAD, ("apple", "skin"), ("counter", "top")])
def test_disinfect_keeps_peanut_allergen_and_soil(reg, carrier):
    w = _loaded(reg, carrier)
    assert sorted(w.treat("disinfect", carrier)) == sorted({RMB, PET, MOULD})
    assert state(w) == {carrier: {PEANUT, SOIL}}


@pytest.mark.parametrize("carrier", [LPAD, ("apple", "skin"), ("counter", "top")])
def test_renew_removes_everything(reg, carrier):
    w = _loaded(reg, carrier)
    assert sorted(w.treat("renew", carrier)) == sorted(ALL)
    assert state(w) == {}


@pytest.mark.parametrize("treatment", ["wash", "disinfect", "renew"])
def test_treatment_on_an_empty_carrier_is_a_no_op(reg, treatment):
    w = make_world(reg, KITCHEN, [(LSIDE, SOIL)])
    before = {c: dict(v) for c, v in w.contamination.items()}
    assert w.treat(treatment, LPAD) == []
    assert w.contamination == before and LPAD not in w.contamination
    assert w.violations == []


WHOLE_GRIPPER = [(LPAD, h) for h in sorted(ALL)] + [(LSIDE, h) for h in sorted(ALL)]


@pytest.mark.parametrize(
    "action,stocks,left_on_pad",
    [
        ("wash-pad", {"water": 2, "cleaning_agent": 1}, frozenset()),
        ("replace-pad", {"spare_pads": 1}, frozenset()),
        ("disinfect-pad", {"disinfectant": 1}, frozenset({PEANUT, SOIL})),
    ],
)
def test_pad_treatments_act_on_the_pad_only_never_the_side(reg, action, stocks, left_on_pad):
    w = make_world(
        reg, KITCHEN, WHOLE_GRIPPER + [(RPAD, RMB)], facts=[("empty", "left")], stocks=stocks
    )
    schema = reg.actions[action]
    w.start_action(schema, ("left",), 0, 0, action, schema.duration)
    w.end_action(schema, ("left",), schema.duration, 0, action)
    got = state(w)
    assert got.get(LPAD, frozenset()) == left_on_pad
    assert got[LSIDE] == ALL
    assert got[RPAD] == {RMB}
    assert all(v == 0 for v in w.stocks.values())  # consumed exactly the listed stock


def test_pad_treatment_on_a_clean_pad_is_a_no_op(reg):
    w = make_world(
        reg,
        KITCHEN,
        [(LSIDE, SOIL)],
        facts=[("empty", "left")],
        stocks={"water": 2, "cleaning_agent": 1},
    )
    schema = reg.actions["wash-pad"]
    w.start_action(schema, ("left",), 0, 0, "wash", 3)
    w.end_action(schema, ("left",), 3, 0, "wash")
    assert state(w) == {LSIDE: {SOIL}} and LPAD not in w.contamination


def test_wash_pad_records_its_costs(reg):
    w = make_world(
        reg, KITCHEN, [], facts=[("empty", "right")], stocks={"water": 5, "cleaning_agent": 3}
    )
    schema = reg.actions["wash-pad"]
    w.start_action(schema, ("right",), 0, 0, "wash", 3)
    assert (w.stocks, w.costs, w.active_time) == (
        {"water": 3, "cleaning_agent": 2},
        {"water": 2, "cleaning_agent": 1},
        3,
    )


@pytest.mark.parametrize("action", ["wash-pad", "replace-pad", "disinfect-pad"])
def test_pad_treatment_needs_an_empty_gripper(reg, action):
    w = make_world(
        reg,
        KITCHEN,
        [(LPAD, RMB)],
        facts=[("holding", "left", "spoon")],
        stocks={"water": 9, "cleaning_agent": 9, "spare_pads": 9, "disinfectant": 9},
    )
    with pytest.raises(PhysicalInconsistency, match=r"\(empty left\)"):
        w.start_action(reg.actions[action], ("left",), 0, 0, action, 3)


def test_a_treatment_without_stock_is_refused(reg):
    w = make_world(reg, KITCHEN, [(LPAD, RMB)], facts=[("empty", "left")], stocks={"spare_pads": 0})
    with pytest.raises(PhysicalInconsistency, match="spare_pads"):
        w.start_action(reg.actions["replace-pad"], ("left",), 0, 0, "replace", 2)


# --- protection and violations -------------------------------------------------------------------


def test_protected_region_receiving_its_hazard_records_a_violation_with_provenance(reg):
    w = make_world(reg, KITCHEN, [(("tray", "rim"), RMB)])
    w.contact(LPAD, ("tray", "rim"), 2, 0, "h0")
    w.contact(LPAD, ("spoon", "handle"), 4, 1, "h1")
    w.contact(("spoon", "handle"), RPAD, 9, 2, "h2")
    assert w.violations == []  # pads and a handle are not protected
    w.contact(RPAD, ("apple", "skin"), 12, 3, "pick apple")
    assert len(w.violations) == 1
    v = w.violations[0]
    assert (v.carrier, v.hazard, v.time, v.step, v.label) == (
        ("apple", "skin"),
        RMB,
        12,
        3,
        "pick apple",
    )
    assert (
        chain_text(v.provenance)
        == "tray rim → left pad at 2 → spoon handle at 4 → right pad at 9 → apple skin at 12"
    )


@pytest.mark.parametrize(
    "target,hazard",
    [
        (("spoon", "head"), PET),  # food_contact region
        (("plate", "top"), MOULD),  # food_contact region
        (("pot", "inside"), RMB),  # food_contact region
        (("apple", "skin"), PEANUT),  # ready_to_eat object class
    ],
)
def test_protected_targets(reg, target, hazard):
    w = make_world(reg, KITCHEN, [(LPAD, hazard)])
    w.contact(LPAD, target, 1, 0, "touch")
    assert [(v.carrier, v.hazard) for v in w.violations] == [(target, hazard)]


@pytest.mark.parametrize(
    "target,hazard",
    [
        (("spoon", "head"), PEANUT),  # food_contact is not protected against allergen
        (("spoon", "handle"), RMB),  # a handle is not a food-contact region
        (("plate", "rim"), RMB),
        (("counter", "top"), RMB),
        (RSIDE, RMB),  # gripper parts are never protected
    ],
)
def test_unprotected_targets_record_no_violation(reg, target, hazard):
    w = make_world(reg, KITCHEN, [(LPAD, hazard)])
    w.contact(LPAD, target, 1, 0, "touch")
    assert hazard in state(w)[target] and w.violations == []


def test_violation_is_on_the_receiver_not_on_the_source(reg):
    """The apple already carries RMB (a prior source): the pad gets it, no violation."""
    w = make_world(reg, KITCHEN, [(("apple", "skin"), RMB)])
    w.contact(("apple", "skin"), LPAD, 1, 0, "pick apple")
    assert w.violations == [] and state(w)[LPAD] == {RMB}


def test_a_hazard_already_present_does_not_re_violate(reg):
    w = make_world(reg, KITCHEN, [(LPAD, RMB), (RPAD, RMB)])
    w.contact(LPAD, ("apple", "skin"), 1, 0, "first")
    w.contact(RPAD, ("apple", "skin"), 2, 1, "second")
    w.contact(("apple", "skin"), LPAD, 3, 2, "third")
    assert [(v.step, v.carrier) for v in w.violations] == [(0, ("apple", "skin"))]
    assert chain_text(w.contamination[("apple", "skin")][RMB]) == "left pad → apple skin at 1"


def test_an_initially_present_hazard_does_not_violate_when_touched(reg):
    w = make_world(reg, KITCHEN, [(LPAD, RMB), (("apple", "skin"), RMB)])
    w.contact(LPAD, ("apple", "skin"), 1, 0, "touch")
    assert w.violations == []


def test_each_protected_receiver_of_one_contact_is_a_violation(reg):
    w = make_world(reg, KITCHEN, [(("apple", "skin"), RMB), (("plate", "top"), PET)])
    w.contact(("apple", "skin"), ("plate", "top"), 5, 0, "place apple")
    assert sorted((v.carrier, v.hazard) for v in w.violations) == [
        (("apple", "skin"), PET),
        (("plate", "top"), RMB),
    ]

"""Replay of the first families against values worked out by hand (docs/first-families.md)."""

from __future__ import annotations

import pytest

from hygiene_pddl.costs import CostVector
from hygiene_pddl.instances import load_instance, load_reference
from hygiene_pddl.replay import PhysicalInconsistency, replay

from .helpers import PROBLEMS, Step, chains, instance_path, run_continuation

RMB = "raw_meat_bacteria"
TRAY_TO_HANDLE = "tray rim → left pad at 0 → spoon handle at 2"

# --- spoon–fruit ---------------------------------------------------------------------------------
# history (both variants): pick left tray rim @0 (left pad <- tray rim), place tray @1..2 (tray
# bottom clean), pick left spoon handle @2 (handle <- left pad), place spoon @3..4 (the handle is
# the spoon's base: counter top <- handle at 4), wash left @4..7 (left pad clean), wash right
# @7..10, pick left spoon handle @10..11 (left pad <- handle at 10); pad-touch right spoon handle
# @11 (wash_then_touch) or @4 (touch_then_wash, washed off again at 10).
SPOON_COMMON = {
    ("tray", "rim"): {RMB: "tray rim"},
    ("left", "pad"): {RMB: f"{TRAY_TO_HANDLE} → left pad at 10"},
    ("spoon", "handle"): {RMB: TRAY_TO_HANDLE},
    ("counter", "top"): {RMB: f"{TRAY_TO_HANDLE} → counter top at 4"},
}
SPOON_STATE = {
    "wash_then_touch": {
        **SPOON_COMMON,
        ("right", "pad"): {RMB: f"{TRAY_TO_HANDLE} → right pad at 11"},
    },
    "touch_then_wash": SPOON_COMMON,
}
SPOON_FACTS = {
    ("at", "apple", "counter"),
    ("at", "plate", "counter"),
    ("at", "tray", "counter"),
    ("empty", "right"),
    ("holding", "left", "spoon"),
}
PROFILES = ("spare_parts_first", "water_first")


def _spoon(hist, prof):
    return load_instance(instance_path("spoon_fruit", f"{hist}-{prof}"))


@pytest.mark.parametrize("prof", PROFILES)
@pytest.mark.parametrize("hist", ["wash_then_touch", "touch_then_wash"])
def test_spoon_fruit_replayed_state(reg, hist, prof):
    res = replay(_spoon(hist, prof), reg)
    assert chains(res.contamination) == SPOON_STATE[hist]
    assert res.violations == ()
    assert res.facts == SPOON_FACTS
    assert dict(res.stocks) == {"water": 6, "cleaning_agent": 2, "spare_pads": 2}
    assert dict(res.consumed) == {"water": 4, "cleaning_agent": 2}
    costs = dict(res.history_costs)
    assert (costs["water"], costs["cleaning_agent"], costs["replacement_parts"]) == (4, 2, 0)
    assert costs["active_robot_time"] == 1 + 1 + 1 + 1 + 3 + 3 + 1
    assert res.ongoing == () and res.busy_until == ()
    assert (res.decision_time, res.horizon) == (11, 16)


def test_spoon_fruit_provenance_steps_point_into_the_history(reg):
    res = replay(_spoon("wash_then_touch", "water_first"), reg)
    right = next(f for f in res.contamination if f.carrier == ("right", "pad"))
    assert [(link.carrier, link.time, link.step) for link in right.provenance] == [
        (("tray", "rim"), 0, None),
        (("left", "pad"), 0, 0),
        (("spoon", "handle"), 2, 2),
        (("right", "pad"), 11, 7),
    ]
    assert right.provenance[-1].via.startswith("event")
    counter = next(f for f in res.contamination if f.carrier == ("counter", "top"))
    assert counter.provenance[-1].step == 3  # the place of record 3, at its end (4)


def test_spoon_fruit_histories_differ_only_on_the_right_pad(reg):
    a = replay(_spoon("wash_then_touch", "water_first"), reg)
    b = replay(_spoon("touch_then_wash", "water_first"), reg)
    ca, cb = chains(a.contamination), chains(b.contamination)
    assert ca.pop(("right", "pad")) == {RMB: f"{TRAY_TO_HANDLE} → right pad at 11"}
    assert ca == cb  # record indices shift (the event moves), the chains and times do not
    assert (a.facts, a.stocks, a.consumed) == (b.facts, b.stocks, b.consumed)


# hand-computed optimal continuations at t=11, horizon 16 (5 TU left); unlisted dimensions are 0.
WASH_RIGHT = [
    Step(0, "wash-pad", ("right",)),
    Step(3, "pick", ("right", "apple", "skin", "counter")),
    Step(4, "place", ("right", "apple", "plate")),
]
REPLACE_RIGHT = [
    Step(0, "replace-pad", ("right",)),
    Step(2, "pick", ("right", "apple", "skin", "counter")),
    Step(3, "place", ("right", "apple", "plate")),
]
DIRECT = [
    Step(0, "pick", ("right", "apple", "skin", "counter")),
    Step(1, "place", ("right", "apple", "plate")),
]
WASH_COST = CostVector.from_mapping(
    {"water": 2, "cleaning_agent": 1, "active_robot_time": 5, "makespan": 5}
)
REPLACE_COST = CostVector.from_mapping(
    {"replacement_parts": 1, "solid_waste": 1, "active_robot_time": 4, "makespan": 4}
)
DIRECT_COST = CostVector.from_mapping({"active_robot_time": 2, "makespan": 2})
SPOON_OPTIMUM = {
    ("wash_then_touch", "spare_parts_first"): (WASH_RIGHT, WASH_COST),
    ("wash_then_touch", "water_first"): (REPLACE_RIGHT, REPLACE_COST),
    ("touch_then_wash", "spare_parts_first"): (DIRECT, DIRECT_COST),
    ("touch_then_wash", "water_first"): (DIRECT, DIRECT_COST),
}


@pytest.mark.parametrize("hist,prof", sorted(SPOON_OPTIMUM))
def test_spoon_fruit_reference_equals_hand_computed_optimum(reg, hist, prof):
    plan, cost = SPOON_OPTIMUM[(hist, prof)]
    ref = load_reference(PROBLEMS / "spoon_fruit" / f"spoon_fruit-{hist}-{prof}.reference.json")
    assert ref.feasible and ref.optimal_cost == cost
    assert [(s.start, s.name, s.args) for s in ref.plan] == [
        (s.start, s.name, s.args) for s in plan
    ]
    out = run_continuation(reg, _spoon(hist, prof), plan)
    assert out.goals_met and out.new_violations == [] and out.cost == cost
    assert out.end <= 16


@pytest.mark.parametrize("prof", PROFILES)
def test_spoon_fruit_untreated_right_pad_violates(reg, prof):
    out = run_continuation(reg, _spoon("wash_then_touch", prof), DIRECT)
    # the apple reaches the plate, but carries raw-meat bacteria: the delivery rule's (safe apple) fails
    assert ("at", "apple", "plate") in out.world.facts and not out.goals_met
    assert not out.world.goal_holds(("safe", "apple"))
    assert [(v.carrier, v.hazard) for v in out.new_violations] == [
        (("apple", "skin"), RMB),
        (("plate", "top"), RMB),
    ]
    assert out.new_violations[0].time == 11 and out.new_violations[1].time == 13


def test_spoon_fruit_profiles_flip_the_ranking(reg):
    inst = _spoon("wash_then_touch", "spare_parts_first")
    wash = run_continuation(reg, inst, WASH_RIGHT)
    replace = run_continuation(reg, inst, REPLACE_RIGHT)
    assert wash.new_violations == [] and replace.new_violations == []
    spare, water = reg.profiles["spare_parts_first"], reg.profiles["water_first"]
    assert spare.better(wash.cost, replace.cost) and water.better(replace.cost, wash.cost)
    assert wash.end == 16  # exactly at the horizon


def test_spoon_fruit_left_gripper_cannot_wash_while_holding_the_spoon(reg):
    with pytest.raises(PhysicalInconsistency, match=r"\(empty left\)"):
        run_continuation(
            reg, _spoon("wash_then_touch", "water_first"), [Step(0, "wash-pad", ("left",))]
        )


# --- bowl-to-sink control ------------------------------------------------------------------------
# pick right bowl rim table @0 (right pad, bowl rim: clean), place bowl on counter @1..2 (clean),
# side-brush <side> bin lid @2: soil crosses plastic -> rubber. Only that side pad and the lid are
# soiled.


def _bowl(reg, side):
    return replay(load_instance(instance_path("bowl_to_sink", f"{side}_side_brush")), reg)


@pytest.mark.parametrize("side", ["left", "right"])
def test_bowl_to_sink_replayed_state(reg, side):
    res = _bowl(reg, side)
    assert chains(res.contamination) == {
        ("bin", "lid"): {"soil": "bin lid"},
        (side, "side"): {"soil": f"bin lid → {side} side at 2"},
    }
    assert res.violations == ()
    assert res.facts == {
        ("at", "bowl", "counter"),
        ("at", "bin", "counter"),
        ("empty", "left"),
        ("empty", "right"),
    }
    assert dict(res.stocks) == {"water": 10, "cleaning_agent": 4, "spare_pads": 2}
    assert dict(res.consumed) == {}
    assert (res.decision_time, res.horizon) == (3, 13)


def test_bowl_to_sink_histories_differ_only_on_the_named_side_pad(reg):
    left, right = _bowl(reg, "left"), _bowl(reg, "right")
    strip = {("left", "side"), ("right", "side")}
    assert [f for f in left.contamination if f.carrier not in strip] == [
        f for f in right.contamination if f.carrier not in strip
    ]
    assert (
        left.facts,
        left.stocks,
        left.consumed,
        left.history_costs,
        left.violations,
        left.horizon,
    ) == (
        right.facts,
        right.stocks,
        right.consumed,
        right.history_costs,
        right.violations,
        right.horizon,
    )


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("gripper", ["left", "right"])
def test_bowl_to_sink_optimum_with_either_gripper(reg, side, gripper):
    inst = load_instance(instance_path("bowl_to_sink", f"{side}_side_brush"))
    plan = [
        Step(0, "pick", (gripper, "bowl", "rim", "counter")),
        Step(1, "place", (gripper, "bowl", "sink")),
    ]
    out = run_continuation(reg, inst, plan)
    assert out.goals_met and out.new_violations == []
    assert out.cost == CostVector.from_mapping({"active_robot_time": 2, "makespan": 2})
    ref = load_reference(
        PROBLEMS / "bowl_to_sink" / f"bowl_to_sink-{side}_side_brush.reference.json"
    )
    assert ref.optimal_cost == out.cost
    # the continuation never touches a side pad: the side's soil stays where it is
    assert out.world.hazards_on((side, "side")) == {"soil"}
    assert out.world.hazards_on((gripper, "pad")) == frozenset()


# --- hot cocoa -----------------------------------------------------------------------------------
# pick right pot handle counter @0, place pot on stove @1..2: no hazards anywhere, nothing consumed.
COCOA_DURING = [
    Step(0, "cook", ("pot", "stove")),
    Step(0, "pick", ("left", "marshmallows", "bag", "counter")),
    Step(1, "add-while-cooking", ("left", "marshmallows", "pot")),
    Step(10, "pick", ("right", "pot", "handle", "stove")),
    Step(11, "pour", ("right", "pot", "mug")),
]
COCOA_AFTER = [
    Step(0, "cook", ("pot", "stove")),
    Step(10, "pick", ("right", "pot", "handle", "stove")),
    Step(11, "pour", ("right", "pot", "mug")),
    Step(11, "pick", ("left", "marshmallows", "bag", "counter")),
    Step(13, "add-into", ("left", "marshmallows", "mug")),
    Step(13, "place", ("right", "pot", "counter")),
    Step(14, "pick", ("right", "mug", "handle", "counter")),
    Step(15, "place", ("right", "mug", "microwave")),
    Step(16, "microwave-heat", ("mug", "marshmallows", "microwave")),
]
COCOA_DURING_COST = CostVector.from_mapping({"energy": 3, "active_robot_time": 5, "makespan": 13})
COCOA_AFTER_COST = CostVector.from_mapping({"energy": 4, "active_robot_time": 8, "makespan": 19})


@pytest.mark.parametrize("prof", ["time_first", "energy_first"])
def test_hot_cocoa_replayed_state(reg, prof):
    res = replay(load_instance(instance_path("hot_cocoa", prof)), reg)
    assert res.contamination == () and res.violations == ()
    assert ("at", "pot", "stove") in res.facts and ("at", "pot", "counter") not in res.facts
    assert res.facts == {
        ("at", "pot", "stove"),
        ("filled", "pot"),
        ("at", "mug", "counter"),
        ("at", "marshmallows", "counter"),
        ("empty", "left"),
        ("empty", "right"),
    }
    assert dict(res.consumed) == {}
    assert dict(res.stocks) == {"water": 10, "cleaning_agent": 4, "spare_pads": 2}
    assert dict(res.history_costs) == {
        **{d: 0 for d in dict(res.history_costs)},
        "active_robot_time": 2,
    }
    assert (res.decision_time, res.horizon, res.ongoing) == (2, 27, ())


@pytest.mark.parametrize("prof", ["time_first", "energy_first"])
def test_hot_cocoa_marshmallows_during_cooking_beat_after(reg, prof):
    inst = load_instance(instance_path("hot_cocoa", prof))
    during = run_continuation(reg, inst, COCOA_DURING)
    after = run_continuation(reg, inst, COCOA_AFTER)
    assert during.goals_met and after.goals_met
    assert (during.cost, after.cost) == (COCOA_DURING_COST, COCOA_AFTER_COST)
    assert during.end <= 27 and after.end <= 27
    assert reg.profiles[prof].better(during.cost, after.cost)
    ref = load_reference(PROBLEMS / "hot_cocoa" / f"hot_cocoa-{prof}.reference.json")
    assert ref.optimal_cost == COCOA_DURING_COST
    assert [(s.start, s.name, s.args) for s in ref.plan] == [
        (s.start, s.name, s.args) for s in COCOA_DURING
    ]


# No cooking at all. Until commit 36c6457 `pour` needed only (filled ?c) and the pot starts filled,
# so this 7 TU, energy-1 plan was executable and beat the reference (energy 3, makespan 13) under
# both profiles. Now `pour` needs (cooked ?c): the plan must stay inexecutable or no better.
COCOA_NO_COOK = [
    Step(0, "pick", ("left", "mug", "handle", "counter")),
    Step(1, "place", ("left", "mug", "microwave")),
    Step(2, "pick", ("left", "marshmallows", "bag", "counter")),
    Step(3, "add-into", ("left", "marshmallows", "mug")),
    Step(4, "microwave-heat", ("mug", "marshmallows", "microwave")),
    Step(0, "pick", ("right", "pot", "handle", "stove")),
    Step(1, "pour", ("right", "pot", "mug")),
]


@pytest.mark.parametrize("prof", ["time_first", "energy_first"])
def test_hot_cocoa_reference_is_not_beaten_by_a_plan_without_cooking(reg, prof):
    inst = load_instance(instance_path("hot_cocoa", prof))
    try:
        out = run_continuation(reg, inst, COCOA_NO_COOK)
    except PhysicalInconsistency:
        return  # not executable: pouring needs cooked contents
    ref = load_reference(PROBLEMS / "hot_cocoa" / f"hot_cocoa-{prof}.reference.json")
    valid = out.goals_met and not out.new_violations
    assert not (valid and reg.profiles[prof].better(out.cost, ref.optimal_cost)), (
        f"{out.cost} beats {ref.optimal_cost}"
    )

"""The paper's first families, written by hand (issue 2): spoon–fruit, bowl-to-sink control, hot cocoa.

Costs in each reference are worked out by hand in ``docs/first-families.md``.
"""

from __future__ import annotations

from hygiene_pddl.episodes.writer import Episode


def _act(name: str, args: list[str], start: int, duration: int) -> dict:
    return {"kind": "action", "name": name, "args": args, "start": start, "duration": duration}


def _ev(name: str, args: list[str], time: int, note: str = "") -> dict:
    out = {"kind": "event", "name": name, "args": args, "start": time}
    if note:
        out["note"] = note
    return out


def _step(start: int, name: str, args: list[str], duration: int) -> dict:
    return {"start": start, "name": name, "args": args, "duration": duration}


# --- spoon–fruit (paper Fig. 1) ----------------------------------------------------------------
SPOON_OBJECTS = {"apple": "apple", "plate": "plate", "counter": "counter", "sink": "sink", "spoon": "spoon",
                 "tray": "tray"}
SPOON_FACTS = ["(at apple counter)", "(at plate counter)", "(at spoon counter)", "(at tray counter)",
               "(empty left)", "(empty right)"]
_SPOON_PREFIX = [
    _act("pick", ["left", "tray", "rim", "counter"], 0, 1),
    _act("place", ["left", "tray", "counter"], 1, 1),
    _act("pick", ["left", "spoon", "handle", "counter"], 2, 1),
    _act("place", ["left", "spoon", "counter"], 3, 1),
]
_TOUCH = _ev("pad-touch", ["right", "spoon", "handle"], 0, "the right pad slips onto the spoon handle")
_WASHES = [_act("wash-pad", ["left"], 4, 3), _act("wash-pad", ["right"], 7, 3)]
_REGRASP = _act("pick", ["left", "spoon", "handle", "counter"], 10, 1)
SPOON_HISTORIES = {
    # Fig. 1: both pads washed, then the handover contaminates the clean right pad.
    "wash_then_touch": ([*_SPOON_PREFIX, *_WASHES, _REGRASP, {**_TOUCH, "start": 11}], [7]),
    # The same contact before the washes: the right pad is clean again at the decision time.
    "touch_then_wash": ([*_SPOON_PREFIX, {**_TOUCH, "start": 4}, *_WASHES, _REGRASP], [4]),
}
SPOON_REFERENCE = {
    ("wash_then_touch", "spare_parts_first"): (
        {"water": 2, "cleaning_agent": 1, "active_robot_time": 5, "makespan": 5},
        [_step(0, "wash-pad", ["right"], 3), _step(3, "pick", ["right", "apple", "skin", "counter"], 1),
         _step(4, "place", ["right", "apple", "plate"], 1)]),
    ("wash_then_touch", "water_first"): (
        {"replacement_parts": 1, "solid_waste": 1, "active_robot_time": 4, "makespan": 4},
        [_step(0, "replace-pad", ["right"], 2), _step(2, "pick", ["right", "apple", "skin", "counter"], 1),
         _step(3, "place", ["right", "apple", "plate"], 1)]),
}
_SPOON_CLEAN = ({"active_robot_time": 2, "makespan": 2},
                [_step(0, "pick", ["right", "apple", "skin", "counter"], 1),
                 _step(1, "place", ["right", "apple", "plate"], 1)])


def spoon_fruit() -> list[Episode]:
    out = []
    for hist_name, (history, known) in SPOON_HISTORIES.items():
        for profile in ("spare_parts_first", "water_first"):
            cost, plan = SPOON_REFERENCE.get((hist_name, profile), _SPOON_CLEAN)
            other_hist = "touch_then_wash" if hist_name == "wash_then_touch" else "wash_then_touch"
            other_prof = "water_first" if profile == "spare_parts_first" else "spare_parts_first"
            out.append(Episode(
                id=f"spoon_fruit-{hist_name}-{profile}", family="spoon_fruit",
                request="Please put the apple on the plate. I'd rather you " + (
                    "didn't use up spare pads." if profile == "spare_parts_first" else "saved water."),
                goals=["(at apple plate)"], decision_time=11, horizon=16, objects=SPOON_OBJECTS,
                facts=SPOON_FACTS, hazards=[("tray", "rim", "raw_meat_bacteria")],
                stocks={"water": 10, "cleaning_agent": 4, "spare_pads": 2}, history=history,
                known_events=known, profile=profile,
                reference={
                    "feasible": True, "optimal_cost": cost, "plan": plan, "certified_by": ["hand"],
                    "design": {"kind": "history_by_profile", "pairs": [
                        {"kind": "history", "label": "relevant", "with": f"spoon_fruit-{other_hist}-{profile}"},
                        {"kind": "profile", "label": "flip" if hist_name == "wash_then_touch" else "general",
                         "with": f"spoon_fruit-{hist_name}-{other_prof}"}],
                        "event": "relevant" if hist_name == "wash_then_touch" else "irrelevant",
                        "prior_violation": False,
                        "notes": "relevant history order x profile; the contact event matters only after the washes"},
                }))
    return out


# --- bowl-to-sink control ----------------------------------------------------------------------
def bowl_to_sink() -> list[Episode]:
    out = []
    for side in ("left", "right"):
        history = [_act("pick", ["right", "bowl", "rim", "table"], 0, 1),
                   _act("place", ["right", "bowl", "counter"], 1, 1),
                   _ev("side-brush", [side, "bin", "lid"], 2, f"the {side} side pad brushes the bin lid")]
        other = "right" if side == "left" else "left"
        out.append(Episode(
            id=f"bowl_to_sink-{side}_side_brush", family="bowl_to_sink",
            request="Could you put the bowl in the sink?", goals=["(at bowl sink)"], decision_time=3,
            horizon=13, objects={"bowl": "bowl", "table": "table", "counter": "counter", "sink": "sink",
                                 "bin": "bin"},
            facts=["(at bowl table)", "(at bin counter)", "(empty left)", "(empty right)"],
            hazards=[("bin", "lid", "soil")], stocks={"water": 10, "cleaning_agent": 4, "spare_pads": 2},
            history=history, known_events=[2], profile="water_first",
            reference={
                "feasible": True, "optimal_cost": {"active_robot_time": 2, "makespan": 2},
                "plan": [_step(0, "pick", ["left", "bowl", "rim", "counter"], 1),
                         _step(1, "place", ["left", "bowl", "sink"], 1)],
                "certified_by": ["hand"],
                "design": {"kind": "history_pair", "pairs": [
                    {"kind": "history", "label": "irrelevant", "with": f"bowl_to_sink-{other}_side_brush"}],
                    "event": "none", "prior_violation": False,
                    "notes": "histories differ only on a side pad the continuation never touches"},
            }))
    return out


# --- hot cocoa (paper §V-B: 13 TU during cooking, 19 TU after) ---------------------------------
def hot_cocoa() -> list[Episode]:
    out = []
    plan = [_step(0, "cook", ["pot", "stove"], 10),
            _step(0, "pick", ["left", "marshmallows", "bag", "counter"], 1),
            _step(1, "add-while-cooking", ["left", "marshmallows", "pot"], 1),
            _step(10, "pick", ["right", "pot", "handle", "stove"], 1),
            _step(11, "pour", ["right", "pot", "mug"], 2)]
    for profile in ("time_first", "energy_first"):
        other = "energy_first" if profile == "time_first" else "time_first"
        out.append(Episode(
            id=f"hot_cocoa-{profile}", family="hot_cocoa",
            request="Make me a mug of hot cocoa with melted marshmallows, please.",
            goals=["(has-cocoa mug)", "(melted marshmallows)"], decision_time=2, horizon=27,
            objects={"pot": "pot", "stove": "stove", "mug": "mug", "marshmallows": "snack_bag",
                     "microwave": "microwave", "counter": "counter"},
            facts=["(at pot counter)", "(filled pot)", "(at mug counter)", "(at marshmallows counter)",
                   "(empty left)", "(empty right)"],
            hazards=[], stocks={"water": 10, "cleaning_agent": 4, "spare_pads": 2},
            history=[_act("pick", ["right", "pot", "handle", "counter"], 0, 1),
                     _act("place", ["right", "pot", "stove"], 1, 1)],
            profile=profile,
            reference={
                "feasible": True, "optimal_cost": {"energy": 3, "active_robot_time": 5, "makespan": 13},
                "plan": plan, "certified_by": ["hand"],
                "design": {"kind": "profile_pair", "pairs": [
                    {"kind": "profile", "label": "invariant", "with": f"hot_cocoa-{other}"}],
                    "event": "none", "prior_violation": False,
                    "notes": "marshmallows during cooking (13 TU) beat after pouring (19 TU) under both profiles"},
            }))
    return out


def first_families() -> list[Episode]:
    return [*spoon_fruit(), *bowl_to_sink(), *hot_cocoa()]

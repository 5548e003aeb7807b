"""Small v2 instances, one or two per mechanism of docs/world-model-v2.md, for the exact search's tests."""

from __future__ import annotations

from collections.abc import Callable

from hygiene_pddl.instances.model import Instance
from hygiene_pddl.registries import Registries
from tests.certify.tasks import EMPTY, TIME_FIRST, instance

Maker = Callable[[Registries], Instance]


def shared_basket(reg: Registries) -> Instance:
    """M2 guarded quantified contact: an apple put into a basket touches the sponge already there (raw-meat
    bacteria); the sponge must come out first, and the pad that moved it must not touch the apple."""
    return instance(reg, "shared_basket", objects={"apple": "apple", "sponge": "bath_sponge", "basket": "basket",
                                                   "table": "table"},
                    facts=[*EMPTY, "(at apple table)", "(at sponge basket)"], goals=["(at apple basket)"],
                    actions=["pick", "place", "put"], hazards=["raw_meat_bacteria"],
                    sources=[("sponge", "body", "raw_meat_bacteria")], time_left=4)


def rinse_or_wash(reg: Registries) -> Instance:
    """Treatment lists and ?o.* targets: a soiled carrot delivered to a plate must be safe (implied goal); rinsing
    (water 1) beats washing one region (water 1, cleaning agent 1) under water first."""
    return instance(reg, "rinse_or_wash", objects={"carrot": "carrot", "plate": "plate", "counter": "counter",
                                                   "sink": "sink"},
                    facts=[*EMPTY, "(at carrot counter)", "(at plate counter)"], goals=["(at carrot plate)"],
                    actions=["pick", "place", "rinse-item", "wash-item"], hazards=["soil"],
                    sources=[("carrot", "skin", "soil")], stocks={"water": 3, "cleaning_agent": 2}, time_left=5)


def wipe_with_dirty_cloth(reg: Registries) -> Instance:
    """Contact and treatment in one happening read the pre-state: wiping the board removes its food residue, but a
    cloth carrying soil would bring soil onto the board (protected): the cloth is rinsed first."""
    return instance(reg, "wipe_with_dirty_cloth", objects={"board": "board", "cloth": "cloth", "counter": "counter",
                                                           "sink": "sink"},
                    facts=[*EMPTY, "(at cloth counter)", "(at board counter)"], goals=["(safe board)"],
                    actions=["pick", "wipe", "rinse-item"], hazards=["food_residue", "soil"],
                    sources=[("board", "face", "food_residue"), ("cloth", "face", "soil")], stocks={"water": 2},
                    time_left=5)


def gloves(reg: Registries) -> Instance:
    """M3 covering part: both pads carry raw-meat bacteria; a fresh glove over one pad lets it handle the apple
    without water (the loader turned each pad contact into a guarded pad/glove pair)."""
    return instance(reg, "gloves", objects={"apple": "apple", "plate": "plate", "counter": "counter"},
                    facts=[*EMPTY, "(at apple counter)", "(at plate counter)"], goals=["(at apple plate)"],
                    actions=["pick", "place", "don-glove", "doff-glove", "wash-pad"], hazards=["raw_meat_bacteria"],
                    sources=[("left", "pad", "raw_meat_bacteria"), ("right", "pad", "raw_meat_bacteria")],
                    stocks={"gloves": 1, "water": 2, "cleaning_agent": 1}, time_left=4)


def spray_and_dwell(reg: Registries) -> Instance:
    """M4 contact blocker: the sprayed board dwells 5 TU (nothing may touch it), then is disinfected; the apple
    can be put on it only after the dwell."""
    return instance(reg, "spray_and_dwell", objects={"board": "board", "bottle": "disinfectant_spray",
                                                     "apple": "apple", "counter": "counter"},
                    facts=[*EMPTY, "(at bottle counter)", "(at board counter)", "(at apple counter)"],
                    goals=["(safe board)", "(at apple board)"], actions=["pick", "put", "place", "spray", "dwell"],
                    hazards=["raw_meat_bacteria"], sources=[("board", "face", "raw_meat_bacteria")],
                    stocks={"disinfectant": 1}, time_left=8)


def washer_cycle(reg: Registries, profile: str = "water_first") -> Instance:
    """M2 quantified contacts and treatments, literal updates, an over-all condition on the door: two soiled
    garments are loaded, the door closed, a programme run (eco: less water, hot: shorter)."""
    return instance(reg, f"washer_cycle-{profile}",
                    objects={"shirt": "shirt", "towel": "towel", "washer": "washer", "hamper": "hamper"},
                    facts=[*EMPTY, "(at shirt hamper)", "(at towel hamper)", "(closed washer)"],
                    goals=["(safe shirt)", "(safe towel)"],
                    actions=["pick", "open", "close", "load", "run-hot", "run-eco"], hazards=["soil"],
                    sources=[("shirt", "fabric", "soil"), ("towel", "fabric", "soil")],
                    stocks={"water": 8, "cleaning_agent": 2}, time_left=16, profile=profile)


def washer_capacity(reg: Registries, garments: int = 3) -> Instance:
    """M5 capacity: the washer takes two items ((room washer) counts the inside facts)."""
    names = ["shirt", "towel", "jeans"][:garments]
    return instance(reg, f"washer_capacity-{garments}",
                    objects={**{n: n for n in names}, "washer": "washer", "hamper": "hamper"},
                    facts=[*EMPTY, *(f"(at {n} hamper)" for n in names)],
                    goals=[f"(inside {n} washer)" for n in names], actions=["pick", "load"], hazards=["soil"],
                    time_left=4)


def cycle_running(reg: Registries) -> Instance:
    """A process running at the decision time keeps its over-all condition: the washer door stays shut until the
    hot cycle (started at 3 in the history) ends at 11, relative 5."""
    return instance(reg, "cycle_running", objects={"shirt": "shirt", "washer": "washer", "hamper": "hamper",
                                                   "rack": "rack"},
                    facts=[*EMPTY, "(at shirt hamper)", "(closed washer)", "(dry shirt)"],
                    goals=["(at shirt rack)", "(safe shirt)"],
                    actions=["pick", "open", "close", "load", "unload", "put", "run-hot"], hazards=["soil"],
                    sources=[("shirt", "fabric", "soil")], stocks={"water": 8, "cleaning_agent": 2},
                    decision_time=6, time_left=9,
                    history=[{"kind": "action", "name": "open", "args": ["left", "washer"], "start": 0, "duration": 1},
                             {"kind": "action", "name": "pick", "args": ["right", "shirt", "fabric", "hamper"],
                              "start": 0, "duration": 1},
                             {"kind": "action", "name": "load", "args": ["right", "shirt", "washer"], "start": 1,
                              "duration": 1},
                             {"kind": "action", "name": "close", "args": ["left", "washer"], "start": 2,
                              "duration": 1},
                             {"kind": "action", "name": "run-hot", "args": ["washer"], "start": 3, "duration": 8}])


def delivery_format1(reg: Registries) -> Instance:
    """Deliveries are safe: a format-1 instance delivering a soiled tomato gets the goal (safe tomato) from the
    loader (its notes say so), so the plan treats the tomato."""
    return instance(reg, "delivery_format1", objects={"tomato": "tomato", "plate": "plate", "counter": "counter",
                                                      "sink": "sink"},
                    facts=[*EMPTY, "(at tomato counter)", "(at plate counter)"], goals=["(at tomato plate)"],
                    actions=["pick", "place", "rinse-item"], hazards=["soil"], sources=[("tomato", "skin", "soil")],
                    stocks={"water": 1}, time_left=4, fmt=1, profile=TIME_FIRST)


def ongoing_cook(reg: Registries, time_left: int = 7) -> Instance:
    """The cook started in the history (0-10) keeps its over-all condition (the pot on the stove) until it ends at
    relative 4: the pot is picked then and poured (v1 let a plan lift it earlier)."""
    return instance(reg, f"ongoing_cook-{time_left}", objects={"pot": "pot", "mug": "mug", "stove": "stove",
                                                              "counter": "counter"},
                    facts=[*EMPTY, "(at pot stove)", "(at mug counter)", "(filled pot)"],
                    goals=["(has-cocoa mug)"], actions=["pick", "pour", "cook"], hazards=["soil"],
                    decision_time=6, time_left=time_left, profile=TIME_FIRST,
                    history=[{"kind": "action", "name": "cook", "args": ["pot", "stove"], "start": 0,
                              "duration": 10}])


MECHANISMS: dict[str, Maker] = {
    "shared_basket": shared_basket, "rinse_or_wash": rinse_or_wash, "wipe_with_dirty_cloth": wipe_with_dirty_cloth,
    "gloves": gloves, "spray_and_dwell": spray_and_dwell, "washer_cycle": washer_cycle,
    "washer_capacity": washer_capacity, "cycle_running": cycle_running, "delivery_format1": delivery_format1,
    "ongoing_cook": ongoing_cook,
}

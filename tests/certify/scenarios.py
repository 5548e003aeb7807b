"""Longer v2 tasks for the exact search's scaling tests and timing script (15-25 actions, both grippers,
appliance processes, several hazards, gripper roles forced by hygiene)."""

from __future__ import annotations

from hygiene_pddl.instances.model import Instance
from hygiene_pddl.registries import Registries
from tests.certify.tasks import EMPTY, WATER_FIRST, instance


def laundry(reg: Registries, profile: str = WATER_FIRST, time_left: int = 48) -> Instance:
    """Wash two soiled garments, dry them, hang them on the rack and fold them. A pad that touched a soiled
    garment must not touch a washed one (or a handle it will touch later), so the grippers split the work."""
    return instance(
        reg, f"laundry-{profile}",
        objects={"shirt": "shirt", "towel": "towel", "washer": "washer", "dryer": "dryer", "hamper": "hamper",
                 "rack": "rack"},
        facts=EMPTY + ["(at shirt hamper)", "(at towel hamper)", "(closed washer)", "(closed dryer)",
                       "(dry shirt)", "(dry towel)"],
        goals=["(at shirt rack)", "(at towel rack)", "(folded shirt)", "(folded towel)", "(dry shirt)",
               "(dry towel)"],
        actions=["pick", "open", "close", "load", "unload", "run-hot", "run-eco", "run-dryer", "put", "fold",
                 "wash-pad", "replace-pad"],
        hazards=["soil"], sources=[("shirt", "fabric", "soil"), ("towel", "fabric", "soil")],
        stocks={"water": 10, "cleaning_agent": 3, "spare_pads": 1}, time_left=time_left, profile=profile)


def kitchen(reg: Registries, profile: str = WATER_FIRST, time_left: int = 30) -> Instance:
    """Put the used bowl and plate in the dishwasher and wash them, wipe the board, rinse the carrot and the
    tomato and put them on the board, and serve the apple on the plate. Dishes leave food residue on a pad,
    produce leaves soil; the board and the dishes are protected against both."""
    return instance(
        reg, f"kitchen-{profile}",
        objects={"carrot": "carrot", "tomato": "tomato", "apple": "apple", "plate": "plate", "board": "board",
                 "cloth": "cloth", "bowl": "cereal_bowl", "dish": "dinner_plate", "dishwasher": "dish_washer",
                 "counter": "counter", "sink": "sink"},
        facts=EMPTY + ["(at carrot counter)", "(at tomato counter)", "(at apple counter)", "(at plate counter)",
                       "(at board counter)", "(at cloth counter)", "(at bowl counter)", "(at dish counter)",
                       "(closed dishwasher)"],
        goals=["(at carrot board)", "(at tomato board)", "(at apple plate)", "(safe board)", "(safe bowl)",
               "(safe dish)"],
        actions=["pick", "place", "put", "open", "close", "load", "run-dishwasher-hot", "run-dishwasher-eco",
                 "rinse-item", "wipe", "wash-pad", "replace-pad"],
        hazards=["soil", "food_residue"],
        sources=[("carrot", "skin", "soil"), ("tomato", "skin", "soil"), ("bowl", "inside", "food_residue"),
                 ("dish", "top", "food_residue"), ("board", "face", "food_residue")],
        stocks={"water": 8, "cleaning_agent": 3, "spare_pads": 1}, time_left=time_left, profile=profile)


SCENARIOS = {"laundry": laundry, "kitchen": kitchen}

"""Tasks in which two goals put two items into one shared basket, so the item put last touches the other (the put's
guarded contact with what is already there): the later of the two goals is achieved while the other holds, in
whichever order (docs/certification.md, "Reductions" 8). Each optimum is worked out in its docstring. Every task is
built under two namings of the items, so that either goal atom comes first in the compiled task."""

from __future__ import annotations

from hygiene_pddl.instances.model import Instance
from hygiene_pddl.registries import Registries
from tests.certify.tasks import instance

NAMINGS = {"grapes_first": ("grapes", "potato"), "potato_first": ("sweet", "muddy")}  # (clean fruit, muddy potato)


def _basket(reg: Registries, name: str, naming: str, facts: list[str], water: int) -> Instance:
    fruit, potato = NAMINGS[naming]
    objects = {fruit: "grapes", potato: "potato", "basket": "basket", "worktop": "worktop"}
    facts = [f.replace("FRUIT", fruit).replace("POTATO", potato) for f in [*facts, "(empty left)",
                                                                          "(at basket worktop)"]]
    return instance(reg, f"{name}-{naming}", objects=objects, facts=facts,
                    goals=[f"(at {fruit} basket)", f"(at {potato} basket)"], actions=["pick", "put", "rinse-item"],
                    hazards=["soil"], sources=[(potato, "skin", "soil")], stocks={"water": water}, time_left=4)


def potato_in_fruit_held(reg: Registries, naming: str) -> Instance:
    """The muddy potato is in the basket, the right holds the grapes. The potato must come out, be rinsed and go back
    (the grapes cannot go in while it is there, and cannot be in when it returns muddy): L picks it out 0-1 while R
    puts the grapes in 0-1 (the potato has left by the put's end), L rinses 1-2 and puts it back 2-3, touching the
    grapes clean (optimum: water 1, active time 4, makespan 3). The potato is put last."""
    return _basket(reg, "potato_in_fruit_held", naming, ["(at POTATO basket)", "(holding right FRUIT)"], 2)


def fruit_in_potato_held(reg: Registries, naming: str) -> Instance:
    """The grapes are in the basket, the right holds the muddy potato: it is rinsed in hand and put in (optimum:
    water 1, active time 2, makespan 2); taking the grapes out to put them back after the potato still has them
    touch it. The potato is put last, the grapes' goal holds throughout."""
    return _basket(reg, "fruit_in_potato_held", naming, ["(at FRUIT basket)", "(holding right POTATO)"], 2)


def fruit_in_no_water(reg: Registries, naming: str) -> Instance:
    """As :func:`fruit_in_potato_held` without water: no plan (infeasible, proved)."""
    return _basket(reg, "fruit_in_no_water", naming, ["(at FRUIT basket)", "(holding right POTATO)"], 0)


OPTIMA = {"potato_in_fruit_held": {"water": 1, "active_robot_time": 4, "makespan": 3},
          "fruit_in_potato_held": {"water": 1, "active_robot_time": 2, "makespan": 2},
          "fruit_in_no_water": None}
ORDERINGS = {f.__name__: f for f in (potato_in_fruit_held, fruit_in_potato_held, fruit_in_no_water)}

__all__ = ["NAMINGS", "OPTIMA", "ORDERINGS"]

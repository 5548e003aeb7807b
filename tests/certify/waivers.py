"""Tasks in which a protected carrier first gets a hazard legally (an exempt contact: a place in a for-dirty place,
a washer load, a dryer's tumble), after which a contact with a dirty source breaks no rule (issue 12; the
certifier's bound and relevance filter once demanded a clean source there and proved each of them infeasible)."""

from __future__ import annotations

from hygiene_pddl.instances.model import Instance
from hygiene_pddl.registries import Registries
from tests.certify.tasks import EMPTY, instance

SINK = {"apple": "apple", "sink": "sink", "counter": "counter"}


def sink_then_dirty_pick(reg: Registries) -> Instance:
    """The right (clean) holds the apple, the left pad carries soil that nothing can remove; the left must hold the
    apple. Only plan: place it in the soiled sink (exempt), then pick it with the soiled pad (optimum: active time
    2, makespan 2)."""
    return instance(reg, "sink_then_dirty_pick", objects=SINK, facts=["(holding right apple)", "(empty left)"],
                    goals=["(holding left apple)"], actions=["pick", "place"], hazards=["soil"],
                    sources=[("left", "pad", "soil"), ("sink", "basin", "soil")], time_left=4)


def sink_then_dirty_pick_then_rinse(reg: Registries) -> Instance:
    """As :func:`sink_then_dirty_pick` with (safe apple): the apple is rinsed after the dirty pick (optimum: water 1,
    active time 3, makespan 3)."""
    return instance(reg, "sink_then_dirty_pick_then_rinse", objects=SINK,
                    facts=["(holding right apple)", "(empty left)"], goals=["(holding left apple)", "(safe apple)"],
                    actions=["pick", "place", "rinse-item"], hazards=["soil"],
                    sources=[("left", "pad", "soil"), ("sink", "basin", "soil")], stocks={"water": 2}, time_left=4)


def sink_then_dirty_pick_unsafe(reg: Registries) -> Instance:
    """As :func:`sink_then_dirty_pick` with (safe apple) and no treatment: the soil that makes the pick legal can
    never leave the apple, so there is no plan (infeasible, proved)."""
    return instance(reg, "sink_then_dirty_pick_unsafe", objects=SINK,
                    facts=["(holding right apple)", "(empty left)"], goals=["(holding left apple)", "(safe apple)"],
                    actions=["pick", "place"], hazards=["soil"],
                    sources=[("left", "pad", "soil"), ("sink", "basin", "soil")], time_left=4)


def load_then_dirty_unload(reg: Registries) -> Instance:
    """A washer load (exempt) puts the drum's soil on the shirt; the soiled left pad then unloads it (optimum:
    active time 2, makespan 2)."""
    return instance(reg, "load_then_dirty_unload", objects={"shirt": "shirt", "washer": "washer", "rack": "rack"},
                    facts=["(holding right shirt)", "(empty left)"], goals=["(holding left shirt)"],
                    actions=["pick", "load", "unload"], hazards=["soil"],
                    sources=[("left", "pad", "soil"), ("washer", "drum", "soil")], time_left=4)


def tumble_then_dirty_unload(reg: Registries) -> Instance:
    """Both pads soiled; the clean shirt and the soiled towel in the closed dryer. The dryer run (exempt tumble)
    soils the shirt, which a pad may then unload; the run adds nothing a goal needs (no dry goal), so only the
    relevance rule for legal transfers keeps it (optimum: energy 3, active time 2, makespan 7)."""
    return instance(reg, "tumble_then_dirty_unload", objects={"shirt": "shirt", "towel": "towel", "dryer": "dryer"},
                    facts=[*EMPTY, "(inside shirt dryer)", "(inside towel dryer)", "(closed dryer)"],
                    goals=["(holding left shirt)"], actions=["open", "unload", "run-dryer"], hazards=["soil"],
                    sources=[("left", "pad", "soil"), ("right", "pad", "soil"), ("towel", "fabric", "soil")],
                    time_left=8)


WAIVERS = {f.__name__: f for f in (sink_then_dirty_pick, sink_then_dirty_pick_then_rinse, sink_then_dirty_pick_unsafe,
                                   load_then_dirty_unload, tumble_then_dirty_unload)}

__all__ = ["WAIVERS"]

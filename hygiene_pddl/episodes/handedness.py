"""Which gripper a reference plan treats when the two would do equally well.

The robot's two grippers are identical (SPEC §1: same parts, same actions), so swapping their names throughout an
instance gives an instance with the same plans up to that swap, each with the same cost. Where the task is symmetric
in the grippers, a planner's tie-break decides which one works, and Hygiene-NSP's always picks the first: every
treatment of a symmetric task lands on the left gripper, and the benchmark would teach that a treatment is a
left-hand act (issue 13's gate "treated gripper left / right").

The reference of every instance of a *right-handed* family (half of the families, by a digest of the name, so the
choice is the same for both members of every pair) is therefore certified on the mirrored instance and mirrored
back. Forced choices (the history dirtied one pad) do not change; only ties do.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace

from hygiene_pddl.instances.model import HazardSource, Instance
from hygiene_pddl.planners.base import ChosenStep
from hygiene_pddl.registries import Registries


def right_handed(family: str) -> bool:
    """Whether ``family``'s references break gripper ties towards the second gripper (a fixed half of the names)."""
    return hashlib.sha256(family.encode()).digest()[0] % 2 == 1


def _swapper(reg: Registries):  # noqa: ANN202
    first, second = reg.grippers[:2]
    table = {first: second, second: first}
    return lambda names: tuple(table.get(n, n) for n in names)


def mirrored(reg: Registries, inst: Instance) -> Instance:
    """``inst`` with the two grippers' names swapped in every fact, goal, hazard source and history record."""
    sw = _swapper(reg)
    return replace(
        inst,
        goals=tuple(sw(g) for g in inst.goals),
        initial_facts=frozenset(sw(f) for f in inst.initial_facts),
        observations=frozenset(sw(f) for f in inst.observations),
        initial_hazards=tuple(HazardSource(sw(h.carrier), h.hazard) for h in inst.initial_hazards),
        history=tuple(replace(r, args=sw(r.args)) for r in inst.history),
    )


def mirrored_steps(reg: Registries, steps: tuple[ChosenStep, ...]) -> tuple[ChosenStep, ...]:
    """A plan of the mirrored instance as a plan of the original (and back: the swap is its own inverse)."""
    sw = _swapper(reg)
    return tuple(replace(s, args=sw(s.args)) for s in steps)


__all__ = ["mirrored", "mirrored_steps", "right_handed"]

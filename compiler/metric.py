"""Lexicographic profile → one weighted sum, with weights from per-dimension upper bounds (SPEC §5).

For a profile d1 > d2 > ... > d10 and upper bounds U_i on each dimension, weight
w_i = prod_{j>i} (U_j + 1) makes sum_i w_i * c_i order plans exactly lexicographically, since the
lower tiers together never reach one unit of a higher tier.
"""

from __future__ import annotations

from dataclasses import dataclass

from hygiene_pddl.costs import DIMENSIONS, SUMMED, Profile
from hygiene_pddl.registries.model import ActionSchema


@dataclass(frozen=True)
class Bounds:
    """Upper bounds the compiler derives for one continuation problem."""

    max_actions: int
    per_dimension: tuple[tuple[str, int], ...]

    def __getitem__(self, dim: str) -> int:
        return dict(self.per_dimension)[dim]


def derive_bounds(actions: list[ActionSchema], remaining_time: int, n_grippers: int, n_appliances: int) -> Bounds:
    """Bounds from the time left: no gripper or appliance can run more actions than fit before the deadline."""
    gripper_durs = [a.duration for a in actions if a.occupies]
    appliance_durs = [a.duration for a in actions if not a.occupies]
    max_actions = 0
    if gripper_durs:
        max_actions += n_grippers * (remaining_time // min(gripper_durs))
    if appliance_durs:
        max_actions += max(1, n_appliances) * (remaining_time // min(appliance_durs))
    ub: dict[str, int] = {}
    for dim in SUMMED:
        per_action = max((dict(a.costs).get(dim, 0) for a in actions), default=0)
        ub[dim] = per_action * max_actions
    ub["active_robot_time"] = n_grippers * remaining_time if gripper_durs else 0
    ub["makespan"] = remaining_time
    return Bounds(max_actions, tuple((d, ub[d]) for d in DIMENSIONS))


def lex_weights(profile: Profile, bounds: Bounds, dims: tuple[str, ...] | None = None) -> dict[str, int]:
    """Weights per dimension (only ``dims`` if given); dimensions with a zero bound get weight 0."""
    order = [d for d in profile.order if (dims is None or d in dims)]
    weights: dict[str, int] = {}
    factor = 1
    for dim in reversed(order):
        ub = bounds[dim]
        weights[dim] = factor if ub > 0 else 0
        factor *= ub + 1
    return {d: weights[d] for d in order}

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


def derive_bounds(actions: list[ActionSchema], remaining_time: int, n_grippers: int, n_appliances: int,
                  stocks: dict[str, int] | None = None, appliances: dict[str, int] | None = None) -> Bounds:
    """Bounds from the time and stocks left.

    An action can occur at most as often as it fits before the deadline on its grippers or appliances
    (or its unary capacity; ``appliances`` says how many objects can serve an appliance action), and as
    its stocks allow; a dimension's bound sums its actions' amounts at
    those counts. The action bound is the smaller of that sum and what fits on grippers and appliances.
    """
    stocks = stocks or {}
    appliances = appliances or {}
    counts: dict[str, int] = {}
    for a in actions:
        fit = remaining_time // a.duration
        if a.capacities:
            n = fit
        elif a.occupies:
            n = n_grippers * fit // len(a.occupies)
        else:
            n = max(1, appliances.get(a.name, n_appliances)) * fit
        for stock, amount in a.consumes:
            n = min(n, stocks.get(stock, 0) // amount)
        counts[a.name] = n
    gripper_durs = [a.duration for a in actions if a.occupies]
    appliance_durs = [a.duration for a in actions if not a.occupies]
    fit_all = (n_grippers * (remaining_time // min(gripper_durs)) if gripper_durs else 0) + (
        max(1, n_appliances) * (remaining_time // min(appliance_durs)) if appliance_durs else 0)
    ub: dict[str, int] = {d: sum(dict(a.costs).get(d, 0) * counts[a.name] for a in actions) for d in SUMMED}
    ub["active_robot_time"] = n_grippers * remaining_time if gripper_durs else 0
    ub["makespan"] = remaining_time
    return Bounds(min(fit_all, sum(counts.values())), tuple((d, ub[d]) for d in DIMENSIONS))


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

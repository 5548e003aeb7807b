"""Lexicographic profile → one weighted sum, with weights from per-dimension upper bounds (SPEC §5, world model v2 §3).

**Claim.** For every two plans a, b that VAL accepts, cost(a) <lex cost(b) under the profile implies
metric(a) < metric(b); so a plan that minimises the metric minimises the profile.

**Weights.** Profile d_1 > ... > d_n over the dimensions K can incur (the others are 0 in every plan), U_i an
upper bound on d_i over all plans VAL accepts (:func:`derive_bounds`), w_n = 1, w_i = prod_{j>i} (U_j + 1);
a dimension with U_i = 0 gets weight 0 (it is 0 in every plan).

**Integer dimensions.** The summed dimensions, active robot time and, in whole-TU problems, makespan (the
declared K of ``(finish tuK)``, compiler/ticks.py) are integers c_j with 0 <= c_j <= U_j. Then
sum_{j>i} w_j c_j <= sum_{j>i} w_j U_j = sum_{j>i} (w_{j-1} - w_j) = w_i - w_n < w_i (telescoping:
w_{j-1} = w_j (U_j + 1)). If a and b first differ at d_i with a_i < b_i, then
metric(b) - metric(a) >= w_i (b_i - a_i) - sum_{j>i} w_j |b_j - a_j| >= w_i - (w_i - 1) > 0.

**Makespan last, (total-time).** When no dimension after makespan has a non-zero bound, the metric weighs
``(* 1 (total-time))`` (w_n = 1). T = total-time is the time of the plan's last happening; the profile's makespan
is m = round(T) on the TU grid (m - 1/2 <= T < m + 1/2), and every plan VAL accepts ends before the deadline
literal, 0 <= T < U_m + 1/2. Differing first at an integer dimension d_i: by the telescoping sum above,
sum_{i<j<n} w_j U_j = w_i - 1 - U_m, so the lower part of either metric lies in [0, w_i - 1/2) and
metric(b) - metric(a) > w_i - (w_i - 1/2) > 0. Differing first at makespan, m_a < m_b:
T_a < m_a + 1/2 <= m_b - 1/2 <= T_b.

**Makespan not last.** Then no weight on (total-time) can be exact: w_m (1/2) would have to stay below one unit
of the dimension after it while w_m exceeds that dimension's range. The problem uses ticks instead and makespan
is the integer K above.

**Bounds.** Every action of K that costs something occupies a gripper, an appliance or a named capacity, each a
unary resource an action holds for its whole duration; within the time left H (ends by H + 1/2, integer
durations d) one resource serves at most floor(H / d) runs of an action, since k runs need k·d <= H + 1/2 TU and
k·d is an integer. A stock bounds runs by amount. Sums over actions of per-run amounts times run bounds are upper
bounds; active robot time is at most (grippers) × H; makespan at most H.
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
        if a.costs and not (a.capacities or a.occupies or a.appliances):
            raise ValueError(f"action {a.name!r} costs something but holds no gripper, appliance or capacity: its "
                             "number of runs, hence the metric's weights, has no bound (compiler/metric.py)")
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

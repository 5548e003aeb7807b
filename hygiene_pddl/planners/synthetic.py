"""Synthetic stand-in for the planners' CP-SAT models, for tests and timing.

The generated model has the shape of a hygiene-nsp / fd-cpsat model without any hygiene
semantics: *jobs* (a treatment with alternatives ``wash`` / ``replace`` / ``disinfect``, or a
mandatory ``service`` action) made of optional actions; each present action runs on exactly one
of two grippers (``add_exactly_one`` over gripper literals, ``add_no_overlap`` per gripper);
washes also hold the sink (``add_cumulative`` with capacity 1); jobs form precedence chains;
stocks are linear sums bounded by the remaining amount; every action ends by the horizon; and the
ten cost dimensions of SPEC §2 are integer linear expressions (``makespan`` is a variable bounded
below by the end of every present action).

``wash`` costs water, cleaning agent and energy and takes long; ``replace`` costs a spare part,
a discarded item and solid waste and is quick: the two profiles "save water first" and "save
spare parts first" therefore pick different treatments.

``python -m hygiene_pddl.planners.synthetic`` prints the median full 10-stage solve time.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ortools.sat.python import cp_model

from hygiene_pddl.costs import DIMENSIONS  # noqa: E402 - the ten cost dimensions in canonical order (SPEC §2)


class _HasValue(Protocol):
    def value(self, expression: cp_model.LinearExprT) -> int: ...


_STOCKED = ("water", "cleaning_agent", "disinfectant", "replacement_parts")


@dataclass(frozen=True)
class SyntheticAction:
    """One optional action of the stand-in model and its variables."""

    name: str
    kind: str  # wash | replace | disinfect | service
    job: int
    duration: int
    costs: dict[str, int]
    uses_sink: bool
    present: cp_model.IntVar
    start: cp_model.IntVar
    grippers: tuple[cp_model.IntVar, cp_model.IntVar]


@dataclass(frozen=True)
class SyntheticModel:
    """A generated model, its actions, the ten cost expressions and a tie-break expression."""

    model: cp_model.CpModel
    actions: tuple[SyntheticAction, ...]
    costs: dict[str, cp_model.LinearExprT]
    tie_break: cp_model.LinearExprT
    horizon: int
    stocks: dict[str, int]

    def objectives(self, profile: Sequence[str] = ()) -> list[tuple[str, cp_model.LinearExprT]]:
        """Named cost expressions in profile order (a prefix completed canonically)."""
        return [(name, self.costs[name]) for name in complete_profile(profile)]

    def schedule(self, source: _HasValue) -> list[tuple[str, int, int]]:
        """``(action, start, gripper)`` of the present actions, read through ``source.value``."""
        read = source.value
        out = []
        for act in self.actions:
            if read(act.present):
                out.append((act.name, read(act.start), 0 if read(act.grippers[0]) else 1))
        return sorted(out, key=lambda row: (row[1], row[0]))


def complete_profile(profile: Sequence[str]) -> list[str]:
    """Complete a profile prefix with the remaining dimensions in canonical order."""
    unknown = [name for name in profile if name not in DIMENSIONS]
    if unknown or len(set(profile)) != len(profile):
        raise ValueError(f"bad profile {list(profile)}: unknown or repeated dimensions")
    return list(profile) + [name for name in DIMENSIONS if name not in profile]


def _action_costs(kind: str, rng: random.Random) -> tuple[int, dict[str, int], bool]:
    """Duration, per-dimension amounts and sink use of one action of ``kind``."""
    if kind == "wash":
        costs = {"water": rng.randint(2, 5), "cleaning_agent": rng.randint(1, 2),
                 "energy": rng.randint(1, 3), "tool_wear": rng.randint(0, 1)}
        return rng.randint(3, 6), costs, True
    if kind == "replace":
        costs = {"replacement_parts": 1, "discarded_items": 1, "solid_waste": rng.randint(1, 2),
                 "energy": rng.randint(0, 1)}
        return rng.randint(2, 4), costs, False
    if kind == "disinfect":
        costs = {"disinfectant": rng.randint(1, 2), "energy": 1, "tool_wear": 1}
        return rng.randint(2, 5), costs, False
    return rng.randint(1, 3), {"energy": 1, "tool_wear": rng.randint(0, 1)}, False


def _job_kinds(n_actions: int, rng: random.Random) -> list[list[str]]:
    """Split ``n_actions`` into jobs: treatments with 2-3 alternatives or single services."""
    jobs: list[list[str]] = []
    left = n_actions
    while left > 0:
        roll = rng.random()
        if left >= 3 and roll < 0.25:
            jobs.append(["wash", "replace", "disinfect"])
        elif left >= 2 and roll < 0.65:
            jobs.append(["wash", "replace"])
        else:
            jobs.append(["service"])
        left -= len(jobs[-1])
    return jobs


def build(
    n_actions: int,
    seed: int = 0,
    *,
    n_chains: int = 2,
    horizon: int | None = None,
    stocks: dict[str, int] | None = None,
) -> SyntheticModel:
    """Generate a stand-in model with exactly ``n_actions`` optional actions.

    ``stocks`` overrides the remaining amounts of water, cleaning_agent, disinfectant and
    replacement_parts (by default about half the treatments can use each resource);
    ``horizon`` defaults to the serial length of the longest alternatives.
    """
    if n_actions < 1:
        raise ValueError("n_actions must be at least 1")
    rng = random.Random(seed)
    model = cp_model.CpModel()
    kinds = _job_kinds(n_actions, rng)
    specs = [[(kind, *_action_costs(kind, rng)) for kind in job] for job in kinds]
    if horizon is None:
        horizon = sum(max(spec[1] for spec in job) for job in specs)
    n_treat = sum(1 for job in kinds if len(job) > 1)
    default_stock = {
        "water": 4 * max(1, (n_treat + 1) // 2),
        "cleaning_agent": 2 * max(1, (n_treat + 1) // 2),
        "disinfectant": 2,
        "replacement_parts": max(1, n_treat // 2),
    }
    stock = {**default_stock, **(stocks or {})}

    actions: list[SyntheticAction] = []
    gripper_intervals: tuple[list[cp_model.IntervalVar], list[cp_model.IntervalVar]] = ([], [])
    sink_intervals: list[cp_model.IntervalVar] = []
    makespan = model.new_int_var(0, horizon, "makespan")
    by_job: list[list[SyntheticAction]] = []
    for j, job in enumerate(specs):
        members = []
        for kind, duration, costs, uses_sink in job:
            name = f"{kind}-{j}" if len(job) > 1 else f"service-{j}"
            present = model.new_bool_var(f"{name}.present")
            start = model.new_int_var(0, horizon - duration, f"{name}.start")
            grips = (model.new_bool_var(f"{name}.g0"), model.new_bool_var(f"{name}.g1"))
            model.add_exactly_one([~present, grips[0], grips[1]])
            for g in (0, 1):
                gripper_intervals[g].append(model.new_optional_fixed_size_interval_var(
                    start, duration, grips[g], f"{name}.on{g}"))
            if uses_sink:
                sink_intervals.append(model.new_optional_fixed_size_interval_var(
                    start, duration, present, f"{name}.sink"))
            model.add(makespan >= start + duration).only_enforce_if(present)
            members.append(SyntheticAction(name, kind, j, duration, costs, uses_sink, present,
                                           start, grips))
        model.add_exactly_one([a.present for a in members])
        by_job.append(members)
        actions.extend(members)

    for g in (0, 1):
        model.add_no_overlap(gripper_intervals[g])
    if sink_intervals:
        model.add_cumulative(sink_intervals, [1] * len(sink_intervals), 1)

    # Precedence chains: job j follows the previous job of its chain.
    last_in_chain: dict[int, list[SyntheticAction]] = {}
    for members in by_job:
        chain = rng.randrange(n_chains)
        for prev in last_in_chain.get(chain, []):
            for act in members:
                model.add(act.start >= prev.start + prev.duration).only_enforce_if(
                    [prev.present, act.present])
        last_in_chain[chain] = members

    costs: dict[str, cp_model.LinearExprT] = {}
    for dim in DIMENSIONS[:8]:
        costs[dim] = cp_model.LinearExpr.weighted_sum(
            [a.present for a in actions], [a.costs.get(dim, 0) for a in actions])
    costs["active_robot_time"] = cp_model.LinearExpr.weighted_sum(
        [a.present for a in actions], [a.duration for a in actions])
    costs["makespan"] = makespan
    for dim in _STOCKED:
        model.add(costs[dim] <= stock[dim])
    tie_break = cp_model.LinearExpr.sum([a.start for a in actions])
    return SyntheticModel(model, tuple(actions), costs, tie_break, horizon, stock)


def time_full_solve(
    n_actions: int, seeds: Sequence[int], time_limit: float = 10.0, tie_break: bool = True
) -> list[tuple[float, float]]:
    """``(wall, cpu)`` seconds of a full 10-stage lexicographic solve per seed.

    CPU time (``time.process_time``) is the steadier figure on a loaded machine: with the default
    single worker it equals the solve's own work.
    """
    from hygiene_pddl.planners.lexsat import lexsolve

    times = []
    for seed in seeds:
        syn = build(n_actions, seed)
        t0, c0 = time.perf_counter(), time.process_time()
        result = lexsolve(syn.model, syn.objectives(), time_limit=time_limit,
                          tie_break=syn.tie_break if tie_break else None)
        times.append((time.perf_counter() - t0, time.process_time() - c0))
        if not result.found:
            print(f"n={n_actions} seed={seed}: {result.status.value}", file=sys.stderr)
    return times


def main(argv: Sequence[str] | None = None) -> int:
    """Print median / 90th percentile full-solve times at the given sizes (default 10 20)."""
    sizes = [int(a) for a in (argv if argv is not None else sys.argv[1:])] or [10, 20]
    for n in sizes:
        runs = time_full_solve(n, range(20))
        for label, values in (("wall", [w for w, _ in runs]), ("cpu", [c for _, c in runs])):
            ordered = sorted(values)
            p90 = ordered[round(0.9 * (len(ordered) - 1))]
            print(f"n_actions={n} {label}: median {statistics.median(values) * 1000:.1f} ms, "
                  f"p90 {p90 * 1000:.1f} ms, max {ordered[-1] * 1000:.1f} ms "
                  f"over {len(values)} seeds")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

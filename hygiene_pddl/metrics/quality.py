"""Beyond the paper's rates: plan quality against the certified optimum per cost dimension, a planner's time
against a baseline planner's, the solved-over-time curve (cactus plot), the common comparison set and the
per-instance outcomes. Pure functions over result records and the benchmark index (docs/metrics.md).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from hygiene_pddl.costs import DIMENSIONS, CostVector
from hygiene_pddl.episodes.index import BenchmarkIndex
from hygiene_pddl.metrics.core import Results, indicators, outcome
from hygiene_pddl.metrics.records import ResultRecord

#: Times below this (seconds) count as this in time ratios, so that a 0.0 s answer cannot divide by zero.
TIME_FLOOR = 0.001


def common_set(results: Mapping[str, Results], index: BenchmarkIndex) -> tuple[str, ...]:
    """Indexed instances that *every* planner in ``results`` has a main-comparison result on, sorted."""
    sets = [{i for i in r if i in index.instances} for r in results.values()]
    return tuple(sorted(set.intersection(*sets))) if sets else ()


def solve_time(rec: ResultRecord) -> float:
    """The planner's own time on the call (``timings.total``; the worker's wall time when it reports none)."""
    return float(rec.timings.get("total", rec.wall))


def cactus(results: Results, index: BenchmarkIndex, instances: Iterable[str], optimal: bool = False) -> list[float]:
    """Sorted planner times of the instances it resolved (SR; OSR with ``optimal``): the k-th value is the time
    by which k instances were resolved, the curve of a cactus plot."""
    times = []
    for i in instances:
        rec = results.get(i)
        x = indicators(index.instances[i], rec)
        if rec is not None and (x.osr if optimal else x.sr):
            times.append(solve_time(rec))
    return sorted(times)


def plan_quality(results: Results, index: BenchmarkIndex, instances: Iterable[str]) -> dict[str, Any]:
    """Safe plans on instances with a certified optimum, against that optimum, dimension by dimension:
    ``plans``, ``optimal`` (equal vectors) and per dimension ``worse`` / ``better`` counts, ``mean_excess``
    (mean of plan - optimum over those plans) and ``ratio`` (sum of plan / sum of optimum; None when the
    optimum's sum is 0). A plan can be better than the optimum in a dimension the profile ranks lower."""
    pairs = []
    for i in instances:
        info, rec = index.instances[i], results.get(i)
        x = indicators(info, rec)
        if x.b and x.o and rec is not None and rec.cost is not None:
            pairs.append((CostVector.from_mapping(rec.cost), info.optimal_cost))
    dims = {}
    for d in DIMENSIONS:
        diffs = [plan[d] - opt[d] for plan, opt in pairs]
        total_opt = sum(opt[d] for _, opt in pairs)
        dims[d] = {"worse": sum(v > 0 for v in diffs), "better": sum(v < 0 for v in diffs),
                   "mean_excess": statistics.fmean(diffs) if diffs else None,
                   "ratio": (sum(plan[d] for plan, _ in pairs) / total_opt) if total_opt else None}
    return {"plans": len(pairs), "optimal": sum(plan == opt for plan, opt in pairs), "dimensions": dims}


def time_ratio(results: Results, baseline: Results, index: BenchmarkIndex,
               instances: Iterable[str]) -> dict[str, Any]:
    """Planner time / baseline time on the instances both resolved (SR): ``n``, ``geomean``, ``median``,
    ``min``, ``max`` (None without such instances); times below :data:`TIME_FLOOR` count as the floor."""
    ratios = []
    for i in instances:
        a, b = results.get(i), baseline.get(i)
        info = index.instances[i]
        if a is not None and b is not None and indicators(info, a).sr and indicators(info, b).sr:
            ratios.append(max(solve_time(a), TIME_FLOOR) / max(solve_time(b), TIME_FLOOR))
    if not ratios:
        return {"n": 0, "geomean": None, "median": None, "min": None, "max": None}
    return {"n": len(ratios), "geomean": math.exp(statistics.fmean(math.log(r) for r in ratios)),
            "median": statistics.median(ratios), "min": min(ratios), "max": max(ratios)}


def per_instance(results: Mapping[str, Results], index: BenchmarkIndex, instances: Sequence[str],
                 columns: Mapping[str, Callable[[Any], Any]]) -> list[dict[str, Any]]:
    """One row per instance: its ``columns`` (name -> function of the InstanceInfo), then per planner the
    failure-table outcome, the status (``none`` without a result), the planner time and the first worse
    dimension of a safe non-optimal plan."""
    rows = []
    for i in instances:
        info = index.instances[i]
        row: dict[str, Any] = {"instance": i, **{k: f(info) for k, f in columns.items()}}
        for planner, res in results.items():
            rec = res.get(i)
            col = outcome(info, rec)
            row[planner] = {"outcome": col, "status": "none" if rec is None else rec.status,
                            "time": None if rec is None else solve_time(rec),
                            "first_worse": (rec.first_worse or {}).get("dimension")
                            if rec is not None and col == "safe_nonoptimal" else None}
        rows.append(row)
    return rows

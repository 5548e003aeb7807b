"""The state-projection study (paper §V-E): paired full-state and projected-state runs of one planner.

Records with ``projection = {"mode": "full"|"projected", "fallback": bool}`` are paired on
(planner, instance, run). Local planning time is ``timings["total"]`` (the planner's own time, no LLM calls).
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from typing import Any

from hygiene_pddl.costs import CostVector
from hygiene_pddl.episodes.index import BenchmarkIndex
from hygiene_pddl.metrics.records import ResultRecord

NOT_INDEXED = "(not in index)"


def projection_pairs(records: Iterable[ResultRecord]
                     ) -> tuple[dict[tuple[str, str, int], dict[str, ResultRecord]], list[tuple[str, str, int]]]:
    """Complete pairs {(planner, instance, run): {"full": rec, "projected": rec}}, and the projection-study
    keys with only one side. A repeated (key, mode) is a re-evaluation: the later record wins."""
    sides: dict[tuple[str, str, int], dict[str, ResultRecord]] = {}
    for rec in records:
        if rec.projection is not None:
            sides.setdefault((rec.planner, rec.instance, rec.run), {})[rec.mode] = rec
    pairs = {k: v for k, v in sorted(sides.items()) if len(v) == 2}
    return pairs, sorted(k for k, v in sides.items() if len(v) < 2)


def _cost(rec: ResultRecord) -> CostVector | None:
    return None if rec.cost is None else CostVector.from_mapping(rec.cost)


def agree(full: ResultRecord, projected: ResultRecord) -> bool:
    """Same status and the same recomputed cost (both without a cost counts as the same)."""
    return full.status == projected.status and _cost(full) == _cost(projected)


def _invalid(rec: ResultRecord) -> bool:
    return rec.status == "plan" and rec.valid is not True


def _reduction(full: float, projected: float) -> float | None:
    return None if full <= 0 else 1.0 - projected / full


def projection_study(records: Iterable[ResultRecord], index: BenchmarkIndex | None = None) -> dict[str, Any]:
    """Per planner: pairs, unpaired, fallbacks, agreement (status and cost), new_violations (projected plan
    invalid where the full-state run submitted no invalid plan), per-family relative reduction of local
    planning time (1 - sum projected / sum full over the family's pairs) and its median over families."""
    pairs, lonely = projection_pairs(records)
    unpaired: dict[str, int] = {}
    for planner, _, _ in lonely:
        unpaired[planner] = unpaired.get(planner, 0) + 1
    out: dict[str, Any] = {}
    for planner in sorted({k[0] for k in pairs} | set(unpaired)):
        mine = {k: v for k, v in pairs.items() if k[0] == planner}
        times: dict[str, list[float]] = {}
        disagreements = []
        fallbacks = agreement = new_violations = 0
        for (_, instance, run), side in mine.items():
            full, proj = side["full"], side["projected"]
            fallbacks += bool(proj.projection.get("fallback"))
            if agree(full, proj):
                agreement += 1
            else:
                disagreements.append({"instance": instance, "run": run,
                                      "full": {"status": full.status, "cost": full.cost, "valid": full.valid},
                                      "projected": {"status": proj.status, "cost": proj.cost, "valid": proj.valid}})
            new_violations += _invalid(proj) and not _invalid(full)
            tf, tp = full.timings.get("total"), proj.timings.get("total")
            if tf is not None and tp is not None:
                family = index.instances[instance].family if index and instance in index.instances else NOT_INDEXED
                acc = times.setdefault(family, [0.0, 0.0])
                acc[0] += tf
                acc[1] += tp
        family_reduction = {f: r for f, (tf, tp) in sorted(times.items()) if (r := _reduction(tf, tp)) is not None}
        out[planner] = {
            "pairs": len(mine),
            "unpaired": unpaired.get(planner, 0),
            "fallbacks": fallbacks,
            "agreement": agreement,
            "new_violations": new_violations,
            "families": len(family_reduction),
            "median_reduction": statistics.median(family_reduction.values()) if family_reduction else None,
            "family_reduction": family_reduction,
            "disagreements": disagreements,
        }
    return out

"""Every table of the paper (Tables II-V, the swap evaluation, the projection study) and the comparison's
extras (plan quality per dimension, time against a baseline planner, cactus curves, per-instance outcomes) as
plain dicts, ready for a report writer to render as Markdown, CSV or JSON (rates are fractions in [0, 1])."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from hygiene_pddl.episodes.index import BenchmarkIndex, InstanceInfo
from hygiene_pddl.metrics.core import (
    EVENT_LABELS,
    HISTORY_LABELS,
    PROFILE_LABELS,
    comparison_set,
    event_instances,
    event_resolution,
    failure_table,
    pair_counts,
    pair_set,
    planners_of,
    resolution,
    resolution_by,
    select,
)
from hygiene_pddl.metrics.projection import projection_study
from hygiene_pddl.metrics.quality import cactus, common_set, plan_quality, time_ratio
from hygiene_pddl.metrics.records import ResultRecord
from hygiene_pddl.registries import Registries

#: InstanceInfo attributes broken down by default (paper Table II A and B, then area and design); with the
#: registries, ``kind`` (the family's task kind) too.
DEFAULT_BREAKDOWNS: tuple[str, ...] = ("tier", "activity_group", "household_area", "design")
#: The planner the others' times are compared with, when it is among them.
BASELINE = "hygiene-nsp"


def family_kind(reg: Registries) -> Callable[[InstanceInfo], str | None]:
    """InstanceInfo -> the task kind (family structure) its family declares in the task-source registry."""
    kinds = {name: getattr(fam, "kind", None) for name, fam in reg.families.items()}
    return lambda info: kinds.get(info.family)


def all_tables(records: Iterable[ResultRecord], index: BenchmarkIndex, planners: Iterable[str] | None = None,
               instances: Iterable[str] | str | None = None,
               breakdowns: Iterable[str | tuple[str, Callable[[InstanceInfo], Any]]] | None = None,
               results_dir: Path | str | None = None, reg: Registries | None = None,
               baseline: str | None = None) -> dict[str, Any]:
    """All metrics for ``planners`` (default: every planner in the records) over one comparison set:
    ``instances`` is ``"common"`` (the indexed instances every planner has a result on), ``"union"`` or
    ``None`` (those any of them was run on; a planner's missing results are no plan) or explicit ids.

    Keys: ``comparison_set`` (with ``rule`` and each planner's ``coverage``: how many of its own results the
    set holds), ``overall``, ``by_<name>`` for each breakdown (an attribute name, or (name, key function);
    default :data:`DEFAULT_BREAKDOWNS` and ``kind`` with ``reg``), ``profile_pairs``, ``history_pairs``,
    ``events``, ``failures``, ``quality``, ``cactus`` (SR and OSR curves), ``time_ratio`` (against
    ``baseline``, default :data:`BASELINE` if present, else the first planner), ``projection`` (of the chosen
    planners, or of every planner with projection-study records by default), ``unindexed`` (record instances
    the index does not know) and, when ``results_dir`` is given, ``history_swaps`` (replays plan files).
    """
    records = list(records)
    chosen = None if planners is None else list(planners)
    planners = planners_of(records) if chosen is None else chosen
    results = {p: select(records, p) for p in planners}
    if instances == "common":
        rule, ids = "common", common_set(results, index)
    elif instances is None or instances == "union":
        rule, ids = "union", comparison_set(records, index, planners)
    else:
        rule, ids = "given", tuple(dict.fromkeys(instances))
    if breakdowns is None:
        breakdowns = DEFAULT_BREAKDOWNS + ((("kind", family_kind(reg)),) if reg is not None else ())
    breakdowns = tuple((b, None) if isinstance(b, str) else b for b in breakdowns)
    in_set = set(ids)
    tables: dict[str, Any] = {
        "comparison_set": {
            "n": len(ids),
            "rule": rule,
            "planners": planners,
            "coverage": {p: {"results": sum(i in index.instances for i in results[p]),
                             "in_set": sum(i in in_set for i in results[p])} for p in planners},
            "instances": list(ids),
            "profile_pairs": {lb: len(pair_set(index, "profile", lb, ids)) for lb in PROFILE_LABELS},
            "history_pairs": {lb: len(pair_set(index, "history", lb, ids)) for lb in HISTORY_LABELS},
            "events": {ev: len(event_instances(index, ev, ids)) for ev in EVENT_LABELS},
        },
        "overall": {p: resolution(results[p], index, ids).as_dict() for p in planners},
    }
    for name, key in breakdowns:
        tables[f"by_{name}"] = {p: {str(v): r.as_dict() for v, r in
                                    resolution_by(results[p], index, name, ids, key).items()} for p in planners}
    tables["profile_pairs"] = {p: {lb: pair_counts(results[p], index, "profile", lb, ids).as_dict()
                                   for lb in PROFILE_LABELS} for p in planners}
    tables["history_pairs"] = {p: {lb: pair_counts(results[p], index, "history", lb, ids).as_dict()
                                   for lb in HISTORY_LABELS} for p in planners}
    tables["events"] = {p: {ev: event_resolution(results[p], index, ev, ids).as_dict() for ev in EVENT_LABELS}
                        for p in planners}
    tables["failures"] = {p: failure_table(results[p], index, ids).as_dict() for p in planners}
    tables["quality"] = {p: plan_quality(results[p], index, ids) for p in planners}
    tables["cactus"] = {p: {"sr": cactus(results[p], index, ids), "osr": cactus(results[p], index, ids, True)}
                        for p in planners}
    base = baseline if baseline is not None else (BASELINE if BASELINE in planners else planners[0] if planners
                                                  else None)
    tables["time_ratio"] = {"baseline": base, "by_planner": {
        p: time_ratio(results[p], results[base], index, ids) for p in planners} if base in results else {}}
    tables["projection"] = projection_study([r for r in records if chosen is None or r.planner in chosen], index)
    tables["unindexed"] = sorted({r.instance for r in records if r.instance not in index.instances})
    if results_dir is not None:
        from hygiene_pddl.metrics.swap import history_swaps

        tables["history_swaps"] = history_swaps(records, index, results_dir, reg, planners, ids)
    return tables

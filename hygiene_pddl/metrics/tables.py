"""Every table of the paper (Tables II-V, the swap evaluation, the projection study) as plain dicts, ready
for a report writer to render as Markdown, CSV or JSON (rates are fractions in [0, 1], not percent)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from hygiene_pddl.episodes.index import BenchmarkIndex
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
from hygiene_pddl.metrics.records import ResultRecord
from hygiene_pddl.registries import Registries

#: InstanceInfo attributes broken down by default (paper Table II A and B).
DEFAULT_BREAKDOWNS: tuple[str, ...] = ("tier", "activity_group")


def all_tables(records: Iterable[ResultRecord], index: BenchmarkIndex, planners: Iterable[str] | None = None,
               instances: Iterable[str] | None = None, breakdowns: Iterable[str] = DEFAULT_BREAKDOWNS,
               results_dir: Path | str | None = None, reg: Registries | None = None) -> dict[str, Any]:
    """All metrics for ``planners`` (default: every planner in the records) over one comparison set
    (default: every indexed instance any of them was run on; a planner's missing results are no plan).

    Keys: ``comparison_set``, ``overall``, ``by_<attribute>`` for each breakdown, ``profile_pairs``,
    ``history_pairs``, ``events``, ``failures``, ``projection`` (of the chosen planners, or of every planner
    with projection-study records by default), ``unindexed`` (record instances the index
    does not know) and, when ``results_dir`` is given, ``history_swaps`` (replays plan files).
    """
    records = list(records)
    chosen = None if planners is None else list(planners)
    planners = planners_of(records) if chosen is None else chosen
    ids = comparison_set(records, index, planners) if instances is None else tuple(dict.fromkeys(instances))
    results = {p: select(records, p) for p in planners}
    breakdowns = tuple(breakdowns)
    tables: dict[str, Any] = {
        "comparison_set": {
            "n": len(ids),
            "planners": planners,
            "instances": list(ids),
            "profile_pairs": {lb: len(pair_set(index, "profile", lb, ids)) for lb in PROFILE_LABELS},
            "history_pairs": {lb: len(pair_set(index, "history", lb, ids)) for lb in HISTORY_LABELS},
            "events": {ev: len(event_instances(index, ev, ids)) for ev in EVENT_LABELS},
        },
        "overall": {p: resolution(results[p], index, ids).as_dict() for p in planners},
    }
    for attr in breakdowns:
        tables[f"by_{attr}"] = {p: {str(v): r.as_dict() for v, r in resolution_by(results[p], index, attr, ids).items()}
                                for p in planners}
    tables["profile_pairs"] = {p: {lb: pair_counts(results[p], index, "profile", lb, ids).as_dict()
                                   for lb in PROFILE_LABELS} for p in planners}
    tables["history_pairs"] = {p: {lb: pair_counts(results[p], index, "history", lb, ids).as_dict()
                                   for lb in HISTORY_LABELS} for p in planners}
    tables["events"] = {p: {ev: event_resolution(results[p], index, ev, ids).as_dict() for ev in EVENT_LABELS}
                        for p in planners}
    tables["failures"] = {p: failure_table(results[p], index, ids).as_dict() for p in planners}
    tables["projection"] = projection_study([r for r in records if chosen is None or r.planner in chosen], index)
    tables["unindexed"] = sorted({r.instance for r in records if r.instance not in index.instances})
    if results_dir is not None:
        from hygiene_pddl.metrics.swap import history_swaps

        tables["history_swaps"] = history_swaps(records, index, results_dir, reg, planners, ids)
    return tables

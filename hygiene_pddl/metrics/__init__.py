"""The paper's metrics (SPEC §8; paper §III-C eqs. 2-4, Tables II-V) over bench result records.

Definitions and decisions: docs/metrics.md.
"""

from hygiene_pddl.metrics.core import (
    Failures,
    Indicators,
    PairCounts,
    Resolution,
    comparison_set,
    event_instances,
    event_resolution,
    failure_table,
    history_completion,
    indicators,
    outcome,
    pair_counts,
    pair_set,
    planners_of,
    profile_success,
    resolution,
    resolution_by,
    select,
)
from hygiene_pddl.metrics.projection import projection_pairs, projection_study
from hygiene_pddl.metrics.quality import cactus, common_set, per_instance, plan_quality, solve_time, time_ratio
from hygiene_pddl.metrics.records import ResultRecord, iter_records, load_records
from hygiene_pddl.metrics.tables import all_tables

__all__ = [
    "Failures",
    "Indicators",
    "PairCounts",
    "Resolution",
    "ResultRecord",
    "all_tables",
    "cactus",
    "common_set",
    "comparison_set",
    "event_instances",
    "event_resolution",
    "failure_table",
    "history_completion",
    "indicators",
    "iter_records",
    "load_records",
    "outcome",
    "pair_counts",
    "pair_set",
    "per_instance",
    "plan_quality",
    "planners_of",
    "profile_success",
    "projection_pairs",
    "projection_study",
    "resolution",
    "resolution_by",
    "select",
    "solve_time",
    "time_ratio",
]

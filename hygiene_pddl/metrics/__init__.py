"""The paper's metrics (SPEC §8; paper §III-C eqs. 2-4, Tables II-V) over bench result records.

Definitions and decisions: docs/metrics.md.
"""

from hygiene_pddl.metrics.records import ResultRecord, iter_records, load_records

__all__ = ["ResultRecord", "iter_records", "load_records"]

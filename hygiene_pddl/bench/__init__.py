"""Comparing planners: the bench harness (isolated, resumable, local or Dask).

Public API: :func:`run_bench` with :class:`BenchConfig`.
"""

from hygiene_pddl.bench.runner import BenchConfig, BenchSummary, Job, execute_job, resolve_instances, run_bench
from hygiene_pddl.bench.store import ResultStore, read_results

__all__ = ["BenchConfig", "BenchSummary", "Job", "ResultStore", "execute_job", "read_results", "resolve_instances",
           "run_bench"]

"""Comparing planners: the bench harness (isolated, resumable, local or Dask), reports and plots.

Public API: :func:`run_bench` with :class:`BenchConfig`, :func:`write_report`, :func:`run_demo`.
"""

from hygiene_pddl.bench.demo import run_demo
from hygiene_pddl.bench.report import Report, print_tables, write_report
from hygiene_pddl.bench.runner import BenchConfig, BenchSummary, Job, execute_job, resolve_instances, run_bench
from hygiene_pddl.bench.store import ResultStore, read_results

__all__ = ["BenchConfig", "BenchSummary", "Job", "Report", "ResultStore", "execute_job", "print_tables",
           "read_results", "resolve_instances", "run_bench", "run_demo", "write_report"]

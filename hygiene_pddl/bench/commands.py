"""``hygiene-pddl bench`` and ``hygiene-pddl report`` (imported by the CLI at start-up)."""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path

from hygiene_pddl.cli import command
from hygiene_pddl.errors import EXIT_OK, InputError
from hygiene_pddl.outputs import output_dir


def _bench_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--planners", default="hygiene-nsp,fd-cpsat",
                   help="comma-separated planner names (see `hygiene-pddl planners`; default hygiene-nsp,fd-cpsat)")
    p.add_argument("--instances", nargs="+", required=True, metavar="PATH",
                   help="instance files, family folders (or a problems folder) and glob patterns")
    p.add_argument("--out", type=Path, required=True, help="results folder (results.jsonl, plans/); resumed if present")
    p.add_argument("--jobs", type=int, default=1, help="planner calls at the same time (default 1)")
    p.add_argument("--time-limit", type=float, default=60.0, help="seconds per planner call (default 60)")
    p.add_argument("--memory-limit", type=int, default=4096,
                   help="MB of address space per planner call (default 4096; 0: no limit)")
    p.add_argument("--grace", type=float, default=5.0,
                   help="seconds past the time limit before the call's process group is killed (default 5)")
    p.add_argument("--runs", type=int, default=1, help="runs per (planner, instance) (default 1)")
    p.add_argument("--executor", choices=["local", "dask"], default="local")
    p.add_argument("--scheduler", metavar="ADDRESS", help="Dask scheduler address for --executor dask")
    p.add_argument("--plugin", action="append", default=[], metavar="MODULE",
                   help="module or .py file to import (here and in every worker) that registers more planners")
    p.add_argument("--projection-study", action="store_true",
                   help="also run full- and projected-state runs of planners with a projection switch")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def _raise_interrupt(signum, frame):  # noqa: ARG001 - signal handler signature
    raise KeyboardInterrupt


@command("bench", "run planners over benchmark instances (isolated, time/memory limits, resumable)", _bench_args)
def _bench(args: argparse.Namespace) -> int:
    from hygiene_pddl.bench.runner import BenchConfig, run_bench

    planners = [p.strip() for p in args.planners.split(",") if p.strip()]
    if not planners:
        raise InputError("--planners names no planner")
    config = BenchConfig(planners, args.instances, args.out, jobs=args.jobs, time_limit=args.time_limit,
                         memory_limit=args.memory_limit or None, runs=args.runs, grace=args.grace,
                         executor=args.executor, scheduler=args.scheduler, plugins=args.plugin,
                         progress=not args.quiet, projection_study=args.projection_study)
    output_dir(args.out)
    old = signal.signal(signal.SIGTERM, _raise_interrupt)  # a kill stops the workers, like Ctrl-C
    try:
        summary = run_bench(config)
    finally:
        signal.signal(signal.SIGTERM, old)
    statuses = ", ".join(f"{k} {v}" for k, v in sorted(summary.statuses.items())) or "nothing new"
    print(f"{summary.total} runs: {summary.skipped} already in {args.out / 'results.jsonl'}, {summary.ran} run now "
          f"({statuses}); {summary.failures} failed in all; {summary.wall:.1f} s")
    return EXIT_OK


def _report_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("results", type=Path, help="results folder written by `hygiene-pddl bench`")
    p.add_argument("--out", type=Path, required=True, help="report folder (Markdown, CSV, JSON, PNG)")
    p.add_argument("--problems", type=Path, default=None,
                   help="benchmark problems folder (default: the one recorded by bench, else ./problems)")
    p.add_argument("--planners", default=None, help="comma-separated planners to compare (default: all)")
    p.add_argument("--gantt", action="append", default=[], metavar="PLANNER:INSTANCE",
                   help="plan(s) to draw as a Gantt chart (default: the first valid plan of each planner)")
    p.add_argument("--no-swaps", action="store_true", help="skip the history-swap evaluation (replays plans)")


@command("report", "tables (Markdown, CSV, JSON) and plots (PNG) from a bench results folder", _report_args)
def _report(args: argparse.Namespace) -> int:
    from hygiene_pddl.bench.report import print_tables, write_report

    planners = [p.strip() for p in args.planners.split(",") if p.strip()] if args.planners else None
    gantt = []
    for spec in args.gantt:
        planner, sep, instance = spec.partition(":")
        if not sep or not planner or not instance:
            raise InputError(f"--gantt expects PLANNER:INSTANCE, got {spec!r}")
        gantt.append((planner, instance))
    output_dir(args.out)
    report = write_report(args.results, args.out, problems=args.problems, planners=planners, gantt=gantt or None,
                          swaps=not args.no_swaps)
    print_tables(report)
    print(f"wrote {len(report.files)} files under {args.out}", file=sys.stderr)
    return EXIT_OK

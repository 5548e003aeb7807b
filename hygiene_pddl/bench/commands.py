"""``hygiene-pddl bench`` (imported by the CLI at start-up)."""

from __future__ import annotations

import argparse
import signal
from pathlib import Path

from hygiene_pddl.cli import command
from hygiene_pddl.errors import EXIT_OK, InputError


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
    old = signal.signal(signal.SIGTERM, _raise_interrupt)  # a kill stops the workers, like Ctrl-C
    try:
        summary = run_bench(config)
    finally:
        signal.signal(signal.SIGTERM, old)
    statuses = ", ".join(f"{k} {v}" for k, v in sorted(summary.statuses.items())) or "nothing new"
    print(f"{summary.total} runs: {summary.skipped} already in {args.out / 'results.jsonl'}, {summary.ran} run now "
          f"({statuses}); {summary.failures} failed in all; {summary.wall:.1f} s")
    return EXIT_OK

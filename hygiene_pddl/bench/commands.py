"""``hygiene-pddl bench`` and ``hygiene-pddl report`` (imported by the CLI at start-up)."""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path

from hygiene_pddl.cli import command
from hygiene_pddl.errors import EXIT_OK, InputError
from hygiene_pddl.outputs import output_dir, write_text


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
    p.add_argument("--executor", choices=["local", "dask"], default="local",
                   help="local: --jobs calls at a time here; dask: on a Dask cluster (default local)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="Dask scheduler for --executor dask (default: a local cluster of --jobs worker processes)")
    p.add_argument("--worker-start", choices=["fork", "spawn"], default="fork",
                   help="how each call's isolated process starts: forked from a preloaded server (default) or "
                        "a fresh Python process (slow start-up)")
    p.add_argument("--plugin", action="append", default=[], metavar="MODULE",
                   help="module or .py file to import (here and in every worker) that registers more planners")
    p.add_argument("--projection-study", action="store_true",
                   help="also run full- and projected-state runs of planners with a projection switch")
    p.add_argument("--sample", type=int, metavar="N",
                   help="run on a deterministic stratified sample of at least N of the instances (whole pair "
                        "groups; every activity group, tier, area, design, kind, event and infeasible condition)")
    p.add_argument("--sample-seed", type=int, default=0, metavar="S", help="seed of --sample (default 0)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true",
                   help="print the run's summary as JSON (implies --quiet; keys: total, skipped, ran, failures, "
                        "wall, statuses, planners_skipped, results)")


def _command_line() -> str:
    import shlex

    return shlex.join(["hygiene-pddl", *sys.argv[1:]]) if sys.argv[1:2] == ["bench"] else ""


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
                         progress=not (args.quiet or args.json), projection_study=args.projection_study,
                         start=args.worker_start,
                         command=_command_line(), sample=args.sample, sample_seed=args.sample_seed)
    output_dir(args.out)
    old = signal.signal(signal.SIGTERM, _raise_interrupt)  # a kill stops the workers, like Ctrl-C
    try:
        summary = run_bench(config)
    finally:
        signal.signal(signal.SIGTERM, old)
    if args.json:
        from dataclasses import asdict

        from hygiene_pddl.cli import print_json

        print_json({**asdict(summary), "results": str(args.out / "results.jsonl")})
        return EXIT_OK
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
    p.add_argument("--set", default="common", metavar="common|union|FILE",
                   help="comparison set: the instances every compared planner ran on (common, default), those any "
                        "ran on (union; missing results count as no plan), or the ids listed in FILE")
    p.add_argument("--baseline", default=None, metavar="PLANNER",
                   help="planner the others' times are compared with (default hygiene-nsp if compared, else the "
                        "first)")
    p.add_argument("--doc", type=Path, default=None, metavar="FILE.md",
                   help="also write a results document (how the runs were made, every table and figure) to FILE.md")


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
    comparison: str | list[str] = args.set
    if args.set not in ("common", "union"):
        from hygiene_pddl.bench.report import read_instance_list

        comparison = read_instance_list(Path(args.set))
    report = write_report(args.results, args.out, problems=args.problems, planners=planners, gantt=gantt or None,
                          swaps=not args.no_swaps, comparison=comparison, baseline=args.baseline,
                          set_source="" if args.set in ("common", "union") else args.set)
    if args.doc is not None:
        from hygiene_pddl.bench.report import results_document

        write_text(args.doc, results_document(report, args.doc, args.results, _report_command(args)), "--doc")
    print_tables(report)
    print(f"wrote {len(report.files)} files under {args.out}" + (f" and {args.doc}" if args.doc else ""),
          file=sys.stderr)
    return EXIT_OK


def _report_command(args: argparse.Namespace) -> str:
    """The report command in a canonical form (what the results document says regenerates it)."""
    import shlex

    parts = ["hygiene-pddl", "report", str(args.results), "--out", str(args.out), "--doc", str(args.doc)]
    for flag, value in (("--problems", args.problems), ("--planners", args.planners), ("--baseline", args.baseline)):
        if value is not None:
            parts += [flag, str(value)]
    if args.set != "common":
        parts += ["--set", args.set]
    parts += [x for spec in args.gantt for x in ("--gantt", spec)] + (["--no-swaps"] if args.no_swaps else [])
    return shlex.join(parts)

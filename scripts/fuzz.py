#!/usr/bin/env python3
"""Fuzz the command line: mutated benchmark, IPC and registry inputs must exit 0, 1 or 2 within a bound.

Usage: scripts/fuzz.py [--seconds S | --cases N] [--seed SEED] [--jobs J] [--targets A,B] [--out DIR]
       scripts/fuzz.py --replay SEED:INDEX      (run one case again and show its output)
Exit status: 0 when no case failed, 1 otherwise (the failing cases are saved under --out).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hygiene_pddl.fuzz.cases import TARGETS, build_case  # noqa: E402
from hygiene_pddl.fuzz.runner import fuzz  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, help="run new cases for this long")
    parser.add_argument("--cases", type=int, help="run this many cases")
    parser.add_argument("--seed", default="0", help="cases depend on the seed and their index only")
    parser.add_argument("--start", type=int, default=0, help="index of the first case")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--targets", default=",".join(TARGETS), help=f"comma-separated, of {', '.join(TARGETS)}")
    parser.add_argument("--out", type=Path, default=Path("results/fuzz"), help="failing cases are saved here")
    parser.add_argument("--replay", metavar="SEED:INDEX", help="run one case and print its output")
    args = parser.parse_args(argv)
    targets = tuple(t for t in args.targets.split(",") if t)
    unknown = set(targets) - set(TARGETS)
    if unknown:
        parser.error(f"unknown target(s) {', '.join(sorted(unknown))}")
    if args.replay:
        seed, _, index = args.replay.rpartition(":")
        case = build_case(seed, int(index), targets)
        print(f"case {case.key} ({case.target}); mutations: {', '.join(case.mutations)}\n"
              f"hygiene-pddl {' '.join(case.argv)}")
        summary = fuzz(seed, cases=1, start=int(index), targets=targets, jobs=1)
        o = summary.outcomes[0]
        print(f"exit {o.rc}, {o.cpu:.2f} s CPU; {o.problem or 'ok'}\n--- stderr\n{o.stderr}--- stdout\n{o.stdout}")
        return 1 if o.problem else 0
    if args.seconds is None and args.cases is None:
        args.seconds = 60.0
    started = time.perf_counter()

    def progress(outcome) -> None:
        if outcome.problem:
            print(f"FAIL {outcome.case.key} {outcome.case.target}: {outcome.problem} "
                  f"(hygiene-pddl {' '.join(outcome.case.argv)})", flush=True)

    summary = fuzz(args.seed, cases=args.cases, seconds=args.seconds, start=args.start, targets=targets,
                   jobs=args.jobs, failures_dir=args.out / "failures", on_outcome=progress)
    print(summary.table())
    print(f"{len(summary.outcomes)} cases in {time.perf_counter() - started:.0f} s (seed {args.seed}, "
          f"{args.jobs} workers); {len(summary.failures)} failed" +
          (f", saved under {args.out / 'failures'}" if summary.failures else ""))
    return 1 if summary.failures else 0


if __name__ == "__main__":
    sys.exit(main())

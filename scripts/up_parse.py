#!/usr/bin/env python3
"""Read every committed domain/problem pair of the benchmark with unified-planning's PDDL reader (issue 13).

    scripts/up_parse.py [--jobs 2] [--problems problems] [--out up-parse.jsonl] [--json]

The pairs are the two flavours written for unified-planning (docs/pddl-encoding.md): per instance, its K's
temporal domain with the no-total-time problem, and its classical domain with its classical problem. The
temporal problem itself sums ``(total-time)`` into its metric, which PDDL 2.1 allows and VAL reads but
unified-planning's reader refuses ("Found invalid expression: total-time"); ``--all`` reads it too. A pair passes when
``PDDLReader().parse_problem`` returns a problem with at least one action, one object and one goal, and its
problem kind can be computed. Each pair runs in a worker process; ``--out`` keeps one JSON line per pair
read, so an interrupted run resumes where it stopped (a full run takes about 45 minutes on 2 cores). Prints the
failing pairs, the count and the slowest pair; exit code 0 when every pair passes, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))


def read_pair(pair: tuple[str, str]) -> dict:
    """One pair's outcome: seconds, counts, and the reader's error (empty when it passes)."""
    import warnings

    from unified_planning.io import PDDLReader
    from unified_planning.shortcuts import get_environment

    get_environment().credits_stream = None
    warnings.filterwarnings("ignore")
    domain, problem = pair
    t0 = time.perf_counter()
    out = {"domain": domain, "problem": problem}
    try:
        p = PDDLReader().parse_problem(domain, problem)
        out |= {"actions": len(p.actions), "objects": len(p.all_objects), "goals": len(p.goals),
                "kind": sorted(p.kind.features)}
        empty = [what for what in ("actions", "objects", "goals") if not out[what]]
        out["error"] = f"no {', '.join(empty)}" if empty else ""
    except Exception as exc:  # noqa: BLE001 (the reader's failure is the finding, whatever its type)
        out["error"] = f"{type(exc).__name__}: {exc}"[:500]
    out["seconds"] = round(time.perf_counter() - t0, 3)
    return out


def main(argv: list[str] | None = None) -> int:
    from val_parse import pairs

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--problems", type=Path, default=ROOT / "problems")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", type=Path, help="JSON lines, one per pair read; resumed when present")
    ap.add_argument("--json", action="store_true", help="print the summary as JSON")
    ap.add_argument("--all", action="store_true", help="also the temporal problems with (total-time) in the metric")
    args = ap.parse_args(argv)
    todo = [(str(d), str(p)) for d, p in pairs(args.problems)
            if args.all or p.name.endswith((".no-total-time.pddl", ".classical.pddl"))]
    done: dict[tuple[str, str], dict] = {}
    if args.out and args.out.exists():
        for line in args.out.read_text().splitlines():
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut short by an interruption: read again
            done[(rec["domain"], rec["problem"])] = rec
    left = [p for p in todo if p not in done]
    sink = args.out.open("a") if args.out else None
    try:
        with ProcessPoolExecutor(max(1, args.jobs)) as pool:
            for rec in pool.map(read_pair, left):
                done[(rec["domain"], rec["problem"])] = rec
                if sink:
                    sink.write(json.dumps(rec, sort_keys=True) + "\n")
                    sink.flush()
    finally:
        if sink:
            sink.close()
    results = [done[p] for p in todo]
    failing = [r for r in results if r["error"]]
    slowest = max(results, key=lambda r: r["seconds"], default=None)
    if args.json:
        total = round(sum(r["seconds"] for r in results), 1)
        print(json.dumps({"pairs": len(todo), "failing": failing, "seconds": total, "slowest": slowest}, indent=1))
    else:
        for r in failing:
            print(f"{r['problem']} with {Path(r['domain']).name}: {r['error']}")
        print(f"{len(todo) - len(failing)} of {len(todo)} pairs read with unified-planning's PDDL reader")
        if slowest:
            print(f"reader time {sum(r['seconds'] for r in results):.0f} s in all; slowest {slowest['seconds']:.1f} s "
                  f"({Path(slowest['problem']).name})")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())

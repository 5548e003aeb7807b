#!/usr/bin/env python3
"""Hygiene-NSP alone on a deterministic sample of the v2 composition (issue 14: where it loses its proofs).

    scripts/nsp_sample.py [--every N] [--time-limit S] [--out FILE.jsonl]

Composes the data families as scripts/certify_sample.py does, takes every N-th instance in composition order and
solves each with Hygiene-NSP's default settings in this one process. Prints one line per instance (status: optimal,
infeasible (proved), unproved-plan or undetermined; plan length; seconds), then the counts, the time distribution
and the proved share by plan length. With ``--out`` each result, with its notes, is also a JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from certify_sample import composition  # noqa: E402 - after the path


def _arguments() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for flag, kind, default in (("--every", int, 8), ("--time-limit", float, 10.0), ("--out", Path, None)):
        ap.add_argument(flag, type=kind, default=default)
    return ap.parse_args()


def main() -> int:
    from hygiene_pddl.planners.base import PlanStatus
    from hygiene_pddl.planners.nsp import HygieneNSP
    from hygiene_pddl.registries import load_registries

    args = _arguments()
    reg = load_registries()
    rows = []
    for ep in composition(reg)[::args.every]:
        inst = ep.materialise(reg).instance
        t = time.perf_counter()
        r = HygieneNSP().solve(inst, args.time_limit, reg)
        status = {PlanStatus.INFEASIBLE: "infeasible", PlanStatus.UNDETERMINED: "undetermined"}.get(
            r.status, "optimal" if r.proved_optimal else "unproved-plan")
        row = {"id": ep.id, "status": status, "n": len(r.steps), "s": round(time.perf_counter() - t, 2),
               "cost": list(r.cost.values) if r.cost else None, "notes": list(r.notes)}
        rows.append(row)
        print(ep.id, status, row["n"], row["s"], flush=True)
        if args.out:
            with args.out.open("a") as f:
                f.write(json.dumps(row) + "\n")
    proved = [r for r in rows if r["status"] in ("optimal", "infeasible")]
    secs = sorted(r["s"] for r in rows)
    print(f"{len(proved)} of {len(rows)} proved: " + ", ".join(f"{n} {s}" for s, n in Counter(
        r["status"] for r in rows).most_common()))
    print(f"seconds: median {secs[len(secs) // 2]}, p90 {secs[int(0.9 * (len(secs) - 1))]}, max {secs[-1]}")
    lengths = Counter(r["n"] for r in rows)
    print("proved by plan length: " + ", ".join(f"{n}: {sum(r['n'] == n for r in proved)}/{k}"
                                               for n, k in sorted(lengths.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())

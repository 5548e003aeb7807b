#!/usr/bin/env python3
"""Certify a deterministic sample of the v2 composition by the build's two methods (issue 13's build time).

    scripts/certify_sample.py [--every N] [--jobs J] [--out FILE.jsonl]

Composes the data families (``builder.closest``: the composition nearest SPEC §9's rows; the deviation is printed),
takes every N-th of its instances in composition order and runs :func:`hygiene_pddl.episodes.reference.certify`
(exact search and Hygiene-NSP, 60 s each) in J processes. Prints one line per instance (feasible, plan length,
seconds, why certification failed) and then the agreement counts, the time distribution and the projected time
for the whole composition. With ``--out`` each result is also a JSON line.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _job(args: tuple[str, dict]) -> dict:
    from hygiene_pddl.episodes.reference import certify
    from hygiene_pddl.instances.loader import instance_from_data
    from hygiene_pddl.registries import load_registries

    ep_id, data = args
    reg = load_registries()
    t = time.perf_counter()
    c = certify(reg, instance_from_data(data, reg, ep_id))
    return {"id": ep_id, "feasible": c.feasible, "n": len(c.steps), "s": round(time.perf_counter() - t, 1),
            "problem": c.problem}


def composition(reg) -> list:  # noqa: ANN001 - Registries; the episodes of the v2 composition, in order
    """The episodes of the composition nearest SPEC §9's rows (``builder.closest``), in composition order; prints
    how many and the deviation."""
    from hygiene_pddl.episodes.builder import candidates, closest
    from hygiene_pddl.episodes.pipeline import first_family_contribution

    cands = [c for c in candidates(reg) if reg.families[c.family].spec is not None]
    choice, off, _ = closest(cands, first_family_contribution(reg))
    eps = [ep for c in cands if choice.get(c.family) == c.archetype for ep in c.episodes]
    print(f"{len(choice)} families, {len(eps)} instances, off {off or 'nothing'}", flush=True)
    return eps


def main() -> int:
    from hygiene_pddl.registries import load_registries

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--every", type=int, default=8)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    reg = load_registries()
    eps = composition(reg)
    print(f"every {args.every}th", flush=True)
    rows = []
    with concurrent.futures.ProcessPoolExecutor(args.jobs) as pool:
        for r in pool.map(_job, [(e.id, e.public(reg)) for e in eps[::args.every]]):
            rows.append(r)
            print(r["id"], r["feasible"], r["n"], r["s"], r["problem"][:100], flush=True)
            if args.out:
                with args.out.open("a") as f:
                    f.write(json.dumps(r) + "\n")
    secs = sorted(r["s"] for r in rows)
    print(f"agree {sum(not r['problem'] for r in rows)} of {len(rows)}; "
          + "; ".join(f"{n} {why}" for why, n in Counter(r["problem"][:60] for r in rows if r["problem"]).items()))
    print(f"seconds: median {secs[len(secs) // 2]}, p90 {secs[int(0.9 * (len(secs) - 1))]}, max {secs[-1]}; "
          f"projected for all {len(eps)}: {sum(secs) / len(rows) * len(eps) / args.jobs / 60:.0f} min")
    return 0


if __name__ == "__main__":
    sys.exit(main())

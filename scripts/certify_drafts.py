#!/usr/bin/env python3
"""The exact certifier on data-family drafts (issue 13's v2 sizes), repeatably.

    scripts/certify_drafts.py write DIR [--families F ...] [--per-family N]   # drafts as instance JSON
    scripts/certify_drafts.py run DIR [--limit S] [--max-actions N] [--out FILE.jsonl] [--only SUBSTR]
    scripts/certify_drafts.py compare A.jsonl B.jsonl                         # before/after, per draft

``write`` expands every design of each family (default: a fixed sample of 15, three per activity group) and
writes each distinct draft's public data as ``DIR/<id>.json`` (the first N distinct drafts per family in design
order when ``--per-family`` is given). ``run`` certifies each file with :func:`hygiene_pddl.certify.exact_search`
in a fresh process (no action bound unless ``--max-actions``; ``--cpu``: the limit counts CPU seconds) and prints
one line per draft: status (optimal, infeasible, bound hit = an optimum that uses every allowed action, timeout =
undetermined), plan length, expansions, wall and CPU seconds; then the distribution. With ``--out`` each result is
also a JSON line.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import statistics
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: a fixed sample: three data families per activity group (of the 51 of session 5)
SAMPLE = (
    "boxing_food_after_dinner-satay_apart", "making_tea-lemon_and_teapot", "washing_pots_and_pans-brush_order",
    "changing_dogs_water-two_bowls_one_sink", "clean_your_kitty_litter_box-scoop_then_feed",
    "putting_out_dog_food-wash_then_scoop",
    "chopping_vegetables-knife_after_chicken", "make_oatmeal-which_spoon", "wash_lettuce-sprayed_leaves",
    "clean_baby_toys-eco_or_hot", "packing_bags_or_suitcase-book_from_the_garage",
    "wash_duvets-dryer_ball_from_the_garden",
    "cleaning_bathtub-brush_from_the_toilet", "cleaning_table_after_clearing-satay_and_marinade",
    "wash_towels-unload_after_the_hot_cycle",
)


def write(out: Path, families: list[str], per_family: int | None) -> int:
    from hygiene_pddl.episodes.builder import realise
    from hygiene_pddl.episodes.designs import family_designs
    from hygiene_pddl.registries import load_registries

    reg = load_registries()
    out.mkdir(parents=True, exist_ok=True)
    n = 0
    for name in families:
        seen: set[str] = set()
        for arch, design in family_designs(reg, reg.families[name]).items():
            for ep in realise(reg, name, arch, design):
                data = ep.public(reg)
                digest = repr(sorted((k, repr(v)) for k, v in data.items() if k != "id"))
                if digest in seen or (per_family is not None and len(seen) >= per_family):
                    continue
                seen.add(digest)
                (out / f"{ep.id}.json").write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
                n += 1
    print(f"{n} drafts of {len(families)} families in {out}")
    return 0


def _one(args: tuple[str, float, int | None, bool]) -> dict:
    import time

    from hygiene_pddl.certify import exact_search
    from hygiene_pddl.instances import load_instance
    from hygiene_pddl.registries import load_registries

    path, limit, max_actions, cpu = args
    reg = load_registries()
    inst = load_instance(path, reg)
    wall = time.perf_counter
    if cpu:  # the search's clock becomes this process's CPU time (a fresh process per draft)
        time.perf_counter = time.process_time
    t0 = wall()
    r = exact_search(reg, inst, max_actions=max_actions, time_limit=limit)
    seconds = wall() - t0
    status = str(r.status)
    if status == "undetermined":
        status = "timeout"
    elif status == "optimal" and max_actions is not None and len(r.steps) >= max_actions:
        status = "bound hit"
    return {"id": inst.id, "status": status, "steps": len(r.steps), "expanded": r.expanded,
            "evaluations": r.evaluations, "seconds": round(seconds, 2), "cpu": round(r.cpu_seconds, 2),
            "cost": list(r.cost.values) if r.cost else None, "ground": r.ground_actions, "notes": list(r.notes)[:1]}


def _line(rec: dict) -> str:
    cost = " ".join(map(str, rec["cost"])) if rec["cost"] else "-"
    return (f"{rec['id']:62s} {rec['status']:10s} steps {rec['steps']:2d} exp {rec['expanded']:7d} "
            f"wall {rec['seconds']:6.1f}s cpu {rec['cpu']:6.1f}s  [{cost}]")


def _distribution(recs: list[dict]) -> str:
    c = Counter(r["status"] for r in recs)
    cpu = sorted(r["cpu"] for r in recs)
    if not cpu:
        return "no drafts"
    p90 = cpu[min(len(cpu) - 1, int(0.9 * len(cpu)))]
    by_status = ", ".join(f"{k} {v}" for k, v in sorted(c.items()))
    proved = [r["cpu"] for r in recs if r["status"] in ("optimal", "infeasible")]
    med = f"{statistics.median(proved):.1f}" if proved else "-"
    return (f"{len(recs)} drafts: {by_status}; CPU median {statistics.median(cpu):.1f}s, p90 {p90:.1f}s, "
            f"max {cpu[-1]:.1f}s, total {sum(cpu):.0f}s; proved: CPU median {med}s")


def run(folder: Path, limit: float, max_actions: int | None, out: Path | None, only: str | None, jobs: int,
        cpu: bool = False) -> int:
    paths = sorted(str(p) for p in folder.glob("*.json") if only is None or only in p.name)
    recs = []
    sink = out.open("w", encoding="utf-8") if out else None
    # a fresh process per draft: one search's memory does not stay with the next
    with concurrent.futures.ProcessPoolExecutor(max_workers=jobs, max_tasks_per_child=1) as pool:
        for rec in pool.map(_one, [(p, limit, max_actions, cpu) for p in paths]):
            recs.append(rec)
            print(_line(rec), flush=True)
            if sink:
                sink.write(json.dumps(rec, sort_keys=True) + "\n")
                sink.flush()
    print(_distribution(recs))
    return 0


def compare(a: Path, b: Path) -> int:
    def load(p: Path) -> dict[str, dict]:
        return {r["id"]: r for r in map(json.loads, p.read_text(encoding="utf-8").splitlines())}

    ra, rb = load(a), load(b)
    bad = 0
    for k in sorted(ra.keys() & rb.keys()):
        x, y = ra[k], rb[k]
        clash = x["status"] in ("optimal", "infeasible") and y["status"] in ("optimal", "infeasible") and (
            x["status"] != y["status"] or x["cost"] != y["cost"])
        bad += clash
        print(f"{k:62s} {x['status']:10s} {x['cpu']:6.1f}s {x['expanded']:7d} -> {y['status']:10s} {y['cpu']:6.1f}s "
              f"{y['expanded']:7d}{'  DISAGREE' if clash else ''}")
    print("before:", _distribution(list(ra.values())))
    print("after: ", _distribution(list(rb.values())))
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("what", choices=["write", "run", "compare"])
    p.add_argument("paths", nargs="+", type=Path)
    p.add_argument("--families", nargs="+", default=list(SAMPLE))
    p.add_argument("--per-family", type=int, default=None)
    p.add_argument("--limit", type=float, default=60.0, help="wall seconds per draft")
    p.add_argument("--max-actions", type=int, default=None)
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--only", default=None, help="run: only files whose name contains this")
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--cpu", action="store_true", help="run: --limit is CPU seconds (a shared machine inflates wall)")
    args = p.parse_args(argv)
    if args.what == "write":
        return write(args.paths[0], args.families, args.per_family)
    if args.what == "run":
        return run(args.paths[0], args.limit, args.max_actions, args.out, args.only, args.jobs, args.cpu)
    return compare(args.paths[0], args.paths[1])


if __name__ == "__main__":
    sys.exit(main())

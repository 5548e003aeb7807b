#!/usr/bin/env python3
"""Time the exact certifier (hygiene_pddl.certify) and check it against the committed references.

    scripts/certify_speed.py benchmark [--sample N] [--limit S]   # committed instances vs their references
    scripts/certify_speed.py derived [--copies 2 5 8] [--limit S]  # longer tasks from `hygiene-pddl scale`
    scripts/certify_speed.py scenarios [--limit S]                  # the long v2 tasks of tests/certify/scenarios.py

Prints one line per instance (status, agreement, plan length, expansions, CPU seconds) and the median, p90 and
max CPU time. CPU time is the process's (the machine may be shared: wall-clock time inflates, CPU time much
less). An instance whose meaning v2 changes (implied (safe x) goals in its notes, or a history action still
running at the decision time that has over-all conditions) is reported but not compared.
Exit code 0 when every compared instance agrees, 1 when one disagrees.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hygiene_pddl.certify import exact_search  # noqa: E402
from hygiene_pddl.episodes.scaling import delivered_items, scaled_instance_data  # noqa: E402
from hygiene_pddl.instances import load_instance, load_reference  # noqa: E402
from hygiene_pddl.instances.loader import instance_from_data  # noqa: E402
from hygiene_pddl.instances.model import Instance  # noqa: E402
from hygiene_pddl.registries import Registries, load_registries  # noqa: E402
from hygiene_pddl.replay import World, run_history  # noqa: E402


def v2_changes(reg: Registries, inst: Instance) -> str:
    """Why v2 gives this (v1) instance another meaning, or ''."""
    if inst.notes:
        return "implied (safe x) goals"
    world = World.initial(reg, inst)
    if any(reg.actions[r.name].cond_overall for r in run_history(reg, inst, world)):
        return "an ongoing process keeps its over-all conditions"
    return ""


def _instances(sample: int | None) -> list[Path]:
    paths = sorted(p for p in (ROOT / "problems").glob("*/*.json") if not p.name.endswith(".reference.json"))
    if sample:
        step = max(1, len(paths) // sample)
        paths = paths[::step][:sample]
    return paths


def _line(name: str, result, extra: str = "") -> str:
    cost = " ".join(map(str, result.cost.values)) if result.cost else "-"
    return (f"{name:58s} {result.status!s:12s} steps {len(result.steps):2d} exp {result.expanded:7d} "
            f"cpu {result.cpu_seconds:7.2f}s  cost [{cost}] {extra}")


def _summary(cpu: list[float]) -> str:
    if not cpu:
        return "no instances"
    cpu = sorted(cpu)
    p90 = cpu[min(len(cpu) - 1, int(0.9 * len(cpu)))]
    return (f"{len(cpu)} instances: CPU median {statistics.median(cpu):.2f}s, p90 {p90:.2f}s, max {cpu[-1]:.2f}s, "
            f"total {sum(cpu):.1f}s")


def benchmark(reg: Registries, sample: int | None, limit: float) -> int:
    cpu, bad, skipped, moved = [], 0, 0, 0
    for path in _instances(sample):
        inst = load_instance(path, reg)
        ref = load_reference(path.with_name(path.stem + ".reference.json"))
        result = exact_search(reg, inst, time_limit=limit)
        cpu.append(result.cpu_seconds)
        changed = v2_changes(reg, inst)
        agree = (result.cost == ref.optimal_cost) if ref.feasible else str(result.status) == "infeasible"
        if changed:
            skipped += 1
            moved += not agree
            verdict = f"(not compared: {changed}; {'same' if agree else 'other'} optimum than the v1 reference)"
        elif str(result.status) == "undetermined":
            bad += 1
            verdict = "UNDETERMINED"
        else:
            bad += not agree
            verdict = "agrees" if agree else f"DISAGREES (reference {ref.optimal_cost})"
        print(_line(inst.id, result, verdict), flush=True)
    print(_summary(cpu), f"; {skipped} not compared ({moved} of them with another optimum under v2); "
          f"{bad} disagreeing or undetermined")
    return 1 if bad else 0


def derived(reg: Registries, copies: list[int], limit: float) -> int:
    cpu = []
    for path in _instances(None):
        data = json.loads(path.read_text(encoding="utf-8"))
        if not path.stem.startswith(("spoon_fruit", "bowl_to_sink")) or not delivered_items(data):
            continue
        for k in copies:
            scaled = scaled_instance_data(data, k)
            inst = instance_from_data(scaled, reg, scaled["id"])
            result = exact_search(reg, inst, time_limit=limit)
            cpu.append(result.cpu_seconds)
            print(_line(inst.id, result), flush=True)
    print(_summary(cpu))
    return 0


def scenarios(reg: Registries, limit: float) -> int:
    from tests.certify.scenarios import SCENARIOS

    cpu = []
    for make in SCENARIOS.values():
        for profile in ("water_first", "time_first"):
            inst = make(reg, profile)
            result = exact_search(reg, inst, time_limit=limit)
            cpu.append(result.cpu_seconds)
            print(_line(inst.id, result), flush=True)
    print(_summary(cpu))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=["benchmark", "derived", "scenarios"])
    parser.add_argument("--sample", type=int, default=None, help="benchmark: evenly spaced sample of N instances")
    parser.add_argument("--copies", type=int, nargs="+", default=[2, 5, 8], help="derived: copies per item")
    parser.add_argument("--limit", type=float, default=60.0, help="time limit per instance (wall seconds)")
    args = parser.parse_args(argv)
    reg = load_registries()
    if args.what == "benchmark":
        return benchmark(reg, args.sample, args.limit)
    if args.what == "derived":
        return derived(reg, args.copies, args.limit)
    return scenarios(reg, args.limit)


if __name__ == "__main__":
    sys.exit(main())

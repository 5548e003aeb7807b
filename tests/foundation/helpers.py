"""Helpers shared by the foundation tests (no library logic is re-used as an oracle here)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from hygiene_pddl.costs import DIMENSIONS, CostVector
from hygiene_pddl.hygiene import HygieneRules, Link, chain_text
from hygiene_pddl.instances.model import Instance
from hygiene_pddl.registries.model import Registries
from hygiene_pddl.replay import World, run_history, static_facts

ROOT = Path(__file__).resolve().parents[2]
PROBLEMS = ROOT / "problems"
DATA_DIR = ROOT / "hygiene_pddl" / "registries" / "data"
SCHEMA_DIR = ROOT / "hygiene_pddl" / "schemas"


def instance_path(family: str, name: str) -> Path:
    return PROBLEMS / family / f"{family}-{name}.json"


def read_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def make_world(
    reg: Registries,
    objects: Mapping[str, str],
    hazards: Iterable[tuple[tuple[str, str], str]] = (),
    facts: Iterable[tuple[str, ...]] = (),
    stocks: Mapping[str, int] | None = None,
    known_hazards: Iterable[str] | None = None,
) -> World:
    """A world over ``objects`` with initial hazard sources and physical facts."""
    rules = HygieneRules(reg, dict(objects), known_hazards)
    world = World(
        rules=rules,
        facts=set(facts),
        static=static_facts(reg, dict(objects)),
        stocks=dict(stocks or {}),
    )
    for carrier, hazard in hazards:
        world.contamination.setdefault(carrier, {})[hazard] = (Link(carrier, 0, "initial source"),)
    return world


def state(world: World) -> dict[tuple[str, str], frozenset[str]]:
    """Carrier -> hazards, only non-empty entries."""
    return {c: frozenset(hs) for c, hs in world.contamination.items() if hs}


def chains(facts) -> dict[tuple[str, str], dict[str, str]]:
    """Carrier -> hazard -> provenance text, from a replay result's contamination facts."""
    out: dict[tuple[str, str], dict[str, str]] = {}
    for f in facts:
        out.setdefault(tuple(f.carrier), {})[f.hazard] = chain_text(f.provenance)
    return out


@dataclass(frozen=True)
class Step:
    start: int  # relative to the decision time
    name: str
    args: tuple[str, ...]


@dataclass
class PlanOutcome:
    cost: CostVector
    world: World
    new_violations: list
    goals_met: bool
    end: int  # absolute end time of the last step


def run_continuation(reg: Registries, inst: Instance, steps: Iterable[Step]) -> PlanOutcome:
    """Replay the history, then execute ``steps`` (relative times) with the same World rules.

    Happenings at one instant: ends before starts, then step order; over-all conditions of running
    steps are checked after every happening. Raises PhysicalInconsistency on a broken condition.
    """
    world = World.initial(reg, inst)
    run_history(reg, inst, world)
    n_viol = len(world.violations)
    costs_before = dict(world.costs)
    active_before = world.active_time
    steps = list(steps)
    t0 = inst.decision_time
    happenings = []
    for i, s in enumerate(steps):
        dur = reg.actions[s.name].duration
        happenings.append((t0 + s.start, 1, i, "start"))
        happenings.append((t0 + s.start + dur, 0, i, "end"))
    running: set[int] = set()
    base = len(inst.history)
    for time, _phase, i, kind in sorted(happenings):
        s = steps[i]
        schema = reg.actions[s.name]
        label = f"step {i} ({s.name} {' '.join(s.args)})"
        if kind == "start":
            world.start_action(schema, s.args, time, base + i, label, time + schema.duration)
            running.add(i)
        else:
            world.end_action(schema, s.args, time, base + i, label)
            running.discard(i)
        for j in sorted(running):
            o = steps[j]
            world.check_invariants(reg.actions[o.name], o.args, time, base + j, f"step {j}")
    end = max((t0 + s.start + reg.actions[s.name].duration for s in steps), default=t0)
    amounts = {d: world.costs.get(d, 0) - costs_before.get(d, 0) for d in DIMENSIONS[:8]}
    amounts["active_robot_time"] = world.active_time - active_before
    amounts["makespan"] = end - t0
    goals_met = all(world.goal_holds(g) for g in inst.goals)
    return PlanOutcome(
        CostVector.from_mapping(amounts), world, world.violations[n_viol:], goals_met, end
    )

"""Brute force on tiny tasks: every integer-time plan, executed on :class:`hygiene_pddl.replay.World` itself.

No reductions, no duplicate detection, no bounds and none of the exact search's compiled state: a depth-first
walk over happening sequences (at each time: the ends in the evaluator's order, then any sequence of starts, then
one TU on), each plan run by the reference semantics (``World.start_action``, ``end_action``,
``check_invariants``). Exponential; only for tasks with a handful of ground actions and a short deadline.
"""

from __future__ import annotations

import itertools

from hygiene_pddl.costs import SUMMED, CostVector
from hygiene_pddl.instances.model import Instance
from hygiene_pddl.planners.base import ChosenStep
from hygiene_pddl.registries import Registries
from hygiene_pddl.replay import PhysicalInconsistency, World, run_history


def _clone(w: World) -> World:
    return World(rules=w.rules, facts=set(w.facts), static=w.static, stocks=dict(w.stocks),
                 contamination={c: dict(h) for c, h in w.contamination.items()}, violations=list(w.violations),
                 busy=dict(w.busy), consumed=dict(w.consumed), costs=dict(w.costs), active_time=w.active_time,
                 horizon=w.horizon)


def ground_actions(reg: Registries, inst: Instance) -> list[tuple[str, tuple[str, ...]]]:
    """Every argument tuple of every action of K (distinct objects for distinct object parameters)."""
    objects = dict(inst.objects)
    regions = sorted({r.name for t in objects.values() for r in reg.object_types[t].regions})
    out = []
    for name in sorted(inst.actions):
        schema = reg.actions[name]
        domains = []
        for _, kind in schema.parameters:
            if kind == "gripper":
                domains.append(list(reg.grippers))
            elif kind == "region":
                domains.append(regions)
            else:
                domains.append([o for o in sorted(objects) if reg.object_types[objects[o]].is_kind(kind)])
        obj = [i for i, (_, k) in enumerate(schema.parameters) if k in ("item", "place", "thing")]
        for values in itertools.product(*domains):
            if len({values[i] for i in obj}) == len(obj):
                out.append((name, tuple(values)))
    return out


def plan_cost(reg: Registries, plan: list[ChosenStep]) -> CostVector:
    """The evaluator's cost definition on integer starts (relative to the decision time)."""
    amounts = {d: sum(dict(reg.actions[s.name].costs).get(d, 0) for s in plan) for d in SUMMED}
    amounts["active_robot_time"] = sum(s.duration for s in plan if reg.actions[s.name].occupies)
    amounts["makespan"] = max((s.start + s.duration for s in plan), default=0)
    return CostVector.from_mapping(amounts)


def brute_force(reg: Registries, inst: Instance, max_actions: int) -> tuple[CostVector | None, list[ChosenStep]]:
    """The lexicographic optimum over every plan of at most ``max_actions`` actions with integer starts, each
    ending by the deadline; (None, []) when there is none."""
    world = World.initial(reg, inst)
    ongoing = run_history(reg, inst, world)
    t0 = inst.decision_time
    horizon = world.horizon if world.horizon is not None else inst.horizon
    actions = ground_actions(reg, inst)
    prior = len(world.violations)
    best: list = [None, []]
    bad = (PhysicalInconsistency, ValueError, KeyError)  # a condition, resource or stock fails; a missing region

    def invariants(w: World, running: list, hist: list) -> None:
        """Over-all conditions of every running action, ongoing history actions included (v2)."""
        for _, _, name, args in running:
            w.check_invariants(reg.actions[name], args, 0, -1, name)
        for _, _, rec in hist:
            w.check_invariants(reg.actions[rec.name], rec.args, 0, -1, rec.name)

    def at_time(w: World, t: int, running: list, hist: list, plan: list[ChosenStep]) -> None:
        """Any sequence of starts at t, then on to t+1."""
        if not running and not hist and len(w.violations) == prior and all(w.goal_holds(g) for g in inst.goals):
            c = plan_cost(reg, plan)
            if best[0] is None or c.key(inst.profile) < best[0].key(inst.profile):
                best[0], best[1] = c, list(plan)
        if len(plan) < max_actions:
            for name, args in actions:
                schema = reg.actions[name]
                end = t + schema.duration
                if end > horizon:
                    continue
                w2 = _clone(w)
                run2 = sorted([*running, (end, len(plan), name, args)])
                try:
                    w2.start_action(schema, args, t, len(plan), name, end)
                    invariants(w2, run2, hist)
                except bad:
                    continue
                if len(w2.violations) == prior:
                    at_time(w2, t, run2, hist, [*plan, ChosenStep(t - t0, name, args, schema.duration, len(plan))])
        if running or hist or t + 1 < horizon:
            tick(w, t + 1, running, hist, plan)

    def tick(w: World, t: int, running: list, hist: list, plan: list[ChosenStep]) -> None:
        """The ends at t: ongoing history actions first (later records first), then continuation actions in start
        order; over-all conditions after each; then the starts at t."""
        w = _clone(w)
        try:
            for h in [h for h in hist if h[0] == t]:
                hist = [x for x in hist if x is not h]
                w.end_action(reg.actions[h[2].name], h[2].args, t, h[2].index, h[2].name)
                invariants(w, running, hist)
            for r in [r for r in running if r[0] == t]:
                running = [x for x in running if x is not r]
                w.end_action(reg.actions[r[2]], r[3], t, r[1], r[2])
                invariants(w, running, hist)
        except bad:
            return
        if len(w.violations) == prior:
            at_time(w, t, running, hist, plan)

    at_time(world, t0, [], sorted((r.end, -r.index, r) for r in ongoing), [])
    return best[0], best[1]


def replay_steps(reg: Registries, inst: Instance, steps: list[ChosenStep]) -> CostVector | str:
    """Run one plan on :class:`World` in the evaluator's happening order (ends before starts at equal times;
    ongoing history ends first, later records first; then by start and order), with the v2 over-all rule for
    ongoing actions: its cost vector, or why it is invalid."""
    world = World.initial(reg, inst)
    ongoing = run_history(reg, inst, world)
    t0 = inst.decision_time
    horizon = world.horizon if world.horizon is not None else inst.horizon
    prior = len(world.violations)
    plan = sorted(steps, key=lambda s: (s.start, s.order))
    events = [(r.end, 0, 0, -r.index, r) for r in ongoing]
    for i, s in enumerate(plan):
        events += [(t0 + s.start, 1, i, 0, s), (t0 + s.start + s.duration, 0, 1, i, s)]
    running: dict[int, ChosenStep] = {}
    hist = {r.index: r for r in ongoing}
    try:
        for time, phase, kind, rank, x in sorted(events, key=lambda e: e[:4]):
            if kind == 0 and phase == 0:
                del hist[x.index]
                world.end_action(reg.actions[x.name], x.args, time, x.index, x.name)
            elif phase == 1:
                world.start_action(reg.actions[x.name], x.args, time, kind, x.name, time + x.duration)
                running[kind] = x
            else:
                del running[rank]
                world.end_action(reg.actions[x.name], x.args, time, rank, x.name)
            for r in (*running.values(), *hist.values()):
                world.check_invariants(reg.actions[r.name], r.args, time, -1, r.name)
            if len(world.violations) > prior:
                return f"hygiene violation: {world.violations[prior].describe()}"
    except PhysicalInconsistency as exc:
        return exc.message
    if any(t0 + s.start + s.duration > horizon for s in plan):
        return "ends after the deadline"
    missing = [g for g in inst.goals if not world.goal_holds(g)]
    if missing:
        return f"goal {missing[0]} does not hold"
    return plan_cost(reg, plan)


__all__ = ["brute_force", "ground_actions", "plan_cost", "replay_steps"]

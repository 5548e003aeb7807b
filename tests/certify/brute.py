"""Brute force on tiny tasks: every integer-time plan, executed on :class:`hygiene_pddl.replay.World` itself.

No reductions, no duplicate detection, no bounds and none of the exact search's compiled state: a depth-first
walk over happening sequences (at each time: the ongoing history ends, then the continuation's ends and starts in
every order one epsilon offset per step can give, then one TU on), each plan run by the reference semantics
(``World.start_action``, ``end_action``, ``check_invariants``). Exponential; only for tasks with a handful of ground
actions and a short deadline.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

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
    ending by the deadline, and every order of the happenings at one instant that epsilon offsets can give (one
    offset per step, for its start and its end alike: VAL's and the plan writer's reading); (None, []) when there
    is none. The plan's ``order`` and ``end_order`` are the positions of its happenings."""
    world = World.initial(reg, inst)
    ongoing = run_history(reg, inst, world)
    t0 = inst.decision_time
    horizon = world.horizon if world.horizon is not None else inst.horizon
    actions = ground_actions(reg, inst)
    prior = len(world.violations)
    best: list = [None, []]
    bad = (PhysicalInconsistency, ValueError, KeyError)  # a condition, resource or stock fails; a missing region

    def uses(name: str, args: tuple[str, ...]) -> set[str]:
        schema = reg.actions[name]
        return set(world.resources_of(schema, dict(zip(schema.param_names, args, strict=True))))

    def checked(w: World, order: list, hist: list) -> bool:
        """Over-all conditions of every running action, ongoing history actions included (v2); no violation."""
        try:
            for _, _, name, args in order:
                w.check_invariants(reg.actions[name], args, 0, -1, name)
            for _, _, rec in hist:
                w.check_invariants(reg.actions[rec.name], rec.args, 0, -1, rec.name)
        except bad:
            return False
        return len(w.violations) == prior

    def instant(w: World, t: int, order: list, cursor: int, hist: list, plan: tuple, ends: dict) -> None:
        """The continuation happenings at t. ``order`` holds the running steps (end, plan index, name, args) in
        offset order; those before ``cursor`` are done at t or have no happening at t. The next end at t (in offset
        order) happens next, or a new step starts, placed anywhere in the offset order between the cursor and that
        end; once every end at t is done, on to t+1."""
        pending = next((i for i in range(cursor, len(order)) if order[i][0] == t), None)
        if pending is not None:
            end, k, name, args = order[pending]
            w2 = _clone(w)
            rest = order[:pending] + order[pending + 1:]
            try:
                w2.end_action(reg.actions[name], args, t, k, name)
            except bad:
                pass
            else:
                if checked(w2, rest, hist):
                    instant(w2, t, rest, pending, hist, plan, {**ends, k: len(plan) + len(ends)})
        else:
            if not order and not hist and all(w.goal_holds(g) for g in inst.goals):
                steps = [ChosenStep(s, n, a, d, o, ends.get(i)) for i, (s, n, a, d, o) in enumerate(plan)]
                c = plan_cost(reg, steps)
                if best[0] is None or c.key(inst.profile) < best[0].key(inst.profile):
                    best[0], best[1] = c, steps
            if order or hist or t + 1 < horizon:
                tick(w, t + 1, order, hist, plan, ends)
        if len(plan) >= max_actions:
            return
        busy = set().union(*(uses(n, a) for _, _, n, a in order))
        last = len(order) if pending is None else pending
        for name, args in actions:
            schema = reg.actions[name]
            end = t + schema.duration
            if end > horizon or uses(name, args) & busy:
                continue
            w2 = _clone(w)
            try:
                w2.start_action(schema, args, t, len(plan), name, end)
            except bad:
                continue
            step = (t - t0, name, args, schema.duration, len(plan) + len(ends))
            for q in range(cursor, last + 1):
                order2 = [*order[:q], (end, len(plan), name, args), *order[q:]]
                if checked(w2, order2, hist):
                    instant(_clone(w2), t, order2, q + 1, hist, (*plan, step), ends)

    def tick(w: World, t: int, order: list, hist: list, plan: tuple, ends: dict) -> None:
        """Time passes to t: the ongoing history actions ending at t end first (later records first, their offset
        is 0); then the continuation happenings at t."""
        w = _clone(w)
        try:
            for h in [h for h in hist if h[0] == t]:
                hist = [x for x in hist if x is not h]
                w.end_action(reg.actions[h[2].name], h[2].args, t, h[2].index, h[2].name)
                if not checked(w, order, hist):
                    return
        except bad:
            return
        instant(w, t, order, 0, hist, plan, ends)

    instant(world, t0, [], 0, sorted((r.end, -r.index, r) for r in ongoing), (), {})
    return best[0], best[1]


def happening_order(plan: list[ChosenStep]) -> list[tuple[int, tuple[int, ...], int, int]]:
    """The happenings of a plan sorted by (start, order), as (time, position, phase 1 start / 0 end, index) in
    happening order: by time, then by ``order`` (starts) and ``end_order`` (ends); a step without ``end_order``
    ends before the starts at its end time, in start order."""
    out = []
    for i, s in enumerate(plan):
        end = (s.end_order,) if s.end_order is not None else (-1, i)
        out += [(s.start, (s.order,), 1, i), (s.start + s.duration, end, 0, i)]
    return sorted(out)


def replay_steps(reg: Registries, inst: Instance, steps: list[ChosenStep]) -> CostVector | str:
    """Run one plan on :class:`World`: ongoing history ends first at their time (later records first), then the
    plan's happenings at each time by their positions (``order``, ``end_order``; a step without ``end_order`` ends
    before the starts at its end time, in start order), each at an exact time that keeps that order (so a start
    before an end at one instant finds the end's resources busy), with the v2 over-all rule for ongoing actions: its
    cost vector, or why it is invalid."""
    world = World.initial(reg, inst)
    ongoing = run_history(reg, inst, world)
    t0 = inst.decision_time
    horizon = world.horizon if world.horizon is not None else inst.horizon
    prior = len(world.violations)
    plan = sorted(steps, key=lambda s: (s.start, s.order))
    events = [(r.end, 0, (-r.index,), 0, 0, r) for r in ongoing]
    events += [(t0 + time, 1, pos, phase, i, plan[i]) for time, pos, phase, i in happening_order(plan)]
    events.sort(key=lambda e: e[:3])
    exact: dict[tuple[int, int], Fraction] = {}  # (plan index, phase) -> its time, a thousandth per earlier one
    for k, e in enumerate(events):
        same = sum(1 for x in events[:k] if x[0] == e[0])
        if e[1]:
            exact[(e[4], e[3])] = Fraction(e[0]) + Fraction(same, 1000)
    running: dict[int, ChosenStep] = {}
    hist = {r.index: r for r in ongoing}
    try:
        for _, group, _, phase, i, x in events:
            if not group:
                del hist[x.index]
                world.end_action(reg.actions[x.name], x.args, x.end, x.index, x.name)
            elif phase == 1:
                world.start_action(reg.actions[x.name], x.args, exact[(i, 1)], i, x.name, exact[(i, 0)])
                running[i] = x
            else:
                del running[i]
                world.end_action(reg.actions[x.name], x.args, exact[(i, 0)], i, x.name)
            for r in (*running.values(), *hist.values()):
                world.check_invariants(reg.actions[r.name], r.args, 0, -1, r.name)
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


__all__ = ["brute_force", "ground_actions", "happening_order", "plan_cost", "replay_steps"]

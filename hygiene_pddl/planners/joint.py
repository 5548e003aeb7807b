"""Hygiene-NSP's joint CP-SAT model (paper §IV-C): treatments, service actions, grippers and times at once.

The model is a sequence of K happening slots (each action has a start and an end happening); fluents
(physical facts, free grippers/appliances/capacities, and (carrier, hazard) contamination) have a value
before every slot. A happening's conditions are read in the state before its slot; its effects give
the next state; contacts copy hazards where the materials let them cross, treatments remove what the
registry says, and no contact may bring a hazard onto a region protected against it. Slot times are
integer TU and non-decreasing; a plan writer separates coinciding dependent happenings by epsilon.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ortools.sat.python import cp_model

from hygiene_pddl.costs import DIMENSIONS, CostVector
from hygiene_pddl.hygiene import HygieneRules
from hygiene_pddl.instances.model import Carrier, Instance
from hygiene_pddl.literals import Atom
from hygiene_pddl.planners.grounding import (
    NEVER,
    ROOM,
    Cond,
    GroundAction,
    counted_atoms,
    free_fluent,
    initial_fluents,
    is_derived,
    ongoing_actions,
)
from hygiene_pddl.planners.lexsat import CpModel
from hygiene_pddl.registries.model import Registries
from hygiene_pddl.replay import ReplayResult

Fluent = tuple  # a physical atom, or ("contaminated", carrier, hazard)


@dataclass
class JointModel:
    """The CP-SAT model plus the handles needed to read a plan back."""

    model: cp_model.CpModel
    actions: list[GroundAction]
    used: list[cp_model.IntVar]
    start: list[cp_model.IntVar]
    start_slot: list[list[cp_model.IntVar]]
    objectives: list[tuple[str, cp_model.LinearExprT]]
    constant_dims: dict[str, int]
    tie_break: cp_model.LinearExprT
    slots: int
    fluents: list[Fluent] = field(default_factory=list)
    upper: dict[str, int] = field(default_factory=dict)  # an upper bound of every objective
    end_slot: list[list[cp_model.IntVar]] = field(default_factory=list)

    def grouped_objectives(self, limit: int = 2**31, with_tie_break: bool = False
                           ) -> list[tuple[str, cp_model.LinearExprT]]:
        """The objectives as exact weighted stages (:func:`group_objectives`); with ``with_tie_break`` the
        tie-break is the last member (it then joins the last group when it fits)."""
        items = list(self.objectives) + ([("tie_break", self.tie_break)] if with_tie_break else [])
        return group_objectives(items, self.upper, limit)



def hazard_reach(rules: HygieneRules, edges: list[tuple[Carrier, Carrier]],
                 carried: dict) -> dict[str, set[Carrier]]:
    """For each hazard, the carriers that may ever carry it: those that do now, and what a chain of the
    (directed) contact ``edges`` can carry it to, whatever the contacts' guards."""
    out = {}
    for h in rules.hazards:
        seen = {c for c, hs in carried.items() if h in hs}
        frontier = list(seen)
        while frontier:
            c = frontier.pop()
            for x, y in edges:
                if x == c and y not in seen and rules.crosses(h, x, y):
                    seen.add(y)
                    frontier.append(y)
        out[h] = seen
    return out


def group_objectives(items: Sequence[tuple[str, cp_model.LinearExprT]], upper: dict[str, int],
                     limit: int = 2**31) -> list[tuple[str, cp_model.LinearExprT]]:
    """Consecutive objectives merged into exact weighted stages while the product of (bound + 1) stays under
    ``limit``: w_i = prod_{j>i in the group} (U_j + 1) orders a group lexicographically, so one proved optimum
    of the group is the proved optimum of each of its stages in turn (paper eq. 6). ``upper`` bounds each."""
    groups: list[list[tuple[str, cp_model.LinearExprT]]] = []
    span = limit
    for name, expr in items:
        width = upper[name] + 1
        if groups and span * width < limit:
            groups[-1].append((name, expr))
            span *= width
        else:
            groups.append([(name, expr)])
            span = width
    out = []
    for group in groups:
        weight, terms = 1, []
        for name, expr in reversed(group):
            terms.append(weight * expr)
            weight *= upper[name] + 1
        out.append(("+".join(n for n, _ in group), sum(terms) if len(terms) > 1 else group[0][1]))
    return out


def cost_objectives(inst: Instance, actions: Sequence[GroundAction], used: Sequence, makespan: cp_model.IntVar,
                    horizon: int, multiplicity: int = 1
                    ) -> tuple[list[tuple[str, cp_model.LinearExprT]], dict[str, int], dict[str, int]]:
    """The profile's dimensions in order as integer expressions over the used actions (``used``: 0/1 flags, or
    occurrence counts of at most ``multiplicity``; makespan as given), the dimensions no action can change
    (constant 0) and an upper bound of each expression."""
    objectives, constant, upper = [], {}, {}
    for dim in inst.profile.order:
        if dim == "makespan":
            objectives.append((dim, makespan))
            upper[dim] = horizon
            continue
        coefs = [(used[j], a.cost(dim)) for j, a in enumerate(actions) if a.cost(dim)]
        if coefs:
            objectives.append((dim, sum(c * v for v, c in coefs)))
            upper[dim] = sum(c for _, c in coefs) * multiplicity
        else:
            constant[dim] = 0
    assert set(constant) | {d for d, _ in objectives} == set(DIMENSIONS)
    return objectives, constant, upper


def contamination_fluents(rules: HygieneRules, actions: Iterable[GroundAction], state: ReplayResult,
                          project: bool, goals: Iterable[Atom] = ()) -> list[Fluent]:
    """(carrier, hazard) fluents.

    Full state: every carrier and hazard. Projected state (paper §IV-B): only hazards some carrier
    carries now, on carriers a chain of the actions' contacts (whatever their guards) can carry them to from
    where they are, and only where something can touch or treat them or a goal reads them: no other carrier
    can ever gain the hazard (events only happen in histories), and a fact nothing reads needs no fluent.
    """
    if not project:
        return [("contaminated", c, h) for c in rules.carriers() for h in rules.hazards]
    actions = list(actions)
    edges = [(x, y) for a in actions for c in a.contacts for x, y in (c.pair, c.pair[::-1])]
    touched = {c for x, y in edges for c in (x, y)} | {t.target for a in actions for t in a.treats}
    touched |= {c for g in goals if g[0] == "safe" for c, _ in rules.unsafe_facts(g[1])}
    out = []
    for h, reach in hazard_reach(rules, edges, state.carried()).items():
        out += [("contaminated", c, h) for c in sorted(reach & touched)]
    return out


class _Fluents:
    """The model's state variables: ``b[k][i]`` is fluent i before slot k; conditions (derived capacity
    conditions included) and guards as literals at a slot."""

    def __init__(self, m: cp_model.CpModel, fluents: list[Fluent], initial: list[int], changing: set[int],
                 n_slots: int):
        self.m, self.fluents = m, fluents
        self.index = {f: i for i, f in enumerate(fluents)}
        self.constants = {i: m.new_constant(initial[i]) for i in range(len(fluents)) if i not in changing}
        self.b = [[self.constants[i] if i in self.constants else m.new_bool_var(f"b{k}_{i}")
                   for i in range(len(fluents))] for k in range(n_slots + 1)]
        for i in range(len(fluents)):
            if i not in self.constants:
                m.add(self.b[0][i] == initial[i])
        self._room: dict[tuple[int, Atom], object] = {}
        self._guards: dict[tuple, object] = {}

    def atom(self, k: int, atom: Atom):  # noqa: ANN201 - a CP-SAT literal
        if atom[0] == ROOM:
            key = (k, atom)
            if key not in self._room:
                counted = [self.b[k][self.index[a]] for a in counted_atoms(atom, self.fluents)]
                room = self.m.new_bool_var("")
                self.m.add(sum(counted) < int(atom[3])).only_enforce_if(room)
                self.m.add(sum(counted) >= int(atom[3])).only_enforce_if(~room)
                self._room[key] = room
            return self._room[key]
        return self.b[k][self.index[atom]]

    def lit(self, k: int, cond: Cond):  # noqa: ANN201
        v = self.atom(k, cond[0])
        return v if cond[1] else ~v

    def guarded(self, k: int, y, guard: tuple[Cond, ...], key: tuple):  # noqa: ANN001, ANN201
        """A literal true exactly when happening literal ``y`` is true and ``guard`` holds before slot k."""
        if not guard:
            return y
        if (key, k) not in self._guards:
            g = self.m.new_bool_var("")
            parts = [y] + [self.lit(k, c) for c in guard]
            self.m.add_bool_and(parts).only_enforce_if(g)
            self.m.add_bool_or([~p for p in parts] + [g])
            self._guards[(key, k)] = g
        return self._guards[(key, k)]


def _physical_fluents(init: set[Atom], goals: Iterable[Atom], actions: Iterable[GroundAction]) -> set[Atom]:
    physical: set[Atom] = set(init) | {g for g in goals if g[0] != "safe"}
    for a in actions:
        physical |= {x for x, _ in (*a.conditions, *a.guards, *a.effect_literals()) if not is_derived(x) or
                     x == NEVER}
    return physical


class OutOfTime(Exception):
    """The joint model could not be built by its deadline (long tasks: it grows with the slots times the ground
    actions)."""


def _in_time(deadline: float | None) -> None:
    if deadline is not None and time.perf_counter() > deadline:
        raise OutOfTime


def build_joint_model(reg: Registries, inst: Instance, state: ReplayResult, actions: list[GroundAction],
                      max_actions: int = 8, project: bool = True,
                      interchangeable: Iterable[Sequence[str]] = (), deadline: float | None = None) -> JointModel:
    """The joint model; ``interchangeable`` classes of objects (planners/symmetry.py) are first used in order.
    :class:`OutOfTime` when building it is not done by ``deadline`` (a ``time.perf_counter()`` value).

    History actions still running at the decision time are end-only pseudo actions at their fixed end times
    (no plan steps, no cost); their over-all conditions hold in every state before their end, and their end
    comes before any plan happening at the same time (it is a timed literal of the problem)."""
    rules = HygieneRules(reg, dict(inst.objects), inst.hazards)
    m = CpModel()
    horizon = state.horizon - inst.decision_time
    pending = ongoing_actions(reg, inst, state)
    fixed_at = {len(actions) + k: o.end for k, o in enumerate(pending)}
    actions = list(actions) + [o.action for o in pending]
    n_slots = 2 * max_actions + len(pending)
    last_time = max([horizon, *fixed_at.values()])
    init = initial_fluents(reg, inst, state)
    carried = state.carried()

    fluents: list[Fluent] = (sorted(_physical_fluents(init, inst.goals, actions))
                             + contamination_fluents(rules, actions, state, project, inst.goals))
    index = {f: i for i, f in enumerate(fluents)}

    def initial_value(f: Fluent) -> int:
        if f[0] == "contaminated" and len(f) == 3 and isinstance(f[1], tuple):
            return int(f[2] in carried.get(f[1], frozenset()))
        return int(f in init)

    def dirt(c: Carrier) -> list[int]:
        return [index[("contaminated", c, h)] for h in rules.hazards if ("contaminated", c, h) in index]

    changing = set()
    for a in actions:
        changing |= {index[x] for x, _ in a.effect_literals()}
        changing |= {i for c in a.contacts for x in c.pair for i in dirt(x)}
        changing |= {i for t in a.treats for i in dirt(t.target)}
    state_vars = _Fluents(m, fluents, [initial_value(f) for f in fluents], changing, n_slots)
    b = state_vars.b

    n = len(actions)
    used = [m.new_bool_var(f"x{j}") for j in range(n)]
    ys = [[m.new_bool_var(f"s{j}_{k}") for k in range(n_slots)] for j in range(n)]
    ye = [[m.new_bool_var(f"e{j}_{k}") for k in range(n_slots)] for j in range(n)]
    tau = [m.new_int_var(0, last_time, f"t{k}") for k in range(n_slots)]
    start = [m.new_int_var(0, last_time, f"T{j}") for j in range(n)]
    slot_used = []
    for k in range(n_slots):
        u = m.new_bool_var(f"u{k}")
        m.add(sum(ys[j][k] + ye[j][k] for j in range(n)) == u)
        slot_used.append(u)
        if k:
            m.add(slot_used[k - 1] >= u)
            m.add(tau[k - 1] <= tau[k])
    for j, a in enumerate(actions):
        m.add(sum(ye[j]) == used[j])
        for k in range(n_slots):
            m.add(start[j] + a.duration == tau[k]).only_enforce_if(ye[j][k])
        if j in fixed_at:  # an ongoing history action: only its end happens, at its fixed time, in some slot
            m.add(used[j] == 1)
            m.add(start[j] == fixed_at[j])
            for k in range(n_slots):
                m.add(ys[j][k] == 0)
            continue
        m.add(sum(ys[j]) == used[j])
        m.add(start[j] == 0).only_enforce_if(~used[j])
        for k in range(n_slots):
            m.add(start[j] == tau[k]).only_enforce_if(ys[j][k])
        sidx = sum(k * ys[j][k] for k in range(n_slots))
        eidx = sum(k * ye[j][k] for k in range(n_slots))
        m.add(eidx >= sidx + 1).only_enforce_if(used[j])
        m.add(start[j] + a.duration <= horizon).only_enforce_if(used[j])
    ongoing_js = sorted(fixed_at)
    if ongoing_js:
        # an ongoing end is a timed literal: at its time it comes before every plan happening
        ends_here = [sum(ye[j][k] for j in ongoing_js) for k in range(n_slots)]
        for k in range(1, n_slots):
            prev_is_end = m.new_bool_var("")
            m.add(ends_here[k - 1] == prev_is_end)
            for j in ongoing_js:
                m.add(tau[k - 1] < tau[k]).only_enforce_if([ye[j][k], ~prev_is_end])
        for j1, j2 in itertools.pairwise(ongoing_js):  # equal times: the evaluator's order
            m.add(sum(k * ye[j1][k] for k in range(n_slots)) < sum(k * ye[j2][k] for k in range(n_slots)))

    break_object_symmetry(m, actions, ys, ye, n_slots, interchangeable)

    # conditions
    for j, a in enumerate(actions):
        _in_time(deadline)
        for k in range(n_slots):
            for cond in a.cond_start:
                m.add_implication(ys[j][k], state_vars.lit(k, cond))
            for cond in a.cond_end:
                m.add_implication(ye[j][k], state_vars.lit(k, cond))
        if not a.cond_overall:
            continue
        # running before slot k: started in a slot < k and not yet ended; an ongoing history action runs from
        # the decision time (slot 0) until its end
        ongoing = j in fixed_at
        running = 1 if ongoing else 0
        if ongoing:
            for cond in a.cond_overall:
                m.add_bool_or([state_vars.lit(0, cond)])
        for k in range(1, n_slots + 1):
            r = m.new_bool_var(f"r{j}_{k}")
            m.add(r == running + (0 if ongoing else ys[j][k - 1]) - ye[j][k - 1])
            running = r
            for cond in a.cond_overall:
                m.add_implication(r, state_vars.lit(k, cond))

    # effects: per fluent and slot, the literals that add it and those that delete it (deletes, then adds)
    add_terms: dict[tuple[int, int], list] = {}
    del_terms: dict[tuple[int, int], list] = {}
    for j, a in enumerate(actions):
        _in_time(deadline)
        for phase, y in (("start", ys[j]), ("end", ye[j])):
            p = a.phase(phase)
            added = {x for x, pos in p.effects if pos}
            for k in range(n_slots):
                for atom, pos in p.effects:
                    if pos or atom not in added:
                        (add_terms if pos else del_terms).setdefault((index[atom], k), []).append(y[k])
                for u in p.updates:
                    g = state_vars.guarded(k, y[k], u.guard, (j, phase, u.guard))
                    atom, pos = u.effect
                    (add_terms if pos else del_terms).setdefault((index[atom], k), []).append(g)
                for c in p.contacts:
                    g = state_vars.guarded(k, y[k], c.guard, (j, phase, c.guard))
                    for src, dst in (c.pair, c.pair[::-1]):
                        for h in rules.hazards:
                            fs, fd = ("contaminated", src, h), ("contaminated", dst, h)
                            if fs not in index or fd not in index or not rules.crosses(h, src, dst):
                                continue
                            w = m.new_bool_var("")
                            m.add_bool_and([g, b[k][index[fs]]]).only_enforce_if(w)
                            m.add_bool_or([~g, ~b[k][index[fs]]]).only_enforce_if(~w)
                            add_terms.setdefault((index[fd], k), []).append(w)
                            if c.checked and rules.violates(dst, h):
                                # protection: no checked contact brings h onto dst unless dst already has it
                                m.add(b[k][index[fs]] - b[k][index[fd]] <= 1 - g)
                for t in p.treats:
                    g = state_vars.guarded(k, y[k], t.guard, (j, phase, t.guard))
                    for h in rules.hazards:
                        f = ("contaminated", t.target, h)
                        if f in index and rules.removes(t.treatment, t.target, h):
                            del_terms.setdefault((index[f], k), []).append(g)
    for i in range(len(fluents)):
        if i in state_vars.constants:
            continue
        _in_time(deadline)
        for k in range(n_slots):
            adds, dels = add_terms.get((i, k), []), del_terms.get((i, k), [])
            before, after = b[k][i], b[k + 1][i]
            if not adds and not dels:
                m.add(after == before)
                continue
            for t in adds:
                m.add(after >= t)
            m.add(after <= before + sum(adds))
            m.add(after >= before - sum(dels))
            for d in dels:
                m.add(after <= 1 - d + sum(adds))

    for g in inst.goals:
        if g[0] == "safe":
            for c, h in rules.unsafe_facts(g[1]):
                f = ("contaminated", c, h)
                if f in index:
                    m.add(b[n_slots][index[f]] == 0)
                elif h in carried.get(c, frozenset()):
                    m.add_bool_or([])  # contaminated and nothing can treat it: infeasible
        else:
            m.add(b[n_slots][index[g]] == 1)
    for stock in {s for a in actions for s, _ in a.consumes}:
        m.add(sum(used[j] * dict(a.consumes).get(stock, 0) for j, a in enumerate(actions))
              <= inst.remaining(stock))

    loads = add_resource_no_overlap(m, actions, start, used, fixed_at, state, inst.decision_time)

    makespan = m.new_int_var(0, horizon, "makespan")
    for j, a in enumerate(actions):
        if j not in fixed_at:
            m.add(makespan >= start[j] + a.duration).only_enforce_if(used[j])
    for load, some in loads:  # redundant: a unary resource's work fits before the makespan
        m.add(makespan >= load).only_enforce_if(some)
    plan_js = [j for j in range(n) if j not in fixed_at]
    objectives, constant, upper = cost_objectives(inst, [actions[j] for j in plan_js], [used[j] for j in plan_js],
                                                  makespan, horizon)
    tie = sum(start[j] for j in plan_js) + sum(k * ys[j][k] for j in plan_js for k in range(n_slots))
    upper["tie_break"] = n * last_time + n * (n_slots - 1)
    return JointModel(m, actions, used, start, ys, objectives, constant, tie, n_slots, fluents, upper, ye)


def unary_resources(a: GroundAction) -> list[Atom]:
    """Fluents an action holds for its whole duration: required and taken at its start, given back at its end
    (a gripper's ``idle``, an appliance's ``appliance-free``, a capacity's ``free``)."""
    taken = {x for x, pos in a.eff_start if not pos}
    back = {x for x, pos in a.eff_end if pos}
    return [x for x, pos in a.cond_start if pos and x in taken and x in back]


def add_resource_no_overlap(m: cp_model.CpModel, actions: list[GroundAction], start: list, used: list,
                            fixed_at: dict[int, int], state: ReplayResult, decision_time: int,
                            count: Sequence | None = None, more: Sequence[tuple[int, object, object]] = ()
                            ) -> list[tuple[cp_model.LinearExprT, object]]:
    """Redundant with the resource fluents, but propagates far better: the used actions that hold one unary
    resource do not overlap in time (history actions still holding it occupy it from 0). Returns, per resource,
    its load (busy time from 0; ``count`` occurrences of each action, default one per used action) and the
    literal under which it bounds the makespan (some used action holds the resource). ``more`` are further
    occurrences (action index, start, presence literal) that hold the same resources (no load of their own)."""
    count = used if count is None else count
    by_resource: dict[Atom, list] = {}
    load: dict[Atom, list] = {}
    users: dict[Atom, list] = {}
    for j, a in enumerate(actions):
        if j in fixed_at:
            continue
        resources = unary_resources(a)
        if resources:
            iv = m.new_optional_fixed_size_interval_var(start[j], a.duration, used[j], "")
            for r in resources:
                by_resource.setdefault(r, []).append(iv)
                load.setdefault(r, []).append(a.duration * count[j])
                users.setdefault(r, []).append(used[j])
    for j, begin, present in more:
        for r in unary_resources(actions[j]):
            by_resource.setdefault(r, []).append(
                m.new_optional_fixed_size_interval_var(begin, actions[j].duration, present, ""))
    for resource, until in state.busy_until:
        fluent = free_fluent(resource)
        if fluent in by_resource and until > decision_time:
            by_resource[fluent].append(m.new_fixed_size_interval_var(0, until - decision_time, ""))
            load[fluent].append(until - decision_time)
    for intervals in by_resource.values():
        if len(intervals) > 1:
            m.add_no_overlap(intervals)
    out = []
    for r, terms in load.items():
        some = m.new_bool_var("")
        m.add_bool_or(users[r]).only_enforce_if(some)
        m.add(sum(users[r]) == 0).only_enforce_if(~some)
        out.append((sum(terms), some))
    return out


def break_object_symmetry(m: cp_model.CpModel, actions: list[GroundAction], ys: list, ye: list, n_slots: int,
                          classes: Iterable[Sequence[str]]) -> None:
    """Within each class of interchangeable objects, an object's first happening comes no later than that of
    the next one in name order (swapping interchangeable objects maps plans to plans of equal cost)."""
    for cls in classes:
        seen_before = None
        for obj in cls:
            mentions = [j for j, a in enumerate(actions) if obj in a.args]
            touch = [sum(ys[j][k] + ye[j][k] for j in mentions) for k in range(n_slots)]
            if seen_before is not None:
                for k in range(n_slots):  # obj touched at k => the previous object was touched at some k' <= k
                    m.add(touch[k] <= seen_before[k])
            seen, prev = [], 0
            for k in range(n_slots):
                v = m.new_bool_var("")
                m.add(v <= prev + touch[k])
                seen.append(v)
                prev = v
            seen_before = seen


def completed_hint(jm: JointModel, plan: list[GroundAction], classes: Iterable[Sequence[str]],
                   seconds: float) -> tuple[int, ...] | None:
    """A complete solution of the model that runs ``plan`` sequentially from time 0: the plan's happenings are
    fixed in slot order (interchangeable objects renamed so that they are first used in name order) and
    CP-SAT fills in the rest. ``None`` when the plan does not fit the model or no completion is found."""
    rename: dict[str, str] = {}
    for cls in classes:
        first = sorted(cls, key=lambda o: next((i for i, a in enumerate(plan) if o in a.args), len(plan)))
        rename |= {old: new for old, new in zip(first, cls, strict=True) if old != new}
    index = {(a.name, a.args): j for j, a in enumerate(jm.actions) if not a.name.startswith("ongoing:")}
    chosen = [index.get((a.name, tuple(rename.get(x, x) for x in a.args))) for a in plan]
    if None in chosen or len(set(chosen)) < len(chosen) or 2 * len(plan) > jm.slots:
        return None
    m = jm.model.clone()
    t = 0
    for i, j in enumerate(chosen):
        m.add(jm.start_slot[j][2 * i] == 1)
        m.add(jm.end_slot[j][2 * i + 1] == 1)
        m.add(jm.start[j] == t)
        t += jm.actions[j].duration
    for j in set(index.values()) - set(chosen):
        m.add(jm.used[j] == 0)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.cp_model_presolve = False  # the plan fixes nearly everything: propagation completes it
    solver.parameters.max_time_in_seconds = max(0.01, seconds)
    if solver.solve(m) not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    return tuple(int(v) for v in solver.response_proto.solution)


def carriers_of(actions: Iterable[GroundAction]) -> set[Carrier]:
    return {c for a in actions for contact in a.contacts for c in contact.pair}


def solution(jm: JointModel, res) -> tuple[list, CostVector]:  # noqa: ANN001 - a LexResult
    """The chosen continuation steps (ongoing pseudo actions left out) and the modelled cost vector."""
    from hygiene_pddl.planners.base import ChosenStep

    steps = []
    for j, a in enumerate(jm.actions):
        if res.boolean_value(jm.used[j]) and not a.name.startswith("ongoing:"):
            order = sum(k * res.value(v) for k, v in enumerate(jm.start_slot[j]))
            end_order = sum(k * res.value(v) for k, v in enumerate(jm.end_slot[j]))
            steps.append(ChosenStep(res.value(jm.start[j]), a.name, a.args, a.duration, order, end_order))
    steps.sort(key=lambda s: (s.start, s.order))
    values = {**jm.constant_dims, **{d: res.value(e) for d, e in jm.objectives}}
    return steps, CostVector.from_mapping({d: values[d] for d in DIMENSIONS})

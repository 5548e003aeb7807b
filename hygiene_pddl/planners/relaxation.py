"""A relaxation of every plan: which actions, when, at what cost, without the state sequence.

Every valid plan over the given ground actions gives a solution of this model with a cost vector no larger
(docs/planners.md, "Proof by relaxation", derives each constraint): map each ground action the plan uses to its
*first* occurrence, with its start rounded to the TU grid (the evaluator's grid; every constraint below is an
order between times, which rounding keeps). Repeated occurrences of a ground action are allowed in the plan:
they only add cost, stock use and load, which the constraints count from below (``counts`` counts them). So
the relaxation's lexicographic optimum bounds every plan's cost vector from below, whatever its length, and a
relaxation without solutions proves that no plan over these actions exists. It keeps what is cheap to state over
the actions alone:

* goals: a goal fact that is false now needs an action (or an ongoing history action's end) that may add it; a
  ``(safe o)`` goal needs, for every hazard o carries now where it is protected, a treatment that may remove it;
* landmarks: a condition that is false now (true now, for a negative one) needs a provider that may make it so,
  other than the action itself, no later than the condition's happening (one time per needed fact, shared by
  its users; the first provider of the first occurrence);
* protection: an unguarded, checked contact that would carry a hazard from a carrier that has it now onto a
  region protected against it and clean of it needs a treatment of that carrier that may remove it, no later
  than the contact: such a region never gains the hazard (a checked arrival would be a violation, and no
  exempt contact can reach it: otherwise the rule is left out), so the carrier must have lost it, and only
  treatments remove hazards;
* irreversible conditions: a condition true now that nothing (no action, no ongoing end, guarded or not) can
  restore is destroyed (by an unconditional effect) only after the last moment an action needs it;
* running processes: an ongoing history action's over-all condition is destroyed only at or after its end;
* stocks, the deadline, unary resources (first occurrences holding one resource do not overlap, nor overlap a
  history action still holding it; all occurrences' work fits before the makespan) and the cost dimensions.

What it leaves out is the state between happenings: deletions after a support, hazards spreading along a
chain of contacts, re-contamination after a treatment, guards, capacities. Hygiene-NSP uses it before building
the joint model (``HygieneNSP._by_relaxation``) and to decide whether the joint model's answer covers every plan
(:func:`better_plan_possible`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from ortools.sat.python import cp_model

from hygiene_pddl.costs import DIMENSIONS, CostVector
from hygiene_pddl.hygiene import HygieneRules
from hygiene_pddl.instances.model import Carrier, Instance
from hygiene_pddl.literals import Atom
from hygiene_pddl.planners.grounding import (
    NEVER,
    GroundAction,
    initial_fluents,
    is_derived,
    may_make,
    ongoing_actions,
)
from hygiene_pddl.planners.joint import add_resource_no_overlap, cost_objectives, group_objectives, hazard_reach
from hygiene_pddl.planners.lexsat import CpModel, LexSettings, LexStatus, lexsolve
from hygiene_pddl.planners.relaxation_chains import add_chains
from hygiene_pddl.planners.relaxation_order import (
    add_goals_restored,
    add_reprovision,
    add_strict_resource_order,
    at_most_one_groups,
)
from hygiene_pddl.registries.model import Registries
from hygiene_pddl.replay import ReplayResult

#: The relaxation's solver settings: one worker, fixed seed, no presolve, core-based optimisation (on one
#: instance per family: median 5.6 ms against 10.3 ms with hygiene-nsp's joint-model settings, the same optima).
SETTINGS = LexSettings(num_workers=1, random_seed=0, linearization_level=0,
                       extra={"cp_model_presolve": False, "optimize_with_core": True})

#: Fluents that say a unary resource is free (grippers, appliances, capacities).
_RESOURCES = frozenset({"idle", "appliance-free", "free"})

#: A user of a fact: (ground action index, or -1 - k for the k-th ongoing history action; phase).
Point = tuple[int, str]
#: A provider: (index, phase, the guard under which it provides).
Provider = tuple


@dataclass
class RelaxedModel:
    """The relaxation's CP-SAT model and the handles to read the chosen actions and costs back."""

    model: cp_model.CpModel
    actions: list[GroundAction]
    used: list[cp_model.IntVar]
    start: list[cp_model.IntVar]
    objectives: list[tuple[str, cp_model.LinearExprT]]
    constant_dims: dict[str, int]
    upper: dict[str, int]
    count: list[cp_model.LinearExprT]  # occurrences of each ground action (``used`` without ``counts``)


def build_relaxation(reg: Registries, inst: Instance, state: ReplayResult, actions: list[GroundAction],
                     max_actions: int | None = None, counts: bool = False, strong: bool = False) -> RelaxedModel:
    """The relaxation over ``actions``, of plans of at most ``max_actions`` ground actions when that is given;
    with ``counts``, each ground action has a number of occurrences (at most the horizon) instead of a flag; with
    ``strong``, also the order rules (planners/relaxation_order.py: unary resources in happening order,
    at-most-one groups, goals restored) and the later of two goals (planners/relaxation_chains.py), which cost more
    to solve."""
    rules = HygieneRules(reg, dict(inst.objects), inst.hazards)
    m = CpModel()
    horizon = state.horizon - inst.decision_time
    init = initial_fluents(reg, inst, state)
    carried = state.carried()
    ongoing = ongoing_actions(reg, inst, state)
    n = len(actions)
    used = [m.new_bool_var(f"x{j}") for j in range(n)]
    start = [m.new_int_var(0, horizon, f"T{j}") for j in range(n)]
    count: list[cp_model.LinearExprT] = list(used)
    if counts:
        count = []
        for j in range(n):
            c = m.new_int_var(0, max(1, horizon), f"n{j}")
            m.add(c >= 1).only_enforce_if(used[j])
            m.add(c == 0).only_enforce_if(~used[j])
            count.append(c)
    if max_actions is not None:
        m.add(sum(used) <= max_actions)
    # happening order within a TU (module docstring, "Order"): a rank per first and last occurrence's happening
    per_tu = 4 * n + len(ongoing) + 1
    rank = {(j, w): m.new_int_var(0, per_tu - 1, f"r{w[0]}{j}") for j in range(n) for w in ("start", "end")}
    # the last occurrence: the first one when a ground action occurs once (with counts; without, a used action
    # stands for all its occurrences, so the last is only no earlier than the first, and counts as a second one when
    # it is another occurrence)
    last_start = [m.new_int_var(0, horizon, f"L{j}") for j in range(n)]
    last_rank = {(j, w): m.new_int_var(0, per_tu - 1, f"l{w[0]}{j}") for j in range(n) for w in ("start", "end")}
    again = []  # the last occurrence is not the first
    for j, a in enumerate(actions):
        m.add(start[j] + a.duration <= horizon).only_enforce_if(used[j])
        m.add(start[j] == 0).only_enforce_if(~used[j])
        m.add(last_start[j] + a.duration <= horizon).only_enforce_if(used[j])  # an unused one may be too long
        m.add(last_start[j] >= start[j])
        once = m.new_bool_var("")  # one occurrence (or none: both times 0), else the last is another one
        if counts:
            m.add(count[j] <= 1).only_enforce_if(once)
            m.add(count[j] >= 2).only_enforce_if(~once)
        else:
            m.add_implication(~used[j], once)
        again.append(~once)
        m.add(last_start[j] == start[j]).only_enforce_if(once)
        for w in ("start", "end"):
            m.add(rank[(j, w)] == 0).only_enforce_if(~used[j])
            m.add(last_rank[(j, w)] == rank[(j, w)]).only_enforce_if(once)
        if not counts:  # a last occurrence that is another one is a second occurrence: it costs once more
            count[j] = used[j] + 1 - once

    def at(p: Point, first: bool = True) -> cp_model.LinearExprT:
        """The happening's place in the plan's order (of the first occurrence, or the last): per_tu * its TU +
        its rank within the TU."""
        j, when = p[0], p[1]
        if j < 0:
            return per_tu * ongoing[-1 - j].end
        tu = (start if first else last_start)[j] + (actions[j].duration if when == "end" else 0)
        return per_tu * tu + (rank if first else last_rank)[(j, when)]

    for j in range(n):
        for w in ("start", "end"):
            m.add(at((j, w), first=False) >= at((j, w)))

    def is_used(p: Point):  # noqa: ANN202 - a literal or True
        return True if p[0] < 0 else used[p[0]]

    everything = [(j, a) for j, a in enumerate(actions)] + [(-1 - k, o.action) for k, o in enumerate(ongoing)]

    # providers are (action index, phase, guard): a guarded one needs its guard made true first
    makes: dict[tuple[Atom, bool], list[Provider]] = {}  # who may make the atom take the value, and when
    sure: dict[tuple[Atom, bool], list[Provider]] = {}  # who certainly makes it take the value
    removes: dict[tuple[Carrier, str], list[Provider]] = {}  # treatments that may remove the hazard
    for j, a in everything:
        for w in ("start", "end"):
            p = a.phase(w)
            lits = set(p.effects) | {u.effect for u in p.updates}
            for atom, value in lits:
                if value or (atom, True) not in p.effects:  # deletes, then adds
                    guard = () if (atom, value) in p.effects else next(u.guard for u in p.updates
                                                                        if u.effect == (atom, value))
                    makes.setdefault((atom, value), []).append((j, w, guard))
            for atom, value in p.effects:
                if (atom, not value) not in lits:
                    sure.setdefault((atom, value), []).append((j, w, ()))
            for t in p.treats:
                for h in rules.hazards:
                    if rules.removes(t.treatment, t.target, h):
                        removes.setdefault((t.target, h), []).append((j, w, t.guard))

    def providers(atom: Atom, positive: bool) -> list[Point]:
        return makes.get((atom, positive), [])

    def treatments(carrier: Carrier, hazard: str) -> list[Point]:
        return removes.get((carrier, hazard), [])

    last_time = per_tu * (max([horizon, *(o.end for o in ongoing)]) + 1)

    def choose(pool: list[Provider], options: list) -> None:
        """A literal per provider that says it is the one relied on: it is used, and its guard literals that do
        not hold now are made so before it (needs of their own)."""
        for p in pool:
            s = m.new_bool_var("")
            if p[0] >= 0:
                m.add_implication(s, used[p[0]])
            for atom, pos in p[2]:
                if not is_derived(atom) and (atom in init) != pos:
                    need(("condition", atom, pos), (p[0], p[1]), providers(atom, pos), s)
            options.append(s)

    def first_provider(pool: list[Provider], users: list[tuple[Point, object]], first, needed, chosen: list
                       ) -> None:
        """Each active user (a point and the literal that makes it need the fact) has a provider other than
        itself no later than the user: one variable holds the first provider's time for all users (a user's own
        provider is never earlier than the first one), and some provider other than the user is used (an ongoing
        end always is). The user's own start counts for a need at its end (it comes first: a treatment at the
        start of the action whose end makes the contact)."""
        if not any(p[0] < 0 and not p[2] for p in pool):
            for (j, w), active in users:
                others = [used[p[0]] for p in pool if p[0] >= 0 and (p[0] != j or (p[1], w) == ("start", "end"))]
                others += [1 for p in pool if p[0] < 0]
                m.add(sum(others) >= (1 if active is True else active))
        for p, s in zip(pool, chosen, strict=True):
            m.add(at(p) <= first).only_enforce_if(s)
        m.add(sum(chosen) >= needed)
        for p, active in users:  # the provider's happening comes strictly before the user's (it reads the pre-state)
            if active is True:
                m.add(needed == 1)
                m.add(first + 1 <= at(p))
            else:
                m.add_implication(active, needed)
                m.add(at(p) >= first + 1).only_enforce_if(active)

    needs: dict[tuple, tuple[list[Provider], list[tuple[Point, object]]]] = {}
    restorers: dict[tuple[Atom, bool], tuple | None] = {}

    destroyers: dict[tuple[Atom, bool], object] = {}

    def first_destroyer(atom: Atom, pos: bool):  # noqa: ANN202 - an integer variable, or None
        """A time no later than every used action's happening that surely makes (atom, pos) untrue (None when no
        action does)."""
        key = (atom, pos)
        if key not in destroyers:
            pool = [p for p in sure.get((atom, not pos), []) if p[0] >= 0]
            if not pool:
                destroyers[key] = None
            else:
                d = m.new_int_var(0, last_time, "")
                for p in pool:
                    m.add(d <= at(p)).only_enforce_if(used[p[0]])
                destroyers[key] = d
        return destroyers[key]

    def first_restorer(atom: Atom, pos: bool) -> tuple | None:
        """(needed, first): when ``needed``, some used action that may make (atom, pos) happens at ``first`` or
        earlier; None when an ongoing end does (nothing to require)."""
        key = (atom, pos)
        if key not in restorers:
            pool = providers(atom, pos)
            if any(p[0] < 0 for p in pool):
                restorers[key] = None
            else:
                needed, first = m.new_bool_var(""), m.new_int_var(0, last_time, "")
                chosen = []
                for p in pool:
                    s = m.new_bool_var("")
                    m.add_implication(s, used[p[0]])
                    m.add(at(p) <= first).only_enforce_if(s)
                    chosen.append(s)
                m.add(sum(chosen) >= needed)
                restorers[key] = (needed, first)
        return restorers[key]

    def need(key: tuple, user: Point, pool: list[Provider], when=None) -> None:  # noqa: ANN001 - a literal
        """``user`` needs a provider from ``pool`` when it is used (and ``when`` holds, if given)."""
        active = is_used(user)
        if when is not None:
            act = m.new_bool_var("")
            m.add_bool_or([x for x in (~active if active is not True else None, ~when, act) if x is not None])
            active = act
        needs.setdefault(key, (pool, []))[1].append((user, active))

    for j, a in everything:
        own_start = set(a.eff_start)
        groups = [("end", "end", a.cond_end)] if j < 0 else [
            ("start", "start", a.cond_start), ("start", "end", a.cond_overall), ("end", "end", a.cond_end)]
        for when, last, conds in groups:
            for atom, pos in conds:
                if atom == NEVER:
                    m.add_bool_or([~used[j]] if j >= 0 else [])
                    continue
                if is_derived(atom):
                    continue
                if (atom in init) != pos:
                    # a landmark: it does not hold now, so it needs a provider
                    if conds is not a.cond_start and (atom, pos) in own_start and "start" in may_make(a, atom, pos):
                        continue  # j's own start provides it
                    need(("condition", atom, pos), (j, when), providers(atom, pos))
                    continue
                if not providers(atom, pos):
                    # it holds now and nothing restores it once destroyed: every sure destroyer comes after the
                    # last moment j needs it (an over-all condition is needed until j's end)
                    for d, where, _ in sure.get((atom, not pos), []):
                        if d != j:
                            _after(m, at((d, where)), at((j, last)), [is_used((j, last)), is_used((d, where))])
                    continue
                if conds is a.cond_overall or j < 0 or atom[0] in _RESOURCES:
                    continue  # a unary resource: the no-overlap constraint already says it
                # it holds now and can be restored: if the first sure destroyer comes strictly before j needs it,
                # something restored it in between, no later than j's need
                restorer, destroyed = first_restorer(atom, pos), first_destroyer(atom, pos)
                if restorer is None or destroyed is None:
                    continue
                needed, first = restorer
                kept = m.new_bool_var("")
                m.add(destroyed >= at((j, when))).only_enforce_if([used[j], kept])
                m.add(first <= at((j, when))).only_enforce_if([used[j], ~kept])
                m.add_bool_or([~used[j], kept, needed])
        if j >= 0:
            # a sure destroyer of an over-all condition that holds now and can be restored comes at or after the
            # action's end, or at or before its start with a restorer used no later than the start (the
            # condition must hold right after the start happening)
            for atom, pos in a.cond_overall:
                if (atom in init) != pos or not providers(atom, pos):
                    continue
                restorer = first_restorer(atom, pos)
                if restorer is None:
                    continue
                needed, first = restorer
                for d, where, _ in sure.get((atom, not pos), []):
                    if d != j and d >= 0:
                        after = m.new_bool_var("")
                        m.add(at((d, where)) >= at((j, "end"))).only_enforce_if([used[j], used[d], after])
                        m.add(at((d, where)) <= at((j, "start"))).only_enforce_if([used[j], used[d], ~after])
                        m.add_implication(~after, needed)
                        m.add(first <= at((j, "start"))).only_enforce_if([used[j], used[d], ~after])
    # a happening that needs the negation of an over-all condition is not inside the action's interval
    needers: dict[tuple[Atom, bool], list[Point]] = {}
    for j, a in enumerate(actions):
        for w, conds in (("start", a.cond_start), ("end", a.cond_end)):
            for atom, pos in conds:
                if not is_derived(atom) and atom[0] not in _RESOURCES:
                    needers.setdefault((atom, pos), []).append((j, w))
    for j, a in enumerate(actions):
        for atom, pos in a.cond_overall:
            for b, w in needers.get((atom, not pos), []):
                if b != j:
                    before = m.new_bool_var("")
                    m.add(at((b, w)) <= at((j, "start"))).only_enforce_if([used[j], used[b], before])
                    m.add(at((b, w)) >= at((j, "end"))).only_enforce_if([used[j], used[b], ~before])
    # running processes keep their over-all conditions until their end
    for o in ongoing:
        for atom, pos in o.action.cond_overall:
            if is_derived(atom):
                continue
            for d, where, _ in sure.get((atom, not pos), []):
                if d >= 0:
                    m.add(at((d, where)) >= per_tu * o.end).only_enforce_if(used[d])
            for b, w in needers.get((atom, not pos), []):
                m.add(at((b, w)) >= per_tu * o.end).only_enforce_if(used[b])

    # protection: a carrier with a hazard now must be treated before it touches a clean region protected from it,
    # unless an exempt contact may have brought the hazard there first
    reach = _reach(rules, [a for _, a in everything], carried)
    exempt: dict[tuple[Carrier, str], list[Provider]] = {}
    for j, a in everything:
        for w in ("start", "end"):
            for c in a.phase(w).contacts:
                if not c.checked:
                    for x, dst in (c.pair, c.pair[::-1]):
                        for h in rules.hazards:
                            if x in reach.get(h, ()) and rules.crosses(h, x, dst):
                                exempt.setdefault((dst, h), []).append((j, w, c.guard))

    def protect(contact, user: Point, when=None) -> bool:  # noqa: ANN001
        """The treatments a checked contact needs (when it happens); whether it needs any."""
        any_need = False
        for src, dst in (contact.pair, contact.pair[::-1]):
            for h in carried.get(src, ()):
                if h in carried.get(dst, ()) or not rules.violates(dst, h) or not rules.crosses(h, src, dst):
                    continue
                need(("protect", src, dst, h), user, treatments(src, h) + exempt.get((dst, h), []), when)
                any_need = True
        return any_need

    for j, a in everything:
        for when in ("start", "end"):
            for contact in a.phase(when).contacts:
                if not contact.checked:
                    continue
                if not contact.guard:
                    protect(contact, (j, when))
                    continue
                # a guarded contact: either some guard literal that holds now is made false first, or the
                # contact happens and has what it needs (a guard literal false now may stay false: no claim)
                if any((atom in init) != pos for atom, pos in contact.guard if not is_derived(atom)) or \
                        any(is_derived(atom) for atom, _ in contact.guard):
                    continue
                happens = m.new_bool_var("")
                if not protect(contact, (j, when), happens):
                    continue
                options = [happens]
                for atom, pos in contact.guard:
                    off = m.new_bool_var("")
                    need(("condition", atom, not pos), (j, when), providers(atom, not pos), off)
                    options.append(off)
                m.add_bool_or([*options, ~used[j]] if j >= 0 else options)

    add_chains(m, rules, inst, actions, carried, init, at, used, treatments, providers, exempt, strong, last_time)
    if strong:
        positions: dict[tuple[Point, bool], cp_model.IntVar] = {}
        longest = max((a.duration for a in actions), default=0)

        def pos(p: Point, first: bool = True) -> cp_model.IntVar:
            """An integer variable equal to :func:`at` (interval bounds must be affine)."""
            if (p, first) not in positions:
                v = m.new_int_var(0, last_time + per_tu * longest, "")  # an unused action may end after the deadline
                m.add(v == at(p, first))
                positions[(p, first)] = v
            return positions[(p, first)]

        add_strict_resource_order(m, actions, ongoing, init, makes, pos, used, again, per_tu)
        add_reprovision(m, actions, at_most_one_groups(actions, ongoing, init), makes, sure, at, used, last_time,
                        init)

    # goals: a provider relied on for each goal that does not hold now (its guard made true first)
    for g in inst.goals:
        pools = ([treatments(c, h) for c, h in rules.unsafe_facts(g[1]) if h in carried.get(c, frozenset())]
                 if g[0] == "safe" else [providers(g, True)] if g not in init else [])
        for pool in pools:
            if not any(p[0] < 0 and not p[2] for p in pool):
                options: list = []
                choose(pool, options)
                m.add_bool_or(options)
    if strong:
        add_goals_restored(m, [g for g in inst.goals if g[0] != "safe" and not is_derived(g)], sure, makes, at,
                           used)

    # the providers relied on may need their guards first: choose them until no new need appears, then tie
    # every need's users to its first provider
    choices: dict[tuple, tuple] = {}
    while len(choices) < len(needs):
        for key in [k for k in needs if k not in choices]:
            chosen: list = []
            choose(needs[key][0], chosen)
            choices[key] = (m.new_int_var(0, last_time, ""), m.new_bool_var(""), chosen)
    for key, (pool, users) in needs.items():
        first_provider(pool, users, *choices[key])

    for stock in {s for a in actions for s, _ in a.consumes}:
        m.add(sum(count[j] * dict(a.consumes).get(stock, 0) for j, a in enumerate(actions))
              <= inst.remaining(stock))
    loads = add_resource_no_overlap(m, actions, start, used, {}, state, inst.decision_time, count,
                                    [(j, last_start[j], again[j]) for j in range(n)])
    makespan = m.new_int_var(0, horizon, "makespan")
    for j, a in enumerate(actions):
        m.add(makespan >= last_start[j] + a.duration).only_enforce_if(used[j])
    for load, when in loads:
        m.add(makespan >= load).only_enforce_if(when)
    objectives, constant, upper = cost_objectives(inst, actions, count, makespan, horizon,
                                                  max(1, horizon) if counts else 2)
    return RelaxedModel(m, list(actions), used, start, objectives, constant, upper, count)


def _reach(rules: HygieneRules, actions: list[GroundAction], carried: dict) -> dict[str, set[Carrier]]:
    """For each hazard, the carriers that may ever carry it: those that do now, and what a chain of contacts
    (whatever their guards) can carry it to."""
    edges = [(x, y) for a in actions for c in a.contacts for x, y in (c.pair, c.pair[::-1])]
    return hazard_reach(rules, edges, carried)


def _after(m: cp_model.CpModel, later: cp_model.LinearExprT, earlier: cp_model.LinearExprT, when: list) -> None:
    lits = [x for x in when if x is not True]
    if lits:  # two ongoing history actions: nothing a plan chooses
        m.add(later >= earlier).only_enforce_if(lits)


@dataclass(frozen=True)
class RelaxedOptimum:
    """The relaxation's lexicographic optimum: its status, the lower bound (``None`` without a solution), the
    actions it chose with their start times, and the seconds spent building the model."""

    status: LexStatus
    bound: CostVector | None
    chosen: tuple[GroundAction, ...]
    starts: tuple[int, ...]
    built: float


def relaxed_optimum(reg: Registries, inst: Instance, state: ReplayResult, actions: list[GroundAction],
                    settings: LexSettings, time_limit: float, max_actions: int | None = None, strong: bool = False
                    ) -> RelaxedOptimum:
    """Build the relaxation (``strong``: :func:`build_relaxation`) and solve it lexicographically (grouped stages,
    as the joint model's)."""
    t = time.perf_counter()
    rm = build_relaxation(reg, inst, state, actions, max_actions, strong=strong)
    built = time.perf_counter() - t
    stages = group_objectives(rm.objectives, rm.upper)
    res = lexsolve(rm.model, stages, time_limit=time_limit, settings=settings, lower_bounds={d: 0 for d, _ in stages})
    if not res.found:
        return RelaxedOptimum(res.status, None, (), (), built)
    values = {**rm.constant_dims, **{d: res.value(e) for d, e in rm.objectives}}
    picked = [j for j, u in enumerate(rm.used) if res.boolean_value(u)]
    return RelaxedOptimum(res.status, CostVector.from_mapping({d: values[d] for d in DIMENSIONS}),
                          tuple(rm.actions[j] for j in picked), tuple(res.value(rm.start[j]) for j in picked), built)


@dataclass(frozen=True)
class Escape:
    """A relaxation solution outside the joint model that beats its answer: the ground actions outside the model
    it uses, whether it uses one twice, and how many occurrences it has."""

    outside: tuple[GroundAction, ...]
    repeated: bool
    occurrences: int


def better_plan_possible(reg: Registries, inst: Instance, state: ReplayResult, actions: list[GroundAction],
                         covered: Sequence[GroundAction], bound: int, cost: CostVector | None,
                         settings: LexSettings, time_limit: float, limit: int | None = None,
                         strong: bool = False) -> tuple[bool, Escape | None]:
    """Whether the relaxation admits a plan the joint model did not cover that beats ``cost`` (any plan, when
    ``cost`` is None): one that uses a ground action outside ``covered``, uses one twice, or has more than
    ``bound`` occurrences (of at most ``limit`` occurrences, when plans are limited; ``strong``: the strong
    relaxation, :func:`build_relaxation`). Returns (proved, escape):
    proved when there is none, so the joint model's answer over ``covered`` with ``bound`` actions (each at most
    once) holds for every plan over ``actions``; otherwise the escape found (None when the solve ran out of
    time)."""
    t = time.perf_counter()
    rm = build_relaxation(reg, inst, state, actions, counts=True, strong=strong)
    time_limit -= time.perf_counter() - t  # the build counts
    if time_limit < 0.05:
        return False, None
    m = rm.model
    if limit is not None:
        m.add(sum(rm.count) <= limit)
    inside = {id(a) for a in covered}
    escapes = [rm.used[j] for j, a in enumerate(actions) if id(a) not in inside]
    twice = []
    for j in range(len(actions)):
        t = m.new_bool_var("")
        m.add(rm.count[j] >= 2).only_enforce_if(t)
        m.add(rm.count[j] <= 1).only_enforce_if(~t)
        twice.append(t)
    escapes += twice
    if limit is None or limit > bound:
        longer = m.new_bool_var("")
        m.add(sum(rm.count) >= bound + 1).only_enforce_if(longer)
        m.add(sum(rm.count) <= bound).only_enforce_if(~longer)
        escapes.append(longer)
    m.add_bool_or(escapes)
    if cost is not None:
        exprs = dict(rm.objectives)
        _lex_below(m, [(exprs.get(d, 0), cost[d]) for d in inst.profile.order])
    solver, status = _solve_feasibility(m, settings, time_limit)
    if status == cp_model.INFEASIBLE:
        return True, None
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return False, None
    outside = tuple(a for j, a in enumerate(actions) if id(a) not in inside and solver.boolean_value(rm.used[j]))
    return False, Escape(outside, any(solver.boolean_value(t) for t in twice),
                         sum(solver.value(c) for c in rm.count))


def nothing_below(reg: Registries, inst: Instance, state: ReplayResult, actions: list[GroundAction],
                  cost: CostVector | None, settings: LexSettings, time_limit: float, max_actions: int | None = None,
                  strong: bool = False, deadline: float | None = None) -> bool | None:
    """Whether the relaxation over ``actions`` (``strong``: :func:`build_relaxation`) has no solution whose cost
    vector is lexicographically below ``cost`` (no solution at all, when ``cost`` is None): then no plan (of at
    most ``max_actions`` ground actions, when given) is better than one of cost ``cost`` (exists), since every
    plan's image is a solution of cost no larger. ``None`` when the solve ran out of time. A plan's cost is proved
    optimal this way much faster than by the relaxation's own lexicographic optimum (on a derived task of 40
    actions, 0.7 s against 12.8 s). With ``deadline`` (a ``time.perf_counter()`` value), the solve gets what the
    model's build leaves of the time until then (None when nothing is left)."""
    rm = build_relaxation(reg, inst, state, actions, max_actions, strong=strong)
    if deadline is not None:
        time_limit = min(time_limit, deadline - time.perf_counter())
        if time_limit < 0.05:
            return None
    exprs = dict(rm.objectives)
    if cost is not None:
        _lex_below(rm.model, [(exprs.get(d, 0), cost[d]) for d in inst.profile.order])
    _, status = _solve_feasibility(rm.model, settings, time_limit)
    if status == cp_model.INFEASIBLE:
        return True
    return False if status in (cp_model.OPTIMAL, cp_model.FEASIBLE) else None


def proved_prefix(reg: Registries, inst: Instance, state: ReplayResult, actions: list[GroundAction],
                  cost: CostVector, settings: LexSettings, deadline: float, max_actions: int | None = None) -> int:
    """How many of the profile's first dimensions ``cost`` is proved optimal in: the largest k for which the
    relaxation has no solution whose first k dimensions are lexicographically below ``cost``'s (every plan's then
    are at least ``cost``'s; a solution below in k dimensions is below in more, so the proved ones are a prefix).
    Each check shares the time left until ``deadline`` (a ``time.perf_counter()`` value) with the later ones."""
    rm = build_relaxation(reg, inst, state, actions, max_actions)
    exprs = dict(rm.objectives)
    terms = [(exprs.get(d, 0), cost[d]) for d in inst.profile.order]
    proved = 0
    for k in range(1, len(terms) + 1):
        left = deadline - time.perf_counter()
        if left < 0.05:
            break
        m = rm.model.clone()
        _lex_below(m, terms[:k])
        _, status = _solve_feasibility(m, settings, left / 2)
        if status != cp_model.INFEASIBLE:
            break
        proved = k
    return proved


def _solve_feasibility(m: cp_model.CpModel, settings: LexSettings, time_limit: float
                       ) -> tuple[cp_model.CpSolver, int]:
    """A deterministic feasibility solve (one worker, the settings' seed, no presolve, no LP)."""
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = settings.random_seed
    solver.parameters.linearization_level = 0
    solver.parameters.cp_model_presolve = False
    solver.parameters.max_time_in_seconds = max(0.05, time_limit)
    return solver, solver.solve(m)


def _lex_below(m: cp_model.CpModel, terms: list[tuple[cp_model.LinearExprT, int]]) -> None:
    """The expressions (in priority order) are lexicographically below the values."""
    prefix: list = []  # literals: every earlier expression equals its value
    options = []
    for expr, value in terms:
        if isinstance(expr, int):  # a dimension no action changes
            if expr < value:
                options.append(_all(m, prefix))
            if expr != value:
                break
            continue
        below = m.new_bool_var("")
        m.add(expr <= value - 1).only_enforce_if(below)
        m.add_bool_and(prefix).only_enforce_if(below)
        options.append(below)
        eq = m.new_bool_var("")
        m.add(expr == value).only_enforce_if(eq)
        prefix = [*prefix, eq]
    m.add_bool_or(options)


def _all(m: cp_model.CpModel, lits: list):  # noqa: ANN202 - a literal
    v = m.new_bool_var("")
    m.add_bool_and(lits).only_enforce_if(v)
    return v

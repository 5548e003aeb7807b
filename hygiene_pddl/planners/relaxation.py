"""A relaxation of Hygiene-NSP's joint model: which actions, when, at what cost, without the state sequence.

Every plan of the joint model (planners/joint.py) gives a solution of this model with the same cost vector,
so the relaxation's lexicographic optimum bounds every plan's cost vector from below. It keeps what is cheap
to state over the actions alone:

* goals: a goal fact that is false now needs one of its achievers; a ``(safe o)`` goal needs, for every
  hazard o carries now where it is protected, a treatment that removes it;
* landmarks: an action's condition that is false now (true now, for a negative one) needs an achiever
  (a deleter) other than the action itself, and the condition's happening comes no earlier than the first
  used one (one time variable per needed fact, shared by every action that needs it);
* protection: a contact that would carry a hazard from a carrier that has it now onto a region protected
  against it (and clean of it) needs a treatment of that carrier that removes it, ending no later than the
  contact: nothing can bring the hazard onto a protected clean region, so the carrier must be clean then;
* irreversible conditions: a condition true now that no action can restore is destroyed only after the last
  moment an action needs it (the end, for an over-all condition);
* stocks, the deadline, unary resources (no two actions holding one overlap; each resource's work fits
  before the makespan) and the cost dimensions exactly as in the joint model.

What it leaves out is the state between happenings: deletions after a support, hazards spreading along a
chain of contacts, re-contamination after a treatment. Hygiene-NSP uses it before building the joint model
(``HygieneNSP._by_relaxation``): a valid plan whose cost vector equals the relaxation's optimum is optimal,
and a relaxation without solutions proves that the joint model has none.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ortools.sat.python import cp_model

from hygiene_pddl.costs import DIMENSIONS, CostVector
from hygiene_pddl.hygiene import HygieneRules
from hygiene_pddl.instances.model import Instance
from hygiene_pddl.literals import Atom
from hygiene_pddl.planners.grounding import GroundAction, initial_fluents
from hygiene_pddl.planners.joint import (
    add_resource_no_overlap,
    contamination_fluents,
    cost_objectives,
    group_objectives,
)
from hygiene_pddl.planners.lexsat import LexSettings, LexStatus, lexsolve
from hygiene_pddl.registries.model import Registries
from hygiene_pddl.replay import ReplayResult


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


def _adds_at(a: GroundAction, atom: Atom, positive: bool) -> str | None:
    """Where ``a`` makes ``atom`` true (``positive``) or false: "start", "end" or None. A happening that deletes
    and adds a fact adds it (as in the joint model)."""
    for when, effs in (("start", a.eff_start), ("end", a.eff_end)):
        added = {x for x, pos in effs if pos}
        if positive and atom in added:
            return when
        if not positive and atom not in added and (atom, False) in effs:
            return when
    return None


def build_relaxation(reg: Registries, inst: Instance, state: ReplayResult, actions: list[GroundAction],
                     project: bool = True, max_actions: int | None = None) -> RelaxedModel:
    """The relaxation over ``actions`` (the instance must have no history action still running), of plans of at
    most ``max_actions`` actions when that is given."""
    if state.ongoing:
        raise ValueError("the relaxation does not model history actions still running")
    rules = HygieneRules(reg, dict(inst.objects), inst.hazards)
    m = cp_model.CpModel()
    horizon = state.horizon - inst.decision_time
    init = initial_fluents(reg, inst, state)
    carried = state.carried()
    n = len(actions)
    used = [m.new_bool_var(f"x{j}") for j in range(n)]
    start = [m.new_int_var(0, horizon, f"T{j}") for j in range(n)]
    if max_actions is not None:
        m.add(sum(used) <= max_actions)
    for j, a in enumerate(actions):
        m.add(start[j] + a.duration <= horizon).only_enforce_if(used[j])
        m.add(start[j] == 0).only_enforce_if(~used[j])

    def at(j: int, when: str) -> cp_model.LinearExprT:
        return start[j] + actions[j].duration if when == "end" else start[j]

    def treatments(carrier: tuple, hazard: str) -> list[tuple[int, str]]:
        return [(i, "end") for i, b in enumerate(actions)
                if b.treatment and b.treatment[1] == carrier and rules.removes(b.treatment[0], carrier, hazard)]

    def first_provider(providers: list[tuple[int, str]], users: list[tuple[int, str]]) -> None:
        """Each used user (action, where it needs it) has a used provider (action, where it provides) other than
        itself, and happens no earlier than the first used provider. One variable holds that first time for all
        users: a user's own provider is never earlier than the first one, so nothing is lost by sharing it."""
        others = {i for i, _ in providers}
        for j, _ in users:
            m.add(sum(used[i] for i in others - {j}) >= used[j])
        first = m.new_int_var(0, horizon, "")
        needed = m.new_bool_var("")
        chosen = []
        for i, where in providers:
            s = m.new_bool_var("")
            m.add_implication(s, used[i])
            m.add(at(i, where) <= first).only_enforce_if(s)
            chosen.append(s)
        m.add(sum(chosen) >= needed)
        for j, when in users:
            m.add_implication(used[j], needed)
            m.add(at(j, when) >= first).only_enforce_if(used[j])

    # What each action needs before one of its happenings: key -> (providers, [(user, when)]).
    needs: dict[tuple, tuple[list[tuple[int, str]], list[tuple[int, str]]]] = {}

    def need(key: tuple, j: int, when: str, providers: list[tuple[int, str]]) -> None:
        needs.setdefault(key, (providers, []))[1].append((j, when))

    # (atom, value) -> the actions that make the atom take that value, and where
    makes: dict[tuple[Atom, bool], list[tuple[int, str]]] = {}
    for i, b in enumerate(actions):
        for atom in dict.fromkeys(x for x, _ in (*b.eff_start, *b.eff_end)):
            for value in (True, False):
                where = _adds_at(b, atom, value)
                if where:
                    makes.setdefault((atom, value), []).append((i, where))

    for j, a in enumerate(actions):
        own_start = {(x, pos) for x, pos in a.eff_start}
        for when, last, conds in (("start", "start", a.cond_start), ("start", "end", a.cond_overall),
                                  ("end", "end", a.cond_end)):
            for atom, pos in conds:
                if (atom in init) != pos:
                    # a landmark: false now (true, for a negative condition), so it needs a provider
                    if conds is not a.cond_start and _adds_at(a, atom, pos) == "start" and (atom, pos) in own_start:
                        continue  # j's own start effect provides it
                    need(("condition", atom, pos), j, when, makes.get((atom, pos), []))
                elif (atom, pos) not in makes:
                    # true now and nothing restores it once destroyed: every destroyer comes after the last
                    # moment j needs it (an over-all condition is needed until j's end)
                    for d, where in makes.get((atom, not pos), []):
                        if d != j:
                            m.add(at(d, where) >= at(j, last)).only_enforce_if([used[j], used[d]])

    # protection: a carrier with a hazard now must be treated before it touches a clean region protected from it
    index = set(contamination_fluents(rules, actions, state, project, inst.goals))
    for j, a in enumerate(actions):
        for when, contacts in (("start", a.contacts_start), ("end", a.contacts_end)):
            for x, y in contacts:
                for src, dst in ((x, y), (y, x)):
                    for h in carried.get(src, ()):
                        if (h in carried.get(dst, ()) or not rules.violates(dst, h) or not rules.crosses(h, src, dst)
                                or ("contaminated", src, h) not in index or ("contaminated", dst, h) not in index):
                            continue
                        need(("treatment", src, h), j, when, treatments(src, h))

    for providers, users in needs.values():
        first_provider(providers, users)

    # goals
    for g in inst.goals:
        if g[0] == "safe":
            for c, h in rules.unsafe_facts(g[1]):
                if h in carried.get(c, frozenset()):
                    m.add(sum(used[i] for i, _ in treatments(c, h)) >= 1)
        elif g not in init:
            m.add(sum(used[i] for i, _ in makes.get((g, True), [])) >= 1)
    for stock in {s for a in actions for s, _ in a.consumes}:
        m.add(sum(used[j] * dict(a.consumes).get(stock, 0) for j, a in enumerate(actions))
              <= inst.remaining(stock))
    loads = add_resource_no_overlap(m, actions, start, used, {}, state, inst.decision_time)
    makespan = m.new_int_var(0, horizon, "makespan")
    for j, a in enumerate(actions):
        m.add(makespan >= start[j] + a.duration).only_enforce_if(used[j])
    for load in loads:
        m.add(makespan >= load)
    objectives, constant, upper = cost_objectives(inst, actions, used, makespan, horizon)
    return RelaxedModel(m, list(actions), used, start, objectives, constant, upper)


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
                    settings: LexSettings, time_limit: float, project: bool = True,
                    max_actions: int | None = None) -> RelaxedOptimum:
    """Build the relaxation and solve it lexicographically (grouped stages, as the joint model's)."""
    t = time.perf_counter()
    rm = build_relaxation(reg, inst, state, actions, project, max_actions)
    built = time.perf_counter() - t
    stages = group_objectives(rm.objectives, rm.upper)
    res = lexsolve(rm.model, stages, time_limit=time_limit, settings=settings, lower_bounds={d: 0 for d, _ in stages})
    if not res.found:
        return RelaxedOptimum(res.status, None, (), (), built)
    values = {**rm.constant_dims, **{d: res.value(e) for d, e in rm.objectives}}
    picked = [j for j, u in enumerate(rm.used) if res.boolean_value(u)]
    return RelaxedOptimum(res.status, CostVector.from_mapping({d: values[d] for d in DIMENSIONS}),
                          tuple(rm.actions[j] for j in picked), tuple(res.value(rm.start[j]) for j in picked), built)

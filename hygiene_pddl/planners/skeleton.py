"""Schedule an action skeleton: keep its order between happenings that interfere, let the rest overlap.

Shared by fd-cpsat (skeletons from Fast Downward / SymK) and Hygiene-NSP (a greedy plan over the actions its
relaxation chose, or the relaxation's own schedule). Interference is read from the registry's happening
fluents (causal links and threats, gripper, appliance and capacity use, shared carriers); integer times under
the deadline with ongoing history actions' resources still busy; makespan minimised, then the sum of start
times (a canonical schedule).
"""

from __future__ import annotations

from dataclasses import dataclass

from ortools.sat.python import cp_model

from hygiene_pddl.costs import SUMMED, CostVector
from hygiene_pddl.instances.model import Instance
from hygiene_pddl.planners.base import ChosenStep
from hygiene_pddl.planners.grounding import Grounder, ongoing_actions, surely_makes
from hygiene_pddl.planners.lexsat import CpModel, LexResult, LexSettings, lexsolve
from hygiene_pddl.registries import Registries
from hygiene_pddl.replay import ReplayResult, World, happening_fluents, replay

SETTINGS = LexSettings(num_workers=1, random_seed=0, linearization_level=1)


@dataclass(frozen=True)
class Happening:
    action: int  # index into the skeleton's actions
    phase: str  # "whole", "start", "end"


def refine(reg: Registries, inst: Instance, actions: list[tuple[str, tuple[str, ...]]], happenings: list[Happening],
           time_limit: float, state: ReplayResult | None = None
           ) -> tuple[LexResult, list[ChosenStep] | None, CostVector | None]:
    """Schedule one skeleton of registry actions ``(name, args)`` whose happenings come in ``happenings``' order:
    the lexicographic result, the timed steps and their cost vector (``None`` twice when nothing fits)."""
    state = state or replay(inst, reg)
    world = World.initial(reg, inst)
    horizon = state.horizon - inst.decision_time
    m = CpModel()
    start = [m.new_int_var(0, horizon, f"s{i}") for i in range(len(actions))]
    dur = [reg.actions[n].duration for n, _ in actions]
    for i in range(len(actions)):
        m.add(start[i] + dur[i] <= horizon)

    def points(h: Happening):  # (first, last) time of a happening
        s, e = start[h.action], start[h.action] + dur[h.action]
        return {"whole": (s, e), "start": (s, s), "end": (e, e)}[h.phase]

    def rw(h: Happening):
        name, args = actions[h.action]
        phases = ("start", "end") if h.phase == "whole" else (h.phase,)
        reads, writes = set(), set()
        for p in phases:
            r, w = happening_fluents(reg.actions[name], args, world, p)
            reads |= r
            writes |= w
        return reads, writes

    sets = [rw(h) for h in happenings]
    for j, hj in enumerate(happenings):
        for i in range(j):
            hi = happenings[i]
            if hi.action == hj.action:
                continue
            (ri, wi), (rj, wj) = sets[i], sets[j]
            if wi & (rj | wj) or wj & ri:
                m.add(points(hi)[1] <= points(hj)[0])
    _around_ongoing(reg, inst, state, actions, happenings, points, m)
    # resources still busy with ongoing history actions
    busy = dict(state.busy_until)
    for i, (name, args) in enumerate(actions):
        schema = reg.actions[name]
        for res in world.resources_of(schema, dict(zip(schema.param_names, args, strict=True))):
            if res in busy:
                m.add(start[i] >= busy[res] - inst.decision_time)
    makespan = m.new_int_var(0, horizon, "makespan")
    for i in range(len(actions)):
        m.add(makespan >= start[i] + dur[i])
    fixed = {d: sum(dict(reg.actions[n].costs).get(d, 0) for n, _ in actions) for d in SUMMED}
    fixed["active_robot_time"] = sum(dur[i] for i, (n, _) in enumerate(actions) if reg.actions[n].occupies)
    res = lexsolve(m, [("makespan", makespan)], time_limit=time_limit, tie_break=sum(start), settings=SETTINGS)
    if not res.found:
        return res, None, None
    order = {h.action: k for k, h in reversed(list(enumerate(happenings)))}
    steps = sorted((ChosenStep(res.value(start[i]), n, a, dur[i], order[i]) for i, (n, a) in enumerate(actions)),
                   key=lambda s: (s.start, s.order))
    cost = CostVector.from_mapping({**fixed, "makespan": res.value(makespan)})
    return res, steps, cost


def _around_ongoing(reg: Registries, inst: Instance, state: ReplayResult, actions: list[tuple[str, tuple[str, ...]]],
                    happenings: list[Happening], points, m: cp_model.CpModel) -> None:  # noqa: ANN001
    """Place the skeleton's happenings around the ends of history actions still running (fixed times T): a
    happening that surely destroys an over-all condition of one comes at or after T (running processes keep
    their conditions); one that needs a fact such an end adds (and that does not hold now) comes after T, one
    that needs a fact it deletes comes before (its action ends by T for an over-all need). A heuristic: the
    instance-level evaluator checks every schedule."""
    ongoing = ongoing_actions(reg, inst, state)
    if not ongoing:
        return
    grounder = Grounder(reg, inst, state)
    init = set(state.facts)
    for h in happenings:
        name, args = actions[h.action]
        schema = reg.actions[name]
        ga = grounder.ground(schema, dict(zip(schema.param_names, args, strict=True)))
        if ga is None:
            continue
        first, last = points(h)
        phases = ("start", "end") if h.phase == "whole" else (h.phase,)
        needs = [c for p in phases for c in ga.phase(p).conds] + list(ga.cond_overall)
        for o in ongoing:
            end_effects = o.action.effect_literals("end")
            if any(p in surely_makes(ga, atom, not pos) for p in phases for atom, pos in o.action.cond_overall):
                m.add(first >= o.end)
            if any(c in end_effects and (c[0] in init) != c[1] for c in needs):
                m.add(first >= o.end)
            elif any((c[0], not c[1]) in end_effects for c in ga.cond_overall):
                m.add(points(Happening(h.action, "whole"))[1] <= o.end)
            elif any((c[0], not c[1]) in end_effects for c in needs):
                m.add(last <= o.end - 1)


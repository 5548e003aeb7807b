"""Baselines that share Hygiene-NSP's joint CP-SAT model but change what it is fed (docs/planners-compared.md).

* ``history-blind`` (ablation): plans from the observations x_t only. The physical state, the remaining
  stocks R_t and ongoing processes are what the robot sees; the hygiene state is *not* replayed from the
  history. Its belief: the initial hazard sources of the instance (e.g. the raw-meat tray rim) are
  contaminated, and nothing else is. Everything the history spread (pads, handles, counter tops) is
  unknown to it. Same grounding, projection and lexicographic stages as hygiene-nsp; its plans are safe
  only for that belief, so the evaluator (which replays the full history) rejects some of them.
* ``treat-always`` (heuristic): full replay, then the rule "treat a gripper pad right before every contact
  of that pad with a protected region": the action before such a contact on the same gripper is a
  treatment of its pad, washing when water allows (the model prefers washes lexicographically before
  the profile) and replacing otherwise. CP-SAT schedules. Safe but often non-optimal (it treats clean
  pads too). When the restricted model has no plan it answers undetermined, never infeasible: the
  restriction proves nothing about the task.

:func:`joint_plan` is the shared driver (rule-sat uses it too): ground, build the joint model, optional
extra constraints and leading objectives, lexicographic solve, plan file.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass

from hygiene_pddl.hygiene import HygieneRules, Link
from hygiene_pddl.instances.model import Instance
from hygiene_pddl.planners.base import (
    PlannerInfo,
    PlannerResult,
    PlanStatus,
    no_plan_result,
    plan_text,
    register,
    timings_since,
)
from hygiene_pddl.planners.grounding import ground_all
from hygiene_pddl.planners.joint import JointModel, build_joint_model, solution
from hygiene_pddl.planners.lexsat import LexSettings, LexStatus, lexsolve
from hygiene_pddl.planners.relaxation import better_plan_possible
from hygiene_pddl.registries import Registries, load_registries
from hygiene_pddl.replay import ContaminationFact, ReplayResult, replay

SETTINGS = LexSettings(num_workers=1, random_seed=0, linearization_level=1)

#: Extra model constraints: called with the built joint model, returns leading objectives (name, expr)
#: optimised before the profile's (e.g. treat-always's preference for washing).
Restriction = Callable[[Registries, Instance, JointModel], list[tuple[str, object]]]


def joint_plan(name: str, reg: Registries, inst: Instance, state: ReplayResult, time_limit: float, *,
               max_actions: int | None = None, project: bool = True, focus: bool = True,
               restrict: Restriction | None = None, proves: bool = True,
               notes: tuple[str, ...] = (), t0: float | None = None) -> PlannerResult:
    """Ground ``inst`` against ``state``, build the joint model, solve lexicographically, write the plan.

    ``inst`` supplies the goals, objects, K and profile; ``state`` is whatever the planner believes the
    state at the decision time is. With ``focus``, a proved-infeasible focused model is retried with every
    reachable action (as hygiene-nsp does). The model holds plans of at most ``max_actions`` actions, each ground
    action once; ``None`` (the default) chooses the bound as hygiene-nsp does (``HygieneNSP.bounds``: the relaxed
    plan's length plus one treatment per gripper) and widens it to the cap when the bounded model has no plan or
    its optimum fills the bound. "optimal" and "infeasible" are claimed only when the relaxation over every
    reachable action shows that no other plan is better (exists), and only with ``proves`` (``False`` for a
    restricted model or a belief that is not the replayed state: its answers prove nothing about the task).
    """
    t0 = time.perf_counter() if t0 is None else t0
    notes_out = list(notes)
    every = ground_all(reg, inst, state, focus=False)
    if max_actions is None:
        from hygiene_pddl.planners.nsp import HygieneNSP

        first, cap = HygieneNSP().bounds(reg, inst, state, every)
        result = joint_plan(name, reg, inst, state, time_limit, max_actions=first, project=project, focus=focus,
                            restrict=restrict, proves=proves, notes=notes, t0=t0)
        filled = result.status is PlanStatus.PLAN and len(result.steps) >= first
        if cap > first and (result.status is not PlanStatus.PLAN or filled) and not result.timed_out \
                and time.perf_counter() - t0 < time_limit:
            wider = joint_plan(name, reg, inst, state, time_limit, max_actions=cap, project=project, focus=focus,
                               restrict=restrict, proves=proves,
                               notes=(*notes, f"bound {first} widened to {cap} actions"), t0=t0)
            if wider.status is PlanStatus.PLAN or result.status is not PlanStatus.PLAN:
                if not (result.status is PlanStatus.PLAN
                        and result.cost.key(inst.profile) <= wider.cost.key(inst.profile)):
                    return wider
        return result

    def attempt(focused: bool, budget: float):
        actions = ground_all(reg, inst, state, focus=True) if focused else every
        jm = build_joint_model(reg, inst, state, actions, max_actions, project)
        lead = restrict(reg, inst, jm) if restrict else []
        lower = {d: 0 for d, _ in [*lead, *jm.objectives]}
        built = time.perf_counter()
        res = lexsolve(jm.model, [*lead, *jm.objectives], time_limit=max(0.05, budget - (built - t0)),
                       tie_break=jm.tie_break, settings=SETTINGS, lower_bounds=lower)
        return jm, res, built

    def covers_every_plan(cost) -> bool:  # noqa: ANN001
        covered = [a for a in jm.actions if not a.name.startswith("ongoing:")]
        return proves and better_plan_possible(reg, inst, state, every, covered, max_actions, cost, SETTINGS,
                                               max(0.05, time_limit - (time.perf_counter() - t0)))[0]

    jm, res, built = attempt(focus, time_limit)
    t_build = built - t0
    if res.status is LexStatus.INFEASIBLE and focus:
        notes_out.append("focused grounding infeasible: retried with every reachable action")
        jm, res, _ = attempt(False, time_limit)
    if not res.found:
        status = PlanStatus.UNDETERMINED
        if res.status is LexStatus.INFEASIBLE:
            if covers_every_plan(None):
                status = PlanStatus.INFEASIBLE
                notes_out.append(f"no plan: none within {max_actions} actions (proved), and the relaxation excludes "
                                 "every other plan")
            elif proves:
                notes_out.append(f"no plan within {max_actions} actions and the deadline (proved); plans with more "
                                 "actions or repeated ground actions are not excluded")
            else:
                notes_out.append(f"the restricted model has no plan within {max_actions} actions and the deadline "
                                 "(this proves nothing about the task itself)")
        else:
            notes_out.append(f"no plan found within {time_limit:g} s")
        return no_plan_result(name, reg, inst, status, timings_since(t0, t_build), notes_out,
                              timed_out=res.status is LexStatus.UNDETERMINED)
    steps, cost = solution(jm, res)
    optimal = res.status is LexStatus.OPTIMAL and covers_every_plan(cost)
    if res.status is LexStatus.OPTIMAL and not proves:
        notes_out.append("optimal for this planner's own model only (not a claim about the task's optimum)")
    try:
        text = plan_text(reg, inst, steps, name, cost)
    except ValueError as exc:  # coinciding happenings that no epsilon offsets can order (as hygiene-nsp says)
        notes_out.append(f"internal: the schedule cannot be written ({exc})")
        return no_plan_result(name, reg, inst, PlanStatus.UNDETERMINED, timings_since(t0, t_build), notes_out)
    return PlannerResult(name, inst.id, PlanStatus.PLAN, optimal, tuple(steps), text, cost,
                         timings_since(t0, t_build), tuple(notes_out))


# --- history-blind ---------------------------------------------------------------------------------

def blind_state(inst: Instance, state: ReplayResult) -> ReplayResult:
    """What a planner that sees only x_t believes: observed facts, R_t, ongoing processes, and
    contamination on the instance's initial hazard sources only (no history replay of hygiene)."""
    sources = tuple(ContaminationFact(s.carrier, s.hazard, (Link(s.carrier, 0, "initial source"),))
                    for s in sorted(inst.initial_hazards, key=lambda s: (s.carrier, s.hazard)))
    return dataclasses.replace(state, contamination=sources, facts=frozenset(inst.observations), violations=())


@dataclass
class HistoryBlind:
    """Ablation: Hygiene-NSP's model on a hygiene state that ignores the contact history."""

    max_actions: int | None = None  # None: hygiene-nsp's per-instance bound (joint_plan)
    name: str = "history-blind"

    def solve(self, inst: Instance, time_limit: float = 30.0, reg: Registries | None = None) -> PlannerResult:
        reg = reg or load_registries()
        t0 = time.perf_counter()
        truth = replay(inst, reg)  # physical state, stocks and busy resources only; contamination is dropped
        belief = blind_state(inst, truth)
        unknown = sorted({(f.carrier, f.hazard) for f in truth.contamination}
                         - {(f.carrier, f.hazard) for f in belief.contamination})
        note = ("hygiene state from the initial hazard sources only; the history's contamination is unknown to it"
                + (f" ({len(unknown)} contaminated carrier(s) it does not know about)" if unknown else ""))
        return joint_plan(self.name, reg, inst, belief, time_limit, max_actions=self.max_actions,
                          proves=False, notes=(note,), t0=t0)


# --- treat-always ----------------------------------------------------------------------------------

def protected_pad_contacts(reg: Registries, inst: Instance, jm: JointModel) -> list[tuple[int, str]]:
    """(action index, gripper) for every ground action whose contacts bring a gripper pad onto a region
    protected against some hazard of the instance."""
    rules = HygieneRules(reg, dict(inst.objects), inst.hazards)
    out = []
    for j, a in enumerate(jm.actions):
        for contact in a.contacts:
            for pad, other in (contact.pair, contact.pair[::-1]):
                if pad[0] in reg.grippers and pad[1] == "pad" and rules.protected(other):
                    if (j, pad[0]) not in out:
                        out.append((j, pad[0]))
    return out


def treat_before_protected_contacts(reg: Registries, inst: Instance, jm: JointModel):
    """The treat-always rule as constraints on the joint model; returns the wash-first objective."""
    m = jm.model
    acts = jm.actions
    treat_of = {g: [k for k, a in enumerate(acts) if any(t.target == (g, "pad") for t in a.treats)]
                for g in reg.grippers}
    for j, g in protected_pad_contacts(reg, inst, jm):
        a_j = acts[j]
        choices = []
        for k in treat_of[g]:
            z = m.new_bool_var(f"treat_{k}_before_{j}")
            choices.append(z)
            m.add_implication(z, jm.used[k])
            m.add(jm.start[k] + acts[k].duration <= jm.start[j]).only_enforce_if(z)
            # nothing else on gripper g between the treatment and the contact
            for i, a_i in enumerate(acts):
                if i in (j, k) or g not in a_i.grippers:
                    continue
                before = m.new_bool_var(f"b_{i}_{k}_{j}")
                m.add(jm.start[i] + a_i.duration <= jm.start[k]).only_enforce_if([z, jm.used[i], before])
                m.add(jm.start[i] >= jm.start[j] + a_j.duration).only_enforce_if([z, jm.used[i], ~before])
        if choices:
            m.add(sum(choices) == jm.used[j])
        else:
            m.add(jm.used[j] == 0)  # no treatment of this pad in K: the contact is ruled out
    # "wash if water allows, else replace": fewest non-wash treatments first
    others = [jm.used[k] for k, a in enumerate(acts) if any(t.treatment != "wash" for t in a.treats)]
    return [("treat_always_non_wash", sum(others))] if others else []


@dataclass
class TreatAlways:
    """Heuristic: treat the pad before every protected contact (wash if water allows, else replace)."""

    max_actions: int | None = None  # None: hygiene-nsp's per-instance bound (joint_plan)
    name: str = "treat-always"

    def solve(self, inst: Instance, time_limit: float = 30.0, reg: Registries | None = None) -> PlannerResult:
        reg = reg or load_registries()
        t0 = time.perf_counter()
        state = replay(inst, reg)
        return joint_plan(self.name, reg, inst, state, time_limit, max_actions=self.max_actions,
                          restrict=treat_before_protected_contacts, proves=False,
                          notes=("a pad is treated right before every contact with a protected region; washes are "
                                 "preferred over other treatments before the profile's dimensions",), t0=t0)


register(PlannerInfo("history-blind", "ablation: hygiene-nsp's joint CP-SAT model on the observations only "
                     "(contamination = initial hazard sources; the history's spread is unknown)", HistoryBlind))
register(PlannerInfo("treat-always", "heuristic: treat a pad (wash if water allows, else replace) before every "
                     "contact with a protected region, then CP-SAT scheduling", TreatAlways))

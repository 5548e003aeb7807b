"""Hygiene-NSP (paper Algorithm 1): replay, optional state projection, one joint CP-SAT model, lex stages."""

from __future__ import annotations

import time
from dataclasses import dataclass

from hygiene_pddl.costs import CostVector
from hygiene_pddl.instances.model import Instance
from hygiene_pddl.planners.base import (
    ChosenStep,
    PlannerInfo,
    PlannerResult,
    PlanStatus,
    no_plan_result,
    plan_text,
    register,
    timings_since,
)
from hygiene_pddl.planners.greedy import SequentialSearch
from hygiene_pddl.planners.grounding import GroundAction, ground_all, initial_fluents, relaxed_plan
from hygiene_pddl.planners.joint import JointModel, build_joint_model, completed_hint, solution
from hygiene_pddl.planners.lexsat import LexResult, LexSettings, LexStatus, lexsolve
from hygiene_pddl.planners.relaxation import relaxed_optimum
from hygiene_pddl.planners.skeleton import Happening, refine
from hygiene_pddl.planners.symmetry import interchangeable_classes
from hygiene_pddl.plans.parser import parse_plan
from hygiene_pddl.registries import Registries, load_registries
from hygiene_pddl.replay import ReplayResult, replay
from hygiene_pddl.validation.instance_level import evaluate_plan

#: Deterministic settings: one worker, fixed seed; linearization level 0, no probing and one presolve pass
#: measured fastest on these models (docs/planners.md).
SETTINGS = LexSettings(num_workers=1, random_seed=0, linearization_level=0,
                       extra={"cp_model_probing_level": 0, "max_presolve_iterations": 1})


#: The least action bound for which a greedy first plan is handed to CP-SAT (docs/planners.md).
HINT_FROM = 8

#: The least action bound for which the tie-break is a separate stage with a deterministic budget (below it,
#: joining the last group measured faster; from 12 actions on, proving the joined group can take seconds).
SEPARATE_FROM = 12

#: Deterministic seconds for the tie-break stage of longer tasks (bounds of SEPARATE_FROM actions or more): proving
#: the canonical schedule is the dearest stage there, and it decides no cost.
TIE_BREAK_DTIME = 0.1

#: The action bound when the relaxed plan says nothing (a goal unreachable even relaxed) and the least cap.
DEFAULT_CAP = 6


@dataclass(frozen=True)
class RelaxationProof:
    """What the relaxation settled (:meth:`HygieneNSP._by_relaxation`): an optimal plan, or that there is none;
    ``built`` is the seconds spent building the relaxation."""

    status: PlanStatus
    built: float
    steps: tuple[ChosenStep, ...] = ()
    cost: CostVector | None = None
    text: str = ""


@dataclass
class HygieneNSP:
    """Joint hygiene and service planning with CP-SAT under the user's priorities.

    With ``relax`` (the default) a plan is first sought that meets the lower bound of the joint model's
    relaxation (:meth:`_by_relaxation`); the joint model decides when none does. ``max_actions`` bounds the
    plan length; ``None`` (the default) leaves plans proved by the relaxation unbounded and chooses the joint
    model's bound per instance: the relaxed plan's length plus one treatment per gripper (plus one action when
    nothing carries a hazard), raised to the cap (that bound plus one per gripper, at least ``DEFAULT_CAP``)
    when the bounded model has no plan or its optimum fills the bound.
    """

    max_actions: int | None = None
    project: bool = True
    focus: bool = True
    hint: bool = True  # a greedy sequential first plan as CP-SAT's hint for bounds of HINT_FROM actions or more
    relax: bool = True  # first try to prove a plan optimal by the relaxation (planners/relaxation.py)
    group_stages: bool = True  # exact weighted stages for consecutive small dimensions (JointModel.grouped_objectives)
    name: str = "hygiene-nsp"

    def _stages(self, jm, separate_tie_break: bool = False) -> tuple[list, object]:  # noqa: ANN001
        """The lexicographic stages and the separate tie-break (None when it joined the last group)."""
        if not self.group_stages:
            return jm.objectives, jm.tie_break
        if separate_tie_break:
            return jm.grouped_objectives(), jm.tie_break
        stages = jm.grouped_objectives(with_tie_break=True)
        if stages[-1][0] == "tie_break":
            return stages[:-1], jm.tie_break
        return stages, None

    def bounds(self, reg: Registries, inst: Instance, state: ReplayResult, actions: list[GroundAction]
               ) -> tuple[int, int]:
        """The first action bound to try and the cap (equal when ``max_actions`` is given)."""
        if self.max_actions is not None:
            return self.max_actions, self.max_actions
        relaxed = relaxed_plan(actions, initial_fluents(reg, inst, state), inst.goals)
        if relaxed is None:
            return DEFAULT_CAP, DEFAULT_CAP
        # room for one treatment per gripper when some carrier carries a hazard (contamination only spreads
        # from what is carried now), else for one extra action
        margin = len(reg.grippers) if any(state.carried().values()) else 1
        first = len(relaxed) + margin
        return first, max(DEFAULT_CAP, first + len(reg.grippers))

    def _first_plan(self, reg: Registries, inst: Instance, state: ReplayResult, actions: list[GroundAction],
                    jm: JointModel, bound: int, classes: list[list[str]], seconds: float) -> tuple[int, ...] | None:
        """A complete hint from a greedy sequential plan (planners/greedy.py), for bounds of ``HINT_FROM``
        actions or more (below it CP-SAT finds a first plan in milliseconds)."""
        if not self.hint or bound < HINT_FROM or state.ongoing:
            return None
        plan = SequentialSearch(reg, inst, state, actions).search(bound)
        if plan is None:
            return None
        return completed_hint(jm, plan, classes, min(1.0, seconds / 4))

    def _by_relaxation(self, reg: Registries, inst: Instance, state: ReplayResult, actions: list[GroundAction],
                       deadline: float) -> RelaxationProof | None:
        """A plan proved optimal, or a proof that there is none, without the joint model; ``None`` when the
        relaxation settles neither.

        The relaxation's lexicographic optimum (planners/relaxation.py) bounds every plan's cost vector from
        below. A greedy sequential plan over the actions it chose (planners/greedy.py) is scheduled as given and
        with the grippers' turns interleaved, as whole actions and as start and end happenings, and then the
        relaxation's own schedule (planners/skeleton.py); a schedule that the instance-level evaluator accepts
        and whose cost vector equals the bound is optimal among all plans (of at most ``max_actions`` actions
        when that is given).
        """
        if state.ongoing or not actions:
            return None
        relaxed = relaxed_optimum(reg, inst, state, actions, SETTINGS, max(0.05, (deadline - time.perf_counter()) / 4),
                                  self.project, self.max_actions)
        built, bound, chosen = relaxed.built, relaxed.bound, list(relaxed.chosen)
        if relaxed.status is LexStatus.INFEASIBLE:  # the joint model is at least as constrained
            return RelaxationProof(PlanStatus.INFEASIBLE, built)
        if relaxed.status is not LexStatus.OPTIMAL:
            return None
        plan = SequentialSearch(reg, inst, state, chosen).search(len(chosen)) or []
        candidates = [(skeleton, [Happening(i, ph) for i in range(len(skeleton)) for ph in phases])
                      for skeleton in dict.fromkeys((tuple(plan), tuple(gripper_rounds(plan)))) if skeleton
                      for phases in (("whole",), ("start", "end"))]  # whole actions, then their two happenings
        # the relaxation's own schedule, ends before starts at equal times (tasks that need concurrency)
        timed = sorted((relaxed.starts[i] + (a.duration if phase == "end" else 0), phase == "start", i, phase)
                       for i, a in enumerate(chosen) for phase in ("start", "end"))
        candidates.append((chosen, [Happening(i, phase) for *_, i, phase in timed]))
        for skeleton, happenings in candidates:
            left = deadline - time.perf_counter()
            if left <= 0.05:
                return None
            _, steps, cost = refine(reg, inst, [(a.name, a.args) for a in skeleton], happenings, left / 2)
            if steps is None or cost != bound:
                continue
            text = plan_text(reg, inst, steps, self.name, cost)
            report = evaluate_plan(reg, inst, parse_plan(text))
            if report.valid and report.cost == bound:
                return RelaxationProof(PlanStatus.PLAN, built, tuple(steps), cost, text)
        return None

    def _run(self, reg: Registries, inst: Instance, state: ReplayResult, actions: list[GroundAction],
             bound: int, classes: list[list[str]], deadline: float) -> tuple[JointModel, LexResult, float]:
        """Build the model for ``bound`` and solve it by ``deadline`` (perf_counter); also the build time."""
        t = time.perf_counter()
        jm = build_joint_model(reg, inst, state, actions, bound, self.project, classes)
        built = time.perf_counter() - t
        hint = self._first_plan(reg, inst, state, actions, jm, bound, classes, deadline - time.perf_counter())
        longer = bound >= SEPARATE_FROM  # the tie-break gets its own, capped stage (docs/planners.md)
        stages, tie = self._stages(jm, separate_tie_break=longer)
        res = lexsolve(jm.model, stages, time_limit=max(0.05, deadline - time.perf_counter()), tie_break=tie,
                       settings=SETTINGS, lower_bounds={d: 0 for d, _ in stages}, hint=hint,
                       tie_break_deterministic_time=TIE_BREAK_DTIME if longer else None)
        return jm, res, built

    def solve(self, inst: Instance, time_limit: float = 30.0, reg: Registries | None = None) -> PlannerResult:
        reg = reg or load_registries()
        t0 = time.perf_counter()
        deadline = t0 + time_limit
        state = replay(inst, reg)
        notes: list[str] = []
        actions = ground_all(reg, inst, state, focus=self.focus)
        focus = self.focus
        classes = interchangeable_classes(inst)
        t_ground = time.perf_counter() - t0
        proof = self._by_relaxation(reg, inst, state, actions, deadline) if self.relax else None
        if proof is not None and proof.status is PlanStatus.INFEASIBLE and focus:
            focus, actions = False, _every_reachable_action(reg, inst, state, notes)
            proof = self._by_relaxation(reg, inst, state, actions, deadline)
        if proof is not None:
            timings = timings_since(t0, t_ground + proof.built)
            if proof.status is PlanStatus.INFEASIBLE:
                within = f" of at most {self.max_actions} actions" if self.max_actions is not None else ""
                notes.append(f"no plan{within} within the deadline: the relaxation has none (proved)")
                return no_plan_result(self.name, reg, inst, PlanStatus.INFEASIBLE, timings, notes)
            notes.append("optimal: the cost vector meets the relaxation's lower bound (docs/planners.md)")
            return PlannerResult(self.name, inst.id, PlanStatus.PLAN, True, proof.steps, proof.text, proof.cost,
                                 timings, tuple(notes))
        bound, cap = self.bounds(reg, inst, state, actions)
        jm, res, built = self._run(reg, inst, state, actions, bound, classes, deadline)
        t_build = t_ground + built
        while True:
            earlier = (jm, res, bound)
            if bound < cap and (res.status is LexStatus.INFEASIBLE or (
                    res.status is LexStatus.OPTIMAL and _plan_length(jm, res) >= bound)):
                why = "has no plan" if res.status is LexStatus.INFEASIBLE else "has an optimum that fills it"
                notes.append(f"the bound of {bound} actions {why}: raised to {cap}")
                bound = cap
            elif res.status is LexStatus.INFEASIBLE and focus:
                focus, actions = False, _every_reachable_action(reg, inst, state, notes)
            else:
                break
            jm, res, _ = self._run(reg, inst, state, actions, bound, classes, deadline)
            if not res.found and earlier[1].found:  # the raised bound ran out of time: keep the earlier plan
                notes.append(f"no plan within the time limit at {bound} actions: kept the plan found within "
                             f"{earlier[2]} actions")
                jm, res, bound = earlier
                break
        timings = timings_since(t0, t_build)
        if not res.found:
            status = PlanStatus.INFEASIBLE if res.status is LexStatus.INFEASIBLE else PlanStatus.UNDETERMINED
            if status is PlanStatus.INFEASIBLE:
                notes.append(f"no plan within {bound} actions and the deadline (proved)")
            return no_plan_result(self.name, reg, inst, status, timings, notes, timed_out=True)
        steps, cost = solution(jm, res)
        optimal = res.status is LexStatus.OPTIMAL
        if optimal:
            notes.append(f"optimal among plans of at most {bound} actions")
        return PlannerResult(self.name, inst.id, PlanStatus.PLAN, optimal, tuple(steps),
                             plan_text(reg, inst, steps, self.name, cost), cost, timings, tuple(notes))


def _every_reachable_action(reg: Registries, inst: Instance, state: ReplayResult, notes: list[str]
                            ) -> list[GroundAction]:
    """The full grounding, for a retry after the focused one proved to have no plan (said in ``notes``)."""
    notes.append("focused grounding infeasible: retried with every reachable action")
    return ground_all(reg, inst, state, focus=False)


def gripper_rounds(plan: list[GroundAction]) -> list[GroundAction]:
    """The plan's actions taken in turns from each gripper's own sequence (first use order), so that a
    schedule can run the grippers side by side; actions that occupy no gripper keep their own turn."""
    queues: dict[tuple[str, ...], list[GroundAction]] = {}
    for a in plan:
        queues.setdefault(a.grippers, []).append(a)
    out: list[GroundAction] = []
    while len(out) < len(plan):
        for queue in queues.values():
            if queue:
                out.append(queue.pop(0))
    return out


def _plan_length(jm: JointModel, res: LexResult) -> int:
    """Plan actions in the solution (ongoing history actions left out)."""
    return sum(res.boolean_value(u) for u, a in zip(jm.used, jm.actions, strict=True)
               if not a.name.startswith("ongoing:"))


register(
    PlannerInfo(
        "hygiene-nsp",
        "joint CP-SAT over treatments, service actions, grippers and times (lexicographic, paper eq. 6); a "
        "relaxation's lower bound proves most plans before the joint model is built",
        HygieneNSP,
    )
)
register(
    PlannerInfo(
        "hygiene-nsp-full",
        "hygiene-nsp without state projection (full replayed state)",
        lambda: HygieneNSP(project=False, name="hygiene-nsp-full"),
    )
)

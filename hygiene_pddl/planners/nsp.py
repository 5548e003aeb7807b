"""Hygiene-NSP (paper Algorithm 1): replay, optional state projection, one joint CP-SAT model, lex stages."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial

from hygiene_pddl.costs import DIMENSIONS, CostVector
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
from hygiene_pddl.planners.grounding import (
    GroundAction,
    focused,
    reachable_actions,
    reachable_init,
    relaxed_service,
)
from hygiene_pddl.planners.joint import JointModel, OutOfTime, build_joint_model, completed_hint, solution
from hygiene_pddl.planners.lexsat import LexResult, LexSettings, LexStatus, lexsolve
from hygiene_pddl.planners.relaxation import SETTINGS as RELAXATION_SETTINGS
from hygiene_pddl.planners.relaxation import (
    RelaxedOptimum,
    better_plan_possible,
    nothing_below,
    proved_prefix,
    relaxed_optimum,
)
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

#: Deterministic seconds for a separate tie-break stage (always, from bounds of SEPARATE_FROM actions on; below, when
#: it does not fit the last group's weights): proving the canonical schedule can be the dearest stage, and it
#: decides no cost.
TIE_BREAK_DTIME = 0.1

#: How many times the joint model is widened by what a better plan the relaxation admits would use; after them (or
#: when that plan repeats a ground action) it is widened once more, to every reachable action.
WIDEN_ROUNDS = 3

#: The staged first-plan search (long tasks) may use this many times the first action bound.
FIRST_PLAN_FACTOR = 4

#: The share of the time left for the staged first-plan search (it finds the laundry family's 24-action plans in
#: 0.3-1 s; on the v2 sample it either finds one within 1.7 s or spends 3/4 of the time left, as it once had, in
#: vain: 1.4-3.6 s).
STAGED_SHARE = 0.25

#: Seconds below which no further model is built once a first plan is in hand (building the relaxation or the
#: joint model of a long task takes about that long and is not covered by the solver's time limit).
OVERHEAD = 1.0

#: At most this many seconds (and a quarter of the time left) for the relaxation alone on a long task (bounds of
#: HINT_FROM actions or more), before the first plan: on a quiet machine it proves derived tasks of about 20 actions
#: in tens of milliseconds; beyond, the first plan and the relaxation's feasibility check take over (2 s measured
#: worse at 40 actions on the shared machine, 0.5 s worse at 20-30 actions under heavy load: docs/planners.md).
QUICK_RELAXATION = 0.5

#: The first plan of a long task gets this fraction of the time left for the relaxation's feasibility check below
#: its cost vector (:func:`relaxation.nothing_below`; a quarter timed out on drafts whose first plan is not optimal).
FIRST_BELOW_SHARE = 6

#: Seconds kept for the strong relaxation's last check (:meth:`HygieneNSP._strongly`) and left after it.
STRONG_MARGIN = 0.1

#: The share of the time left that the strong relaxation gets in the claims' check (``HygieneNSP._settle``), before
#: the model is widened: at a 10 s limit a third was too little to prove drafts it proves in 2-3 s with more.
STRONG_SHARE = 0.75

#: The share of the time left, when the joint model is first built, that is kept for the strong relaxation's checks of
#: an answer the joint model does not prove (``HygieneNSP._strongly``).
STRONG_RESERVE = 1 / 3

#: Seconds per ground action that building the strong relaxation takes, about (0.55 s CPU for 440 ground actions).
STRONG_BUILD = 0.00125

#: The share of the time left for the joint model over the relaxation's chosen actions alone (``HygieneNSP._core``).
CORE_SHARE = 0.25

#: The action bound when the relaxed plan says nothing (a goal unreachable even relaxed) and the least cap.
DEFAULT_CAP = 6


class _Strong(set):
    """The cost vectors (None: no plan) the strong relaxation was asked about; whether its lexicographic optimum
    is to be tried before its check below the answer (:meth:`HygieneNSP._strongly`)."""

    optimum_first: bool = False


@dataclass(frozen=True)
class RelaxationProof:
    """What the relaxation settled (:meth:`HygieneNSP._by_relaxation`): an optimal plan, or that there is none;
    ``built`` is the seconds spent building the relaxation."""

    status: PlanStatus
    built: float
    steps: tuple[ChosenStep, ...] = ()
    cost: CostVector | None = None
    text: str = ""
    note: str = ""  # what proves it, when not the ordinary relaxation


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
        relaxed = relaxed_service(reg, inst, state, actions)  # ongoing ends included
        if relaxed is None:
            return DEFAULT_CAP, DEFAULT_CAP
        # room for one treatment per gripper when some carrier carries a hazard (contamination only spreads
        # from what is carried now), else for one extra action
        margin = len(reg.grippers) if any(state.carried().values()) else 1
        first = len(relaxed) + margin
        return first, max(DEFAULT_CAP, first + len(reg.grippers))

    def _first_plan(self, reg: Registries, inst: Instance, state: ReplayResult, actions: list[GroundAction],
                    bound: int, deadline: float, every: list[GroundAction] | None = None
                    ) -> tuple[list[GroundAction] | None, bool]:
        """A first sequential plan for bounds of ``HINT_FROM`` actions or more (below it CP-SAT finds one in
        milliseconds): the greedy search over ``actions`` within the bound, else (long tasks, where it meets a
        plateau; when ``every`` is given) the staged search over ``every`` reachable action (planners/greedy.py)
        within ``FIRST_PLAN_FACTOR`` times the bound; ``None`` when neither finds one by ``deadline``. Also
        whether the plan is the staged search's."""
        if not self.hint or bound < HINT_FROM:
            return None, False
        left = deadline - time.perf_counter()
        plan = None if state.ongoing else SequentialSearch(reg, inst, state, actions).search(
            bound, deadline=time.perf_counter() + left / 8)
        if plan is not None or every is None or self.max_actions is not None:
            return plan, False
        plan = SequentialSearch(reg, inst, state, every).staged(
            FIRST_PLAN_FACTOR * bound, deadline=time.perf_counter() + STAGED_SHARE * (deadline - time.perf_counter()))
        return plan, plan is not None

    def _hint(self, jm: JointModel, plan: list[GroundAction] | None, classes: list[list[str]],
              seconds: float) -> tuple[int, ...] | None:
        """The first plan completed into a solution of ``jm`` (None when it does not fit the model)."""
        return None if not plan else completed_hint(jm, plan, classes, min(1.0, seconds / 4))

    def _scheduled(self, reg: Registries, inst: Instance, state: ReplayResult, plan: list[GroundAction],
                   deadline: float) -> PlannerResult | None:
        """The best schedule of a sequential plan (planners/skeleton.py: as given and with the grippers' turns
        interleaved, as whole actions and as start and end happenings) that the instance-level evaluator
        accepts, as an answer not proved optimal; None when none is accepted."""
        best = self._sequential(reg, inst, plan)
        for steps, cost, text in self._schedules(reg, inst, state, plan, [], deadline, None):
            if best is None or cost.key(inst.profile) < best[1].key(inst.profile):
                best = (steps, cost, text)
        if best is None:
            return None
        note = (f"not proved optimal: a plan of {len(plan)} actions from the sequential search, scheduled and "
                "accepted by the instance-level evaluator (the joint model found no better plan in time)")
        return PlannerResult(self.name, inst.id, PlanStatus.PLAN, False, tuple(best[0]), best[2], best[1], (),
                             (note,))

    def _sequential(self, reg: Registries, inst: Instance, plan: list[GroundAction]
                    ) -> tuple[list[ChosenStep], CostVector, str] | None:
        """The sequential search's own schedule (each action starts as the previous one ends), without a solver,
        when the instance-level evaluator accepts it (long plans, whose refinement may not finish in time)."""
        steps, t = [], 0
        for k, a in enumerate(plan):
            steps.append(ChosenStep(t, a.name, a.args, a.duration, k))
            t += a.duration
        cost = CostVector.from_mapping({**{d: sum(a.cost(d) for a in plan) for d in DIMENSIONS if d != "makespan"},
                                        "makespan": t})
        text = _written(reg, inst, steps, self.name, cost)
        if text is None:
            return None
        report = evaluate_plan(reg, inst, parse_plan(text))
        return (steps, cost, text) if report.valid and report.cost == cost else None

    def _schedules(self, reg: Registries, inst: Instance, state: ReplayResult, plan: list[GroundAction],
                   extra: list, deadline: float, want: CostVector | None):  # noqa: ANN202 - (steps, cost, text)s
        """Schedules of ``plan`` (as given and in gripper rounds, whole actions then start and end happenings,
        then ``extra`` (skeleton, happenings) candidates) that the instance-level evaluator accepts at their
        cost vector (only those of cost vector ``want`` when given)."""
        candidates = [(skeleton, [Happening(i, ph) for i in range(len(skeleton)) for ph in phases])
                      for skeleton in dict.fromkeys((tuple(plan), tuple(gripper_rounds(plan)))) if skeleton
                      for phases in (("whole",), ("start", "end"))]
        for skeleton, happenings in candidates + extra:
            left = deadline - time.perf_counter()
            if left <= 0.05:
                return
            _, steps, cost = refine(reg, inst, [(a.name, a.args) for a in skeleton], happenings, left / 2, state)
            if steps is None or (want is not None and cost != want):
                continue
            text = _written(reg, inst, steps, self.name, cost)
            if text is None:
                continue
            report = evaluate_plan(reg, inst, parse_plan(text))
            if report.valid and report.cost == cost:
                yield steps, cost, text

    def _by_relaxation(self, reg: Registries, inst: Instance, state: ReplayResult, actions: list[GroundAction],
                       deadline: float, first: PlannerResult | None = None, notes: list[str] | None = None,
                       quick: float | None = None) -> tuple[RelaxationProof | None, RelaxedOptimum | None]:
        """A plan proved optimal, or a proof that there is none, without the joint model; ``None`` when the
        relaxation settles neither. ``actions`` is every reachable ground action, so the claims cover every plan.

        The relaxation's lexicographic optimum (planners/relaxation.py) bounds every plan's cost vector from
        below. A greedy sequential plan over the actions it chose (planners/greedy.py) is scheduled as given and
        with the grippers' turns interleaved, as whole actions and as start and end happenings, and then the
        relaxation's own schedule (planners/skeleton.py); a schedule that the instance-level evaluator accepts
        and whose cost vector equals the bound is optimal among all plans (of at most ``max_actions`` actions
        when that is given); so is ``first`` (a plan checked by the evaluator) when the relaxation has no solution
        of a lower cost vector (:func:`relaxation.nothing_below`, tried first); else ``notes`` get the profile's
        first dimensions in which it is proved optimal (:func:`relaxation.proved_prefix`), if any.
        Also returns the relaxation's optimum (None when it was not proved).
        """
        if not actions:
            return None, None
        notes = [] if notes is None else notes
        within = f" of at most {self.max_actions} actions" if self.max_actions is not None else ""
        if first is not None:
            t = time.perf_counter()
            proved = nothing_below(reg, inst, state, actions, first.cost, RELAXATION_SETTINGS,
                                   (deadline - time.perf_counter()) / FIRST_BELOW_SHARE, self.max_actions)
            if proved:
                return RelaxationProof(PlanStatus.PLAN, time.perf_counter() - t, first.steps, first.cost,
                                       first.plan_text), None
            if deadline - time.perf_counter() < OVERHEAD:
                return None, None
        # with a first plan in hand (a long task), the relaxation is the likelier proof: the joint model grows with
        # the plan length times the ground actions
        budget = max(0.05, quick if quick is not None else
                     (deadline - time.perf_counter()) / (2 if first is not None else 4))
        relaxed = relaxed_optimum(reg, inst, state, actions, RELAXATION_SETTINGS, budget, self.max_actions)
        built = relaxed.built
        if first is not None and relaxed.status is LexStatus.OPTIMAL and first.cost == relaxed.bound:
            return RelaxationProof(PlanStatus.PLAN, built, first.steps, first.cost, first.plan_text), None
        if first is not None:  # in how many of the profile's first dimensions the first plan is proved optimal
            if relaxed.status is LexStatus.OPTIMAL:  # those it shares with the optimum (a solution below in k
                k = next((i for i, d in enumerate(inst.profile.order) if first.cost[d] != relaxed.bound[d]),
                         len(inst.profile.order))  # dimensions would be below the optimum)
            else:
                k = proved_prefix(reg, inst, state, actions, first.cost, RELAXATION_SETTINGS,
                                  time.perf_counter() + (deadline - time.perf_counter()) / 4, self.max_actions)
            if k:
                dims = ", ".join(f"{d} {first.cost[d]}" for d in inst.profile.order[:k])
                notes.append(f"every plan{within}'s first {k} cost dimension(s) are lexicographically at least "
                             f"({dims}), the first plan's (the relaxation has nothing below; proved)")
        if relaxed.status is LexStatus.INFEASIBLE:  # no plan at all
            return RelaxationProof(PlanStatus.INFEASIBLE, built), None
        if relaxed.status is not LexStatus.OPTIMAL:
            return None, None
        proof = self._meet(reg, inst, state, relaxed, deadline)
        return proof, (relaxed if proof is None else None)

    def _meet(self, reg: Registries, inst: Instance, state: ReplayResult, relaxed: RelaxedOptimum,
              deadline: float) -> RelaxationProof | None:
        """A schedule of the relaxation's chosen actions whose cost vector is the relaxation's bound."""
        built, bound, chosen = relaxed.built, relaxed.bound, list(relaxed.chosen)
        plan = SequentialSearch(reg, inst, state, chosen).search(len(chosen)) or []
        # the relaxation's own schedule, ends before starts at equal times (tasks that need concurrency)
        timed = sorted((relaxed.starts[i] + (a.duration if phase == "end" else 0), phase == "start", i, phase)
                       for i, a in enumerate(chosen) for phase in ("start", "end"))
        own = [(chosen, [Happening(i, phase) for *_, i, phase in timed])]
        for steps, cost, text in self._schedules(reg, inst, state, plan, own, deadline, bound):
            return RelaxationProof(PlanStatus.PLAN, built, tuple(steps), cost, text)
        return None

    def _by_core(self, reg: Registries, inst: Instance, state: ReplayResult, every: list[GroundAction],
                 relaxed: RelaxedOptimum, fallback: PlannerResult | None, classes: list[list[str]], deadline: float,
                 strong: _Strong) -> tuple[RelaxationProof | None, PlannerResult | None, list[GroundAction] | None]:
        """When no schedule of the relaxation's chosen actions meets its bound (:meth:`_meet`): the joint model over
        those actions alone (:meth:`_core`, a ``CORE_SHARE`` of the time left); its plan, or ``fallback``, whose cost
        vector is the bound is optimal among all plans; else the better of the two is optimal when the strong
        relaxation has no solution below it (:meth:`_strong_proof`, a quarter of the time left). Returns the proof
        (None when there is none), the better plan (checked by the evaluator, not proved) and the core's plan as
        ground actions in start order (None when it has none). When the core has no plan, the relaxation chose the
        wrong actions: the strong relaxation's optimum is then tried before its check below the answer
        (:meth:`_strongly`)."""
        core = self._core(reg, inst, state, list(relaxed.chosen), classes,
                          time.perf_counter() + CORE_SHARE * (deadline - time.perf_counter()))
        strong.optimum_first = core is None
        best = _better(core, fallback, inst)
        if best is not None and best.cost == relaxed.bound:
            return RelaxationProof(PlanStatus.PLAN, 0.0, best.steps, best.cost, best.plan_text), best, None
        if core is None:
            return None, best, None
        if best.cost not in strong and self._strong_proof(reg, inst, state, every, best.cost,
                                                          (deadline - time.perf_counter()) / 4, strong):
            within = f" of at most {self.max_actions} actions" if self.max_actions is not None else ""
            note = (f"optimal: no plan{within} is lexicographically below its cost vector, as the strong relaxation "
                    "has no solution below it (proved)")
            return RelaxationProof(PlanStatus.PLAN, 0.0, best.steps, best.cost, best.plan_text, note), best, None
        by_step = {(a.name, a.args): a for a in relaxed.chosen}
        return None, best, [by_step[(c.name, c.args)] for c in sorted(core.steps, key=lambda c: (c.start, c.order))]

    def _core(self, reg: Registries, inst: Instance, state: ReplayResult, chosen: list[GroundAction],
              classes: list[list[str]], deadline: float) -> PlannerResult | None:
        """The best plan the joint model over ``chosen`` alone (each once) finds by ``deadline``, checked by the
        instance-level evaluator, not proved optimal; None when it finds none."""
        if not chosen:
            return None
        try:
            jm, res, _ = self._run(reg, inst, state, chosen, len(chosen), classes, deadline)
        except OutOfTime:
            return None
        if not res.found:
            return None
        steps, cost = solution(jm, res)
        text = _written(reg, inst, steps, self.name, cost)
        if text is None:
            return None
        report = evaluate_plan(reg, inst, parse_plan(text))
        if not report.valid or report.cost != cost:
            return None
        note = (f"not proved optimal: a plan of {len(steps)} actions from the joint model over the relaxation's "
                f"{len(chosen)} chosen actions, accepted by the instance-level evaluator")
        return PlannerResult(self.name, inst.id, PlanStatus.PLAN, False, tuple(steps), text, cost, (), (note,))

    def _run(self, reg: Registries, inst: Instance, state: ReplayResult, actions: list[GroundAction],
             bound: int, classes: list[list[str]], deadline: float, *, first: list[GroundAction] | None = None
             ) -> tuple[JointModel, LexResult, float]:
        """Build the model for ``bound`` and solve it by ``deadline`` (perf_counter), hinted by ``first`` (else
        by a greedy first plan); also the build time."""
        t = time.perf_counter()
        jm = build_joint_model(reg, inst, state, actions, bound, self.project, classes, deadline)
        built = time.perf_counter() - t
        if first is None:
            first, _ = self._first_plan(reg, inst, state, actions, bound, deadline)
        hint = self._hint(jm, first, classes, deadline - time.perf_counter())
        longer = bound >= SEPARATE_FROM  # the tie-break gets its own, capped stage (docs/planners.md)
        stages, tie = self._stages(jm, separate_tie_break=longer)
        res = lexsolve(jm.model, stages, time_limit=max(0.05, deadline - time.perf_counter()), tie_break=tie,
                       settings=SETTINGS, lower_bounds={d: 0 for d, _ in stages}, hint=hint,
                       tie_break_deterministic_time=TIE_BREAK_DTIME if tie is not None else None)
        return jm, res, built

    def solve(self, inst: Instance, time_limit: float = 30.0, reg: Registries | None = None) -> PlannerResult:
        reg = reg or load_registries()
        t0 = time.perf_counter()
        deadline = t0 + time_limit
        state = replay(inst, reg)
        tried = _Strong()
        every = reachable_actions(reg, inst, state)
        answer = self._solve(reg, inst, state, every, t0, deadline, tried)
        return self._strongly(reg, inst, state, every, answer, t0, deadline, tried)

    def _strongly(self, reg: Registries, inst: Instance, state: ReplayResult, every: list[GroundAction],
                  answer: PlannerResult, t0: float, deadline: float, tried: _Strong) -> PlannerResult:
        """The answer, proved by the strong relaxation (:func:`relaxation.build_relaxation`, ``strong``) when nothing
        else proved it and time is left (docs/planners.md, step 10), in two ways, each with half the time left
        (the first; the second gets the rest), in the order ``tried`` says:

        * below the answer (:meth:`_strong_below`): a plan checked by the evaluator is optimal when the strong
          relaxation has no solution below its cost vector; no plan exists when it has no solution at all;
        * its lexicographic optimum (:meth:`_strong_optimum`), a lower bound of every plan's cost vector: the answer,
          a schedule of its chosen actions or the joint model over them that meets it is optimal."""
        unsettled = answer.status is PlanStatus.UNDETERMINED or (
            answer.status is PlanStatus.PLAN and not answer.proved_optimal and answer.cost is not None)
        if not unsettled or not self.relax or not every:
            return answer
        steps = [self._strong_below, self._strong_optimum]
        if tried.optimum_first:
            steps.reverse()
        for k, step in enumerate(steps):
            left = deadline - time.perf_counter() - STRONG_MARGIN  # the model's build counts (not only the solve)
            out = step(reg, inst, state, every, answer, left / (2 - k), deadline, tried)
            if out is not None:
                return replace(out, timings=timings_since(t0, answer.timing("build")))
        return answer

    def _strong_below(self, reg: Registries, inst: Instance, state: ReplayResult, every: list[GroundAction],
                      answer: PlannerResult, seconds: float, deadline: float, tried: _Strong) -> PlannerResult | None:
        """The answer proved when the strong relaxation has no solution below its cost vector (none at all, for no
        plan) within ``seconds``; None otherwise (or when that was tried already)."""
        cost = answer.cost if answer.status is PlanStatus.PLAN else None
        if cost in tried or not self._strong_proof(reg, inst, state, every, cost, seconds, tried):
            return None
        within = f" of at most {self.max_actions} actions" if self.max_actions is not None else ""
        if cost is None:
            note = f"no plan{within}: the strong relaxation has no solution (proved)"
            return no_plan_result(self.name, reg, inst, PlanStatus.INFEASIBLE, answer.timings, (*answer.notes, note))
        note = (f"optimal: no plan{within} is lexicographically below its cost vector, as the strong relaxation "
                "has no solution below it (proved)")
        kept = tuple(n for n in answer.notes if not n.startswith("not proved optimal"))
        return replace(answer, proved_optimal=True, notes=(*kept, note))

    def _strong_optimum(self, reg: Registries, inst: Instance, state: ReplayResult, every: list[GroundAction],
                        answer: PlannerResult, seconds: float, deadline: float, tried: _Strong
                        ) -> PlannerResult | None:
        """The strong relaxation's lexicographic optimum within ``seconds`` (its build included): a lower bound of
        every plan's cost vector, like the ordinary relaxation's (docs/planners.md, "Proof by relaxation"). The
        answer when its cost vector meets it, else a schedule of its chosen actions (:meth:`_meet`) or the joint
        model over them alone (:meth:`_core`, by ``deadline``) that meets it, proved optimal; no plan when it has no
        solution; None otherwise."""
        solve = seconds - STRONG_BUILD * len(every)
        if not _strong_affordable(seconds, every) or solve < 0.05:
            return None
        opt = relaxed_optimum(reg, inst, state, every, RELAXATION_SETTINGS, solve, self.max_actions, strong=True)
        within = f" of at most {self.max_actions} actions" if self.max_actions is not None else ""
        if opt.status is LexStatus.INFEASIBLE and answer.status is not PlanStatus.PLAN:
            note = f"no plan{within}: the strong relaxation has no solution (proved)"
            return no_plan_result(self.name, reg, inst, PlanStatus.INFEASIBLE, answer.timings, (*answer.notes, note))
        if opt.status is not LexStatus.OPTIMAL:
            return None
        note = f"optimal{within}: the cost vector meets the strong relaxation's lower bound (docs/planners.md)"
        if answer.status is PlanStatus.PLAN and answer.cost == opt.bound:
            kept = tuple(n for n in answer.notes if not n.startswith("not proved optimal"))
            return replace(answer, proved_optimal=True, notes=(*kept, note))
        met = self._meet(reg, inst, state, opt, deadline)
        if met is not None:
            return PlannerResult(self.name, inst.id, PlanStatus.PLAN, True, met.steps, met.text, met.cost, (),
                                 (note,))
        core = self._core(reg, inst, state, list(opt.chosen), interchangeable_classes(inst), deadline)
        if core is not None and core.cost == opt.bound:
            return replace(core, proved_optimal=True, notes=(note,))
        return None

    def _strong_proof(self, reg: Registries, inst: Instance, state: ReplayResult, every: list[GroundAction],
                      cost: CostVector | None, seconds: float, tried: _Strong) -> bool:
        """Whether the strong relaxation over every reachable action has no solution below ``cost`` (none at all,
        for None) within ``seconds``, its model's build included (not tried when the build alone would likely
        take them: ``STRONG_BUILD`` per ground action); recorded in ``tried`` unless it ran out of time."""
        if not self.relax or not every or not _strong_affordable(seconds, every):
            return False
        proved = nothing_below(reg, inst, state, every, cost, RELAXATION_SETTINGS, seconds, self.max_actions,
                               strong=True, deadline=time.perf_counter() + seconds)
        if proved is not None:
            tried.add(cost)
        return bool(proved)

    def _solve(self, reg: Registries, inst: Instance, state: ReplayResult, every: list[GroundAction], t0: float,
               deadline: float, tried: _Strong) -> PlannerResult:
        """:meth:`solve` without the strong relaxation's last check (``every``: the reachable ground actions)."""
        notes: list[str] = []
        actions = focused(reg, inst, every, reachable_init(reg, inst, state)) if self.focus else every
        focus = self.focus
        classes = interchangeable_classes(inst)
        t_ground = time.perf_counter() - t0
        within = f" of at most {self.max_actions} actions" if self.max_actions is not None else ""
        bound, cap = self.bounds(reg, inst, state, actions)
        # a long task: a first plan before anything else (the relaxation may prove it optimal; else it hints the
        # joint model, and it is the answer when the joint model finds nothing better in time)
        proof, relaxed = None, None
        long = self.hint and bound >= HINT_FROM
        if self.relax and long:  # the relaxation alone, briefly (QUICK_RELAXATION)
            proof, relaxed = self._by_relaxation(reg, inst, state, every, deadline, quick=min(
                QUICK_RELAXATION, (deadline - time.perf_counter()) / 4))
        first, staged, fallback = None, False, None
        cored = self.relax and proof is None and relaxed is not None
        if cored:  # the relaxation's chosen actions alone, before the (dearer) search for a first plan, which their
            # plan then replaces
            proof, fallback, first = self._by_core(reg, inst, state, every, relaxed, None, classes, deadline, tried)
            if first is not None:  # the joint model holds it (a hint that fits)
                used = {id(a) for a in (*actions, *first)}
                actions = [a for a in every if id(a) in used]
        if proof is None and first is None:
            first, staged = self._first_plan(reg, inst, state, actions, bound, deadline, every)
            scheduled = (self._scheduled(reg, inst, state, first,
                                         time.perf_counter() + (deadline - time.perf_counter()) / 6) if first else None)
            fallback = _better(scheduled, fallback, inst)
        if not self.relax or proof is not None:
            pass
        elif relaxed is not None:  # the brief relaxation's optimum is proved: a first plan that meets it is optimal
            if fallback is not None and fallback.cost == relaxed.bound:
                proof = RelaxationProof(PlanStatus.PLAN, 0.0, fallback.steps, fallback.cost, fallback.plan_text)
        else:
            proof, relaxed = self._by_relaxation(reg, inst, state, every, deadline, fallback, notes)
        if self.relax and proof is None and relaxed is not None and not cored:  # the relaxation's actions alone
            proof, fallback, _ = self._by_core(reg, inst, state, every, relaxed, fallback, classes, deadline, tried)
        floor = relaxed.bound if relaxed is not None else None  # below every plan's cost vector
        if proof is not None:
            timings = timings_since(t0, t_ground + proof.built)
            if proof.status is PlanStatus.INFEASIBLE:
                notes.append(proof.note or f"no plan{within} within the deadline: the relaxation has none (proved)")
                return no_plan_result(self.name, reg, inst, PlanStatus.INFEASIBLE, timings, notes)
            notes.append(proof.note or "optimal: the cost vector meets the relaxation's lower bound (docs/planners.md)")
            return PlannerResult(self.name, inst.id, PlanStatus.PLAN, True, proof.steps, proof.text, proof.cost,
                                 timings, tuple(notes))
        if fallback is not None and deadline - time.perf_counter() < OVERHEAD:  # no time for a joint model
            notes.append("no time left for the joint model")
            return self._unsettled(reg, inst, fallback, floor, notes, timings_since(t0, t_ground))
        if relaxed is not None and self.max_actions is None:  # room for the relaxation's distinct actions
            bound = max(bound, len(relaxed.chosen))
            cap = max(cap, bound + len(reg.grippers))
        end = deadline  # the claims' check (_settle) may use it all; solves keep time for _strongly
        if self.relax and every:
            deadline -= STRONG_RESERVE * (deadline - time.perf_counter())
        if staged:  # a long task: the bound grows to the plan, the model takes its actions, and it is an answer
            used = {id(a) for a in (*actions, *first)}
            actions = [a for a in every if id(a) in used]
            if len(first) > bound:
                notes.append(f"the staged search found a plan of {len(first)} actions: the bound of {bound} actions "
                             f"raised to it")
                bound = len(first)
                cap = max(cap, bound + len(reg.grippers))
        # a long task whose first-plan search found nothing: the joint models are not hinted (the same greedy
        # search, repeated per model, finds nothing either)
        run = self._run if first is None and not long else partial(self._run, first=first or [])
        try:
            jm, res, built = run(reg, inst, state, actions, bound, classes, deadline)
        except OutOfTime:
            notes.append(f"the joint model of {bound} actions could not be built in time")
            return self._unsettled(reg, inst, fallback, floor, notes, timings_since(t0, t_ground))
        t_build = t_ground + built
        settled = False  # the claims' check (_settle) already passed
        while True:
            earlier = (jm, res, bound)
            if _meets(jm, res, floor):
                break
            if bound < cap and (res.status is LexStatus.INFEASIBLE or (
                    res.status is LexStatus.OPTIMAL and _plan_length(jm, res) >= bound)):
                # a longer plan may be better, or exist: unless the relaxation excludes every plan outside the model
                # (longer ones included), which is cheaper to ask than the model of the cap to solve
                settled = self._excluded(reg, inst, state, every, jm, res, bound, end, tried, notes)
                if settled:
                    break
                why = "has no plan" if res.status is LexStatus.INFEASIBLE else "has an optimum that fills it"
                notes.append(f"the bound of {bound} actions{_over(jm, every)} {why}: raised to {cap}")
                bound = cap
            elif res.status is LexStatus.INFEASIBLE and focus:
                focus, actions = False, every
                notes.append("focused grounding infeasible: retried with every reachable action")
            else:
                break
            try:
                jm, res, _ = run(reg, inst, state, actions, bound, classes, deadline)
            except OutOfTime:
                res = None
            if res is None or (not res.found and earlier[1].found):  # out of time: keep the earlier answer
                if earlier[1].found:
                    notes.append(f"no plan within the time limit at {bound} actions: kept the plan found within "
                                 f"{earlier[2]} actions")
                jm, res, bound = earlier
                break
        answer = self._answer(reg, inst, state, every, jm, res, bound, notes, t0, t_build, end, classes, floor,
                              tried, deadline, settled)
        if fallback is not None and (answer.cost is None or
                                     fallback.cost.key(inst.profile) < answer.cost.key(inst.profile)):
            answer = replace(fallback, timings=answer.timings, notes=(*answer.notes, *fallback.notes))
        return _with_floor(answer, floor, inst.profile.order)

    def _unsettled(self, reg: Registries, inst: Instance, fallback: PlannerResult | None, floor: CostVector | None,
                   notes: list[str], timings: tuple) -> PlannerResult:
        """The answer without a joint model: the first plan (not proved optimal) or none (undetermined)."""
        if fallback is None:
            return no_plan_result(self.name, reg, inst, PlanStatus.UNDETERMINED, timings, notes, timed_out=True)
        return _with_floor(replace(fallback, timings=timings, notes=(*notes, *fallback.notes)), floor,
                           inst.profile.order)

    def _excluded(self, reg: Registries, inst: Instance, state: ReplayResult, every: list[GroundAction],
                  jm: JointModel, res: LexResult, bound: int, deadline: float, tried: _Strong, notes: list[str]
                  ) -> bool:
        """Whether the relaxation (then the strong one, once per cost vector, when the time left affords it)
        admits no plan outside the joint model (another ground action, one used twice, more than ``bound`` actions)
        that beats its optimum (that exists at all, when it has no plan), each with a quarter of the time left:
        :meth:`_settle`'s check, asked before a larger bound is tried."""
        cost = solution(jm, res)[1] if res.found else None
        covered = [a for a in jm.actions if not a.name.startswith("ongoing:")]
        for strong in (False, True):
            seconds = (deadline - time.perf_counter()) / 4
            if strong:
                if not self.relax or cost in tried or not _strong_affordable(seconds, every):
                    return False
                tried.add(cost)
            if better_plan_possible(reg, inst, state, every, covered, self.max_actions or bound, cost, SETTINGS,
                                    max(0.05, seconds), limit=self.max_actions, strong=strong)[0]:
                if strong:
                    notes.append("the strong relaxation admits no better plan outside the model (proved)")
                return True
        return False

    def _settle(self, reg: Registries, inst: Instance, state: ReplayResult, every: list[GroundAction],
                jm: JointModel, res: LexResult, bound: int, classes: list[list[str]], notes: list[str],
                deadline: float, floor: CostVector | None = None, tried: set | None = None,
                solve_by: float | None = None, settled: bool = False) -> tuple[JointModel, LexResult, int, bool]:
        """Whether the joint model's answer (its optimum, or no plan) holds for every plan: the relaxation over
        every reachable action admits no plan outside the model (another ground action, one used twice, more than
        ``bound`` actions) that beats it (that exists at all, for no plan). When it admits one, the strong
        relaxation may still have no solution below the answer (tried once, recorded in ``tried``); else the
        model is widened by the ground actions that plan uses (and its length) and solved again, up to
        ``WIDEN_ROUNDS`` times, and then (or at once, when that plan repeats a ground action) to every reachable
        action. A plan whose cost vector is ``floor`` (the relaxation's optimum over every
        reachable action) needs no such check. A widened model is solved by ``solve_by`` (default ``deadline``);
        ``settled``: the check passed already. Returns the model, its answer, its bound and whether the answer is
        proved for every plan."""
        if settled:
            return jm, res, bound, True
        if _meets(jm, res, floor):
            notes.append("its cost vector meets the relaxation's lower bound over every plan")
            return jm, res, bound, True
        for rounds in range(WIDEN_ROUNDS + 2):
            if res.status not in (LexStatus.OPTIMAL, LexStatus.INFEASIBLE):
                return jm, res, bound, False
            cost = solution(jm, res)[1] if res.found else None
            covered = [a for a in jm.actions if not a.name.startswith("ongoing:")]
            left = deadline - time.perf_counter()
            proved, escape = better_plan_possible(reg, inst, state, every, covered, self.max_actions or bound, cost,
                                                  SETTINGS, max(0.05, left / 2), limit=self.max_actions)
            if not proved and tried is not None and cost not in tried and self.relax:
                tried.add(cost)  # the strong relaxation admits no better plan outside the model either
                seconds = STRONG_SHARE * (deadline - time.perf_counter())
                if _strong_affordable(seconds, every) and better_plan_possible(
                        reg, inst, state, every, covered, self.max_actions or bound, cost, SETTINGS, seconds,
                        limit=self.max_actions, strong=True)[0]:
                    notes.append("the strong relaxation admits no better plan outside the model (proved)")
                    return jm, res, bound, True
            if proved or escape is None or left < 0.2 or rounds > WIDEN_ROUNDS:
                return jm, res, bound, proved
            if escape.repeated or rounds == WIDEN_ROUNDS:
                if len(covered) >= len(every):  # a repeat, or widened enough: no wider model holds it
                    return jm, res, bound, proved
                # the relaxation's escapes lead nowhere: the last widening takes every reachable action (a valid
                # plan the relaxed escapes never point at may use several missing ones)
                wider = every
            else:
                inside = {id(a) for a in covered} | {id(a) for a in escape.outside}
                wider = [a for a in every if id(a) in inside]
            # room for the escape's actions (its occurrences are any feasible count, often far more)
            longer = max(bound, min(escape.occurrences, bound + max(1, len(escape.outside)))) \
                if self.max_actions is None else bound
            try:
                jm2, res2, _ = self._run(reg, inst, state, wider, longer, classes, solve_by or deadline)
            except OutOfTime:
                return jm, res, bound, False
            if res2.status not in (LexStatus.OPTIMAL, LexStatus.INFEASIBLE):
                return jm, res, bound, False
            notes.append(f"the relaxation admits a better plan with {len(escape.outside)} other ground action(s) and "
                         f"{escape.occurrences} actions: the joint model widened to them" if wider is not every else
                         f"the relaxation still admits a better plan ({escape.occurrences} actions"
                         f"{', a ground action repeated' if escape.repeated else ''}): the joint model widened to "
                         f"every reachable action ({len(every)})")
            jm, res, bound = jm2, res2, longer
        return jm, res, bound, False

    def _answer(self, reg: Registries, inst: Instance, state: ReplayResult, every: list[GroundAction],
                jm: JointModel, res: LexResult, bound: int, notes: list[str], t0: float, t_build: float,
                deadline: float, classes: list[list[str]], floor: CostVector | None = None,
                tried: set | None = None, solve_by: float | None = None, settled: bool = False) -> PlannerResult:
        """The joint model's answer, with the claims its proof covers (docs/planners.md, "Claims"); ``solve_by``,
        ``settled``: as :meth:`_settle`'s."""
        within = f" of at most {self.max_actions} actions" if self.max_actions is not None else ""
        jm, res, bound, proved = self._settle(reg, inst, state, every, jm, res, bound, classes, notes, deadline,
                                              floor, tried, solve_by, settled)
        if not res.found:
            status = PlanStatus.UNDETERMINED
            if res.status is LexStatus.INFEASIBLE:
                if proved:
                    status = PlanStatus.INFEASIBLE
                    notes.append(f"no plan{within}: none within {bound} actions (proved), and the relaxation "
                                 "excludes every other plan")
                else:  # the model's claim, over its ground actions (a focused or widened model: not every one)
                    scope = _over(jm, every)
                    notes.append(f"no plan within {bound} actions{scope} and the deadline (proved); plans with "
                                 f"{'other ground actions, ' if scope else ''}more actions or repeated ground actions "
                                 "are not excluded")
            return no_plan_result(self.name, reg, inst, status, timings_since(t0, t_build), notes,
                                  timed_out=res.status is not LexStatus.INFEASIBLE)
        steps, cost = solution(jm, res)
        optimal = res.status is LexStatus.OPTIMAL
        if optimal:
            optimal = proved
            notes.append(f"optimal{within}: the best of at most {bound} actions, and the relaxation shows that no "
                         "other plan is better" if optimal else
                         f"optimal among plans of at most {bound} actions{_over(jm, every)}, each ground action once; "
                         "a better plan outside them is not excluded")
        try:
            text = plan_text(reg, inst, steps, self.name, cost)
        except ValueError as exc:  # coinciding happenings that no epsilon offsets can order
            notes.append(f"internal: the schedule cannot be written ({exc})")
            return no_plan_result(self.name, reg, inst, PlanStatus.UNDETERMINED, timings_since(t0, t_build), notes)
        report = evaluate_plan(reg, inst, parse_plan(text))
        if not report.valid or report.cost != cost:
            why = report.findings[0].message if report.findings else f"cost {report.cost} instead of {cost}"
            notes.append(f"internal: the instance-level evaluator rejects the joint model's plan ({why})")
            return no_plan_result(self.name, reg, inst, PlanStatus.UNDETERMINED, timings_since(t0, t_build), notes)
        # the model holds every reachable ground action over the full state and was solved to optimality: that
        # much is proved
        bounded = (f"optimal among plans of at most {bound} actions, each ground action at most once"
                   if res.status is LexStatus.OPTIMAL and not optimal and not self.project and not _over(jm, every)
                   else "")
        return PlannerResult(self.name, inst.id, PlanStatus.PLAN, optimal, tuple(steps), text, cost,
                             timings_since(t0, t_build), tuple(notes), bounded_claim=bounded)


def _better(plan: PlannerResult | None, than: PlannerResult | None, inst: Instance) -> PlannerResult | None:
    """The lexicographically cheaper of two plans (``than`` on ties; either may be None)."""
    if plan is None or (than is not None and than.cost.key(inst.profile) <= plan.cost.key(inst.profile)):
        return than
    return plan


def _written(reg: Registries, inst: Instance, steps: list[ChosenStep], name: str, cost: CostVector) -> str | None:
    """The schedule's plan file, or None when its epsilon offsets cannot be written (a chain of more than about
    50 dependent happenings at one time drifts by half a TU: plans/epsilon.py)."""
    try:
        return plan_text(reg, inst, steps, name, cost)
    except ValueError:
        return None


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


def _with_floor(answer: PlannerResult, floor: CostVector | None, order: Sequence[str]) -> PlannerResult:
    """A plan not proved optimal, with the lower bound that is proved for every plan, when there is one (its
    dimensions in the profile's order)."""
    if answer.proved_optimal or answer.cost is None or floor is None:
        return answer
    below = ", ".join(f"{d} {floor[d]}" for d in order if floor[d])
    note = (f"every plan's cost vector is lexicographically at least the relaxation's optimum ({below or 'all 0'}; "
            "proved over every reachable action)")
    return replace(answer, notes=(*answer.notes, note))


def _strong_affordable(seconds: float, every: list[GroundAction]) -> bool:
    """Whether ``seconds`` leave room for the strong relaxation over ``every``: its build alone takes about
    ``STRONG_BUILD`` per ground action."""
    return seconds >= max(STRONG_MARGIN, 2 * STRONG_BUILD * len(every))


def _over(jm: JointModel, every: list[GroundAction]) -> str:
    """What a claim about the joint model's plans must add when the model does not hold every reachable ground
    action (the focused grounding, or a model widened from it): the ground actions it covers; '' when it holds
    them all."""
    own = {id(a) for a in jm.actions}
    if all(id(a) in own for a in every):
        return ""
    return f" over {sum(not a.name.startswith('ongoing:') for a in jm.actions)} of the {len(every)} reachable " \
           "ground actions"


def _meets(jm: JointModel, res: LexResult, floor: CostVector | None) -> bool:
    """The joint model's proved optimum has the relaxation's lower bound as its cost vector."""
    return floor is not None and res.status is LexStatus.OPTIMAL and solution(jm, res)[1] == floor


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

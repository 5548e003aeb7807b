"""Reference certification and admission (paper §III-B, SPEC §9).

Two independent methods must agree on status and cost vector: the exact search of :mod:`hygiene_pddl.certify`
(every plan within the deadline) and Hygiene-NSP with its default settings (no shared model code: its proofs are
the joint CP-SAT model's and its own relaxation's, over every plan). The full joint model within an action bound
(``cross_check(full=True)``) was the second method until session 6; on v2's longer plans it did not prove a
9-action draft in 60 s that the default settings prove in 9 s. Admission then checks the reference plans with both
validator levels and the designs with history swaps and profile rankings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from compiler import ticks
from compiler.steps import StepMapper
from hygiene_pddl.costs import CostVector
from hygiene_pddl.episodes.handedness import mirrored, mirrored_steps, right_handed
from hygiene_pddl.instances.model import Instance, ReferenceStep
from hygiene_pddl.planners.base import EPSILON, ChosenStep, plan_text
from hygiene_pddl.plans.model import Plan, PlanStep
from hygiene_pddl.plans.parser import parse_plan
from hygiene_pddl.registries import Registries
from hygiene_pddl.validation.declared import reached
from hygiene_pddl.validation.instance_level import DEFAULT_TOLERANCE, evaluate_plan

MAX_ACTIONS = 6
TIME_LIMIT = 60.0


@dataclass(frozen=True)
class Certified:
    instance: str
    feasible: bool
    cost: CostVector | None
    steps: tuple[ChosenStep, ...]
    plan_text: str
    methods: tuple[str, ...]
    problem: str = ""  # why certification failed ("" when both methods agree and prove it)

    @property
    def ok(self) -> bool:
        return not self.problem


def certify(reg: Registries, inst: Instance, max_actions: int = MAX_ACTIONS, time_limit: float = TIME_LIMIT,
            full: bool = False) -> Certified:
    """Certify one instance by the two methods (:func:`hygiene_pddl.certify.agree.cross_check`: the exact search
    over every plan within the deadline, Hygiene-NSP's default settings; with ``full`` the joint model within at
    least ``max_actions`` actions and more than the search's plan uses instead); ``problem`` says why not when they
    disagree, do not prove, or a plan fills its bound. ``methods`` name each method with the bounds its proof
    relies on."""
    from hygiene_pddl.certify.agree import cross_check

    right = right_handed(inst.family)
    ag = cross_check(reg, mirrored(reg, inst) if right else inst, time_limit, max_actions, full)
    a, b = ag.nsp, ag.exact
    methods = (f"{a.method} within: {a.bounds}", f"{b.method} within: {b.bounds}")
    if b.status == "optimal" or b.status == "infeasible":
        feasible = b.status == "optimal"
    else:
        feasible = a.cost is not None
    ref = a if a.cost is not None or not feasible else b
    text = a.plan_text if ref is a else b.plan_text
    steps, cost, problem = (ref.steps, ref.cost, ag.problem) if feasible else ((), None, ag.problem)
    if right and feasible:  # the plan of the mirrored instance, mirrored back and re-checked on the instance
        steps = mirrored_steps(reg, steps)
        planner = text.splitlines()[0].removeprefix("; planner: ") if text.startswith("; planner: ") else ref.method
        text = plan_text(reg, inst, list(steps), planner, cost)
        if evaluate_plan(reg, inst, parse_plan(text)).cost != cost:  # a renaming: never, unless a gripper is special
            problem = problem or "the mirrored reference plan does not cost the same under the instance"
    return Certified(inst.id, feasible, cost, steps, text, methods, problem)


def for_twin(reg: Registries, twin: Instance, plan: str) -> Plan:
    """A saved plan's world actions as a plan for ``twin``: the makespan declaration ``(finish tuK)`` belongs to
    the problem, not to the schedule, so the source's is dropped and the twin's added where its problem weighs
    makespan in whole TU (a profile pair may have one member with ticks and one without)."""
    parsed = parse_plan(plan)
    steps = tuple(s for s in parsed.steps if s.action.lower() != ticks.FINISH)
    mapper = StepMapper(reg, twin)
    if mapper.uses_ticks and steps:
        last = max(s.time + (s.duration or 0) for s in steps)
        name, args = mapper.finish_step(reached(last, DEFAULT_TOLERANCE))
        steps = (*steps, PlanStep(name, args, last + EPSILON))
    elif mapper.uses_ticks:
        steps = (PlanStep(*mapper.finish_step(0), Fraction(0)),)
    return replace(parsed, steps=steps)


def replays_as(reg: Registries, inst: Instance, plan: str, optimum: CostVector | None) -> tuple[bool, bool]:
    """(safe, safe and optimal) of a saved plan under ``inst`` (a history swap or a profile swap)."""
    report = evaluate_plan(reg, inst, for_twin(reg, inst, plan))
    safe = report.valid
    return safe, bool(safe and optimum is not None and report.cost == optimum)


def admit_pair(reg: Registries, kind: str, label: str, a: tuple[Instance, Certified], b: tuple[Instance, Certified]
               ) -> str:
    """'' when the pair behaves as its design says, else the reason."""
    (ia, ca), (ib, cb) = a, b
    if not (ca.feasible and cb.feasible):
        return ""  # ineligible pairs carry no behavioural claim
    if kind == "history":
        ab = replays_as(reg, ib, ca.plan_text, cb.cost)
        ba = replays_as(reg, ia, cb.plan_text, ca.cost)
        if label == "relevant":
            if ca.cost == cb.cost:
                return "relevant history pair with equal optimal cost vectors"
            if ab[1] or ba[1]:
                return "a reference plan stays safe and optimal under the relevant swap"
        elif not (ab[1] and ba[1]):
            return "an irrelevant history swap changes safety or optimality"
        return ""
    # profile pairs: the two reference plans ranked under both profiles
    cost_a_under_b = evaluate_plan(reg, ib, for_twin(reg, ib, ca.plan_text)).cost
    cost_b_under_a = evaluate_plan(reg, ia, for_twin(reg, ia, cb.plan_text)).cost
    if cost_a_under_b is None or cost_b_under_a is None:
        return "a reference plan is not valid under its profile twin"
    a_better_for_a = ca.cost.key(ia.profile) < cost_b_under_a.key(ia.profile)
    b_better_for_b = cb.cost.key(ib.profile) < cost_a_under_b.key(ib.profile)
    if label == "flip" and not (a_better_for_a and b_better_for_b):
        return "ranking-flip pair whose reference plans do not flip"
    if label == "invariant" and (a_better_for_a or b_better_for_b):
        return "ranking-invariant pair whose reference plans change rank"
    return ""


def reference_steps(steps: Sequence[ChosenStep]) -> list[dict]:
    """A certified plan's steps as reference JSON. Where the certifying planner placed some end among the
    starts of its instant (``end_order``), every step also keeps its happening positions, so that the plan
    written again from these steps (:func:`chosen_steps`) has the certified happening order."""
    fixed = any(s.end_order is not None for s in steps)
    out = []
    for s in steps:
        step = {"start": s.start, "name": s.name, "args": list(s.args), "duration": s.duration}
        if fixed:
            step |= {"order": s.order} | ({} if s.end_order is None else {"end_order": s.end_order})
        out.append(step)
    return out


def steps_of_text(reg: Registries, inst: Instance, text: str) -> tuple[ChosenStep, ...]:
    """A written plan's steps back in registry terms, with the happening positions its epsilon offsets give
    (an end before a start at the same time point: the plan writer never puts a dependent pair there). The build
    takes the reference steps from the certified plan text, so the manifest does not depend on which code wrote
    its certification cache."""
    mapper = StepMapper(reg, inst)
    world = [s for s in parse_plan(text).steps if mapper.finish_makespan(s.action, s.args) is None]
    happenings = sorted([(s.time + s.duration, 0, i) for i, s in enumerate(world)]
                        + [(s.time, 1, i) for i, s in enumerate(world)])
    rank = {(kind, i): k for k, (_, kind, i) in enumerate(happenings)}
    out = []
    for i, s in enumerate(world):
        name, args = mapper.from_pddl(s.action, s.args)
        out.append(ChosenStep(int(s.time), name, tuple(args), int(s.duration), rank[(1, i)], rank[(0, i)]))
    return tuple(sorted(out, key=lambda c: (c.start, c.order)))


def chosen_steps(plan: tuple[ReferenceStep, ...]) -> list[ChosenStep]:
    """A reference plan's steps as a planner's (for :func:`plan_text`): the stored happening positions, else
    the steps' own order."""
    return [ChosenStep(s.start, s.name, s.args, s.duration, i if s.order is None else s.order, s.end_order)
            for i, s in enumerate(plan)]


__all__ = ["Certified", "admit_pair", "certify", "chosen_steps", "for_twin", "plan_text", "reference_steps",
           "replays_as", "steps_of_text"]

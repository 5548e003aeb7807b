"""Reference certification and admission (paper §III-B, SPEC §9).

Two independent methods must agree on status and cost vector: Hygiene-NSP's joint CP-SAT model with the full
grounding and full state (proved lexicographically optimal, stage by stage) and the exact search of
:mod:`hygiene_pddl.certify` (no shared model code). Admission then checks the reference plans with both
validator levels and the designs with history swaps and profile rankings.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

from compiler import ticks
from compiler.steps import StepMapper
from hygiene_pddl.costs import CostVector
from hygiene_pddl.instances.model import Instance
from hygiene_pddl.planners.base import EPSILON, ChosenStep, PlanStatus, plan_text
from hygiene_pddl.planners.nsp import HygieneNSP
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


def certify(reg: Registries, inst: Instance, max_actions: int = MAX_ACTIONS, time_limit: float = TIME_LIMIT
            ) -> Certified:
    """Certify one instance by the two methods; ``problem`` says why not when they disagree or do not prove."""
    from hygiene_pddl.certify import exact_search

    a = HygieneNSP(max_actions=max_actions, project=False, focus=False, relax=False).solve(inst, time_limit, reg)
    b = exact_search(reg, inst, max_actions=max_actions, time_limit=time_limit)
    methods = ("hygiene-nsp joint CP-SAT (full grounding, full state)", "exact search (hygiene_pddl.certify)")
    b_status = str(b.status)
    if a.status is PlanStatus.PLAN and b_status == "optimal":
        if max_actions is not None and len(a.steps) >= max_actions:
            return Certified(inst.id, True, a.cost, a.steps, a.plan_text, methods,
                             f"the optimum within {max_actions} actions uses all of them: a longer plan may be "
                             "better; raise the bound")
        if not a.proved_optimal:
            return Certified(inst.id, True, a.cost, a.steps, a.plan_text, methods, "CP-SAT did not prove optimality")
        if a.cost != b.cost:
            return Certified(inst.id, True, a.cost, a.steps, a.plan_text, methods,
                             f"the methods disagree: CP-SAT {a.cost} vs search {b.cost}")
        return Certified(inst.id, True, a.cost, a.steps, a.plan_text, methods)
    if a.status is PlanStatus.INFEASIBLE and b_status == "infeasible":
        if max_actions is None:
            return Certified(inst.id, False, None, (), a.plan_text, methods)
        # both say "no plan of at most max_actions actions": only a proof without the bound excludes longer plans
        c = exact_search(reg, inst, max_actions=None, time_limit=time_limit)
        if str(c.status) == "infeasible":
            return Certified(inst.id, False, None, (), a.plan_text,
                             (*methods, "exact search without an action bound (every plan within the deadline)"))
        return Certified(inst.id, c.cost is not None, c.cost, (), a.plan_text, methods,
                         f"no plan within {max_actions} actions by both methods, but longer plans are not excluded "
                         f"(the exact search without an action bound: {c.status})")
    return Certified(inst.id, a.status is PlanStatus.PLAN, a.cost, a.steps, a.plan_text, methods,
                     f"status disagreement or not proved: CP-SAT {a.status.value}, search {b_status}")


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


def reference_steps(cert: Certified) -> list[dict]:
    return [{"start": s.start, "name": s.name, "args": list(s.args), "duration": s.duration} for s in cert.steps]


__all__ = ["Certified", "admit_pair", "certify", "for_twin", "plan_text", "reference_steps", "replays_as"]

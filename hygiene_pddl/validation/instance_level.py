"""Instance-level evaluation (SPEC §7): full-history replay, then the plan's continuation under the same
hygiene rules; goals, hygiene with provenance, timing, exclusivity, stocks, horizon; the cost vector on
the TU grid; and, with the reference, optimal or the first dimension (in profile order) that is worse.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from fractions import Fraction

from compiler.steps import StepMapper
from hygiene_pddl.costs import SUMMED, CostVector
from hygiene_pddl.decimals import rounded_text
from hygiene_pddl.errors import InputError, Location
from hygiene_pddl.hygiene import chain_text
from hygiene_pddl.instances.model import Instance, Reference
from hygiene_pddl.literals import atom_text
from hygiene_pddl.plans.model import Plan
from hygiene_pddl.registries import Registries
from hygiene_pddl.registries.model import ActionSchema
from hygiene_pddl.replay import PhysicalInconsistency, World, happening_fluents, run_history

DEFAULT_TOLERANCE = Fraction(1, 100)


class Problem(enum.Enum):
    BEFORE_DECISION = "starts before the decision time"
    DURATION = "wrong duration"
    CONDITION = "condition not satisfied"
    BUSY = "gripper, appliance or capacity busy"
    STOCK = "stock exhausted"
    HYGIENE = "hygiene violation"
    MUTEX = "simultaneous interfering happenings"
    HORIZON = "ends after the deadline"
    GOAL = "goal not satisfied"
    NO_PLAN = "no plan"


@dataclass(frozen=True)
class Finding:
    problem: Problem
    message: str
    advice: str = ""
    step: int | None = None  # index into the plan's steps
    time: Fraction | None = None  # relative to the decision time
    provenance: str = ""


@dataclass(frozen=True)
class InstanceReport:
    instance: str
    valid: bool
    findings: tuple[Finding, ...]
    cost: CostVector | None
    claimed_status: str | None = None
    reference_feasible: bool | None = None
    optimal: bool | None = None
    first_worse: tuple[str, int] | None = None
    notes: tuple[str, ...] = field(default=())
    #: the continuation as evaluated: (step index, registry text, start, end, grippers, appliances), relative times
    schedule: tuple[tuple[int, str, Fraction, Fraction, tuple[str, ...]], ...] = field(default=())
    #: contamination changes during the continuation: (time, "+"/"-", carrier, hazard, step)
    contamination_log: tuple[tuple[Fraction, str, tuple[str, str], str, int], ...] = field(default=())

    @property
    def correct_rejection(self) -> bool:
        return self.claimed_status == "infeasible" and self.reference_feasible is False


def fmt(t: Fraction) -> str:
    """A time for people: integer or three decimals."""
    return rounded_text(t)


def grid(t: Fraction) -> int:
    """The nearest TU (halves round up)."""
    return math.floor(t + Fraction(1, 2))


@dataclass
class _Step:
    index: int
    schema: ActionSchema
    args: tuple[str, ...]
    start: Fraction  # absolute
    duration: Fraction
    label: str

    @property
    def end(self) -> Fraction:
        return self.start + self.duration


def evaluate_plan(
    reg: Registries,
    inst: Instance,
    plan: Plan,
    reference: Reference | None = None,
    tolerance: Fraction = DEFAULT_TOLERANCE,
    plan_file: str | None = None,
) -> InstanceReport:
    """Replay the history, then the plan; return what holds and what fails (the first failure stops)."""
    ref_feasible = reference.feasible if reference else None
    if plan.status is not None or not plan.steps:
        if plan.status is not None:
            valid = ref_feasible is False
            msg = f"the plan claims the continuation is {plan.status}"
            findings = (
                ()
                if valid
                else (
                    Finding(
                        Problem.NO_PLAN, msg + (" but the reference has a safe continuation" if ref_feasible else "")
                    ),
                )
            )
            return InstanceReport(inst.id, valid, findings, None, plan.status, ref_feasible)
    mapper = StepMapper(reg, inst)
    t0 = inst.decision_time
    steps: list[_Step] = []
    for i, (s, time) in enumerate(zip(plan.steps, plan.start_times(), strict=True)):
        where = Location(plan_file, s.line)
        name, args = mapper.from_pddl(s.action, s.args, where)
        start = Fraction(t0) + time
        steps.append(
            _Step(
                i,
                reg.actions[name],
                args,
                start,
                s.duration if s.duration is not None else Fraction(0),
                f"step {i + 1} {s.text()}",
            )
        )
    world = World.initial(reg, inst)
    try:
        ongoing = run_history(reg, inst, world)
    except PhysicalInconsistency as exc:  # the instance loader replays too; this is defensive
        raise InputError(f"history is physically inconsistent: {exc.message}", Location(inst.source_path)) from None
    findings: list[Finding] = []
    log_start = len(world.log)

    def fail(
        problem: Problem,
        message: str,
        step: _Step | None = None,
        time: Fraction | None = None,
        advice: str = "",
        provenance: str = "",
    ) -> InstanceReport:
        findings.append(
            Finding(
                problem, message, advice, step.index if step else None, None if time is None else time - t0, provenance
            )
        )
        return InstanceReport(inst.id, False, tuple(findings), None, None, ref_feasible,
                              schedule=_schedule(steps, world, t0), contamination_log=_log(world, log_start, t0))

    for st in steps:
        if st.start < t0:
            return fail(
                Problem.BEFORE_DECISION,
                f"{st.label} starts at {fmt(st.start - t0)} (before the decision time: executed actions are fixed)",
                st,
                st.start,
                f"start {st.label} at 0 or later",
            )
        if abs(st.duration - st.schema.duration) > tolerance:
            return fail(
                Problem.DURATION,
                f"{st.label} lasts {fmt(st.duration)}, the registry says {st.schema.duration}",
                st,
                st.start,
                f"set the duration of {st.label} to {st.schema.duration}",
            )

    # happenings: ongoing history ends, plan starts and ends; ends before starts at equal times
    events: list[tuple[Fraction, int, int, str]] = [
        (Fraction(r.end), 0, -1 - k, "history-end") for k, r in enumerate(ongoing)
    ]
    for st in steps:
        events += [(st.start, 1, st.index, "start"), (st.end, 0, st.index, "end")]
    events.sort()
    # mutex: happenings within tolerance/10 of each other must not interfere
    plan_events = [e for e in events if e[3] != "history-end"]
    for a_i, a in enumerate(plan_events):
        for b in plan_events[a_i + 1 :]:
            if b[0] - a[0] > tolerance / 10:
                break
            if a[2] == b[2]:
                continue
            sa, sb = steps[a[2]], steps[b[2]]
            ra, wa = happening_fluents(sa.schema, sa.args, world, a[3])
            rb, wb = happening_fluents(sb.schema, sb.args, world, b[3])
            if wa & (rb | wb) or wb & ra:
                return fail(
                    Problem.MUTEX,
                    f"{a[3]} of {sa.label} at {fmt(a[0] - t0)} and {b[3]} of {sb.label} at "
                    f"{fmt(b[0] - t0)} coincide and interfere",
                    sb,
                    b[0],
                    f"separate them by at least {fmt(tolerance)} (epsilon)",
                )
    running: dict[int, _Step] = {}
    viol_seen = len(world.violations)
    for time, _phase, idx, kind in events:
        try:
            if kind == "history-end":
                rec = ongoing[-1 - idx]
                world.end_action(reg.actions[rec.name], rec.args, time, rec.index, f"history[{rec.index}]")
                continue
            st = steps[idx]
            if kind == "start":
                world.start_action(st.schema, st.args, time, idx, st.label, st.end)
                running[idx] = st
            else:
                world.end_action(st.schema, st.args, time, idx, st.label)
                del running[idx]
            # over-all conditions hold on the open interval: check every running action (the one just
            # started included) in the state after each happening
            for j, other in running.items():
                world.check_invariants(other.schema, other.args, time, j, other.label)
        except PhysicalInconsistency as exc:
            step = steps[exc.step] if 0 <= exc.step < len(steps) else None
            problem = (
                Problem.BUSY
                if "busy" in exc.message
                else (Problem.STOCK if "left" in exc.message and "needs" in exc.message else Problem.CONDITION)
            )
            return fail(
                problem,
                exc.message.replace(f" at {time}:", f" at {fmt(time - t0)} (t={fmt(time)}):"),
                step,
                time,
                exc.advice,
            )
        if len(world.violations) > viol_seen:
            v = world.violations[viol_seen]
            source = v.provenance[-2].carrier if len(v.provenance) > 1 else None
            advice = (
                f"treat the {source[0]} {source[1]} before {v.label}"
                if source and world.rules.is_gripper_part(source)
                else f"keep {v.hazard} away from {v.carrier[0]} {v.carrier[1]}"
            )
            return fail(
                Problem.HYGIENE,
                f"{v.label} at {fmt(v.time - t0)} (t={fmt(v.time)}): {v.carrier[0]} {v.carrier[1]} would receive "
                f"{v.hazard}, which it is protected against",
                steps[v.step],
                v.time,
                advice,
                chain_text(v.provenance),
            )
    horizon = world.horizon if world.horizon is not None else inst.horizon
    for st in steps:
        if grid(st.end) > horizon:
            return fail(
                Problem.HORIZON,
                f"{st.label} ends at {fmt(st.end - t0)}, after the deadline {horizon - t0}",
                st,
                st.end,
                f"finish by {horizon - t0}",
            )
    for g in inst.goals:
        if not world.goal_holds(g):
            return fail(
                Problem.GOAL,
                f"goal {atom_text(g)} does not hold at the end of the plan",
                advice=f"add steps that make {atom_text(g)} true",
            )
    amounts = {d: sum(dict(st.schema.costs).get(d, 0) for st in steps) for d in SUMMED}
    amounts["active_robot_time"] = sum(st.schema.duration for st in steps if st.schema.occupies)
    amounts["makespan"] = max((grid(st.end) for st in steps), default=t0) - t0
    cost = CostVector.from_mapping(amounts)
    optimal = first = None
    if reference is not None and reference.optimal_cost is not None:
        first = inst.profile.first_worse(cost, reference.optimal_cost)
        optimal = cost.key(inst.profile) <= reference.optimal_cost.key(inst.profile)
    return InstanceReport(inst.id, True, (), cost, None, ref_feasible, optimal, first,
                          schedule=_schedule(steps, world, t0), contamination_log=_log(world, log_start, t0))


def _schedule(steps: list[_Step], world: World, t0: int) -> tuple:
    out = []
    for st in steps:
        binding = dict(zip(st.schema.param_names, st.args, strict=True))
        lanes = tuple(world.resources_of(st.schema, binding))  # "gripper:left", "appliance:stove", "capacity:sink"
        out.append((st.index, "(" + " ".join((st.schema.name, *st.args)) + ")", st.start - t0, st.end - t0, lanes))
    return tuple(out)


def _log(world: World, start: int, t0: int) -> tuple:
    return tuple((Fraction(t) - t0, sign, c, h, step) for t, sign, c, h, step in world.log[start:])


def report_text(rep: InstanceReport) -> str:
    lines = [f"Instance {rep.instance}: " + ("continuation valid" if rep.valid else "continuation INVALID")]
    for f in rep.findings:
        lines.append(f"  {f.problem.value}: {f.message}")
        if f.provenance:
            lines.append(f"    contamination path: {f.provenance}")
        if f.advice:
            lines.append(f"    repair: {f.advice}")
    if rep.claimed_status:
        lines.append(f"  plan claims: {rep.claimed_status}" + (" (correct rejection)" if rep.correct_rejection else ""))
    if rep.cost is not None:
        lines.append(f"  cost: {rep.cost}")
    if rep.optimal is not None:
        if rep.optimal:
            lines.append("  optimal: matches the certified reference optimum")
        elif rep.first_worse:
            lines.append(f"  not optimal: first worse dimension {rep.first_worse[0]} (+{rep.first_worse[1]})")
    return "\n".join(lines)


def report_json(rep: InstanceReport) -> dict:
    return {
        "instance": rep.instance,
        "valid": rep.valid,
        "findings": [
            {
                "problem": f.problem.name.lower(),
                "message": f.message,
                "advice": f.advice,
                "step": f.step,
                "time": None if f.time is None else str(f.time),
                "provenance": f.provenance,
            }
            for f in rep.findings
        ],
        "cost": rep.cost.as_dict() if rep.cost else None,
        "claimed_status": rep.claimed_status,
        "reference_feasible": rep.reference_feasible,
        "optimal": rep.optimal,
        "first_worse": None if rep.first_worse is None else {"dimension": rep.first_worse[0], "by": rep.first_worse[1]},
    }

"""Instance-level evaluation (SPEC §7): full-history replay, then the plan's continuation under the same
hygiene rules; goals, hygiene with provenance, timing, exclusivity, stocks, horizon; the cost vector on
the TU grid; and, with the reference, optimal or the first dimension (in profile order) that is worse.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field, replace
from fractions import Fraction

from compiler.problem import DEADLINE_SLACK
from compiler.steps import InapplicableStep, StepMapper
from hygiene_pddl.costs import SUMMED, CostVector
from hygiene_pddl.decimals import rounded_text
from hygiene_pddl.errors import InputError, Location
from hygiene_pddl.hygiene import chain_text
from hygiene_pddl.instances.model import HistoryRecord, Instance, Reference
from hygiene_pddl.literals import atom_text
from hygiene_pddl.plans.model import Plan
from hygiene_pddl.registries import Registries
from hygiene_pddl.registries.model import ActionSchema
from hygiene_pddl.replay import PhysicalInconsistency, World, happening_fluents, run_history
from hygiene_pddl.validation.declared import Declaration, check_running_history, declaration_problem, split_finish

from .pddl_level.numeric import atof, decimal_text
from .pddl_level.result import number_json
from .pddl_level.timeline import merge_times

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
    """A time for people: integer or three decimals (more when three would hide the difference)."""
    t = Fraction(t)
    text = rounded_text(t)
    return text if Fraction(text) == t else decimal_text(t)


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
    rel_start: float  # relative to the decision time, in VAL's doubles
    rel_end: float  # double(start) + double(duration), as VAL computes an end
    inapplicable: str = ""  # why the step's arguments do not fit its objects

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
    t0 = inst.decision_time
    mapper = StepMapper(reg, inst)
    plan, declared, declared_problem = split_finish(mapper, plan, plan_file)
    steps = _plan_steps(mapper, reg, plan, t0, plan_file)
    world = World.initial(reg, inst)
    try:
        ongoing = run_history(reg, inst, world)
    except PhysicalInconsistency as exc:  # the instance loader replays too; this is defensive
        raise InputError(f"history is physically inconsistent: {exc.message}", Location(inst.source_path)) from None
    report = _Continuation(reg, inst, world, steps, ongoing, Fraction(tolerance), reference).evaluate()
    return _with_declaration(report, declared, declared_problem, steps, Fraction(tolerance), inst, reference)


def _with_declaration(report: InstanceReport, declared: Declaration | None, problem: str | None, steps: list[_Step],
                      tolerance: Fraction, inst: Instance, reference: Reference | None) -> InstanceReport:
    """The plan's makespan declaration ``(finish tuK)`` where the problem weighs makespan in whole TU
    (compiler/ticks.py): what is wrong with it fails the plan; K is the makespan."""
    if not report.valid:
        return report
    t0 = inst.decision_time
    if problem is None and declared is not None:
        problem = declaration_problem(declared, [(st.label, st.start - t0, st.end - t0) for st in steps], tolerance)
    if problem is not None:
        finding = Finding(Problem.GOAL if declared is None else Problem.CONDITION, problem,
                          "declare the makespan with `T: (finish tuK)` after the last end")
        return replace(report, valid=False, findings=(finding,), cost=None, optimal=None, first_worse=None)
    if declared is None:
        return report
    cost = CostVector.from_mapping({**report.cost.as_dict(), "makespan": declared.makespan})
    optimal = first = None
    if reference is not None and reference.optimal_cost is not None:
        first = inst.profile.first_worse(cost, reference.optimal_cost)
        optimal = cost.key(inst.profile) <= reference.optimal_cost.key(inst.profile)
    return replace(report, cost=cost, optimal=optimal, first_worse=first)


def _plan_steps(mapper: StepMapper, reg: Registries, plan: Plan, t0: int, plan_file: str | None) -> list[_Step]:
    """The plan's steps in registry terms; untimed steps run at 1, 2, 3, ... as VAL runs them."""
    steps: list[_Step] = []
    for i, (s, rel) in enumerate(zip(plan.steps, plan.start_times(), strict=True)):
        where = Location(plan_file, s.line)
        inapplicable = ""
        try:
            name, args = mapper.from_pddl(s.action, s.args, where)
        except InapplicableStep as exc:  # well-typed, so VAL executes it and its precondition fails
            name, args, inapplicable = exc.action, exc.args, exc.message
        duration = s.duration if s.duration is not None else Fraction(0)
        steps.append(_Step(i, reg.actions[name], args, t0 + rel, duration, f"step {i + 1} {s.text()}",
                           atof(rel), atof(rel) + atof(duration), inapplicable))
    return steps


@dataclass(frozen=True)
class _Member:
    """One member of a happening: a plan step's start or end, an ongoing action's end (a timed literal in the
    PDDL) or the deadline literal; `time` is VAL's double (relative to the decision time)."""

    kind: str  # "start" | "end" | "history-end" | "deadline"
    time: float
    step: _Step | None = None
    record: HistoryRecord | None = None


class _Stop(Exception):
    def __init__(self, report: InstanceReport):
        self.report = report


class _Continuation:
    """The plan after the history, happening by happening, with VAL's grouping and mutex rule."""

    def __init__(self, reg: Registries, inst: Instance, world: World, steps: list[_Step],
                 ongoing: list[HistoryRecord], tolerance: Fraction, reference: Reference | None):
        self.reg, self.inst, self.world, self.steps, self.ongoing = reg, inst, world, steps, ongoing
        self.tolerance, self.reference = tolerance, reference
        self.t0 = inst.decision_time
        self.log_start = len(world.log)
        self.horizon = world.horizon if world.horizon is not None else inst.horizon

    def fail(self, problem: Problem, message: str, step: _Step | None = None, time: Fraction | None = None,
             advice: str = "", provenance: str = "") -> _Stop:
        finding = Finding(problem, message, advice, step.index if step else None,
                          None if time is None else time - self.t0, provenance)
        return _Stop(InstanceReport(
            self.inst.id, False, (finding,), None, None, self.reference.feasible if self.reference else None,
            schedule=_schedule(self.steps, self.world, self.t0),
            contamination_log=_log(self.world, self.log_start, self.t0)))

    def evaluate(self) -> InstanceReport:
        try:
            self._static_checks()
            self._happenings()
            self._end_checks()
        except _Stop as stop:
            return stop.report
        return self._costs()

    # ---- checks that need no state ---------------------------------------------------------------
    def _static_checks(self) -> None:
        tol = float(self.tolerance)
        for st in self.steps:
            if st.start < self.t0:
                raise self.fail(Problem.BEFORE_DECISION, f"{st.label} starts at {fmt(st.start - self.t0)} (before the "
                                "decision time: executed actions are fixed)", st, st.start,
                                f"start {st.label} at 0 or later")
            want = float(st.schema.duration)
            got = atof(st.duration)
            if not (got - want if got > want else want - got) < tol:  # VAL: |d - D| < tol, in doubles
                raise self.fail(Problem.DURATION, f"{st.label} lasts {fmt(st.duration)}, the registry says "
                                f"{st.schema.duration}", st, st.start,
                                f"set the duration of {st.label} to {st.schema.duration}")

    def _members(self) -> list[_Member]:
        """Plan happenings in file order, then the timed literals of the compiled problem (as VAL orders them)."""
        out: list[_Member] = []
        for st in self.steps:
            out += [_Member("start", st.rel_start, st), _Member("end", st.rel_end, st)]
        out += [_Member("history-end", float(rec.end - self.t0), record=rec) for rec in self.ongoing]
        out.append(_Member("deadline", float(self.horizon - self.t0 + DEADLINE_SLACK)))
        return out

    # ---- happenings -------------------------------------------------------------------------------
    def _happenings(self) -> None:
        members = self._members()
        groups = merge_times([m.time for m in members], float(self.tolerance) / 10)
        active: dict[int, _Step] = {}
        seen = len(self.world.violations)
        for k, group in enumerate(groups):
            happening = [members[i] for i in group]
            self._deadline(happening)
            self._mutex(happening)
            for m in happening:
                self._apply(m, active)
            if len(self.world.violations) > seen:
                raise self._hygiene(self.world.violations[seen])
            if k + 1 < len(groups):  # over-all conditions hold on the open interval up to the next happening
                at = self._exact(happening[0])
                for j, o in active.items():
                    self._physical(at, self.world.check_invariants, o.schema, o.args, at, j, o.label)
                movers = [m.step.index for m in happening if m.step is not None]
                if movers:  # history actions still running keep their over-all conditions (declared.py)
                    self._physical(at, check_running_history, self.reg, self.world, self.ongoing, at,
                                   self.tolerance, movers[0])

    def _exact(self, m: _Member) -> Fraction:
        if m.step is not None:
            return m.step.start if m.kind == "start" else m.step.end
        if m.record is not None:
            return Fraction(m.record.end)
        return Fraction(self.horizon) + DEADLINE_SLACK

    def _deadline(self, happening: list[_Member]) -> None:
        if not any(m.kind == "deadline" for m in happening):
            return
        for m in happening:
            if m.step is not None:
                t = self._exact(m)
                raise self.fail(Problem.HORIZON, f"the {m.kind} of {m.step.label} at {fmt(t - self.t0)} falls within "
                                f"tolerance/10 of the deadline literal at {fmt(self._exact(happening[-1]) - self.t0)} "
                                "(one happening, as VAL groups them)", m.step, t,
                                f"finish by {self.horizon - self.t0}")

    def _fluents(self, m: _Member) -> tuple[set, set]:
        """(reads, writes) for VAL's mutex rule: conditions at that point (not over-all ones) and effects."""
        if m.step is not None:
            return happening_fluents(m.step.schema, m.step.args, self.world, m.kind, overall=False, fired=True)
        if m.record is not None:  # a timed literal has effects only
            return set(), happening_fluents(self.reg.actions[m.record.name], m.record.args, self.world, "end",
                                            fired=True)[1]
        return set(), set()

    def _describe(self, m: _Member) -> str:
        if m.step is not None:
            return f"the {m.kind} of {m.step.label} at {fmt(self._exact(m) - self.t0)}"
        rec = m.record
        return (f"the end of the ongoing history[{rec.index}] {rec.text()} at {fmt(rec.end - self.t0)} (a timed "
                "literal of the problem)")

    def _mutex(self, happening: list[_Member]) -> None:
        if len(happening) < 2:
            return
        fluents = [self._fluents(m) for m in happening]
        for i, a in enumerate(happening):
            for j in range(i + 1, len(happening)):
                b = happening[j]
                if a.step is not None and a.step is b.step:
                    continue
                (ra, wa), (rb, wb) = fluents[i], fluents[j]
                if wa & (rb | wb) or wb & ra:
                    raise self._interference(a, b)

    def _interference(self, a: _Member, b: _Member) -> _Stop:
        plan, other = (b, a) if b.step is not None else (a, b)
        margin = fmt(self.tolerance / 10)
        if other.record is not None:  # a timed literal cannot move
            advice = (f"move {plan.step.label} so that its {plan.kind} comes more than {margin} after "
                      f"{fmt(other.record.end - self.t0)} (the literal takes effect in that happening, after its "
                      "conditions are read)")
        else:
            advice = f"separate them by more than {margin} (a plan writer's epsilon: {fmt(self.tolerance)})"
        return self.fail(Problem.MUTEX, f"{self._describe(a)} and {self._describe(b)} are at most tolerance/10 = "
                         f"{margin} apart (one happening, as VAL groups them) and interfere", plan.step,
                         self._exact(plan), advice)

    def _apply(self, m: _Member, active: dict[int, _Step]) -> None:
        world, t = self.world, self._exact(m)
        st = m.step
        if m.kind == "history-end":
            rec = m.record
            self._physical(t, world.end_action, self.reg.actions[rec.name], rec.args, t, rec.index,
                           f"history[{rec.index}]")
        elif m.kind == "start":
            if st.inapplicable:
                raise self.fail(Problem.CONDITION, f"{st.label} at {fmt(t - self.t0)} is not applicable: "
                                f"{st.inapplicable}", st, t, f"use the arguments that fit the objects of {st.label}")
            self._physical(t, world.start_action, st.schema, st.args, t, st.index, st.label, st.end)
            active[st.index] = st
        elif m.kind == "end":
            self._physical(t, world.end_action, st.schema, st.args, t, st.index, st.label)
            active.pop(st.index, None)

    def _physical(self, time: Fraction, call, *args) -> None:
        """`call(*args)` on the world; a physical inconsistency is the plan's failure at `time`."""
        try:
            call(*args)
        except PhysicalInconsistency as exc:
            step = self.steps[exc.step] if 0 <= exc.step < len(self.steps) else None
            problem = (Problem.BUSY if "busy" in exc.message else
                       Problem.STOCK if "left" in exc.message and "needs" in exc.message else Problem.CONDITION)
            raise self.fail(problem, exc.message.replace(f" at {time}:", f" at {fmt(time - self.t0)} "
                                                         f"(t={fmt(time)}):"), step, time, exc.advice) from None

    def _hygiene(self, v) -> _Stop:
        source = v.provenance[-2].carrier if len(v.provenance) > 1 else None
        advice = (f"treat the {source[0]} {source[1]} before {v.label}"
                  if source and self.world.rules.is_gripper_part(source)
                  else f"keep {v.hazard} away from {v.carrier[0]} {v.carrier[1]}")
        return self.fail(Problem.HYGIENE, f"{v.label} at {fmt(v.time - self.t0)} (t={fmt(v.time)}): {v.carrier[0]} "
                         f"{v.carrier[1]} would receive {v.hazard}, which it is protected against",
                         self.steps[v.step], v.time, advice, chain_text(v.provenance))

    # ---- after the last happening -----------------------------------------------------------------
    def _end_checks(self) -> None:
        for st in self.steps:
            if grid(st.end) > self.horizon:
                raise self.fail(Problem.HORIZON, f"{st.label} ends at {fmt(st.end - self.t0)}, after the deadline "
                                f"{self.horizon - self.t0}", st, st.end, f"finish by {self.horizon - self.t0}")
        for g in self.inst.goals:
            if not self.world.goal_holds(g):
                raise self.fail(Problem.GOAL, f"goal {atom_text(g)} does not hold at the end of the plan",
                                advice=f"add steps that make {atom_text(g)} true")

    def _costs(self) -> InstanceReport:
        steps, t0, ref = self.steps, self.t0, self.reference
        amounts = {d: sum(dict(st.schema.costs).get(d, 0) for st in steps) for d in SUMMED}
        amounts["active_robot_time"] = sum(st.schema.duration for st in steps if st.schema.occupies)
        amounts["makespan"] = max((grid(st.end) for st in steps), default=t0) - t0
        cost = CostVector.from_mapping(amounts)
        optimal = first = None
        if ref is not None and ref.optimal_cost is not None:
            first = self.inst.profile.first_worse(cost, ref.optimal_cost)
            optimal = cost.key(self.inst.profile) <= ref.optimal_cost.key(self.inst.profile)
        return InstanceReport(self.inst.id, True, (), cost, None, ref.feasible if ref else None, optimal, first,
                              schedule=_schedule(steps, self.world, t0),
                              contamination_log=_log(self.world, self.log_start, t0))


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
                "step": None if f.step is None else f.step + 1,  # plan-file order from 1, as at the PDDL level
                "time": None if f.time is None else number_json(f.time),
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

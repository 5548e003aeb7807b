"""Hygiene-NSP and the PDDL-level validator as unified-planning engines.

After ``import hygiene_pddl.up_engines`` (or ``hygiene_pddl.up_engines.register(env)``), a
unified-planning user writes, as for up-fast-downward::

    from unified_planning.io import PDDLReader
    from unified_planning.shortcuts import OneshotPlanner, PlanValidator
    import hygiene_pddl.up_engines  # noqa: F401 - registers "hygiene-nsp" and "hygiene-val"

    problem = PDDLReader().parse_problem("domains/spoon_fruit.pddl", "problems/.../X.no-total-time.pddl")
    with OneshotPlanner(name="hygiene-nsp") as planner:
        result = planner.solve(problem, timeout=30)
    with PlanValidator(name="hygiene-val") as validator:
        print(validator.validate(problem, result.plan).status)

or, without any import, puts the two engines in ``~/.uprc`` (unified-planning's configuration file)::

    [engine hygiene-nsp]
    module_name: hygiene_pddl.up_engines
    class_name: HygieneNSPEngine

**hygiene-nsp** plans the problems our compiler writes: the temporal problem of a benchmark instance
(``X.no-total-time.pddl``, what unified-planning reads; ``hygiene-pddl compile X.json --for up``). Its problem
kind is what PDDLReader makes of those files (:data:`TEMPORAL_KIND`). Hygiene-NSP plans from the instance
(history, profile, registries), not from the PDDL alone: the engine finds the instance whose compiled
problem this is (the ``instance`` parameter, a path to its JSON, or the committed benchmark by the problem's
name), checks that the problem is that compilation (same objects, initial state, goals and actions), and
answers UNSUPPORTED_PROBLEM otherwise. Statuses: a plan is SOLVED_OPTIMALLY only when Hygiene-NSP proved it
lexicographically optimal and the profile ranks the makespan last (the metric unified-planning reads leaves
the makespan out, so only then do the two optima coincide), else SOLVED_SATISFICING; a proof of infeasibility
is UNSOLVABLE_PROVEN; no plan and no proof is TIMEOUT when the time limit was used up, else
UNSOLVABLE_INCOMPLETELY.

**hygiene-val** validates a plan with the PDDL-level validator (VAL's semantics, ε = 0.01): the problem is
written with unified-planning's PDDLWriter and the plan in its names, so it works for any problem of the
declared kinds (the temporal and the classical files our compiler writes).
"""

from __future__ import annotations

import warnings
from fractions import Fraction
from pathlib import Path

from unified_planning.engines import (
    Credits,
    Engine,
    LogLevel,
    LogMessage,
    PlanGenerationResult,
    PlanGenerationResultStatus,
    ValidationResult,
    ValidationResultStatus,
)
from unified_planning.engines.mixins import OneshotPlannerMixin, PlanValidatorMixin
from unified_planning.engines.mixins.oneshot_planner import OptimalityGuarantee
from unified_planning.model import ProblemKind
from unified_planning.plans import ActionInstance, PlanKind, SequentialPlan, TimeTriggeredPlan

NSP_NAME = "hygiene-nsp"
VAL_NAME = "hygiene-val"
_CREDITS = Credits("hygiene-pddl", "the hygiene-pddl authors", "", "", "Apache-2.0",
                   "Hygiene-NSP: lexicographic CP-SAT planning for hygiene-aware household robots",
                   "Hygiene-NSP plans HygieneRoboBench instances; hygiene-val checks plans with VAL's semantics.")

#: What unified-planning's PDDLReader makes of every temporal file the compiler writes (the v2 compiler adds
#: quantified contacts and treatments, distinct object parameters and the makespan declaration's tick values; the
#: v2 benchmark's carriers typed by the roles they play, and existential contact conditions).
TEMPORAL_FEATURES = ("ACTION_BASED", "CONDITIONAL_EFFECTS", "CONTINUOUS_TIME", "DECREASE_EFFECTS",
                     "DISJUNCTIVE_CONDITIONS", "EQUALITIES", "EXISTENTIAL_CONDITIONS", "FINAL_VALUE", "FLAT_TYPING",
                     "FLUENTS_IN_NUMERIC_ASSIGNMENTS", "FORALL_EFFECTS", "GENERAL_NUMERIC_PLANNING",
                     "HIERARCHICAL_TYPING", "INCREASE_EFFECTS", "INT_TYPE_DURATIONS", "NEGATIVE_CONDITIONS",
                     "REAL_FLUENTS", "SIMPLE_NUMERIC_PLANNING", "TIMED_EFFECTS", "UNIVERSAL_CONDITIONS")
#: ... and of every classical file (Fast Downward's flavour).
CLASSICAL_FEATURES = ("ACTIONS_COST", "ACTION_BASED", "CONDITIONAL_EFFECTS", "DISJUNCTIVE_CONDITIONS", "EQUALITIES",
                      "EXISTENTIAL_CONDITIONS", "FLAT_TYPING", "FORALL_EFFECTS", "HIERARCHICAL_TYPING",
                      "INT_NUMBERS_IN_ACTIONS_COST", "NEGATIVE_CONDITIONS", "UNIVERSAL_CONDITIONS")


def _kind(features: tuple[str, ...]) -> ProblemKind:
    return ProblemKind(set(features), version=2)


TEMPORAL_KIND = _kind(TEMPORAL_FEATURES)
CLASSICAL_KIND = _kind(CLASSICAL_FEATURES)


def _log(text: str, level: LogLevel = LogLevel.INFO) -> LogMessage:
    return LogMessage(level, text)


def find_instance(problem, explicit: str | None = None):  # noqa: ANN001, ANN201 - UP problem; Instance
    """The instance whose compiled problem ``problem`` is (the JSON at ``explicit``, else the committed
    benchmark's instance named like the problem); raises InputError when there is none."""
    from hygiene_pddl.errors import InputError
    from hygiene_pddl.instances import load_instance
    from hygiene_pddl.paths import benchmark_root

    if explicit:
        return load_instance(Path(explicit))
    matches = sorted((benchmark_root() / "problems").glob(f"*/{problem.name}.json"))
    if not matches:
        raise InputError(f"no committed instance is named {problem.name!r}: pass the instance's JSON as the "
                         "engine parameter instance=PATH")
    return load_instance(matches[0])


def compiled_problem(inst, reg):  # noqa: ANN001, ANN201
    """The instance's temporal problem as unified-planning reads it (the ``--for up`` files)."""
    from unified_planning.io import PDDLReader

    from compiler.render import render_instance_domain, render_problem

    return PDDLReader().parse_problem_string(render_instance_domain(reg, inst),
                                             render_problem(reg, inst, metric_total_time=False)[0])


def _signature(problem) -> tuple:  # noqa: ANN001
    """What makes two problems the same task: objects, initial values, goals, timed effects, actions."""
    return (sorted(str(o) for o in problem.all_objects),
            sorted(f"{k}={v}" for k, v in problem.initial_values.items()),
            sorted(str(g) for g in problem.goals),
            sorted(f"{t}:{e}" for t, es in problem.timed_effects.items() for e in es),
            sorted(str(a) for a in problem.actions))


class HygieneNSPEngine(Engine, OneshotPlannerMixin):
    """Hygiene-NSP (joint lexicographic CP-SAT) behind unified-planning's OneshotPlanner."""

    def __init__(self, instance: str | None = None, **_: object):
        Engine.__init__(self)
        OneshotPlannerMixin.__init__(self)
        self.instance = instance

    @property
    def name(self) -> str:
        return NSP_NAME

    @staticmethod
    def supported_kind() -> ProblemKind:
        return TEMPORAL_KIND

    @staticmethod
    def supports(problem_kind: ProblemKind) -> bool:
        return problem_kind <= TEMPORAL_KIND

    @staticmethod
    def satisfies(optimality_guarantee: OptimalityGuarantee) -> bool:
        # every plan it returns is valid; optimality for the metric UP reads is not guaranteed (see above)
        return optimality_guarantee == OptimalityGuarantee.SATISFICING

    @staticmethod
    def get_credits(**kwargs) -> Credits:  # noqa: ANN003
        return _CREDITS

    def _solve(self, problem, heuristic=None, timeout=None, output_stream=None) -> PlanGenerationResult:  # noqa: ANN001
        from hygiene_pddl.errors import InputError
        from hygiene_pddl.planners import catalogue
        from hygiene_pddl.planners.base import PlanStatus
        from hygiene_pddl.plans import parse_plan
        from hygiene_pddl.registries import load_registries

        def answer(status, plan=None, logs=()):  # noqa: ANN001, ANN202
            return PlanGenerationResult(status, plan, self.name, log_messages=[_log(m) for m in logs])

        reg = load_registries()
        try:
            inst = find_instance(problem, self.instance)
        except InputError as exc:
            return answer(PlanGenerationResultStatus.UNSUPPORTED_PROBLEM, logs=[str(exc)])
        if _signature(compiled_problem(inst, reg)) != _signature(problem):
            return answer(PlanGenerationResultStatus.UNSUPPORTED_PROBLEM,
                          logs=[f"the problem is not the compiled instance {inst.id} (objects, initial state, goals "
                                "or actions differ): hygiene-nsp plans the problems hygiene-pddl compiles"])
        limit = float(timeout) if timeout is not None else 60.0
        result = catalogue()["hygiene-nsp"].factory().solve(inst, limit, reg)
        logs = list(result.notes)
        if result.status is PlanStatus.INFEASIBLE:
            return answer(PlanGenerationResultStatus.UNSOLVABLE_PROVEN, logs=logs)
        if result.status is not PlanStatus.PLAN:
            ran_out = result.timing("total") >= 0.9 * limit
            return answer(PlanGenerationResultStatus.TIMEOUT if ran_out
                          else PlanGenerationResultStatus.UNSOLVABLE_INCOMPLETELY, logs=logs)
        timed = []
        for s in parse_plan(result.plan_text).steps:
            action = problem.action(s.action)
            args = [problem.object(a) for a in s.args]
            timed.append((Fraction(s.time), ActionInstance(action, args), Fraction(s.duration)))
        optimal = result.proved_optimal and inst.profile.order[-1] == "makespan"
        if result.proved_optimal and not optimal:
            logs.append("lexicographically optimal for the profile; the profile does not rank the makespan last, "
                        "so this is not a proof of optimality for the metric unified-planning reads")
        return answer(PlanGenerationResultStatus.SOLVED_OPTIMALLY if optimal
                      else PlanGenerationResultStatus.SOLVED_SATISFICING, TimeTriggeredPlan(timed), logs)


class HygieneValidator(Engine, PlanValidatorMixin):
    """The PDDL-level validator (VAL's semantics) behind unified-planning's PlanValidator."""

    def __init__(self, tolerance: str = "0.01", **_: object):
        Engine.__init__(self)
        PlanValidatorMixin.__init__(self)
        self.tolerance = Fraction(tolerance)

    @property
    def name(self) -> str:
        return VAL_NAME

    @staticmethod
    def supported_kind() -> ProblemKind:
        return TEMPORAL_KIND.union(CLASSICAL_KIND)

    @staticmethod
    def supports(problem_kind: ProblemKind) -> bool:
        return problem_kind <= TEMPORAL_KIND or problem_kind <= CLASSICAL_KIND

    @staticmethod
    def supports_plan(plan_kind: PlanKind) -> bool:
        return plan_kind in (PlanKind.SEQUENTIAL_PLAN, PlanKind.TIME_TRIGGERED_PLAN)

    @staticmethod
    def get_credits(**kwargs) -> Credits:  # noqa: ANN003
        return _CREDITS

    def _validate(self, problem, plan) -> ValidationResult:  # noqa: ANN001
        from unified_planning.io import PDDLWriter

        from hygiene_pddl.pddl import parse_domain, parse_problem
        from hygiene_pddl.plans import parse_plan
        from hygiene_pddl.validation.pddl_level import PddlValidator

        writer = PDDLWriter(problem)
        domain_text, problem_text = writer.get_domain(), writer.get_problem()  # names are made here
        name = writer.get_pddl_name

        def line(ai: ActionInstance) -> str:
            return "(" + " ".join([name(ai.action), *(name(p.object()) for p in ai.actual_parameters)]) + ")"

        if isinstance(plan, SequentialPlan):
            text = "".join(f"{line(ai)}\n" for ai in plan.actions)
        elif isinstance(plan, TimeTriggeredPlan):
            text = "".join(f"{_decimal(Fraction(t))}: {line(ai)}" + (f" [{_decimal(Fraction(d))}]" if d is not None
                                                                      else "") + "\n"
                           for t, ai, d in plan.timed_actions)
        else:  # pragma: no cover - supports_plan keeps other kinds out
            return ValidationResult(ValidationResultStatus.UNKNOWN, self.name, [_log("plan kind not supported")])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            validator = PddlValidator(parse_domain(domain_text), parse_problem(problem_text), tolerance=self.tolerance)
        result = validator.validate(parse_plan(text))
        status = ValidationResultStatus.VALID if result.valid else ValidationResultStatus.INVALID
        logs = [_log(result.advice or ("plan valid" if result.valid else "plan invalid"),
                     LogLevel.INFO if result.valid else LogLevel.ERROR)]
        metrics = None
        if result.valid and result.metric_value is not None and problem.quality_metrics:
            metrics = {problem.quality_metrics[0]: result.metric_value}
        return ValidationResult(status, self.name, logs, metrics)


def _decimal(x: Fraction) -> str:
    """An exact decimal for a rational with a power-of-2-and-5 denominator, else 6 places."""
    return str(x.numerator) if x.denominator == 1 else f"{float(x):.6f}".rstrip("0")


def register(env=None) -> None:  # noqa: ANN001
    """Add hygiene-nsp and hygiene-val to unified-planning's factory (the global environment by default)."""
    from unified_planning.environment import get_environment

    env = env if env is not None else get_environment()
    for name, cls in ((NSP_NAME, "HygieneNSPEngine"), (VAL_NAME, "HygieneValidator")):
        if name not in env.factory.engines:
            env.factory.add_engine(name, __name__, cls)


register()

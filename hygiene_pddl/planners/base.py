"""One interface for every planner: public input and a time budget in, a structured result out."""

from __future__ import annotations

import enum
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction

from compiler.steps import StepMapper
from hygiene_pddl.costs import CostVector
from hygiene_pddl.instances.model import Instance
from hygiene_pddl.plans.epsilon import add_epsilon_offsets
from hygiene_pddl.plans.model import Plan, PlanStep
from hygiene_pddl.plans.writer import write_plan
from hygiene_pddl.registries import Registries
from hygiene_pddl.replay import World

EPSILON = Fraction(1, 100)


class PlanStatus(enum.Enum):
    PLAN = "plan"
    INFEASIBLE = "infeasible"
    UNDETERMINED = "undetermined"


@dataclass(frozen=True)
class ChosenStep:
    """A continuation action in registry terms, with its start relative to the decision time."""

    start: int
    name: str
    args: tuple[str, ...]
    duration: int
    order: int = 0  # position of its start happening among the plan's happenings (for epsilon ties)
    end_order: int | None = None  # position of its end happening, when the planner fixed one


@dataclass(frozen=True)
class PlannerResult:
    planner: str
    instance: str
    status: PlanStatus
    proved_optimal: bool
    steps: tuple[ChosenStep, ...]
    plan_text: str
    cost: CostVector | None
    timings: tuple[tuple[str, float], ...]  # build, solve, total (seconds)
    notes: tuple[str, ...] = field(default=())
    #: undetermined because the time limit ran out (the bench records it as a timeout, not an answer)
    timed_out: bool = False
    #: What the call used beyond time, as plain JSON data (LLM planners: endpoint parameters, tokens, cost,
    #: cache hits, retries, grounding); carried into the bench's result record unchanged.
    usage: dict | None = None
    #: A claim weaker than optimality that the answer still proves, with its bound stated (Hygiene-NSP: "optimal
    #: among plans of at most N actions, each ground action at most once" when its joint model over every
    #: reachable ground action is solved to optimality but the relaxation does not exclude longer plans or
    #: repeats); '' when there is none. ``proved_optimal`` never rests on it.
    bounded_claim: str = ""

    def timing(self, key: str) -> float:
        return dict(self.timings).get(key, 0.0)


Timings = tuple[tuple[str, float], ...]


def timings_since(t0: float, t_build: float) -> Timings:
    """(build, solve, total) seconds of a call that started at ``t0`` (perf_counter) and built for ``t_build``."""
    total = time.perf_counter() - t0
    return (("build", t_build), ("solve", total - t_build), ("total", total))


def no_plan_result(planner: str, reg: Registries, inst: Instance, status: PlanStatus, timings: Timings,
                   notes: Iterable[str], timed_out: bool = False) -> PlannerResult:
    """An answer without a plan (proved infeasible or undetermined, ``timed_out`` when the time limit ended the
    search): its plan file holds only the status."""
    return PlannerResult(planner, inst.id, status, False, (), plan_text(reg, inst, [], planner, None, status), None,
                         timings, tuple(notes), timed_out=timed_out and status is PlanStatus.UNDETERMINED)


@dataclass(frozen=True)
class PlannerInfo:
    name: str
    description: str
    factory: Callable[[], object]
    available: Callable[[], tuple[bool, str]] = lambda: (True, "")


PLANNERS: dict[str, PlannerInfo] = {}


def register(info: PlannerInfo) -> PlannerInfo:
    PLANNERS[info.name] = info
    return info


@dataclass(frozen=True)
class PlannerFamily:
    """Planners named ``PREFIX:ARGUMENT`` (``llm:<model>``, ``saved:<dir>``): ``make`` builds the
    :class:`PlannerInfo` of one full name, ``canonical`` rewrites a name into the form every process agrees on
    (e.g. a relative folder made absolute), ``usage`` is the name pattern for listings."""

    prefix: str
    usage: str
    description: str
    make: Callable[[str], PlannerInfo]
    canonical: Callable[[str], str] = lambda name: name


PLANNER_FAMILIES: dict[str, PlannerFamily] = {}


def register_family(family: PlannerFamily) -> PlannerFamily:
    PLANNER_FAMILIES[family.prefix] = family
    return family


def _tie(reg: Registries, a: ChosenStep, b: ChosenStep, world: World) -> int:
    """Whether steps ``a`` and ``b`` (``a`` first in start order) have coinciding happenings that interfere: 0 when
    not, else 1 when ``b`` goes after ``a``, -1 when before (the happening order the planner fixed, if any)."""
    from hygiene_pddl.replay import happening_fluents

    first = None
    for pa, ta, oa in (("start", a.start, a.order), ("end", a.start + a.duration, a.end_order)):
        for pb, tb, ob in (("start", b.start, b.order), ("end", b.start + b.duration, b.end_order)):
            if ta != tb:
                continue
            ra, wa = happening_fluents(reg.actions[a.name], a.args, world, pa)
            rb, wb = happening_fluents(reg.actions[b.name], b.args, world, pb)
            if wa & (rb | wb) or wb & ra:
                order = 1 if oa is None or ob is None or oa < ob else -1
                key = (min(oa, ob) if oa is not None and ob is not None else -1)
                if first is None or key < first[0]:
                    first = (key, order)
    return 0 if first is None else first[1]


def _literal_ties(reg: Registries, inst: Instance, ordered: list[ChosenStep],
                  world: World) -> set[tuple[Fraction, int]]:
    """(time, j): a happening of step j falls on a timed literal of the compiled problem (the end of an action
    still running at the decision time) that writes what the happening reads or writes, or deletes a keep fact
    holding the running action's over-all conditions (compiler/processes.py): j goes after it."""
    from hygiene_pddl.replay import happening_fluents, replay

    out: set[tuple[Fraction, int]] = set()
    if not any(rec.kind == "action" and rec.end > inst.decision_time for rec in inst.history):
        return out  # nothing can still be running (no replay needed)
    for rec in replay(inst, reg).ongoing:
        schema = reg.actions[rec.name]
        binding = dict(zip(schema.param_names, rec.args, strict=True))
        at = Fraction(rec.end - inst.decision_time)
        writes = happening_fluents(schema, rec.args, world, "end")[1]
        writes |= {lit.ground(binding).atom for lit in schema.cond_overall}
        for j, s in enumerate(ordered):
            for phase, t in (("start", s.start), ("end", s.start + s.duration)):
                reads, own = happening_fluents(reg.actions[s.name], s.args, world, phase)
                if t == at and writes & (reads | own):
                    out.add((at, j))
    return out


def _finish_step(mapper: StepMapper, steps: list[ChosenStep], timed: tuple[PlanStep, ...],
                 epsilon: Fraction) -> PlanStep:
    """``(finish tuK)``: the makespan K in whole TU, declared epsilon after the last happening."""
    makespan = max((s.start + s.duration for s in steps), default=0)
    last = max((s.time + (s.duration or 0) for s in timed), default=None)
    name, args = mapper.finish_step(makespan)
    return PlanStep(name, args, Fraction(0) if last is None else last + epsilon)


def plan_text(
    reg: Registries,
    inst: Instance,
    steps: list[ChosenStep],
    planner: str,
    cost: CostVector | None,
    status: PlanStatus = PlanStatus.PLAN,
    epsilon: Fraction = EPSILON,
) -> str:
    """A VAL-style plan file in the generated PDDL's names, with epsilon-separated dependent happenings."""
    header = [
        f"; planner: {planner}",
        f"; instance: {inst.id} (times relative to decision time t={inst.decision_time})",
    ]
    if status is not PlanStatus.PLAN:
        return "\n".join(header) + "\n" + write_plan(Plan(status=status.value))
    mapper = StepMapper(reg, inst)
    ordered = sorted(steps, key=lambda s: (s.start, s.order))
    world = World.initial(reg, inst)
    deps = set()
    for i, a in enumerate(ordered):
        for j in range(i + 1, len(ordered)):
            tie = _tie(reg, a, ordered[j], world)
            if tie:
                deps.add((i, j) if tie > 0 else (j, i))
    pddl_steps = []
    for s in ordered:
        name, args = mapper.to_pddl(s.name, s.args)
        pddl_steps.append(PlanStep(name, args, Fraction(s.start), Fraction(s.duration)))
    timed = add_epsilon_offsets(pddl_steps, deps, epsilon, literals=_literal_ties(reg, inst, ordered, world))
    if mapper.uses_ticks:
        timed = (*timed, _finish_step(mapper, steps, timed, epsilon))
    costs = tuple((d, Fraction(v)) for d, v in cost.as_dict().items()) if cost else ()
    return "\n".join(header) + "\n" + write_plan(Plan(steps=timed, cost=costs), decimals=3)

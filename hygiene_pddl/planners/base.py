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
    #: what the call consumed besides time, e.g. ``(("prompt_tokens", 812), ("completion_tokens", 95))`` for a
    #: language-model planner; JSON-serialisable values; the bench record keeps it as the ``usage`` dict
    usage: tuple[tuple[str, object], ...] = field(default=())

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


def _interfere(reg: Registries, inst: Instance, a: ChosenStep, b: ChosenStep, world: World) -> bool:
    from hygiene_pddl.replay import happening_fluents

    for pa in ("start", "end"):
        for pb in ("start", "end"):
            ra, wa = happening_fluents(reg.actions[a.name], a.args, world, pa)
            rb, wb = happening_fluents(reg.actions[b.name], b.args, world, pb)
            if wa & (rb | wb) or wb & ra:
                return True
    return False


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
            b = ordered[j]
            times_a = {a.start, a.start + a.duration}
            if times_a & {b.start, b.start + b.duration} and _interfere(reg, inst, a, b, world):
                deps.add((i, j))
    pddl_steps = []
    for s in ordered:
        name, args = mapper.to_pddl(s.name, s.args)
        pddl_steps.append(PlanStep(name, args, Fraction(s.start), Fraction(s.duration)))
    timed = add_epsilon_offsets(pddl_steps, deps, epsilon)
    costs = tuple((d, Fraction(v)) for d, v in cost.as_dict().items()) if cost else ()
    return "\n".join(header) + "\n" + write_plan(Plan(steps=timed, cost=costs), decimals=3)

"""Instance-level rules the compiled PDDL states and VAL checks (docs/world-model-v2.md §2, §3).

* A plan declares its makespan in whole TU with ``T: (finish tuK)`` when the instance's problem weighs
  makespan by ticks: the declaration is the makespan; a plan without it is rejected; no continuation action starts
  or ends in or after the finish happening; K must be at least the tick the last end reaches (an end at e
  reaches tick k once the timed literal at k − 0.5 lies in an earlier happening, i.e. more than tolerance/10
  before e).
* A history action still running at the decision time keeps its over-all conditions until its end; its end is a
  timed literal, so a plan happening within tolerance/10 of it still reads them (as VAL does).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

from compiler.steps import StepMapper
from hygiene_pddl.errors import InputError, Location
from hygiene_pddl.instances.model import HistoryRecord
from hygiene_pddl.plans.model import Plan
from hygiene_pddl.registries import Registries
from hygiene_pddl.replay import World
from hygiene_pddl.validation.pddl_level.numeric import atof


@dataclass(frozen=True)
class Declaration:
    """The plan's ``(finish tuK)`` step: K, its time (relative to the decision time) and its index in the plan."""

    makespan: int
    time: Fraction
    index: int


def split_finish(mapper: StepMapper, plan: Plan, plan_file: str | None = None
                 ) -> tuple[Plan, Declaration | None, str | None]:
    """(the plan without its finish step, the declaration, a problem with it or None)."""
    found: list[Declaration] = []
    steps = []
    for i, s in enumerate(plan.steps):
        k = mapper.finish_makespan(s.action, s.args, Location(plan_file, s.line))
        if k is None:
            steps.append(s)
            continue
        if s.duration is not None:
            raise InputError(f"finish is instantaneous: write `T: (finish {s.args[0]})` without a duration",
                             Location(plan_file, s.line))
        found.append(Declaration(k, s.time if s.time is not None else Fraction(i + 1), i))
    rest = replace(plan, steps=tuple(steps))
    if not mapper.uses_ticks:
        return rest, None, None
    if not found:
        return rest, None, ("the plan does not declare its makespan: this problem weighs makespan in whole TU, "
                            "so the plan ends with `T: (finish tuK)` (K its makespan, T after its last end)")
    if len(found) > 1:
        return rest, found[0], f"finish is possible once, the plan declares it {len(found)} times"
    return rest, found[0], None


def declaration_problem(decl: Declaration, ends: list[tuple[str, Fraction, Fraction]],
                        tolerance: Fraction) -> str | None:
    """What is wrong with a declaration given every continuation step (label, start, end), relative times."""
    margin = tolerance / 10
    for label, start, end in ends:
        # VAL's doubles decide whether the end and the declaration are one happening (as for every other pair)
        if not atof(decl.time) > atof(start) + atof(end - start) + atof(margin):
            return (f"{label} ends at {end}, not before (finish tu{decl.makespan}) at {decl.time}: nothing starts "
                    "or ends in or after the happening that declares the plan's end")
    last = max((end for _, _, end in ends), default=None)
    if last is not None and last - margin > decl.makespan + Fraction(1, 2):
        return (f"(finish tu{decl.makespan}) declares makespan {decl.makespan}, but a step ends at {last}: "
                f"declare at least tu{reached(last, tolerance)}")
    return None


def reached(end: Fraction, tolerance: Fraction) -> int:
    """The last tick an end at ``end`` marks (tick k's literal is at k − 0.5, in an earlier happening)."""
    k = 0
    while Fraction(2 * k + 1, 2) < end - tolerance / 10:
        k += 1
    return k


def check_running_history(reg: Registries, world: World, ongoing: list[HistoryRecord], time: Fraction,
                          tolerance: Fraction, step: int) -> None:
    """Raise PhysicalInconsistency (naming plan step ``step``) when the state after that step's happening at
    ``time`` (absolute) breaks an over-all condition of a history action running until a later end (or one within
    tolerance/10: one happening in VAL, whose conditions read the state before it)."""
    for rec in ongoing:
        if time <= rec.end + tolerance / 10:
            world.check_invariants(reg.actions[rec.name], rec.args, time, step,
                                   f"history[{rec.index}] {rec.text()} (running until {rec.end})")


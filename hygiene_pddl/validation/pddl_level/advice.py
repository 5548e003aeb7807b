"""Repair advice in VAL's spirit, and hints when another tolerance would change the verdict."""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from hygiene_pddl.plans import Plan

from .formulas import NEVER_CHANGES
from .numeric import decimal_text
from .result import Reason, ValidationResult

if TYPE_CHECKING:
    from .api import PddlValidator

_WHY = {
    Reason.MUTEX: "VAL treats happenings at most tolerance/10 apart as simultaneous and then "
                  "requires them to be mutex-free",
    Reason.DURATION: "VAL accepts a duration within the tolerance of its constraint",
    Reason.INVARIANT: "the tolerance decides which happenings merge",
    Reason.PRECONDITION: "the tolerance decides which happenings merge",
}


def _where(result: ValidationResult) -> str:
    f = result.failure
    if f is None:
        return ""
    step = f"step {f.step_index + 1}" if f.step_index is not None else "the happening"
    return f"{step} at {decimal_text(f.time)}" if f.time is not None else step


def _before(item: str, where: str) -> str:
    """An advice item with the time it is needed by (a fact that never changes has no such time)."""
    return item if NEVER_CHANGES in item else f"{item} before {where}"


def advice_text(result: ValidationResult, plan: Plan) -> str:
    """What to change, one line per item."""
    f = result.failure
    if f is None:
        if plan.status:
            return (f"The plan file claims `status: {plan.status}`, yet the empty plan "
                    "reaches the goal.")
        return ""
    where = _where(result)
    if f.reason is Reason.PRECONDITION:
        lines = [f"Plan failed because of unsatisfied precondition in: {f.action}"]
        several = any(item.startswith("step ") for item in f.unsatisfied)  # items of several members
        when = f"the happening at {decimal_text(f.time)}" if several else where
        lines += [_before(item, when) for item in f.unsatisfied]
    elif f.reason is Reason.DURATION:
        lines = [f"Failed duration constraint {f.condition} in {f.action} ({where})"]
        lines += [f"{item} (tolerance {decimal_text(result.tolerance)})"
                  for item in f.unsatisfied]
    elif f.reason is Reason.MUTEX:
        lines = [f"{f.action} has a mutex violation at time {decimal_text(f.time)}"
                 + (f" with {f.other_action}" if f.other_action else "")]
        lines += list(f.unsatisfied)
    elif f.reason is Reason.INVARIANT:
        lines = [f"{f.action} (step {f.step_index + 1}) has its over all condition "
                 f"unsatisfied: {f.condition}"]
        lines += list(f.unsatisfied)
    elif f.reason is Reason.GOAL and plan.status and not plan.steps:
        lines = [f"The plan file claims `status: {plan.status}` and has no steps: VAL reads an empty plan, "
                 "which does not reach the goal. The claim itself is checked at the instance level "
                 "(--instance with --reference)."]
    elif f.reason is Reason.GOAL:
        lines = ["The goal is not satisfied"]
        lines += [item if NEVER_CHANGES in item else f"{item} by the end of the plan" for item in f.unsatisfied]
    else:
        lines = [f.message]
    return "\n".join(lines)


def tolerance_hints(validator: PddlValidator, plan: Plan,
                    result: ValidationResult) -> tuple[str, ...]:
    """Hints naming the tolerances (among tol/10, tol*10, 0.001, 0.01) that flip the verdict."""
    tol = result.tolerance
    candidates = {tol / 10, tol * 10, Fraction(1, 1000), Fraction(1, 100)} - {tol}
    hints = []
    for cand in sorted(candidates):
        other = validator.engine(cand).run(plan)
        if other.status is result.status:
            continue
        if other.valid:
            why = _WHY.get(result.reason, "")
            hints.append(f"With -t {decimal_text(cand)} the plan would be valid"
                         + (f" ({why})." if why else "."))
        else:
            reason = other.reason.value if other.reason else "invalid"
            why = _WHY.get(other.reason, "")
            hints.append(f"With -t {decimal_text(cand)} the plan would be invalid: {reason}"
                         f" at {decimal_text(other.failure.time) if other.failure.time is not None else 'the end'}"
                         + (f" ({why})." if why else "."))
    return tuple(hints)

"""Write plans in the VAL format that `parse_plan` reads back (round trip is the identity)."""

from __future__ import annotations

from fractions import Fraction

from hygiene_pddl.decimals import decimal_literal, fixed_text

from .model import Plan, PlanStep


def format_decimal(value: Fraction, decimals: int | None = None) -> str:
    """Exact decimal text of `value`, or rounded to `decimals` places (always when the
    fraction has no finite decimal expansion; 6 places then unless told otherwise)."""
    if decimals is None:
        try:
            return decimal_literal(value)
        except ValueError:
            decimals = 6
    return fixed_text(value, decimals)


def format_step(step: PlanStep, decimals: int | None = None) -> str:
    """``time: (action args) [duration]`` (parts present only when the step has them)."""
    text = step.text()
    if step.time is not None:
        text = f"{format_decimal(step.time, decimals)}: {text}"
    if step.duration is not None:
        text += f" [{format_decimal(step.duration, decimals)}]"
    return text


def write_plan(plan: Plan, decimals: int | None = None) -> str:
    """The plan file text: status/cost annotations, one step a line, FD's cost trailer."""
    lines: list[str] = []
    if plan.status:
        lines.append(f"; status: {plan.status}")
    if plan.cost:
        items = " ".join(f"{name}={format_decimal(value)}" for name, value in plan.cost)
        lines.append(f"; cost: {items}")
    lines += [format_step(s, decimals) for s in plan.steps]
    if plan.trailer_cost is not None:
        lines.append(f"; cost = {format_decimal(plan.trailer_cost)} (general cost)")
    return "\n".join(lines) + "\n" if lines else ""

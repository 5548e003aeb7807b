"""Write plans in the VAL format that `parse_plan` reads back (round trip is the identity)."""

from __future__ import annotations

from fractions import Fraction

from .model import Plan, PlanStep


def format_decimal(value: Fraction, decimals: int | None = None) -> str:
    """Exact decimal text of `value`, or rounded to `decimals` places (always when the
    fraction has no finite decimal expansion; 6 places then unless told otherwise)."""
    if decimals is None:
        den = value.denominator
        for p in (2, 5):
            while den % p == 0:
                den //= p
        if den == 1:
            exact = 0
            while (value * 10**exact).denominator != 1:
                exact += 1
            return _fixed(value, exact)
        decimals = 6
    return _fixed(value, decimals)


def _fixed(value: Fraction, places: int) -> str:
    scaled = round(value * 10**places)
    sign = "-" if scaled < 0 else ""
    digits = str(abs(scaled)).rjust(places + 1, "0")
    if places == 0:
        return sign + digits
    return f"{sign}{digits[:-places]}.{digits[-places:]}"


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

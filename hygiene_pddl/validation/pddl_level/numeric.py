"""Number handling: VAL computes in IEEE doubles; an exact (Fraction) mode is available too.

In "val" mode every literal becomes the nearest double (as VAL's atof does) and arithmetic,
happening grouping and duration checks run in doubles, so boundary cases fall as in VAL.
"""

from __future__ import annotations

import math
from fractions import Fraction

from hygiene_pddl.decimals import rounded_text

Num = float | Fraction


class UndefinedValue(Exception):
    """A numeric fluent was read before it was given a value."""

    def __init__(self, key: tuple):
        super().__init__(key)
        self.key = key


def atof(value: Fraction | int) -> float:
    """The nearest double, as VAL's ``atof`` reads a literal: beyond a double's range, ±inf (HUGE_VAL)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


class Arith:
    """Literal conversion and the few operations whose behaviour differs between modes."""

    def __init__(self, mode: str = "val"):
        if mode not in ("val", "exact"):
            raise ValueError(f"arithmetic must be 'val' or 'exact', not {mode!r}")
        self.exact = mode == "exact"
        self.mode = mode

    def num(self, value: Fraction | int) -> Num:
        return Fraction(value) if self.exact else atof(value)

    def div(self, a: Num, b: Num) -> Num:
        if b == 0:
            if self.exact:
                raise ZeroDivisionError("division by zero")
            if a == 0 or math.isnan(a):
                return math.nan
            return math.copysign(math.inf, a) * math.copysign(1.0, b)
        return a / b

    def to_fraction(self, value: Num) -> Fraction | None:
        """The exact value (exact mode) or the shortest decimal that reads back as the double."""
        if isinstance(value, Fraction):
            return value
        if math.isnan(value) or math.isinf(value):
            return None
        return Fraction(repr(float(value)))


def val_format(value: Num) -> str:
    """A number as VAL prints it (C++ ostream, precision 10); an exact value beyond a double prints as inf."""
    x = atof(value) if isinstance(value, (Fraction, int)) else float(value)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.10g}"


def decimal_text(value: Fraction | None) -> str:
    """A short human decimal for reports (exact when it terminates within 6 places)."""
    if value is None:
        return "undefined"
    if value.denominator == 1:
        return str(value.numerator)
    try:
        text = f"{float(value):.6f}".rstrip("0").rstrip(".")
        return text if Fraction(text) == value else f"{float(value):.6g}"
    except OverflowError:  # beyond a double
        return rounded_text(value, 6)

"""Decimal literals read and written exactly (SPEC §6: numbers are exact rationals end to end)."""

from __future__ import annotations

from fractions import Fraction

from hygiene_pddl.limits import MAX_INT_LITERAL, number_too_long


def parse_decimal(literal: str) -> Fraction:
    """The exact value of ``1``, ``-2.5`` or ``3.``; ValueError beyond the length limit, and for an integer
    literal (no decimal point) beyond 32 bits: VAL's lexer reads those with C's ``atoi``, which makes
    3000000000 a negative number and 10^400 the number -1, so no reading of ours could agree with VAL.

    A leading-dot literal (``.5``) is not a number, as in VAL's lexer.
    """
    complaint = number_too_long(literal)
    if complaint:
        raise ValueError(complaint)
    whole, _, fraction = literal.partition(".")
    digits = whole.removeprefix("-") + fraction
    if not (whole.removeprefix("-") and digits.isascii() and digits.isdigit()):
        raise ValueError(f"not a decimal number: {literal!r}")
    if not fraction and "." not in literal and abs(int(whole)) > MAX_INT_LITERAL:
        shown = literal if len(literal) <= 15 else f"{literal[:12]}... ({len(literal)} digits)"
        raise ValueError(f"an integer literal beyond 32 bits, {shown}: VAL reads integers as a C int (atoi); "
                         "write it with a decimal point (3000000000.0), which VAL reads as a double")
    return Fraction(int(whole + fraction), 10 ** len(fraction))  # faster than Fraction(literal)


def fixed_text(value: Fraction | int, places: int) -> str:
    """``value`` rounded (half to even, exactly) to ``places`` decimals: ``fixed_text(1/3, 3) == "0.333"``."""
    scaled = round(Fraction(value) * 10**places)
    sign = "-" if scaled < 0 else ""
    digits = str(abs(scaled)).rjust(places + 1, "0")
    return sign + digits if places == 0 else f"{sign}{digits[:-places]}.{digits[-places:]}"


def decimal_literal(value: Fraction | int) -> str:
    """``value`` as a PDDL number, exactly (``123456789``, ``16.5``, ``-0.125``; never ``1.2e+08``).

    An integer beyond 32 bits gets a decimal point (``3000000000.0``): VAL reads integer literals as a C int.
    Raises ValueError for a value without a finite decimal expansion (such as 1/3).
    """
    x = Fraction(value)
    twos = fives = 0
    d = x.denominator
    while d % 2 == 0:
        d, twos = d // 2, twos + 1
    while d % 5 == 0:
        d, fives = d // 5, fives + 1
    if d != 1:
        raise ValueError(f"{x} has no finite decimal expansion; PDDL numbers are decimals")
    places = max(twos, fives)
    if places == 0 and abs(x) > MAX_INT_LITERAL:
        places = 1
    return fixed_text(x, places)


def rounded_text(value: Fraction | int, places: int = 3) -> str:
    """``value`` for people: an integer as it is, else rounded to ``places`` decimals (of any magnitude)."""
    x = Fraction(value)
    if x.denominator == 1:
        return str(x.numerator)
    if abs(x) < 2**53:  # a double holds it closely: its formatting (ties as before)
        return f"{float(x):.{places}f}"
    return fixed_text(x, places)

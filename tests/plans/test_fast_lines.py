"""Plain plan lines are read without Lark; whatever that reader accepts, the grammar reads alike.

Also VAL's lexing where it matters for verdicts: a leading-dot number (`.5`, `[.5]`) is not a number
(VAL stops reading or says "Bad plan description!": we stop with exit 2 and say where), and a UTF-8
byte-order mark is ignored (VAL reads such a plan).
"""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hygiene_pddl.errors import InputError
from hygiene_pddl.plans import parse_plan, read_plan
from hygiene_pddl.plans import parser as plan_parser

PIECES = ["0", "1.5", "2.", "-1", ".5", "[", "]", "(", ")", ":", " ", "\t", "\r", "\n", "\r\n", "\f", "pick",
          "Left", "a-b", "_x", "1a", "; c", "; status: infeasible", "; cost: water=2", "; cost = 3 (unit cost)",
          "\u212a", "\uff11", "\u00e9"]


def _read(text: str, fast: bool):
    text = text if text.endswith("\n") else text + "\n"
    steps, fields = [], {}
    try:
        if fast:
            if not plan_parser._fast_lines(text, None, steps, fields):
                return None
        else:
            plan_parser._grammar_lines(text, None, steps, fields)
    except InputError as exc:
        return ("error", exc.location.line, exc.location.column, exc.message)
    return [(s.action, s.args, s.time, s.duration, s.line) for s in steps], fields


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=14))
def test_fast_lines_agree_with_the_grammar(pieces):
    text = "".join(pieces)
    fast = _read(text, fast=True)
    if fast is not None:
        assert fast == _read(text, fast=False)


def test_plain_plans_take_the_fast_path():
    text = "; planner: x\r\n0.000: (pick left apple) [1.000] ; why\r\n\r\n1.01:(place left apple plate)[1]\r\n"
    assert _read(text, fast=True) == _read(text, fast=False)


@pytest.mark.parametrize("text, column", [("0: (a) [.5]", 9), (".5: (a) [1]", 1), ("-.5: (a) [1]", 1),
                                          ("0: (a) [-.5]", 9)])
def test_leading_dot_numbers_are_rejected_where_val_does_not_read_them(text, column):
    with pytest.raises(InputError, match=r"not \.5") as info:
        parse_plan(text, "p.plan")
    assert (info.value.location.line, info.value.location.column) == (1, column)


def test_trailing_dot_numbers_are_read_as_val_reads_them():
    step = parse_plan("1.: (a) [2.]").steps[0]
    assert (step.time, step.duration) == (1, 2)


def test_byte_order_mark_is_ignored(tmp_path):
    path = tmp_path / "p.plan"
    path.write_bytes(b"\xef\xbb\xbf0: (a b) [1]\n")
    assert read_plan(path).steps == parse_plan("0: (a b) [1]").steps
    assert parse_plan("\ufeff0: (a) [1]").steps[0].time == Fraction(0)

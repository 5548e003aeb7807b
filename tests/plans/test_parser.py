"""Plan reader: accepted formats, annotations, and errors with line:column and the line."""

from fractions import Fraction

import pytest

from hygiene_pddl.errors import InputError
from hygiene_pddl.plans import Plan, PlanStep, parse_plan


def test_val_style_lines_any_case_comments_blank_lines_crlf():
    text = ("; produced by some planner\r\n\r\n0.000: (Load Truck1 Box) [1.5]\r\n"
            "  1.5:(drive truck1 a b)   [10]  ; trailing comment\r\n12: (noop)\r\n")
    plan = parse_plan(text)
    assert plan.steps == (
        PlanStep("load", ("truck1", "box"), Fraction(0), Fraction(3, 2)),
        PlanStep("drive", ("truck1", "a", "b"), Fraction(3, 2), Fraction(10)),
        PlanStep("noop", (), Fraction(12), None),
    )
    assert [s.line for s in plan.steps] == [3, 4, 5]


def test_times_are_exact_fractions_never_floats():
    plan = parse_plan("0.1: (a) [0.2]\n1.: (b) [0.5]")
    assert plan.steps[0].time == Fraction(1, 10) and isinstance(plan.steps[0].time, Fraction)
    assert plan.steps[0].duration == Fraction(1, 5)
    assert plan.steps[1].time == 1 and plan.steps[1].duration == Fraction(1, 2)


def test_classical_plan_and_fast_downward_trailer():
    plan = parse_plan("(pick ball1 rooma left)\n(move rooma roomb)\n; cost = 2 (unit cost)\n")
    assert [s.time for s in plan.steps] == [None, None]
    assert plan.trailer_cost == 2
    assert not plan.is_temporal


def test_status_and_cost_annotations():
    plan = parse_plan("; status: INFEASIBLE\n; cost: water=2 makespan=5.5\n")
    assert plan == Plan((), "infeasible", (("water", Fraction(2)), ("makespan", Fraction(11, 2))))
    assert plan.cost_dict["makespan"] == Fraction(11, 2)
    assert parse_plan("; status: undetermined").status == "undetermined"
    # a comment that merely starts like an annotation is an ordinary comment
    assert parse_plan("; cost: 11 (unit cost)\n(a)").cost == ()


def test_empty_file_is_an_empty_plan():
    assert parse_plan("") == Plan()
    assert parse_plan("\n\n; nothing\n") == Plan()


@pytest.mark.parametrize("text, line, column, expected", [
    ("0: (a b", 1, 8, "')'"),
    ("(a)\n0: a b)", 2, 4, "'('"),
    ("(a) b", 1, 5, "end of line"),
    ("0: (a) [x]", 1, 9, "a time or duration"),
    ("0 (a)", 1, 3, "':'"),
    ("(1a)", 1, 2, "an action or object name"),
    ("0: (a) [1] garbage", 1, 12, "end of line"),
])
def test_garbage_is_rejected_with_position_and_expectation(text, line, column, expected):
    with pytest.raises(InputError) as info:
        parse_plan(text, "p.plan")
    err = info.value
    assert (err.location.file, err.location.line, err.location.column) == ("p.plan", line, column)
    assert expected in err.message
    assert text.split("\n")[line - 1] in err.message  # the offending line is shown


def test_status_with_steps_is_rejected():
    with pytest.raises(InputError, match="status: infeasible"):
        parse_plan("; status: infeasible\n0: (a)")


def test_unknown_status_is_rejected():
    with pytest.raises(InputError, match="unknown plan status"):
        parse_plan("; status: solved")

"""Verdicts on hand-made domains, each derived from how VAL executes plans."""

from fractions import Fraction

import pytest

from hygiene_pddl.errors import InputError
from hygiene_pddl.validation.pddl_level import Reason, Status

from .helpers import check, classical, toy

MAKESPAN = "(:metric minimize (total-time))"


def test_valid_temporal_plan_and_final_value():
    r = check(toy(metric=MAKESPAN), "0: (work a) [1]\n1.01: (work b) [1.2222]", trace=True)
    assert r.status is Status.VALID and r.valid
    assert r.metric_text == "2.2322" and r.metric_value == Fraction("2.2322")
    assert r.happenings == 4 and r.steps == 2
    assert [t.events for t in r.trace][0] == ("(work a) - start",)
    assert "(done a)" in r.trace[1].added


@pytest.mark.parametrize("start, tol, verdict", [
    ("1.001", "0.01", Reason.PRECONDITION),  # 0.001 <= tol/10: one happening
    ("1.0011", "0.01", None),
    ("1.001", "0.001", None),
    ("1.0001", "0.001", Reason.PRECONDITION),
    ("1", "0.01", Reason.PRECONDITION),
])
def test_end_and_dependent_start_merge_within_tolerance_over_ten(start, tol, verdict):
    r = check(toy(), f"0: (work a) [1]\n{start}: (work a) [1]", tolerance=tol)
    assert r.reason is verdict


@pytest.mark.parametrize("duration, tol, ok", [
    ("1.2222", "0.01", True), ("1.23", "0.01", True), ("1.24", "0.01", False),
    ("1.2222", "0.001", True), ("1.223", "0.001", True), ("1.224", "0.001", False),
    ("1.2123", "0.01", True), ("1.2122", "0.01", False),
])
def test_duration_equality_within_tolerance(duration, tol, ok):
    r = check(toy(goal="(done b)"), f"0: (work b) [{duration}]", tolerance=tol)
    assert r.valid is ok
    if not ok:
        assert r.reason is Reason.DURATION and r.failure.step_index == 0
        assert "1.22222" in r.advice


@pytest.mark.parametrize("duration, ok", [("1", True), ("0.995", True), ("0.98", False)])
def test_duration_inequality_tolerance(duration, ok):
    r = check(toy(goal="(ready)", metric="(:metric minimize (cost))"), f"0: (burn) [{duration}]")
    assert r.valid is ok
    if ok:
        assert r.metric_value == Fraction(duration)


def test_over_all_checked_on_open_interval_without_inner_happening():
    r = check(toy(), "0: (work a) [1]\n0: (unready)")
    assert r.reason is Reason.INVARIANT and r.failure.step_index == 0
    assert "(ready)" in r.failure.condition
    # deleting the invariant exactly at the end is fine (the interval is open)
    assert check(toy(), "0: (work a) [1]\n1: (unready)").valid


def test_timed_initial_literal_breaks_over_all():
    r = check(toy(extra="(at 0.5 (not (ready)))"), "0: (work a) [1]")
    assert r.reason is Reason.INVARIANT and r.failure.time == Fraction(1, 2)
    assert check(toy(extra="(at 1 (not (ready)))"), "0: (work a) [1]").valid


def test_timed_initial_literal_clashes_with_nearly_simultaneous_action():
    v = toy(extra="(at 10 (not (open)))", goal="(not (open))")
    assert check(v, "9.98: (close)").valid
    assert check(v, "9.999: (close)").reason is Reason.MUTEX
    assert check(v, "10.5: (close)").reason is Reason.PRECONDITION


def test_step_without_duration_gets_zero():
    r = check(toy(goal="(ready)"), "0: (flex a)")
    assert r.reason is Reason.MUTEX  # start deletes what the end adds, in one happening
    r = check(toy(), "0: (work a)")
    assert r.reason is Reason.DURATION


def test_untimed_steps_run_one_per_time_unit():
    r = check(toy(goal="(ready)", metric=MAKESPAN), "(pay)\n(pay)\n(pay)")
    assert r.valid and r.metric_value == 3


def test_numeric_preconditions_have_no_tolerance():
    r = check(toy(goal="(ready)"), "0: (burn) [1]\n2: (burn) [1]")
    assert r.reason is Reason.PRECONDITION and r.failure.step_index == 1
    assert "(fuel)" in r.advice and "now (fuel) = 2" in r.advice


def test_conditional_effect_condition_at_start_effect_at_end():
    v = toy(goal="(marked a)")
    assert check(v, "0: (work a) [1]").valid
    assert check(v, "0: (work a) [1]\n0.5: (close)").valid
    assert check(v, "0: (close)\n1: (work a) [1]").reason is Reason.GOAL


def test_goal_failure_names_missing_facts():
    r = check(toy(goal="(done a) (done b)"), "0: (work a) [1]")
    assert r.reason is Reason.GOAL and r.failure.unsatisfied == ("set (done b) to true",)
    assert "set (done b) to true by the end of the plan" in r.advice


def test_final_value_without_metric_counts_steps_and_tils():
    r = check(toy(extra="(at 20 (not (open)))", goal="(ready)"), "(pay)")
    assert r.valid and r.metric_value == 2


def test_total_time_ignores_timed_literals_after_the_plan():
    r = check(toy(extra="(at 20 (not (open)))", metric=MAKESPAN), "0: (work a) [1]")
    assert r.metric_value == 1


def test_concurrent_increases_commute_but_assign_does_not():
    assert check(toy(goal="(ready)"), "0: (pay)\n0: (pay)").valid
    assert check(toy(goal="(ready)"), "0: (pay)\n0: (reset)").reason is Reason.MUTEX


def test_two_starts_competing_for_one_fact_are_mutex():
    r = check(toy(), "0: (work a) [1]\n0.0005: (flex a) [1]")
    assert r.reason is Reason.MUTEX
    assert {r.failure.step_index, r.failure.other_step_index} == {0, 1}
    assert "separate" in r.advice


def test_val_double_arithmetic_decides_boundary_merges():
    # end at 0 + 1.13 and a start at 1.131: in doubles 1.131 > 1.13 + 0.001, exactly equal
    plan = "0: (flex a) [1.13]\n1.131: (flex a) [1]"
    assert check(toy(goal="(ready)"), plan).valid
    exact = toy(goal="(ready)", arithmetic="exact")
    assert check(exact, plan).reason is Reason.PRECONDITION


def test_undefined_fluent_is_a_numeric_error():
    v = toy(goal="(ready)")
    v.world.init_fluents.pop(("fuel",))
    assert check(v, "0: (burn) [1]").reason is Reason.NUMERIC_ERROR


def test_empty_plan():
    r = check(toy(goal="(ready)"), "")
    assert r.valid and r.metric_value == 0
    r = check(toy(goal="(ready)"), "; status: infeasible")
    assert r.valid and "claims" in r.advice


def test_classical_plan():
    v = classical()
    r = check(v, "(move c1 c2)\n(move c2 c3)\n; cost = 2 (unit cost)")
    assert r.valid and r.metric_value == 2
    assert check(v, "(move c1 c2)").reason is Reason.GOAL
    r = check(v, "(move c2 c3)")
    assert r.reason is Reason.PRECONDITION and "set (at c2) to true" in r.advice


@pytest.mark.parametrize("plan, message", [
    ("(jump c1)", "unknown action 'jump'"),
    ("(move c1)", "takes 2 argument"),
    ("(move c1 c9)", "unknown object 'c9'"),
    ("(move r1 c2)", "has type robot"),
])
def test_bad_steps_are_input_errors(plan, message):
    with pytest.raises(InputError, match=message) as info:
        check(classical(), plan)
    assert info.value.location.line == 1


def test_hint_when_another_tolerance_flips_the_verdict():
    r = check(toy(), "0: (work a) [1]\n1.001: (work a) [1]", hints=True)
    assert not r.valid
    assert any("-t 0.001" in h and "valid" in h for h in r.hints)


def test_batch_validation_reuses_one_world():
    v = toy()
    from hygiene_pddl.plans import parse_plan

    plans = [parse_plan(p) for p in ("0: (work a) [1]", "0: (work a) [2]", "(pay)")]
    assert [r.valid for r in v.validate_many(plans)] == [True, False, False]


def test_division_by_zero():
    # VAL divides doubles (inf); exact arithmetic reports a numeric error instead
    v = toy()
    v.world.init_fluents[("speed",)] = Fraction(0)
    assert check(v, "0: (work a) [1]").reason is Reason.DURATION  # 1 vs inf
    exact = toy(arithmetic="exact")
    exact.world.init_fluents[("speed",)] = Fraction(0)
    assert check(exact, "0: (work a) [1]").reason is Reason.NUMERIC_ERROR

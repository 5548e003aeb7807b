"""Epsilon offsets along chains of dependent coinciding happenings."""

from fractions import Fraction

import pytest

from hygiene_pddl.plans import PlanStep, add_epsilon_offsets


def step(name, t, d=None):
    return PlanStep(name, (), Fraction(t), None if d is None else Fraction(d))


def test_chain_of_end_to_start_dependencies_accumulates():
    steps = [step("a", 0, 2), step("b", 2, 1), step("c", 3, 1), step("d", 0, 2)]
    out = add_epsilon_offsets(steps)
    assert [s.time for s in out] == [0, Fraction(201, 100), Fraction(302, 100), 0]
    assert [s.duration for s in out] == [s.duration for s in steps]  # durations stay exact


def test_explicit_dependencies_and_custom_epsilon():
    steps = [step("a", 0, 1), step("b", 0, 1), step("c", 5, 1)]
    out = add_epsilon_offsets(steps, {(0, 1), (0, 2)}, epsilon=Fraction(1, 1000))
    assert [s.time for s in out] == [0, Fraction(1, 1000), 5]  # (0, 2) do not coincide


def test_instantaneous_steps_at_one_time_follow_list_order():
    out = add_epsilon_offsets([step("a", 1), step("b", 1), step("c", 1)])
    assert [s.time for s in out] == [1, Fraction(101, 100), Fraction(102, 100)]


def test_predicate_dependencies():
    steps = [step("a", 0, 1), step("b", 1, 1)]
    out = add_epsilon_offsets(steps, lambda i, j: False)
    assert [s.time for s in out] == [0, 1]


def test_drift_limit_and_cycles():
    chain = [step(str(i), i, 1) for i in range(60)]
    with pytest.raises(ValueError, match="drift"):
        add_epsilon_offsets(chain)
    with pytest.raises(ValueError, match="cycle"):
        add_epsilon_offsets([step("a", 0, 1), step("b", 0, 1)], {(0, 1), (1, 0)})
    with pytest.raises(ValueError, match="no time"):
        add_epsilon_offsets([PlanStep("a")])

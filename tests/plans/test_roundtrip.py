"""Writer -> parser round trip is the identity; arbitrary text raises only InputError."""

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from hygiene_pddl.errors import InputError
from hygiene_pddl.plans import Plan, PlanStep, format_decimal, parse_plan, write_plan

names = st.from_regex(r"[a-z_][a-z0-9_\-]{0,8}", fullmatch=True)
decimals = st.builds(lambda n, k: Fraction(n, 10**k), st.integers(0, 10**7), st.integers(0, 4))
steps = st.builds(PlanStep, names, st.lists(names, max_size=4).map(tuple),
                  st.none() | decimals, st.none() | decimals)
costs = st.lists(st.tuples(names, decimals), max_size=3).map(tuple)
plans = st.one_of(
    st.builds(Plan, st.lists(steps, max_size=8).map(tuple), st.none(), costs,
              st.none() | decimals),
    st.builds(Plan, st.just(()), st.sampled_from(["infeasible", "undetermined"]), costs,
              st.none()),
)


@settings(max_examples=200, deadline=None)
@given(plans)
def test_write_then_parse_is_identity(plan):
    assert parse_plan(write_plan(plan)) == plan


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=list("();:[]. \n\r\t-0123456789abc?#="), max_size=80) | st.text())
def test_arbitrary_text_raises_only_input_error(text):
    try:
        parse_plan(text)
    except InputError as exc:
        assert str(exc)


def test_format_decimal():
    assert format_decimal(Fraction(0)) == "0"
    assert format_decimal(Fraction(1001, 1000)) == "1.001"
    assert format_decimal(Fraction(-5, 2)) == "-2.5"
    assert format_decimal(Fraction(11, 9)) == "1.222222"
    assert format_decimal(Fraction(11, 9), 4) == "1.2222"
    assert format_decimal(Fraction(3), 3) == "3.000"

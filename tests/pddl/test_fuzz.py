"""Arbitrary text never makes the PDDL readers raise anything but InputError."""

from hypothesis import given, settings
from hypothesis import strategies as st

from hygiene_pddl.errors import InputError
from hygiene_pddl.pddl import parse_domain, parse_problem

from .test_parser import DOMAIN, PROBLEM

TOKENS = ["(", ")", "define", "domain", "problem", ":action", ":durative-action", "and", "not",
          "at start", "at end", "over all", "?x", "- t", "=", ">=", "(f)", "1.5", "-2", "at 3",
          ":parameters", ":duration", ":condition", ":effect", ":init", ":goal", "when",
          "forall", "increase", "#t", "total-time", ";c\n", "\n", "x"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=40).map(" ".join) | st.text(max_size=60))
def test_token_soup_raises_only_input_error(text):
    for parse in (parse_domain, parse_problem):
        try:
            parse(text)
        except InputError as exc:
            assert exc.location.line is not None or exc.location.path


@settings(max_examples=150, deadline=None)
@given(st.integers(0, len(DOMAIN) - 1), st.integers(1, 30), st.sampled_from(["", ")", "(", "?"]))
def test_damaged_files_raise_only_input_error(pos, length, insert):
    for text, parse in ((DOMAIN, parse_domain), (PROBLEM, parse_problem)):
        p = pos % len(text)
        damaged = text[:p] + insert + text[p + length:]
        try:
            parse(damaged)
        except InputError:
            pass

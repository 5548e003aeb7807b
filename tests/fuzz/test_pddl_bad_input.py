"""Issue 15, PDDL: huge numbers, deep nesting, look-alike letters, missing files."""

from __future__ import annotations

import math

import pytest

from hygiene_pddl.pddl import parse_domain, parse_problem
from hygiene_pddl.validation.pddl_level.numeric import Arith
from tests.foundation.test_bad_input import _run_main, assert_one_clear_message

from .common import DOMAIN, PLAN, PROBLEM, write

DOMAIN_TEXT, PROBLEM_TEXT = DOMAIN.read_text(encoding="utf-8"), PROBLEM.read_text(encoding="utf-8")


def _validate(capsys, tmp_path, domain: str = DOMAIN_TEXT, problem: str = PROBLEM_TEXT, *extra: str):
    files = [write(tmp_path, n, t) for n, t in (("d.pddl", domain), ("p.pddl", problem), ("plan.txt", PLAN))]
    rc, out, err = _run_main(capsys, ["validate", *map(str, files), *extra])
    return rc, out, err, files


def test_a_duration_beyond_a_double_is_infinite_as_in_val(capsys, tmp_path):
    """VAL reads decimals with atof: 10^400 is inf. The plan's pick lasts 1, not inf: invalid, no crash."""
    domain = DOMAIN_TEXT.replace("(= ?duration 1)", f"(= ?duration 1{'0' * 400}.0)", 1)
    rc, out, err, _ = _validate(capsys, tmp_path, domain)
    assert (rc, err) == (1, "")
    assert Arith("val").num(10**400) == math.inf and Arith("val").num(-(10**400)) == -math.inf


def test_a_huge_initial_value_is_read_exactly_and_as_val_does(capsys, tmp_path):
    problem = PROBLEM_TEXT.replace("(= (stock-water) 6)", f"(= (stock-water) 1{'0' * 400}.0)", 1)
    assert problem != PROBLEM_TEXT
    for extra in ((), ("--exact",)):
        rc, out, err, _ = _validate(capsys, tmp_path, DOMAIN_TEXT, problem, *extra)
        assert (rc, err) == (0, "")
    metric = PROBLEM_TEXT.replace("(= (cost-water) 0)", f"(= (cost-water) 1{'0' * 400}.0)", 1)
    assert metric != PROBLEM_TEXT
    for extra in ((), ("--exact",)):  # a metric value beyond a double prints as VAL prints it (was exit 3)
        rc, out, err, _ = _validate(capsys, tmp_path, DOMAIN_TEXT, metric, *extra)
        assert (rc, err) == (0, "") and "Final value: inf" in out


@pytest.mark.parametrize("literal", ["2147483648", "-2147483649", "1" + "0" * 400])
def test_an_integer_literal_beyond_32_bits_is_exit_2_at_its_place(capsys, tmp_path, literal):
    """VAL reads integer literals with atoi: 2147483648 becomes negative, 10^400 becomes -1 (a finish step at
    10^400 ran first in VAL and last in ours). No reading agrees with VAL's, so the literal is refused."""
    problem = PROBLEM_TEXT.replace("(= (stock-water) 6)", f"(= (stock-water) {literal})", 1)
    rc, out, err, files = _validate(capsys, tmp_path, DOMAIN_TEXT, problem)
    at = problem.index(literal)
    line, column = problem.count("\n", 0, at) + 1, at - problem.rfind("\n", 0, at)
    assert_one_clear_message(rc, out, err, f"{files[1]}:{line}:{column}:", "beyond 32 bits")
    ok = PROBLEM_TEXT.replace("(= (stock-water) 6)", "(= (stock-water) 2147483647)", 1)
    assert _validate(capsys, tmp_path, DOMAIN_TEXT, ok)[0] == 0


def test_a_number_of_thousands_of_digits_is_exit_2_at_its_place(capsys, tmp_path):
    domain = DOMAIN_TEXT.replace("(= ?duration 1)", f"(= ?duration {'1' * 5000})", 1)
    rc, out, err, files = _validate(capsys, tmp_path, domain)
    at = domain.index("1" * 5000)
    line, column = domain.count("\n", 0, at) + 1, at - domain.rfind("\n", 0, at)
    assert_one_clear_message(rc, out, err, f"{files[0]}:{line}:{column}:", "5000 characters")


@pytest.mark.parametrize("head", ["and", "not", "or"])
def test_deep_nesting_is_exit_2_naming_the_limit(capsys, tmp_path, head):
    deep = f"({head} " * 3000 + "(in-time)" + ")" * 3000
    problem = PROBLEM_TEXT.replace("(:goal (and", f"(:goal (and {deep}", 1)
    rc, out, err, files = _validate(capsys, tmp_path, DOMAIN_TEXT, problem)
    assert_one_clear_message(rc, out, err, f"{files[1]}:", "nested deeper than 100 levels")


def test_nesting_within_the_limit_still_parses():
    deep = "(not " * 48 + "(in-time)" + ")" * 48
    parse_problem(PROBLEM_TEXT.replace("(:goal (and", f"(:goal (and {deep}", 1))


@pytest.mark.parametrize("old, new", [("at start", "at \u017ftart"), ("(and", "(\u212aand"), ("(= ?duration 3)",
                                                                                         "(= ?duration \uff13)")])
def test_a_letter_that_case_folds_into_a_keyword_is_exit_2(capsys, tmp_path, old, new):
    """``ſtart`` matched the keyword `start` case-insensitively and then failed with KeyError 'at ſtart'."""
    domain = DOMAIN_TEXT.replace(old, new, 1)
    rc, out, err, files = _validate(capsys, tmp_path, domain)
    char = next(c for c in new if ord(c) > 127)
    at = domain.index(char)
    line, column = domain.count("\n", 0, at) + 1, at - domain.rfind("\n", 0, at)
    assert_one_clear_message(rc, out, err, f"{files[0]}:{line}:{column}:", f"U+{ord(char):04X}")


def test_comments_may_hold_any_character():
    parse_domain("; Gruyère, ſ, K, ２\n" + DOMAIN_TEXT)


@pytest.mark.parametrize("missing", ["domain", "problem"])
def test_a_missing_file_is_reported_by_its_own_name(capsys, tmp_path, missing):
    plan = write(tmp_path, "plan.txt", PLAN)
    absent = tmp_path / f"absent-{missing}.pddl"
    files = [absent, PROBLEM] if missing == "domain" else [DOMAIN, absent]
    rc, out, err = _run_main(capsys, ["validate", *map(str, files), str(plan)])
    assert_one_clear_message(rc, out, err, f"{absent}: cannot read file")

"""Issue 15, plans: long numbers, huge plans, line endings, look-alike characters, mixed timed/untimed steps.

VAL's verdicts quoted here were recorded with /work/tools/VAL/build/bin/Validate -t 0.01 on the same files.
"""

from __future__ import annotations

import time
from dataclasses import replace
from fractions import Fraction

import pytest

from hygiene_pddl.instances import load_instance, load_reference
from hygiene_pddl.pddl import read_domain, read_problem
from hygiene_pddl.plans.parser import parse_plan
from hygiene_pddl.registries import load_registries
from hygiene_pddl.validation.instance_level import evaluate_plan
from hygiene_pddl.validation.pddl_level import PddlValidator
from tests.foundation.test_bad_input import _run_main, assert_one_clear_message

from .common import DOMAIN, INSTANCE, PLAN, PROBLEM, REFERENCE, STEPS, write

PICK, PLACE = STEPS


def _validate(capsys, tmp_path, text: str, *extra: str) -> tuple[int, str, str, str]:
    plan = write(tmp_path, "plan.txt", text)
    rc, out, err = _run_main(capsys, ["validate", str(DOMAIN), str(PROBLEM), str(plan), *extra])
    return rc, out, err, str(plan)


@pytest.mark.parametrize("where", ["time", "duration", "cost"])
def test_a_number_of_thousands_of_digits_is_exit_2_at_its_place(capsys, tmp_path, where):
    long = "9" * 5000
    text = {"time": f"{long}: {PICK.split(': ', 1)[1]}\n",
            "duration": PICK.rsplit("[", 1)[0] + f"[{long}]\n",
            "cost": PLAN + f"; cost: water={long}\n"}[where]
    rc, out, err, plan = _validate(capsys, tmp_path, text, "--instance", str(INSTANCE))
    line = text.count("\n", 0, text.index(long)) + 1
    assert_one_clear_message(rc, out, err, f"{plan}:{line}:", "5000 characters", "at most 1000")


def test_a_huge_time_is_a_late_step_not_a_crash(capsys, tmp_path):
    """10^400 is beyond a double: VAL's atof reads inf; the instance level computes exactly."""
    rc, out, err, _ = _validate(capsys, tmp_path, f"1{'0' * 400}.5: {PICK.split(': ', 1)[1]}\n",
                                "--instance", str(INSTANCE), "--reference", str(REFERENCE))
    assert rc == 1 and "Traceback" not in err
    assert "ends after the deadline" in out


def test_a_hundred_thousand_step_plan_is_read_in_seconds():
    """The LALR parser took about 26 s for 100,000 lines; each plain line is now read by one regular
    expression made of the grammar's own terminals."""
    lines = "".join(f"{2 * i}.000: (pick right apple apple-skin counter right-pad) [1.000]\n" for i in range(100_000))
    start = time.process_time()
    plan = parse_plan(lines)
    assert time.process_time() - start < 10
    assert len(plan.steps) == 100_000 and plan.steps[-1].time == 199_998 and plan.steps[-1].line == 100_000


# VAL: only a line feed ends a line; a lone CR is ignored, so a comment runs across CRs to the next LF.
@pytest.mark.parametrize("text, val_valid", [
    (f"{PICK}\r{PLACE}\r", True),  # VAL: Plan valid
    (f"{PICK}\r\n{PLACE}\r\n", True),  # VAL: Plan valid
    (f"; a comment\r{PICK}\r{PLACE}\r", False),  # VAL: the comment swallows the steps; goal not satisfied
    (f"{PICK} ; c\r{PLACE}\r", False),  # VAL: goal not satisfied
])
def test_carriage_returns_are_read_as_val_reads_them(capsys, tmp_path, text, val_valid):
    rc, out, err, _ = _validate(capsys, tmp_path, text)
    assert (rc, err) == (0 if val_valid else 1, "")


@pytest.mark.parametrize("old, new", [
    ("[1.000]", "[\uff11.000]"),  # fullwidth digit one; VAL: Bad plan description
    ("(pick", "(pic\u212a"),  # Kelvin sign, case-folds to k; VAL: Bad plan description
    (" right", " \u017fight"),  # long s, case-folds to s
])
def test_look_alike_characters_are_exit_2_at_their_column(capsys, tmp_path, old, new):
    char = next(c for c in new if ord(c) > 127)
    text = PLAN.replace(old, new, 1)
    rc, out, err, plan = _validate(capsys, tmp_path, text)
    at = text.index(char)
    line, column = text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)
    assert_one_clear_message(rc, out, err, f"{plan}:{line}:{column}:", f"U+{ord(char):04X}")


def test_non_ascii_in_comments_stays_allowed(capsys, tmp_path):
    rc, out, err, _ = _validate(capsys, tmp_path, "; plan für den Löffel — ſ K ２\n" + PLAN)
    assert (rc, err) == (0, "")


def test_untimed_steps_start_at_1_2_3_as_in_val():
    plan = parse_plan("(a)\n0.5: (b)\n(c)\n7: (d)\n")
    assert plan.start_times() == (1, Fraction(1, 2), 2, 7)


REG = load_registries()


def _mixed_mutants():
    plan = parse_plan(PLAN)
    steps = list(plan.steps)
    for k in range(len(steps)):
        untimed = [replace(s, time=None) if i == k else s for i, s in enumerate(steps)]
        yield f"untimed{k}", replace(plan, steps=tuple(untimed))
        shifted = [replace(s, time=s.time - 1) if i > k else s for i, s in enumerate(untimed)]
        yield f"untimed{k}-shifted", replace(plan, steps=tuple(shifted))
    yield "all-untimed", replace(plan, steps=tuple(replace(s, time=None) for s in steps))


@pytest.mark.parametrize("name, plan", list(_mixed_mutants()), ids=lambda x: x if isinstance(x, str) else "")
def test_mixed_timed_and_untimed_plans_get_one_verdict_at_both_levels(name, plan):
    pddl = PddlValidator(read_domain(DOMAIN), read_problem(PROBLEM)).validate(plan)
    report = evaluate_plan(REG, load_instance(INSTANCE, REG), plan, load_reference(REFERENCE))
    assert pddl.valid == report.valid, (name, pddl.failure, report.findings)


def test_an_untimed_first_step_runs_at_time_1_at_the_instance_level():
    """VAL starts it at 1 (the instance level used its index, 0): with its partner re-timed after it, the
    plan is valid at both levels and the schedule says 1."""
    steps = list(parse_plan(PLAN).steps)
    moved = (replace(steps[0], time=None), replace(steps[1], time=steps[1].time + 1))
    plan = replace(parse_plan(PLAN), steps=moved)
    report = evaluate_plan(REG, load_instance(INSTANCE, REG), plan, load_reference(REFERENCE))
    assert PddlValidator(read_domain(DOMAIN), read_problem(PROBLEM)).validate(plan).valid
    assert report.valid, report.findings
    assert [start for _, _, start, _, _ in report.schedule] == [1, steps[1].time + 1]

"""Property tests: the readers raise nothing but InputError, and their fast paths read what the slow ones do."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hygiene_pddl.errors import InputError
from hygiene_pddl.fuzz.mutations import NASTY_CHARS, NASTY_NAMES, NASTY_NUMBERS, mutate
from hygiene_pddl.pddl import parse_domain, parse_problem
from hygiene_pddl.plans.parser import _fast_lines, _grammar_lines, parse_plan
from hygiene_pddl.yamlpos import PositionedDocument

from .common import DOMAIN, PLAN, PROBLEM

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PIECES = st.sampled_from(["(", ")", "[", "]", ":", ";", " ", "\t", "\r", "\n", "pick", "a-b", "x1", "0", "1.5",
                          "-2", ".5", "5.", "; cost: water=3", "; status: infeasible", "; cost = 4 (general cost)",
                          *NASTY_CHARS, *NASTY_NUMBERS[:12], *NASTY_NAMES[:12]])
PLAN_LIKE = st.lists(PIECES, max_size=40).map("".join)


def _only_input_errors(read, text):
    try:
        read(text)
    except InputError as exc:
        assert exc.location.line is not None or exc.location.file is not None or exc.location.path


@FAST
@given(PLAN_LIKE | st.text(max_size=80))
def test_plan_reader_raises_only_input_error(text):
    _only_input_errors(parse_plan, text)


@FAST
@given(st.lists(st.tuples(st.sampled_from(["", "0: ", "1.5:", " 2.25 : ", "-1:", "007.:"]),
                          st.lists(st.sampled_from(["pick", "A", "x_1", "b-c", "Right"]), min_size=1, max_size=4),
                          st.sampled_from(["", " [1]", "[0.5] ", " [ 3. ]"]),
                          st.sampled_from(["", " ; note", "; cost: water=2 makespan=1.5", ";status: undetermined"])),
                max_size=8))
def test_the_fast_line_reader_reads_what_the_parser_reads(lines):
    text = "".join(f"{t}({' '.join(names)}){d}{c}\n" for t, names, d, c in lines)
    fast_steps, fast_fields, steps, fields = [], {}, [], {}
    assert _fast_lines(text, None, fast_steps, fast_fields)
    _grammar_lines(text, None, steps, fields)
    assert (fast_steps, fast_fields) == (steps, fields)
    assert [s.line for s in fast_steps] == [s.line for s in steps]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from([DOMAIN, PROBLEM]))
def test_pddl_readers_raise_only_input_error_on_mutants(seed, path):
    import random

    text, _ = mutate(random.Random(seed), path.read_text(encoding="utf-8"), "pddl")
    _only_input_errors(parse_domain if path == DOMAIN else parse_problem, text)


@FAST
@given(st.integers(0, 2**32))
def test_plan_mutants_raise_only_input_error(seed):
    import random

    _only_input_errors(parse_plan, mutate(random.Random(seed), PLAN, "plan")[0])


JSON_PIECES = st.sampled_from(['{', '}', '[', ']', ',', ':', '"a"', '"a"', '"b"', ' ', '\n', '1', '-0', '1.5e3',
                               'NaN', 'Infinity', 'true', 'null', '"\\u0000"', '"\\ud800"', '1' * 1200, '\ufeff'])


@FAST
@given(st.lists(JSON_PIECES, max_size=30).map("".join) | st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
).map(json.dumps))
def test_json_documents_are_read_as_json_reads_them_or_refused_with_a_place(text):
    try:
        doc = PositionedDocument(Path("x.json"), text)
    except InputError as exc:
        assert exc.location.file == "x.json"
        return
    assert doc.data == json.loads(text)


YAML_PIECES = st.sampled_from(["a", "b", ": ", "- ", "\n", "  ", "[", "]", "{", "}", ",", "&x ", "*x", "!!str ",
                               "!!python/object:os.system ", "yes", "~", "1234", "'q'", '"\\x07"', "\x07", "\t",
                               "? ", "<<: ", "#c", "|\n  t", "1" * 1100, "\ufeff"])


@FAST
@given(st.lists(YAML_PIECES, max_size=30).map("".join))
def test_yaml_documents_raise_only_input_error(text):
    try:
        PositionedDocument(Path("x.yaml"), text)
    except InputError as exc:
        assert exc.location.file == "x.yaml"


def test_the_judge_takes_the_plan_commands_documented_codes_and_no_others():
    from hygiene_pddl.fuzz.cases import Case
    from hygiene_pddl.fuzz.runner import judge

    def verdict(argv: tuple[str, ...], rc: int) -> str | None:
        return judge(Case("0:0", "plan", argv, (), (), 60), rc, 0.1, "", [])

    plan = ("plan", "instance.json", "--planner", "hygiene-nsp")
    assert [verdict(plan, rc) for rc in (0, 1, 10, 12, 37)] == [None] * 5
    assert verdict(plan, 4) == "exit 4" and verdict(plan, 3) == "internal error (exit 3)"
    assert verdict(("validate", "d.pddl", "p.pddl", "plan.txt"), 12) == "exit 12"

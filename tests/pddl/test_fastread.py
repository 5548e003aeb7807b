"""The fast PDDL reader takes a strict subset of the grammar and builds the same AST; the rest falls back.

Property: whenever the fast reader returns a value, the Lark grammar reads the same text to an equal AST.
"""

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hygiene_pddl.errors import InputError
from hygiene_pddl.pddl import DomainParser, ProblemParser, fastread, parse_domain, parse_problem

ROOT = Path(__file__).resolve().parents[2]
CONFORMANCE = next((p / "shared" / "conformance" for p in ROOT.parents if (p / "shared" / "conformance").is_dir()),
                   ROOT.parent / "shared" / "conformance")
FILES = sorted([*ROOT.glob("domains/spoon_fruit.pddl"), *ROOT.glob("domains/hot_cocoa.pddl"),
                *ROOT.glob("problems/spoon_fruit/*.pddl"), *ROOT.glob("tests/**/*.pddl"),
                *CONFORMANCE.glob("**/*.pddl")])


def _kind(text: str) -> str:
    return "problem" if re.search(r"\(\s*problem\s", text, re.IGNORECASE) else "domain"


def _both(text: str):
    """(fast result or None when it declines, grammar result or the InputError it raised)."""
    parser = ProblemParser() if _kind(text) == "problem" else DomainParser()
    try:
        fast = parser.fast(text)
    except fastread.Fallback:
        fast = None
    try:
        slow = parser._parse_with_grammar(text, None)
    except InputError as exc:
        slow = exc
    return fast, slow


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(p.parents[2])))
def test_fast_reader_reads_every_shipped_file_as_the_grammar_does(path):
    fast, slow = _both(path.read_text(encoding="utf-8"))
    assert fast is not None, "the fast reader declined a plain file"
    assert fast == slow


SAMPLE = (ROOT / "domains" / "spoon_fruit.pddl").read_text(encoding="utf-8")
PROBLEM = next(iter(sorted((ROOT / "problems" / "spoon_fruit").glob("*-water_first.pddl")))).read_text("utf-8")
TOKENS = re.compile(r";[^\n]*|\(|\)|[^\s()]+|\s+")
VOCAB = ["(", ")", "-", "and", "AND", "at", "start", "end", "over", "all", "not", "either", "when", "forall",
         "?x", "?duration", "=", "<=", "#t", "total-time", "increase", "5", "-1", "0.5", ".5", "5.", "1e3", "x",
         "\f", "\v", "\u212a", "\u00e9", ":parameters", ":effect", ":condition", "(and)", "()", " ", "\n", ";c\n"]


def _mutate(text: str, edits: list[tuple[int, int, int]]) -> str:
    toks = TOKENS.findall(text)
    for pos, kind, pick in edits:
        i = pos % len(toks)
        if kind == 0:
            del toks[i]
        elif kind == 1:
            toks.insert(i, VOCAB[pick % len(VOCAB)])
        elif kind == 2:
            toks[i] = VOCAB[pick % len(VOCAB)]
        else:
            toks[i] = toks[i].swapcase()
    return "".join(toks)


EDITS = st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 3), st.integers(0, 100)), min_size=1, max_size=3)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(EDITS, st.booleans())
def test_whatever_the_fast_reader_accepts_the_grammar_reads_alike(edits, problem):
    text = _mutate(PROBLEM if problem else SAMPLE, edits)
    fast, slow = _both(text)
    if fast is not None:
        assert fast == slow


def test_byte_order_mark_is_ignored_as_val_ignores_it(tmp_path):
    path = tmp_path / "d.pddl"
    path.write_bytes(b"\xef\xbb\xbf" + SAMPLE.encode())
    from hygiene_pddl.pddl import read_domain

    assert read_domain(path) == parse_domain(SAMPLE) == parse_domain("\ufeff" + SAMPLE)


@pytest.mark.parametrize("literal", [".5", "-.5"])
def test_leading_dot_number_is_an_error_as_in_val(literal):
    text = "(define (problem p) (:domain d) (:init (= (f) X)))".replace("X", literal)
    with pytest.raises(InputError, match=r"not \.5") as info:
        parse_problem(text, "p.pddl")
    assert info.value.location.line == 1 and info.value.location.column == text.index(literal) + 1
    assert parse_problem(text.replace(literal, "5.")).init[0].value == 5

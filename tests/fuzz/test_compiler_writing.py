"""Issue 15, compiler: numbers written exactly, names that are no keywords, texts that cannot inject PDDL.

VAL's Parser (pddl+.l keywords) rejected 54 of the 88 compiled files of these cases before the fix and
accepts all of them after it (checked with /work/tools/VAL/build/bin/Parser; CI has no VAL).
"""

from __future__ import annotations

import re
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from compiler.names import RESERVED, comment_text, legal
from compiler.render import render_classical, render_domain, render_problem
from compiler.steps import StepMapper
from hygiene_pddl.decimals import decimal_literal, parse_decimal, rounded_text
from hygiene_pddl.fuzz.mutations import rename_object
from hygiene_pddl.instances.loader import instance_from_data
from hygiene_pddl.lexical import TEMPORAL_WORDS, VAL_KEYWORDS
from hygiene_pddl.pddl import ast, parse_domain, parse_problem
from hygiene_pddl.registries import load_registries

from .common import instance_data

REG = load_registries()
_NUMBER_TOKEN = re.compile(r"(?<![\w\-?])-?[0-9][0-9.eE+\-]*(?![\w\-])")


def _compile(data: dict, flavor: str = "temporal") -> tuple[str, str]:
    inst = instance_from_data(data, REG, name="case")
    if flavor == "classical":
        domain, problem, _ = render_classical(REG, inst)
        return domain, problem
    return render_domain(REG, inst.family), render_problem(REG, inst)[0]


def _code(text: str) -> str:
    return "\n".join(line.split(";", 1)[0] for line in text.splitlines())


def test_large_numbers_are_written_exactly():
    """`horizon` 123456789 was written `1.23457e+08` (rounded; VAL's parser rejects the file)."""
    data = instance_data()
    data["horizon"] = 123456789
    _, problem = _compile(data)
    numbers = _NUMBER_TOKEN.findall(_code(problem))
    assert "123456778.5" in numbers  # the deadline: horizon - decision time + 1/2
    assert all(re.fullmatch(r"-?[0-9]+(\.[0-9]+)?", n) for n in numbers), numbers
    assert all("." in n or abs(int(n)) < 2**31 for n in numbers)  # VAL reads integer literals as a C int
    tils = [i for i in parse_problem(problem).init if isinstance(i, ast.TimedInit)]
    assert Fraction(123456778) + Fraction(1, 2) in {t.time for t in tils}


@given(st.fractions(max_denominator=10**6).filter(lambda x: all(p in (2, 5) for p in _primes(x.denominator)))
       | st.integers(-(10**30), 10**30))
def test_decimal_literals_read_back_to_the_same_value(x):
    text = decimal_literal(x)
    assert parse_decimal(text) == x
    assert "." in text or abs(x) < 2**31


def _primes(n: int) -> list[int]:
    out, p = [], 2
    while n > 1 and p * p <= n:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    return out + ([n] if n > 1 else [])


def test_a_value_without_a_decimal_expansion_is_refused_not_rounded():
    with pytest.raises(ValueError, match="no finite decimal expansion"):
        decimal_literal(Fraction(1, 3))


def test_texts_for_people_never_overflow():
    assert rounded_text(Fraction(10**400) + Fraction(1, 2)) == "1" + "0" * 400 + ".500"
    assert rounded_text(Fraction(7, 2)) == "3.500" and rounded_text(12) == "12"


@pytest.mark.parametrize("name", sorted(VAL_KEYWORDS | TEMPORAL_WORDS))
def test_an_object_named_like_a_keyword_gets_a_name_of_its_own(name):
    data = rename_object(instance_data(), "plate", name)
    assert name in data["objects"]
    inst = instance_from_data(data, REG, name="case")
    for flavor in ("temporal", "classical"):
        _, problem = _compile(data, flavor)
        parsed = parse_problem(problem)
        names = {o.name for o in parsed.objects} | {parsed.name}
        assert not names & (VAL_KEYWORDS | TEMPORAL_WORDS), names & RESERVED
    pddl = StepMapper(REG, inst).names.forward[("object", name)]
    assert pddl != name and pddl.startswith(name)
    assert StepMapper(REG, inst).names.reverse[pddl] == ("object", name)


def test_an_id_that_is_a_keyword_names_no_problem_define():
    data = instance_data()
    data["id"] = "define"
    _, problem = _compile(data)
    assert parse_problem(problem).name == "define-name"


@pytest.mark.parametrize("request_text", ["x)\n(:goal (and))", "a\r\n(:init)", "\u2028(define", "tab\tand\x00"])
def test_a_request_cannot_inject_pddl(request_text):
    """A request holding `)` and a newline was written raw into problem.pddl (compile exit 0, file unreadable)."""
    data = instance_data()
    clean = parse_problem(_compile(data)[1])
    data["request"] = request_text
    _, problem = _compile(data)
    assert parse_problem(problem) == clean
    comment = next(line for line in problem.splitlines() if line.startswith("; request:"))
    assert comment == "; request: " + comment_text(request_text)
    assert comment.encode("ascii", "backslashreplace").decode().isprintable()


@given(st.text())
def test_comment_text_is_one_line_and_keeps_printable_text(text):
    out = comment_text(text)
    assert not any(c in out for c in "\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029\x00")
    assert len(out.splitlines()) <= 1
    if text.isprintable():
        assert out == text


@given(st.text(max_size=30))
def test_legal_names_are_pddl_names(text):
    name = legal(text)
    assert re.fullmatch(r"[a-z][a-z0-9_-]*", name)


def test_compiled_domains_read_back():
    for family in ("spoon_fruit", "doing_laundry-wash_dry_fold"):
        assert parse_domain(render_domain(REG, family)).name == f"hygiene-{legal(family)}"

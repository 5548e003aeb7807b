"""The renaming-invariant signature behind the structural-class gates (hygiene_pddl/episodes/structure.py)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from hygiene_pddl.episodes.structure import signature
from hygiene_pddl.pddl.parser import parse_domain, parse_problem

DOMAIN = """(define (domain d)
  (:requirements :strips :typing :durative-actions :conditional-effects)
  (:types item place carrier - object)
  (:constants germs - object)
  (:predicates (on ?x - item ?p - place) (dirty ?c - carrier ?h - object) (part ?x - item ?c - carrier))
  (:durative-action move
    :parameters (?x - item ?a - place ?b - place ?c - carrier)
    :duration (= ?duration 2)
    :condition (and (at start (on ?x ?a)) (at start (part ?x ?c)))
    :effect (and (at start (not (on ?x ?a))) (at end (on ?x ?b))
                 (when (at end (dirty ?c germs)) (at end (dirty ?c germs)))))
  (:durative-action wipe
    :parameters (?c - carrier)
    :duration (= ?duration 1)
    :condition (and (at start (dirty ?c germs)))
    :effect (and (at end (not (dirty ?c germs))))))
"""
PROBLEM = """(define (problem p) (:domain d)
  (:objects apple - item table shelf - place skin - carrier)
  (:init (on apple table) (part apple skin) (dirty skin germs))
  (:goal (and (on apple shelf) (not (dirty skin germs)))))
"""
NAMES = ["d", "p", "item", "place", "carrier", "germs", "on", "dirty", "part", "move", "wipe", "apple", "table",
         "shelf", "skin", "?x", "?a", "?b", "?c"]


def _rename(text: str, mapping: dict[str, str]) -> str:
    pattern = re.compile(r"(?<![\w?-])(" + "|".join(re.escape(n) for n in sorted(mapping, key=len, reverse=True))
                         + r")(?![\w-])")
    return pattern.sub(lambda m: mapping[m.group(1)], text)


@settings(max_examples=40, deadline=None)
@given(st.permutations(range(len(NAMES))))
def test_a_renaming_of_every_name_keeps_the_signature(perm):
    fresh = [f"n{i}" if not n.startswith("?") else f"?v{i}" for i, n in enumerate(NAMES)]
    mapping = {n: fresh[perm[i]] if not n.startswith("?") else f"?v{perm[i]}" for i, n in enumerate(NAMES)}
    # keep namespaces apart: a variable maps to a variable, a name to a name
    mapping = {n: (m if n.startswith("?") == m.startswith("?") else n) for n, m in mapping.items()}
    dom, prob = _rename(DOMAIN, mapping), _rename(PROBLEM, mapping)
    assert signature(parse_domain(dom)) == signature(parse_domain(DOMAIN))
    assert signature(parse_domain(dom), parse_problem(prob)) == signature(parse_domain(DOMAIN), parse_problem(PROBLEM))


def test_order_of_unordered_parts_does_not_matter():
    swapped = DOMAIN.replace("(and (at start (on ?x ?a)) (at start (part ?x ?c)))",
                             "(and (at start (part ?x ?c)) (at start (on ?x ?a)))")
    assert signature(parse_domain(swapped)) == signature(parse_domain(DOMAIN))


def test_structure_changes_change_the_signature():
    base = signature(parse_domain(DOMAIN))
    longer = DOMAIN.replace("(= ?duration 2)", "(= ?duration 3)")
    no_when = DOMAIN.replace("(when (at end (dirty ?c germs)) (at end (dirty ?c germs)))", "")
    swapped_args = DOMAIN.replace("(at end (on ?x ?b))", "(at end (on ?x ?a))")
    assert len({base, signature(parse_domain(longer)), signature(parse_domain(no_when)),
                signature(parse_domain(swapped_args))}) == 4


def test_a_different_initial_state_is_a_different_instance():
    dom = parse_domain(DOMAIN)
    clean = PROBLEM.replace("(part apple skin) (dirty skin germs))", "(part apple skin))")
    assert clean != PROBLEM
    assert signature(dom, parse_problem(PROBLEM)) != signature(dom, parse_problem(clean))

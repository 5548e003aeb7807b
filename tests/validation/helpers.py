"""Small hand-made domains with verdicts derived from VAL's semantics."""

import json
import os

from hygiene_pddl.pddl import parse_domain, parse_problem
from hygiene_pddl.plans import parse_plan
from hygiene_pddl.validation.pddl_level import PddlValidator

TOY = """
(define (domain toy)
 (:requirements :typing :durative-actions :fluents :conditional-effects :duration-inequalities)
 (:types block)
 (:predicates (free ?b - block) (done ?b - block) (ready) (open) (marked ?b - block))
 (:functions (cost) (len ?b - block) (speed) (fuel))
 (:durative-action work
  :parameters (?b - block)
  :duration (= ?duration (/ (len ?b) (speed)))
  :condition (and (at start (free ?b)) (over all (ready)))
  :effect (and (at start (not (free ?b))) (at end (free ?b)) (at end (done ?b))
               (at end (increase (cost) 1))
               (when (at start (open)) (at end (marked ?b)))))
 (:durative-action flex
  :parameters (?b - block)
  :duration (<= ?duration 5)
  :condition (at start (free ?b))
  :effect (and (at start (not (free ?b))) (at end (free ?b))))
 (:durative-action burn
  :parameters ()
  :duration (>= ?duration 1)
  :condition (at start (>= (fuel) 5))
  :effect (and (at start (decrease (fuel) 5)) (at end (increase (cost) ?duration))))
 (:action close :parameters () :precondition (open) :effect (not (open)))
 (:action reset :parameters () :precondition (ready) :effect (and (assign (cost) 0)))
 (:action unready :parameters () :precondition (ready) :effect (not (ready)))
 (:action pay :parameters () :precondition (ready) :effect (and (increase (cost) 2))))
"""

TOY_PROBLEM = """
(define (problem toy1) (:domain toy)
 (:objects a b - block)
 (:init (free a) (free b) (ready) (open) (= (cost) 0) (= (len a) 9) (= (len b) 11)
        (= (speed) 9) (= (fuel) 7) {extra})
 (:goal (and {goal}))
 {metric})
"""

CLASSICAL = """
(define (domain grid) (:requirements :strips :typing)
 (:types cell robot)
 (:predicates (at ?c - cell) (adj ?a ?b - cell) (visited ?c - cell))
 (:action move :parameters (?from ?to - cell)
  :precondition (and (at ?from) (adj ?from ?to))
  :effect (and (not (at ?from)) (at ?to) (visited ?to))))
"""

CLASSICAL_PROBLEM = """
(define (problem g1) (:domain grid) (:objects c1 c2 c3 - cell r1 - robot)
 (:init (at c1) (adj c1 c2) (adj c2 c3) (adj c2 c1))
 (:goal (and (visited c3))) {metric})
"""


def toy(extra: str = "", goal: str = "(done a)", metric: str = "", **kw) -> PddlValidator:
    problem = TOY_PROBLEM.format(extra=extra, goal=goal, metric=metric)
    return PddlValidator(parse_domain(TOY), parse_problem(problem), **kw)


def classical(metric: str = "") -> PddlValidator:
    return PddlValidator(parse_domain(CLASSICAL),
                         parse_problem(CLASSICAL_PROBLEM.format(metric=metric)))


def check(validator: PddlValidator, plan: str, **kw):
    result = validator.validate(parse_plan(plan), **kw)
    if os.environ.get("HYGIENE_RECORD_CASES"):  # for ad-hoc comparison with VAL
        from hygiene_pddl.pddl import print_domain, print_problem

        with open(os.environ["HYGIENE_RECORD_CASES"], "a") as fh:
            fh.write(json.dumps({
                "domain": print_domain(validator.domain), "problem": print_problem(
                    validator.problem), "plan": plan, "tolerance": str(kw.get(
                        "tolerance", validator.tolerance)), "valid": result.valid,
                "value": result.metric_text, "arithmetic": validator.arith.mode}) + "\n")
    return result

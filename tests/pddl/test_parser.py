"""Domain/problem reader: AST shape, case folding, errors with location and nesting path."""

from fractions import Fraction

import pytest

from hygiene_pddl.errors import InputError
from hygiene_pddl.pddl import ast, parse_domain, parse_problem, print_domain, print_problem

DOMAIN = """
; a comment
(define (domain Toy)
 (:requirements :typing :durative-actions :fluents :conditional-effects)
 (:types Block - object Heavy - block)
 (:constants Table - object)
 (:predicates (Free ?b - block) (on ?b - block ?t - object) (ready))
 (:functions (cost) (len ?b - block) - number)
 (:action Touch :parameters (?b - block)
  :precondition (and (free ?b) (not (= ?b table)) (or (ready) (exists (?c - block) (on ?c table))))
  :effect (and (not (ready)) (when (free ?b) (increase (cost) 2))
               (forall (?c - heavy) (on ?c table))))
 (:durative-action Work
  :parameters (?b - block)
  :duration (and (>= ?duration (len ?b)) (at end (<= ?duration (* 2 (len ?b)))))
  :condition (and (at start (free ?b)) (over all (ready)) (at end (>= (cost) 0)))
  :effect (and (at start (not (free ?b))) (at end (free ?b))
               (when (at start (ready)) (at end (increase (cost) (- ?duration 1))))
               (at end (scale-up (cost) 1.5)))))
"""

PROBLEM = """
(define (problem P1) (:domain toy)
 (:objects a b - block h - heavy)
 (:init (free a) (Ready) (= (cost) 0) (= (len a) 2.5) (at 10 (not (ready))) (at 3.25 (free b))
        (at 4 (= (cost) -1)))
 (:goal (and (free a) (not (on a table))))
 (:metric minimize (+ (total-time) (* 0.5 (cost)))))
"""


def test_domain_shape_and_case_folding():
    d = parse_domain(DOMAIN)
    assert d.name == "toy"
    assert d.types == (ast.Typed("block", ("object",)), ast.Typed("heavy", ("block",)))
    assert d.constants == (ast.Typed("table", ("object",)),)
    assert [p.name for p in d.predicates] == ["free", "on", "ready"]
    assert d.functions[1] == ast.Function("len", (ast.Typed("?b", ("block",)),), "number")
    touch, work = d.operators
    assert isinstance(touch, ast.Action) and touch.name == "touch"
    eq = touch.precondition.parts[1]
    assert eq == ast.Not(ast.Atom("=", (ast.Var("?b"), ast.Const("table"))))
    assert isinstance(work, ast.DurativeAction)
    assert work.duration == (
        ast.DurationConstraint(">=", ast.FuncTerm("len", (ast.Var("?b"),))),
        ast.DurationConstraint("<=", ast.BinOp("*", (ast.Number(Fraction(2)),
                                                     ast.FuncTerm("len", (ast.Var("?b"),)))),
                               ast.AT_END))
    assert work.condition.parts[1] == ast.TimedCond(ast.OVER_ALL, ast.Atom("ready"))
    when = work.effect.parts[2]
    assert when == ast.When(
        ast.TimedCond(ast.AT_START, ast.Atom("ready")),
        ast.TimedEffect(ast.AT_END, ast.Update("increase", ast.FuncTerm("cost"),
                                               ast.BinOp("-", (ast.DurationVar(),
                                                               ast.Number(Fraction(1)))))))
    assert d.is_durative


def test_problem_shape_tils_and_metric():
    p = parse_problem(PROBLEM)
    assert p.name == "p1" and p.domain == "toy"
    assert ast.Atom("ready") in p.init
    assert ast.FluentInit(ast.FuncTerm("len", (ast.Const("a"),)), Fraction(5, 2)) in p.init
    tils = [i for i in p.init if isinstance(i, ast.TimedInit)]
    assert tils[0] == ast.TimedInit(Fraction(10), ast.Not(ast.Atom("ready")))
    assert tils[1].time == Fraction(13, 4)
    assert tils[2].item == ast.FluentInit(ast.FuncTerm("cost"), Fraction(-1))
    assert p.metric.direction == "minimize"
    assert p.metric.expr.args[0] == ast.TotalTime()


def test_print_then_parse_is_identity():
    d = parse_domain(DOMAIN)
    assert parse_domain(print_domain(d)) == d
    p = parse_problem(PROBLEM)
    assert parse_problem(print_problem(p)) == p


def test_bare_function_names_and_total_time_forms():
    d = parse_domain("""(define (domain z) (:requirements :fluents)
      (:functions (fuel) (used))
      (:action go :parameters () :precondition (> fuel 1) :effect (increase used 2)))""")
    go = d.operators[0]
    assert go.precondition == ast.Compare(">", ast.FuncTerm("fuel"), ast.Number(Fraction(1)))
    assert go.effect == ast.Update("increase", ast.FuncTerm("used"), ast.Number(Fraction(2)))
    p = parse_problem("(define (problem q) (:domain z) (:init) (:goal (and)) "
                      "(:metric maximize total-time))")
    assert p.metric == ast.Metric("maximize", ast.TotalTime())


def _error(text, parser=parse_domain):
    with pytest.raises(InputError) as info:
        parser(text, "x.pddl")
    return info.value


def test_syntax_error_names_file_line_column_path_expected_found():
    text = DOMAIN.replace("(over all (ready))", "(over all (ready)")
    err = _error(text)
    assert err.location.file == "x.pddl"
    assert err.location.line == 16 and err.location.column == 58
    assert "durative-action work" in err.location.path
    assert ":condition" in err.location.path
    assert "expected" in err.message and "found" in err.message


def test_error_path_for_effect():
    err = _error(DOMAIN.replace("(at start (not (free ?b)))", "(at start (not (free ?b) 3))"))
    assert err.location.path.startswith("domain > :durative-action work > :effect")
    assert "found '3'" in err.message


def test_truncated_file_reports_end_of_file():
    err = _error("(define (domain d) (:predicates (p)")
    assert "end of file" in err.message
    assert err.location.line == 1


def test_constraints_and_preferences_rejected_clearly():
    err = _error("(define (problem q) (:domain z) (:init) (:goal (and)) "
                 "(:constraints (always (p))))", parse_problem)
    assert ":constraints" in err.message and "not supported" in err.message
    err = _error("(define (problem q) (:domain z) (:init) (:goal (preference p1 (p))))",
                 parse_problem)
    assert "preference" in err.message


def test_duration_constraint_must_use_duration_variable():
    err = _error("""(define (domain d) (:requirements :durative-actions)
      (:durative-action a :parameters (?x) :duration (= ?d 1) :condition () :effect ()))""")
    assert "?duration" in err.message
    assert err.location.line == 2


def test_arithmetic_arity_is_checked():
    err = _error("""(define (domain d) (:requirements :fluents) (:functions (f))
      (:action a :parameters () :precondition (> (/ (f) 1 2) 0)))""")
    assert "'/' takes two arguments" in err.message


def test_empty_sections_and_untyped_parameters():
    d = parse_domain("""(define (domain d) (:predicates (p ?x))
      (:action a :parameters (?x) :precondition () :effect (p ?x)))""")
    a = d.operators[0]
    assert a.params == (ast.Typed("?x"),) and a.precondition is None
    assert parse_domain(print_domain(d)) == d


@pytest.mark.parametrize("decl, message, path", [
    ("(Free ?b - block)", "undeclared predicate 'free'", ":action touch > :precondition"),
    ("(len ?b - block) - number", "undeclared function 'len'", ":durative-action work > :duration"),
])
def test_static_checks_name_the_construct(decl, message, path):
    from hygiene_pddl.pddl import check_domain

    with pytest.raises(InputError, match=message) as info:
        check_domain(parse_domain(DOMAIN.replace(decl, "")), "d.pddl")
    assert info.value.location.path.endswith(path) and info.value.location.file == "d.pddl"


def test_static_checks_on_problems():
    from hygiene_pddl.pddl import check_problem

    d = parse_domain(DOMAIN)
    check_problem(parse_problem(PROBLEM), d)
    for bad, message in [("(free a)", None), ("(free zz)", "unknown object"),
                         ("(on a)", "takes 2 argument"), ("(flying a)", "undeclared predicate")]:
        if message:
            with pytest.raises(InputError, match=message):
                check_problem(parse_problem(PROBLEM.replace("(free a) (Ready)", f"{bad} (ready)")),
                              d)

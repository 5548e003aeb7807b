"""The lowering's split is exact: in every state, exactly one variant of an action runs, with the action's effects."""

import itertools

from hygiene_pddl.pddl import ast, parse_domain, parse_problem
from hygiene_pddl.planners.lowering import _conjuncts_e, _flat_effects, _literal, _timed, _World, lower


def _holds(c: ast.Cond, state: dict) -> bool:
    if isinstance(c, ast.TimedCond) and _literal(c) is None:
        return _holds(_timed(c, None), state)
    lit = _literal(c)
    if lit is not None:
        var, sign = lit
        return state[var] == sign
    if isinstance(c, ast.And):
        return all(_holds(x, state) for x in c.parts)
    if isinstance(c, ast.Or):
        return any(_holds(x, state) for x in c.parts)
    raise TypeError(c)


def _vars(c: ast.Cond, out: set) -> set:
    if isinstance(c, ast.TimedCond) and _literal(c) is None:
        return _vars(_timed(c, None), out)
    lit = _literal(c)
    if lit is not None:
        out.add(lit[0])
    elif isinstance(c, ast.And | ast.Or):
        for x in c.parts:
            _vars(x, out)
    return out




DOMAIN = """(define (domain t) (:requirements :strips :typing :durative-actions :conditional-effects)
 (:types c) (:predicates (p ?x - c) (q ?x - c) (r ?x - c) (s ?x - c))
 (:durative-action touch :parameters (?a ?b - c) :duration (= ?duration 1)
  :condition (and (at start (or (not (p ?a)) (q ?b))) (at end (r ?a)))
  :effect (and (at end (s ?a))
    (when (at start (and (p ?a) (not (p ?b)))) (at start (p ?b)))
    (when (at start (and (p ?b) (not (p ?a)))) (at start (p ?a)))
    (when (at end (or (q ?a) (r ?b))) (at end (not (r ?a))))
    (when (at end (q ?a)) (at end (q ?b))))))"""
PROBLEM = "(define (problem t1) (:domain t) (:objects x y - c) (:init) (:goal (s x)))"


def test_exactly_one_variant_runs_in_every_state_with_the_actions_effects():
    d, p = parse_domain(DOMAIN), parse_problem(PROBLEM)
    low = lower(d, p, "drop", True, "drop")
    op = d.operators[0]
    variants = low.domain.operators
    assert 1 < len(variants) < 2 ** 4 and all(low.variants[v.name] == "touch" for v in variants)
    world = _World(low.domain, low.problem)
    flat: list = []
    _flat_effects(op.effect, world, {}, None, ast.And(()), True, flat)
    whens = [(c, e) for c, e in flat if c != ast.And(())]
    plain = {e for c, e in flat if c == ast.And(())}
    guard = _timed(op.condition, None)
    names = sorted(_vars(guard, set()) | {v for c, _ in whens for v in _vars(c, set())}, key=str)
    checked = 0
    for values in itertools.product((False, True), repeat=len(names)):
        state = dict(zip(names, values, strict=True))
        runs = [v for v in variants if _holds(v.condition, state)]
        if not _holds(guard, state):
            assert runs == [], state  # no variant runs where the action cannot
            continue
        assert len(runs) == 1, (state, [v.name for v in runs])
        fired = {e for c, e in whens if _holds(c, state)}
        assert set(_conjuncts_e(runs[0].effect)) - plain == fired and plain <= set(_conjuncts_e(runs[0].effect))
        checked += 1
    assert checked > 10

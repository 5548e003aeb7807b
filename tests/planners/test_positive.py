"""The optic lowering (planners/positive.py): positive conjunctive conditions, exact at start and at end.

The property test enumerates every state of a small domain: a variant runs exactly where the action does (some
variant, with the action's effects; complements read as the negation of their predicate). The instance tests
read the exported files with both readers, check that no condition holds not/or/when, and take a plan of the
committed files through the variants and back.
"""

import dataclasses
import itertools
import warnings
from fractions import Fraction
from pathlib import Path

import pytest

from hygiene_pddl.errors import InputError
from hygiene_pddl.instances import load_instance
from hygiene_pddl.pddl import ast, parse_domain, parse_problem, read_domain, read_problem
from hygiene_pddl.planners import positive as pos
from hygiene_pddl.planners.lowering import _conjuncts_e, _literal, _nnf, _timed, lower
from hygiene_pddl.planners.targets import export
from hygiene_pddl.plans.extract import extract_plan
from hygiene_pddl.plans.model import Plan, PlanStep
from hygiene_pddl.registries import load_registries
from hygiene_pddl.validation.pddl_level import PddlValidator
from tests.benchmark_files import a_ticks_instance
from tests.planners.test_lowering import _holds

ROOT = Path(__file__).resolve().parents[2]
REG = load_registries()
SPOON = ROOT / "problems/spoon_fruit/spoon_fruit-wash_then_touch-water_first.json"
RINSE = ROOT / "examples/mechanics/rinse_or_wash-soil-and-spill.json"
TICKS = a_ticks_instance()

DOMAIN = """(define (domain t) (:requirements :strips :typing :durative-actions :negative-preconditions
   :disjunctive-preconditions :equality :conditional-effects)
 (:types c) (:constants a b - c) (:predicates (p ?x - c) (q ?x - c) (k ?x ?y - c))
 (:durative-action go :parameters (?x ?y - c) :duration (= ?duration 1)
  :condition (and (at start (or (not (p ?x)) (and (q ?y) (not (= ?x ?y))) (k ?x ?y)))
                  (at end (or (p ?y) (not (q ?x)))) (at end (or (not (k ?y ?x)) (q ?y))))
  :effect (and (at start (not (p ?x))) (at end (q ?x)) (when (at start (q ?y)) (at start (not (q ?y)))))))"""
PROBLEM = "(define (problem t1) (:domain t) (:init (p a) (k a b)) (:goal (q a)))"


def _ground(c: ast.Cond, b: dict) -> ast.Cond:
    """``c`` with ``b`` substituted, timings pushed to the literals, ``=`` decided."""
    c = _timed(c, None)

    def sub(x: ast.Cond) -> ast.Cond:
        if isinstance(x, ast.TimedCond):
            return ast.TimedCond(x.when, sub(x.cond))
        if isinstance(x, ast.Atom):
            args = tuple(b.get(a.name, a) if isinstance(a, ast.Var) else a for a in x.args)
            if x.pred == "=":
                return ast.And(()) if args[0] == args[1] else ast.Or(())
            return ast.Atom(x.pred, args)
        if isinstance(x, ast.Not):
            return ast.Not(sub(x.cond))
        return type(x)(tuple(sub(y) for y in x.parts))

    return _nnf(sub(c), True)


def _complemented(c: ast.Cond) -> ast.Cond:
    """``(not-P ..)`` read back as ``(not (P ..))``, ``(distinct-T a b)`` as ``(not (= a b))``."""
    if isinstance(c, ast.TimedCond):
        return ast.TimedCond(c.when, _complemented(c.cond))
    if isinstance(c, ast.Atom) and c.pred.startswith("not-"):
        return ast.Not(ast.Atom(c.pred[4:], c.args))
    if isinstance(c, ast.Atom) and c.pred.startswith(pos.DISTINCT + "-"):
        return ast.Not(ast.Atom("=", c.args))
    if isinstance(c, ast.And | ast.Or):
        return type(c)(tuple(_complemented(x) for x in c.parts))
    return c


def _vars(c: ast.Cond, out: set) -> set:
    lit = _literal(c)
    if lit is not None:
        out.add(lit[0])
    elif isinstance(c, ast.And | ast.Or):
        for x in c.parts:
            _vars(x, out)
    return out


def _effects(e: ast.Effect, b: dict, state: dict) -> set:
    """The ground primitive effects an action's effect has in ``state`` (its when conditions evaluated)."""
    out = set()
    for x in _conjuncts_e(e):
        when, inner = (x.when, x.effect) if isinstance(x, ast.TimedEffect) else (None, x)
        if isinstance(inner, ast.When):
            if _holds(_ground(ast.TimedCond(when, inner.cond) if when and not isinstance(inner.cond, ast.TimedCond)
                              else inner.cond, b), state):
                out |= _effects(ast.TimedEffect(when, inner.effect) if when else inner.effect, b, state)
            continue
        atom = inner.atom
        args = tuple(b.get(a.name, a) if isinstance(a, ast.Var) else a for a in atom.args)
        if not atom.pred.startswith("not-"):
            out.add((when, type(inner).__name__, atom.pred, args))
    return out


def test_a_variant_runs_exactly_where_the_action_does_with_its_effects():
    d, p = parse_domain(DOMAIN), parse_problem(PROBLEM)
    low = pos.positive(lower(d, p, "drop", True, "drop"))
    assert low.bound == {} and 1 < len(low.domain.operators) and set(low.variants.values()) == {"go"}
    op = d.operators[0]
    objects = (ast.Const("a"), ast.Const("b"))
    static = {ast.TimedCond(w, ast.Atom("k", t)): t == objects  # (k a b) only
              for w in (ast.AT_START, ast.AT_END) for t in itertools.product(objects, repeat=2)}
    checked = 0
    for x, y in itertools.product(objects, repeat=2):
        b = {"?x": x, "?y": y}
        guard = _ground(op.condition, b)
        variants = [(v, _ground(_complemented(v.condition), b)) for v in low.domain.operators]
        names = sorted((_vars(guard, set()) | {u for _, c in variants for u in _vars(c, set())}) - set(static),
                       key=str)
        for values in itertools.product((False, True), repeat=len(names)):
            state = {**dict(zip(names, values, strict=True)), **static}
            runs = [v for v, c in variants if _holds(c, state)]
            if not _holds(guard, state):
                assert runs == [], (x, y, state)
                continue
            assert runs, (x, y, state)
            want = _effects(op.effect, b, state)
            assert all(_effects(v.effect, b, state) == want for v in runs)
            checked += 1
    assert checked > 20


def test_complements_follow_every_effect_and_start_where_the_predicate_does_not_hold():
    d, p = parse_domain(DOMAIN), parse_problem(PROBLEM)
    low = pos.positive(lower(d, p, "drop", True, "drop"))
    init = set(low.problem.init)
    assert ast.Atom("not-p", (ast.Const("b"),)) in init and ast.Atom("not-p", (ast.Const("a"),)) not in init
    assert ast.Atom("distinct-c", (ast.Const("a"), ast.Const("b"))) in init
    for v in low.domain.operators:
        parts = set(_conjuncts_e(v.effect))
        for e in parts:
            inner = e.effect if isinstance(e, ast.TimedEffect) else e
            if isinstance(inner, ast.Add | ast.Delete) and inner.atom.pred in ("p", "q"):
                mirror = (ast.Delete if isinstance(inner, ast.Add) else ast.Add)(
                    ast.Atom("not-" + inner.atom.pred, inner.atom.args))
                assert ast.TimedEffect(e.when, mirror) in parts, (v.name, e)


def test_a_same_time_add_and_delete_of_one_atom_keeps_the_add_on_both():
    e = ast.AndEffect((ast.TimedEffect(ast.AT_END, ast.Delete(ast.Atom("p", (ast.Var("?x"),)))),
                       ast.TimedEffect(ast.AT_END, ast.Add(ast.Atom("p", (ast.Var("?x"),))))))
    out = set(_conjuncts_e(pos._mirrored(e, {"p"})))
    assert ast.TimedEffect(ast.AT_END, ast.Delete(ast.Atom("not-p", (ast.Var("?x"),)))) in out
    assert ast.TimedEffect(ast.AT_END, ast.Add(ast.Atom("not-p", (ast.Var("?x"),)))) not in out


def test_an_add_and_a_delete_that_may_coincide_are_refused():
    d = parse_domain(DOMAIN.replace("(at start (not (q ?y)))", "(at end (not (q ?y)))"))
    with pytest.raises(InputError, match="adds and deletes atoms that may coincide at one time point"):
        pos.positive(lower(d, parse_problem(PROBLEM), "drop", True, "drop"))


def test_too_many_disjunctive_cases_is_an_input_error(monkeypatch):
    monkeypatch.setattr(pos, "MAX_TERMS", 1)
    d, p = parse_domain(DOMAIN), parse_problem(PROBLEM)
    with pytest.raises(InputError, match="disjunctive cases after pruning: this target cannot take"):
        pos.positive(lower(d, p, "drop", True, "drop"))


# --- instances ---------------------------------------------------------------------------------------------

def _impure(c: ast.Cond | None) -> bool:
    if isinstance(c, ast.Not | ast.Or | ast.Imply | ast.Exists | ast.Forall):
        return True
    if isinstance(c, ast.TimedCond):
        return _impure(c.cond)
    return any(_impure(x) for x in getattr(c, "parts", ()))


def _has_when(e: ast.Effect | None) -> bool:
    if isinstance(e, ast.When):
        return True
    if isinstance(e, ast.AndEffect):
        return any(_has_when(x) for x in e.parts)
    return isinstance(e, ast.TimedEffect | ast.ForallEffect) and _has_when(e.effect)


def _to_variants(exp, validator: PddlValidator, plan: Plan) -> Plan:  # noqa: ANN001 - an Export
    """The committed plan in the variants' names: per step, the variant the validator's first failure moves past
    (greedy repair from the first variant of each step)."""
    cands = []
    names = [op.name for op in validator.domain.operators]
    for s in plan.steps:
        row = []
        for v in names:
            for drop in [None, *range(len(s.args))]:
                args = s.args if drop is None else s.args[:drop] + s.args[drop + 1:]
                try:
                    if exp.map_back(v, args) == (s.action, s.args):
                        row.append(dataclasses.replace(s, action=v, args=args))
                except InputError:
                    pass
        assert row, s
        cands.append(list(dict.fromkeys(row)))
    choice = [0] * len(cands)

    def run(ch: list[int]):  # noqa: ANN202
        return validator.validate(Plan(steps=tuple(cands[i][c] for i, c in enumerate(ch))))

    def progress(r) -> tuple:  # noqa: ANN001, ANN202
        return (1, 0) if r.valid else (0, r.failure.time if r.failure.time is not None else Fraction(10 ** 9))

    result = run(choice)
    for _ in range(sum(len(c) for c in cands) + 1):
        if result.valid or result.failure.step_index is None:
            break
        j = result.failure.step_index
        tries = [(progress(r), k, r) for k in range(len(cands[j]))
                 for r in [run([*choice[:j], k, *choice[j + 1:]])]]
        best = max(tries, key=lambda t: (t[0], -t[1]))
        if best[0] <= progress(result):
            break
        choice[j], result = best[1], best[2]
    return Plan(steps=tuple(cands[i][c] for i, c in enumerate(choice)))


def _committed_plan(path: Path) -> Plan:
    from hygiene_pddl.planners import catalogue

    result = catalogue()["hygiene-nsp"].factory().solve(load_instance(path, REG), 60, REG)
    return extract_plan(result.plan_text)


@pytest.mark.parametrize("path", [SPOON, RINSE], ids=lambda p: p.stem)
def test_optic_files_are_positive_and_carry_a_plan_there_and_back(path, tmp_path):
    inst = load_instance(path, REG)
    exp = export("optic", REG, inst)
    domain_path, problem_path = exp.write(tmp_path)
    d, p = read_domain(domain_path), read_problem(problem_path)
    for op in d.operators:
        assert not _impure(op.condition if isinstance(op, ast.DurativeAction) else op.precondition), op.name
        assert not _has_when(op.effect), op.name
    assert not _impure(p.goal)
    assert not {":negative-preconditions", ":disjunctive-preconditions", ":conditional-effects"} & set(d.requirements)
    plan = _committed_plan(path)
    on_optic = _to_variants(exp, PddlValidator(d, p, tolerance="0.001"), plan)
    assert PddlValidator(d, p, tolerance="0.001").validate(on_optic).valid
    back = Plan(steps=tuple(PlanStep(*exp.map_back(s.action, s.args), s.time, s.duration) for s in on_optic.steps))
    assert [(s.action, s.args) for s in back.steps] == [(s.action, s.args) for s in plan.steps]


def test_the_makespan_finish_fixes_its_tick_instead_of_splitting_on_every_tick():
    inst = load_instance(TICKS, REG)
    exp = export("optic", REG, inst)
    d = parse_domain(exp.domain)
    finishes = [op for op in d.operators if op.name.startswith("finish")]
    # one ground finish per tick at most (splitting on every tick's conditions would give far more)
    assert 1 <= len(finishes) <= inst.horizon - inst.decision_time + 1 and all(op.params == () for op in finishes)
    name, args = exp.map_back(finishes[0].name, ())
    assert name == "finish" and len(args) == 1 and args[0].startswith("tu")


@pytest.mark.parametrize("path", [SPOON, pytest.param(RINSE, marks=pytest.mark.slow)], ids=lambda p: p.stem)
def test_unified_plannings_reader_reads_the_optic_files(path, tmp_path):
    """(~10 s on spoon_fruit: PDDLReader is slow on the complements' initial facts)"""
    from unified_planning.io import PDDLReader

    domain_path, problem_path = export("optic", REG, load_instance(path, REG)).write(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        q = PDDLReader().parse_problem(str(domain_path), str(problem_path))
    assert not q.kind.has_negative_conditions() and not q.kind.has_disjunctive_conditions()
    assert not q.kind.has_conditional_effects()

"""Conditions as conjunctions of positive literals, for POPF/OPTIC: disjunctions split, negations complemented.

:func:`positive` continues :func:`hygiene_pddl.planners.lowering.lower` (quantifiers expanded, conditional
effects split, negation normal form) for planners that read no negative or disjunctive condition:

* **disjunctions**: each action's condition (its literals each at its time point) is put in disjunctive normal
  form, one variant per term. Terms are pruned as they are built: a term holding a literal and its negation at the
  same time point, equalities that contradict (two objects equal, ``?x = a`` and ``?x = b``), a static atom no
  initial fact matches, or the negation of a static atom every object tuple holds, is dropped; a term that
  contains another is dropped (the smaller one runs wherever it does, with the same effects). At start and at
  end this is exact: a plan picks, per step, the variant whose literals hold at its start and at its end. An
  ``over all`` disjunction split this way is *sound but incomplete* (the variant asks one disjunct to hold for
  the whole interval, where the action only needs some disjunct at every instant); where a domain has one, a
  note says so.
* **negative literals**: ``(not (P ..))`` becomes ``(not-P ..)``. For a fluent P every effect on P is mirrored
  on not-P (an add of P deletes not-P at the same time point, a delete adds it; where an action adds and deletes
  the same atom at once, the add wins on both), timed initial literals too, and the initial state lists not-P
  for every object tuple of P's types that P does not hold; for a static P (no effect changes it) not-P is that
  list alone. ``(not (= a b))`` becomes ``(distinct a b)``, listed for every pair of distinct objects of the
  types it is used with; ``(not (= f g))`` on numbers becomes ``(< f g)`` or ``(> f g)``.

The result has no ``not``, ``or`` or ``when`` in any condition; variants are renumbered ``ACTION_N`` per
original action and mapped back by :attr:`Lowered.variants` as before.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

from hygiene_pddl.errors import InputError
from hygiene_pddl.pddl import ast
from hygiene_pddl.planners.lowering import (
    FALSE,
    TRUE,
    Lowered,
    _changed,
    _conjuncts_e,
    _fold,
    _literal,
    _nnf,
    _subst_e,
    _timed,
    _World,
    named_constants,
)

#: DNF terms kept for one action (after pruning) and variants written in all before the target refuses.
MAX_TERMS = 512
MAX_VARIANTS = 4096
#: An action with more DNF terms than this tries fixing a parameter of at most MAX_POOL objects.
GROUND_ABOVE = 8
MAX_POOL = 32
DISTINCT = "distinct"
_WHENS = (ast.AT_START, ast.OVER_ALL, ast.AT_END, None)

Term = dict  # literal variable (a timed atom or comparison) -> sign, in order of first appearance


class _TooMany(Exception):
    pass


def _when_of(var: ast.Cond) -> str | None:
    return var.when if isinstance(var, ast.TimedCond) else None


def _bare(var: ast.Cond) -> ast.Cond:
    return var.cond if isinstance(var, ast.TimedCond) else var


def _split_numeric_inequality(c: ast.Cond) -> ast.Cond:
    """``(not (= f g))`` → ``(or (< f g) (> f g))``, at any depth (other negated comparisons are already inverted)."""
    lit = _literal(c)
    if lit is not None:
        var, sign = lit
        inner = _bare(var)
        if not sign and isinstance(inner, ast.Compare) and inner.op == "=":
            when = _when_of(var)
            parts = tuple(ast.Compare(op, inner.lhs, inner.rhs) for op in ("<", ">"))
            return ast.Or(tuple(ast.TimedCond(when, p) if when else p for p in parts))
        return c
    if isinstance(c, ast.And | ast.Or):
        return type(c)(tuple(_split_numeric_inequality(x) for x in c.parts))
    return c


class _Statics:
    """Which lifted static literals can hold at all (an initial fact matches / some tuple misses)."""

    def __init__(self, w: _World):
        self.w = w
        self.facts: dict[str, list[ast.Atom]] = {}
        for f in sorted(w.facts, key=str):
            self.facts.setdefault(f.pred, []).append(f)

    def possible(self, atom: ast.Atom, sign: bool, types: dict[str, tuple[str, ...]]) -> bool:
        if atom.pred not in self.w.static or atom.pred == "=":
            return True
        matching = [f for f in self.facts.get(atom.pred, ()) if _matches(atom.args, f.args)]
        if sign:
            return bool(matching)
        if any(isinstance(a, ast.Var) for a in atom.args):
            pools = [self._pool(a, types) for a in atom.args]
            return len(matching) < _count(pools, atom.args)
        return not matching

    def _pool(self, a: ast.Term, types: dict[str, tuple[str, ...]]) -> list[str]:
        if isinstance(a, ast.Const):
            return [a.name]
        return sorted(set().union(*(self.w.objects.get(t, []) for t in types.get(a.name, ("object",)))))


def _matches(pattern: tuple[ast.Term, ...], fact: tuple[ast.Term, ...]) -> bool:
    bound: dict[str, ast.Term] = {}
    for p, f in zip(pattern, fact, strict=True):
        if isinstance(p, ast.Const):
            if p != f:
                return False
        elif bound.setdefault(p.name, f) != f:
            return False
    return True


def _count(pools: list[list[str]], args: tuple[ast.Term, ...]) -> int:
    """Tuples the pattern ``args`` (variables over ``pools``, repeated variables equal) stands for."""
    seen: dict[str, int] = {}
    n = 1
    for a, pool in zip(args, pools, strict=True):
        if isinstance(a, ast.Var):
            if a.name in seen:
                continue
            seen[a.name] = len(pool)
        n *= len(pool)
    return n


def _consistent(term: Term) -> bool:
    """No equality class holds two objects or is asked to differ, no atom holds both ways once equal terms
    are identified (per time point)."""
    parent: dict[ast.Term, ast.Term] = {}

    def find(x: ast.Term) -> ast.Term:
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    for var, sign in term.items():
        atom = _bare(var)
        if sign and isinstance(atom, ast.Atom) and atom.pred == "=":
            a, b = find(atom.args[0]), find(atom.args[1])
            if isinstance(a, ast.Const) and isinstance(b, ast.Const) and a != b:
                return False
            if a != b:
                parent[a if isinstance(a, ast.Var) else b] = b if isinstance(a, ast.Var) else a
    if not parent:
        return True
    seen: dict[tuple, bool] = {}
    for var, sign in term.items():
        atom = _bare(var)
        if not isinstance(atom, ast.Atom):
            continue
        args = tuple(find(a) for a in atom.args)
        if atom.pred == "=":
            if not sign and args[0] == args[1]:
                return False
            continue
        key = (_when_of(var), atom.pred, args)
        if seen.setdefault(key, sign) != sign:
            return False
    return True


def _minimal(terms: list[Term]) -> list[Term]:
    """Terms no other term is contained in (the first of equal ones kept)."""
    items = [frozenset(t.items()) for t in terms]
    out = []
    for i, t in enumerate(items):
        if not any((o < t) or (o == t and j < i) for j, o in enumerate(items) if j != i):
            out.append(terms[i])
    return out


def _dnf(c: ast.Cond, lit_ok, ok, limit: int) -> list[Term]:  # noqa: ANN001 - lit_ok: (var, sign) -> bool, ok: Term -> bool
    """The condition's DNF terms, pruned by ``lit_ok`` (one literal), ``ok`` (a term) and by containment as they
    are built; more than ``limit`` at any step raises _TooMany."""
    if c == TRUE:
        return [{}]
    if c == FALSE:
        return []
    lit = _literal(c)
    if lit is not None:
        return [{lit[0]: lit[1]}] if lit_ok(*lit) else []
    if isinstance(c, ast.Or):
        terms = _minimal(list({frozenset(t.items()): t for x in c.parts for t in _dnf(x, lit_ok, ok, limit)}.values()))
        if len(terms) > limit:
            raise _TooMany
        return terms
    if isinstance(c, ast.And):
        terms: list[Term] = [{}]
        for x in c.parts:
            grown = []
            for a, b in itertools.product(terms, _dnf(x, lit_ok, ok, limit)):
                if any(a.get(v, s) != s for v, s in b.items()):
                    continue
                t = {**a, **b}
                if ok(t):
                    grown.append(t)
            terms = _minimal(list({frozenset(t.items()): t for t in grown}.values()))
            if len(terms) > limit:
                raise _TooMany
        return terms
    raise TypeError(f"not a condition in negation normal form: {c!r}")


def _has_over_all_disjunction(c: ast.Cond) -> bool:
    if isinstance(c, ast.Or):
        return any(_when_of(v) == ast.OVER_ALL for v in _literal_vars(c))
    if isinstance(c, ast.And):
        return any(_has_over_all_disjunction(x) for x in c.parts)
    return False


def _has_or(c: ast.Cond) -> bool:
    return isinstance(c, ast.Or) or any(_has_or(x) for x in getattr(c, "parts", ()))


def _literal_vars(c: ast.Cond) -> list[ast.Cond]:
    lit = _literal(c)
    if lit is not None:
        return [lit[0]]
    return [v for x in getattr(c, "parts", ()) for v in _literal_vars(x)]


def _condition(term: Term) -> ast.Cond:
    """The term as a condition, grouped by time point (at start, over all, at end)."""
    parts: list[ast.Cond] = []
    for when in _WHENS:
        lits = [_bare(v) if s else ast.Not(_bare(v)) for v, s in term.items() if _when_of(v) == when]
        if not lits:
            continue
        body = lits[0] if len(lits) == 1 else ast.And(tuple(lits))
        parts += [ast.TimedCond(when, body)] if when else lits
    return ast.And(tuple(parts))


def _statics_of(c: ast.Cond, static: set[str], out: set[str], inside: bool) -> set[str]:
    """Variables of ``c`` that occur in a static atom inside a disjunction."""
    if isinstance(c, ast.Atom) and c.pred in static and inside:
        out.update(a.name for a in c.args if isinstance(a, ast.Var))
    elif isinstance(c, ast.And | ast.Or):
        for x in c.parts:
            _statics_of(x, static, out, inside or isinstance(c, ast.Or))
    elif isinstance(c, ast.TimedCond | ast.Not):
        _statics_of(c.cond, static, out, inside)
    return out


class _Splitter:
    """One action's variants: its DNF terms, with a parameter fixed to each of its objects where that writes fewer
    variants (a static atom on it is then decided: the makespan's (finish ?k) asks the tick after ?k not passed)."""

    def __init__(self, w: _World, domain: str):
        self.w, self.statics, self.domain = w, _Statics(w), domain

    def condition(self, op: ast.Operator) -> ast.Cond:
        raw = op.condition if isinstance(op, ast.DurativeAction) else op.precondition
        return _split_numeric_inequality(_nnf(_timed(raw or TRUE, None), True))

    def terms(self, op: ast.Operator, limit: int) -> list[Term]:
        """The DNF terms; _TooMany past ``limit``."""
        types = {p.name: p.types for p in op.params}

        def lit_ok(var: ast.Cond, sign: bool) -> bool:
            return not isinstance(_bare(var), ast.Atom) or self.statics.possible(_bare(var), sign, types)

        return _dnf(self.condition(op), lit_ok, _consistent, limit)

    def fixed(self, op: ast.Operator, param: ast.Typed, obj: str) -> ast.Operator | None:
        b = {param.name: ast.Const(obj)}
        params = tuple(x for x in op.params if x.name != param.name)
        raw = op.condition if isinstance(op, ast.DurativeAction) else op.precondition
        cond = _fold(raw or TRUE, self.w, b, True)
        if cond == FALSE:
            return None
        effect = _subst_e(op.effect, b) if op.effect is not None else None
        if isinstance(op, ast.DurativeAction):
            return replace(op, params=params, condition=cond, effect=effect)
        return replace(op, params=params, precondition=cond, effect=effect)

    def split(self, op: ast.Operator, fixed: dict[str, str]) -> list[tuple[ast.Operator, dict[str, str], Term]]:
        try:
            terms: list[Term] | None = self.terms(op, MAX_TERMS)
        except _TooMany:
            terms = None
        best: tuple[int, list] | None = None
        if terms is None or len(terms) > GROUND_ABOVE:
            cands = _statics_of(self.condition(op), self.w.static, set(), False)
            for param in (x for x in op.params if x.name in cands):
                pool = self.statics._pool(ast.Var(param.name), {param.name: param.types})
                if len(pool) > MAX_POOL:
                    continue
                budget = (best[0] if best else MAX_VARIANTS if terms is None else len(terms)) - 1
                counted = []
                try:
                    for o in pool:
                        f = self.fixed(op, param, o)
                        if f is not None:
                            counted.append((f, {**fixed, param.name: o}, self.terms(f, budget)))
                            budget -= len(counted[-1][2])
                            if budget < 0:
                                raise _TooMany
                except _TooMany:  # no fewer variants than without fixing it
                    continue
                best = sum(len(t) for _, _, t in counted), counted
        if best is None:
            if terms is None:
                raise InputError(f"{self.domain}: the condition of {op.name} has more than {MAX_TERMS} disjunctive "
                                 "cases after pruning: this target cannot take this problem; use one that reads "
                                 "disjunctions (lpg, val, up, kairos)")
            return [(op, fixed, t) for t in terms]
        return [case for f, fx, _ in best[1] for case in self.split(f, fx)]


def _split(low: Lowered, w: _World):  # noqa: ANN202 - (operators, variants, bound, over-all actions)
    splitter = _Splitter(w, low.domain.name)
    originals = {}
    by_action: dict[str, list[tuple[ast.Operator, dict[str, str]]]] = {}
    over_all: list[str] = []
    for op in low.domain.operators:
        action = low.variants[op.name]
        originals.setdefault(action, op.params)
        cases = splitter.split(op, {})
        if cases and _has_over_all_disjunction(splitter.condition(op)):
            over_all.append(action)
        for case, fixed, term in cases:
            c = _condition(term)
            case = replace(case, condition=c) if isinstance(case, ast.DurativeAction) else replace(case, precondition=c)
            by_action.setdefault(action, []).append((case, fixed))
    ops: list[ast.Operator] = []
    variants: dict[str, str] = {}
    bound: dict[str, tuple[tuple[int, str], ...]] = {}
    for action, group in by_action.items():
        names = [x.name for x in originals[action]]
        for i, (op, fixed) in enumerate(group):
            name = action if len(group) == 1 else f"{action}_{i}"
            ops.append(replace(op, name=name))
            variants[name] = action
            if fixed:
                bound[name] = tuple(sorted((names.index(k), v) for k, v in fixed.items()))
    if len(ops) > MAX_VARIANTS:
        raise InputError(f"{low.domain.name}: splitting the disjunctive conditions writes {len(ops)} action variants "
                         f"(more than {MAX_VARIANTS}): this target cannot take this problem; use one that reads "
                         "disjunctions (lpg, val, up, kairos)")
    return ops, variants, bound, sorted(dict.fromkeys(over_all))


# --- complements ---------------------------------------------------------------------------------------------

def _negated(c: ast.Cond | None, out: dict[str, None]) -> dict[str, None]:
    if isinstance(c, ast.Not) and isinstance(c.cond, ast.Atom):
        out[c.cond.pred] = None
    elif isinstance(c, ast.And | ast.Or):
        for x in c.parts:
            _negated(x, out)
    elif isinstance(c, ast.TimedCond | ast.Not):
        _negated(c.cond, out)
    return out


def _complement(p: str) -> str:
    return f"not-{p}"


def _positive_cond(c: ast.Cond, preds: set[str], type_of: dict[str, str], used: set[str]) -> ast.Cond:
    """``c`` with ``(not (P ..))`` → ``(not-P ..)`` for P in ``preds``, ``(not (= a b))`` → ``(distinct-T a b)``
    (T the arguments' type, by ``type_of``: variable or object name → type; recorded in ``used``)."""
    if isinstance(c, ast.Not) and isinstance(c.cond, ast.Atom) and c.cond.pred == "=":
        kinds = {type_of[a.name] for a in c.cond.args}
        if len(kinds) != 1:
            raise ValueError(f"an inequality between terms of different types: {c!r}")
        used.add(kind := kinds.pop())
        return ast.Atom(f"{DISTINCT}-{kind}", c.cond.args)
    if isinstance(c, ast.Not) and isinstance(c.cond, ast.Atom) and c.cond.pred in preds:
        return ast.Atom(_complement(c.cond.pred), c.cond.args)
    if isinstance(c, ast.And | ast.Or):
        return type(c)(tuple(_positive_cond(x, preds, type_of, used) for x in c.parts))
    if isinstance(c, ast.TimedCond):
        return ast.TimedCond(c.when, _positive_cond(c.cond, preds, type_of, used))
    if isinstance(c, ast.Not):
        raise TypeError(f"a negation left on a non-atom: {c!r}")
    return c


def _mirrored(e: ast.Effect | None, preds: set[str]) -> ast.Effect | None:
    """Every add/delete of a complemented predicate mirrored on its complement (the add winning where an effect
    adds and deletes the same atom at one time point)."""
    if e is None:
        return None
    parts = _conjuncts_e(e)
    added = {(x.when, x.effect.atom) for x in parts if isinstance(x, ast.TimedEffect) and isinstance(x.effect, ast.Add)}
    added |= {(None, x.atom) for x in parts if isinstance(x, ast.Add)}
    out: list[ast.Effect] = []
    for x in parts:
        when, inner = (x.when, x.effect) if isinstance(x, ast.TimedEffect) else (None, x)
        out.append(x)
        if isinstance(inner, ast.ForallEffect):
            raise ValueError("a forall effect is left after the lowering expanded them")
        if isinstance(inner, ast.Add | ast.Delete) and inner.atom.pred in preds:
            if isinstance(inner, ast.Delete) and (when, inner.atom) in added:
                continue
            mirror = (ast.Delete if isinstance(inner, ast.Add) else ast.Add)(
                ast.Atom(_complement(inner.atom.pred), inner.atom.args))
            out.append(ast.TimedEffect(when, mirror) if when else mirror)
    return ast.AndEffect(tuple(out))


def _lifted_clashes(e: ast.Effect | None, preds: set[str]) -> list[str]:
    """Adds and deletes of a complemented predicate at one time point whose arguments may coincide without being
    the same terms (the mirror would then be wrong where they do)."""
    parts = [((x.when, x.effect) if isinstance(x, ast.TimedEffect) else (None, x)) for x in _conjuncts_e(e)]
    adds = [(w, x.atom) for w, x in parts if isinstance(x, ast.Add) and x.atom.pred in preds]
    dels = [(w, x.atom) for w, x in parts if isinstance(x, ast.Delete) and x.atom.pred in preds]
    out = []
    for (wa, a), (wd, d) in itertools.product(adds, dels):
        pairs = zip(a.args, d.args, strict=True)
        if wa == wd and a.pred == d.pred and a != d and all(x == y or ast.Var in (type(x), type(y)) for x, y in pairs):
            out.append(f"{a} / {d}")
    return out


def _tuples(pools: list[list[str]]) -> list[tuple[str, ...]]:
    return list(itertools.product(*pools))


def positive(low: Lowered) -> Lowered:
    """``low`` with its conditions (and goal) conjunctions of positive literals (see the module docstring)."""
    d, p = low.domain, low.problem
    w = _World(d, p)
    ops, variants, bound, over_all = _split(low, w)
    goal = _nnf(p.goal or TRUE, True)
    if _has_or(goal):
        raise InputError(f"{p.name}: a disjunctive goal; this target cannot take it")
    negated: dict[str, None] = {}
    for op in ops:
        _negated(op.condition if isinstance(op, ast.DurativeAction) else op.precondition, negated)
    _negated(goal, negated)
    preds = set(negated) - {"="}
    clash = {_complement(x) for x in preds} & {x.name for x in d.predicates}
    if clash:
        raise ValueError(f"complement predicates clash with the domain's: {sorted(clash)}")
    fluent = set()
    for op in ops:
        _changed(op.effect, fluent)
    for op in ops:
        bad = _lifted_clashes(op.effect, preds & fluent)
        if bad:
            raise InputError(f"{d.name}: {op.name} adds and deletes atoms that may coincide at one time point "
                             f"({'; '.join(bad)}): this target cannot complement them")
    objects = {o.name: o.types[0] for o in (*d.constants, *p.objects)}
    used: set[str] = set()
    new_ops = []
    for op in ops:
        type_of = {**objects, **{x.name: x.types[0] for x in op.params}}
        mirrored = _mirrored(op.effect, preds & fluent)
        if isinstance(op, ast.DurativeAction):
            new_ops.append(replace(op, condition=_positive_cond(op.condition, preds, type_of, used), effect=mirrored))
        else:
            new_ops.append(replace(op, precondition=_positive_cond(op.precondition, preds, type_of, used),
                                   effect=mirrored))
    goal = _positive_cond(goal, preds, objects, used)
    declared = {x.name: x for x in d.predicates}
    new_preds = list(d.predicates)
    init = list(p.init)
    facts = {i for i in p.init if isinstance(i, ast.Atom)}
    notes = list(low.notes)
    for pred in sorted(preds):
        decl = declared[pred]
        new_preds.append(ast.Predicate(_complement(pred), decl.params))
        pools = [sorted(set().union(*(w.objects.get(t, []) for t in x.types))) for x in decl.params]
        init += [a for a in (ast.Atom(_complement(pred), tuple(map(ast.Const, combo))) for combo in _tuples(pools))
                 if ast.Atom(pred, a.args) not in facts]
        for item in p.init:
            if isinstance(item, ast.TimedInit) and not isinstance(item.item, ast.FluentInit):
                atom = item.item.cond if isinstance(item.item, ast.Not) else item.item
                if atom.pred == pred:
                    mirror = ast.Atom(_complement(pred), atom.args)
                    init.append(ast.TimedInit(item.time, mirror if isinstance(item.item, ast.Not) else ast.Not(mirror)))
    for kind in sorted(used):
        new_preds.append(ast.Predicate(f"{DISTINCT}-{kind}", (ast.Typed("?x", (kind,)), ast.Typed("?y", (kind,)))))
        pool = sorted(w.objects.get(kind, []))
        init += [ast.Atom(f"{DISTINCT}-{kind}", (ast.Const(a), ast.Const(b))) for a in pool for b in pool if a != b]
    split = sum(1 for n, a in variants.items() if n != a)
    if split:
        notes.append(f"conditions split into {len(new_ops)} variants of {len(set(variants.values()))} actions, one "
                     "per term of their disjunctive normal form (contradictory, statically false and contained terms "
                     "dropped)")
    if over_all:
        notes.append(f"over-all disjunctions of {', '.join(over_all)} split into variants that keep one disjunct for "
                     "the whole interval: sound, but a plan that switches disjuncts during the action is lost")
    if preds:
        notes.append(f"negative conditions on {', '.join(sorted(preds))} written as complement predicates "
                     f"{', '.join(_complement(x) for x in sorted(preds))}")
    if used:
        notes.append(f"inequalities written as {', '.join(f'{DISTINCT}-{k}' for k in sorted(used))}")
    reqs = tuple(r for r in d.requirements if r not in (":negative-preconditions", ":disjunctive-preconditions"))
    domain = replace(d, operators=tuple(new_ops), predicates=tuple(new_preds), requirements=reqs)
    problem = replace(p, init=tuple(init), goal=goal)
    if bound:
        notes.append(f"{len(bound)} variants fix a parameter to one object where that decides a static atom and "
                     "writes fewer variants")
    domain, problem = named_constants(domain, problem)
    return Lowered(domain, problem, variants, tuple(notes), bound)

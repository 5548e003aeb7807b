"""ADL lowering for planners that read no conditional effects (LPG-td, TAMER, Aries): our own, on the AST.

:func:`lower` rewrites one instance's temporal domain and problem (parsed by :mod:`hygiene_pddl.pddl`):

* **ticks**: the makespan construction (compiler/ticks.py) marks ticks with a quantified conditional effect at
  every end. ``"rewrite"`` keeps its meaning without it: ``(finish ?k)`` needs the tick after ?k not yet passed
  when it happens (no action ends after ``(finished)``, so every end came before), which bounds K by the same
  round(last end); ``"drop"`` leaves the construction out (for a file without a metric, or one weighing
  ``(total-time)``).
* **quantifiers** over the instance's objects are expanded (``forall`` → conjunction, ``exists`` →
  disjunction, ``forall`` effects → one effect per binding), static atoms (no effect or timed literal changes
  them) evaluated against the initial state; every conditional effect's quantifiers are always expanded, the
  conditions' only when ``expand_conditions``.
* **conditional effects** are split into action variants, one per set S of effect conditions that can hold
  together: the variant's extra conditions are every condition in S and the negation of every other one, its
  effects those under S. The sets S are found by a decision tree over the literals of the effect conditions
  (each at its time point), a branch that falsifies one of the action's own conditions pruned, so no variant
  is written that can never run. The variants' conditions are disjoint and cover every state where the action
  is executable, so exactly one variant is executable wherever the action is, with the same effects: the
  lowering is sound and complete (no plan lost, none added).
* conditions are written in negation normal form (``imply`` and ``(not (and ..))`` rewritten).

Problem objects named by the lowered domain become its constants. Variants are named ``ACTION_N``; the
returned table maps each back to its action.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass, field, replace

from hygiene_pddl.errors import InputError
from hygiene_pddl.pddl import ast

TRUE: ast.Cond = ast.And(())
FALSE: ast.Cond = ast.Or(())
TICK_PREDICATES = frozenset({"tick-passed", "tick-marked", "tick-next", "finished"})
TICK_FUNCTIONS = frozenset({"tick-value", "cost-makespan"})
FINISH = "finish"
#: Action variants written at most (over all actions) before the lowering refuses the problem, and leaves of one
#: action's decision tree.
MAX_VARIANTS = 1024
MAX_LEAVES = 1 << 12
_INVERSE = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "=": None}


@dataclass(frozen=True)
class Lowered:
    domain: ast.Domain
    problem: ast.Problem
    variants: dict[str, str]  # variant name -> action name (every action, variants or not)
    notes: tuple[str, ...]  # what was done, one phrase each
    #: variant name -> (position among the action's parameters, object) of parameters the variant fixes
    bound: dict[str, tuple[tuple[int, str], ...]] = field(default_factory=dict)

    def original(self, name: str, args: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
        """A step of a variant → the action's name and arguments (fixed parameters put back)."""
        out = list(args)
        for pos, obj in self.bound.get(name, ()):
            out.insert(pos, obj)
        return self.variants[name], tuple(out)


# --- symbols ---------------------------------------------------------------------------------------------

def _symbols_c(c: ast.Cond | None, out: set[str]) -> set[str]:
    if isinstance(c, ast.Atom):
        out.add(c.pred)
    elif isinstance(c, ast.Not | ast.Exists | ast.Forall | ast.TimedCond):
        _symbols_c(c.cond, out)
    elif isinstance(c, ast.And | ast.Or):
        for p in c.parts:
            _symbols_c(p, out)
    elif isinstance(c, ast.Imply):
        _symbols_c(c.ante, out)
        _symbols_c(c.cons, out)
    elif isinstance(c, ast.Compare):
        _symbols_n(c.lhs, out)
        _symbols_n(c.rhs, out)
    return out


def _symbols_n(e: ast.NExpr, out: set[str]) -> set[str]:
    if isinstance(e, ast.FuncTerm):
        out.add(e.name)
    elif isinstance(e, ast.BinOp):
        for a in e.args:
            _symbols_n(a, out)
    elif isinstance(e, ast.Neg):
        _symbols_n(e.expr, out)
    return out


def _symbols_e(e: ast.Effect | None, out: set[str]) -> set[str]:
    if isinstance(e, ast.Add | ast.Delete):
        out.add(e.atom.pred)
    elif isinstance(e, ast.AndEffect):
        for p in e.parts:
            _symbols_e(p, out)
    elif isinstance(e, ast.ForallEffect | ast.TimedEffect):
        _symbols_e(e.effect, out)
    elif isinstance(e, ast.When):
        _symbols_c(e.cond, out)
        _symbols_e(e.effect, out)
    elif isinstance(e, ast.Update):
        out.add(e.fluent.name)
        _symbols_n(e.expr, out)
    return out


def _changed(e: ast.Effect | None, out: set[str]) -> set[str]:
    """Predicates an effect adds or deletes."""
    if isinstance(e, ast.Add | ast.Delete):
        out.add(e.atom.pred)
    elif isinstance(e, ast.AndEffect):
        for p in e.parts:
            _changed(p, out)
    elif isinstance(e, ast.ForallEffect | ast.TimedEffect | ast.When):
        _changed(e.effect, out)
    return out


# --- ticks -----------------------------------------------------------------------------------------------

def _conjuncts_c(c: ast.Cond | None) -> list[ast.Cond]:
    return [] if c is None else list(c.parts) if isinstance(c, ast.And) else [c]


def _conjuncts_e(e: ast.Effect | None) -> list[ast.Effect]:
    return [] if e is None else list(e.parts) if isinstance(e, ast.AndEffect) else [e]


def _without(symbols: frozenset[str], conds: list, effects: list | None = None):
    keep_c = [c for c in conds if not _symbols_c(c, set()) & symbols]
    keep_e = [e for e in effects or [] if not _symbols_e(e, set()) & symbols]
    return keep_c, keep_e


def _rename_atom(c: ast.Cond, old: str, new: str) -> ast.Cond:
    if isinstance(c, ast.Atom):
        return ast.Atom(new, c.args) if c.pred == old else c
    if isinstance(c, ast.Not | ast.Exists | ast.Forall | ast.TimedCond):
        return replace(c, cond=_rename_atom(c.cond, old, new))
    if isinstance(c, ast.And | ast.Or):
        return type(c)(tuple(_rename_atom(p, old, new) for p in c.parts))
    if isinstance(c, ast.Imply):
        return ast.Imply(_rename_atom(c.ante, old, new), _rename_atom(c.cons, old, new))
    return c


def _ticks(d: ast.Domain, p: ast.Problem, how: str) -> tuple[ast.Domain, ast.Problem, str]:
    has_ticks = any("tick" in o.types for o in p.objects)
    if how == "rewrite" and has_ticks:
        gone = frozenset({"tick-marked"})
        ops = []
        for op in d.operators:
            if op.name == FINISH:
                ops.append(replace(op, precondition=_rename_atom(op.precondition, "tick-marked", "tick-passed")))
            else:
                ops.append(replace(op, effect=ast.AndEffect(tuple(_without(gone, [], _conjuncts_e(op.effect))[1]))))
        d = replace(d, operators=tuple(ops), predicates=tuple(x for x in d.predicates if x.name not in gone))
        return d, p, ("the makespan ticks without conditional effects: (finish ?k) needs the tick after ?k not yet "
                      "passed when it happens (every action has ended by then), which bounds K by round(last end) "
                      "as the committed (tick-marked) effects do")
    gone = TICK_PREDICATES | TICK_FUNCTIONS
    ops = []
    for op in d.operators:
        if op.name == FINISH:
            continue
        if isinstance(op, ast.DurativeAction):
            conds, effs = _without(gone, _conjuncts_c(op.condition), _conjuncts_e(op.effect))
            ops.append(replace(op, condition=ast.And(tuple(conds)), effect=ast.AndEffect(tuple(effs))))
        else:
            conds, effs = _without(gone, _conjuncts_c(op.precondition), _conjuncts_e(op.effect))
            ops.append(replace(op, precondition=ast.And(tuple(conds)), effect=ast.AndEffect(tuple(effs))))
    d = replace(d, operators=tuple(ops), predicates=tuple(x for x in d.predicates if x.name not in gone),
                functions=tuple(f for f in d.functions if f.name not in gone),
                types=tuple(t for t in d.types if t.name != "tick"))

    def kept(item: ast.InitItem) -> bool:
        inner = item.item if isinstance(item, ast.TimedInit) else item
        name = inner.fluent.name if isinstance(inner, ast.FluentInit) else _symbols_c(inner, set())
        return not ({name} if isinstance(name, str) else name) & gone

    goal = ast.And(tuple(_without(gone, _conjuncts_c(p.goal))[0]))
    p = replace(p, objects=tuple(o for o in p.objects if "tick" not in o.types),
                init=tuple(i for i in p.init if kept(i)), goal=goal)
    if p.metric is not None and _symbols_n(p.metric.expr, set()) & gone:
        raise ValueError("the ticks are dropped but the metric weighs (cost-makespan)")
    return d, p, "" if not has_ticks else "the makespan ticks and (finish ?k) are left out"


# --- formulas --------------------------------------------------------------------------------------------

def _subst_t(t: ast.Term, b: dict[str, ast.Term]) -> ast.Term:
    return b.get(t.name, t) if isinstance(t, ast.Var) else t


def _subst_n(e: ast.NExpr, b: dict) -> ast.NExpr:
    if isinstance(e, ast.FuncTerm):
        return ast.FuncTerm(e.name, tuple(_subst_t(a, b) for a in e.args))
    if isinstance(e, ast.BinOp):
        return ast.BinOp(e.op, tuple(_subst_n(a, b) for a in e.args))
    if isinstance(e, ast.Neg):
        return ast.Neg(_subst_n(e.expr, b))
    return e


class _World:
    """The instance's objects by type and its static facts."""

    def __init__(self, d: ast.Domain, p: ast.Problem):
        parents = {t.name: t.types for t in d.types}
        self.objects: dict[str, list[str]] = {}
        for o in (*d.constants, *p.objects):
            todo, seen = [*o.types, "object"], set()
            while todo:
                t = todo.pop()
                if t not in seen:
                    seen.add(t)
                    self.objects.setdefault(t, []).append(o.name)
                    todo += [x for x in parents.get(t, ()) if x != t]
        changed: set[str] = set()
        for op in d.operators:
            _changed(op.effect, changed)
        timed = {_symbols_c(i.item, set()).pop() for i in p.init
                 if isinstance(i, ast.TimedInit) and not isinstance(i.item, ast.FluentInit)}
        self.static = {x.name for x in d.predicates} - changed - timed
        self.facts = {i for i in p.init if isinstance(i, ast.Atom) and i.pred in self.static}

    def bindings(self, params: tuple[ast.Typed, ...]):
        pools = [sorted(set().union(*(self.objects.get(t, []) for t in x.types))) for x in params]
        for combo in itertools.product(*pools):
            yield {x.name: ast.Const(o) for x, o in zip(params, combo, strict=True)}


def _fold(c: ast.Cond, w: _World, b: dict, expand: bool) -> ast.Cond:
    """Substitute ``b``, expand quantifiers (when ``expand``), evaluate statics, fold constants, NNF."""
    return _nnf(_ground(c, w, b, expand), True)


def _ground(c: ast.Cond, w: _World, b: dict, expand: bool) -> ast.Cond:
    if isinstance(c, ast.Atom):
        args = tuple(_subst_t(a, b) for a in c.args)
        if c.pred == "=":
            if args[0] == args[1]:
                return TRUE
            if all(isinstance(a, ast.Const) for a in args):
                return FALSE
        elif c.pred in w.static and all(isinstance(a, ast.Const) for a in args):
            return TRUE if ast.Atom(c.pred, args) in w.facts else FALSE
        return ast.Atom(c.pred, args)
    if isinstance(c, ast.Not):
        return ast.Not(_ground(c.cond, w, b, expand))
    if isinstance(c, ast.And | ast.Or):
        return type(c)(tuple(_ground(x, w, b, expand) for x in c.parts))
    if isinstance(c, ast.Imply):
        return ast.Or((ast.Not(_ground(c.ante, w, b, expand)), _ground(c.cons, w, b, expand)))
    if isinstance(c, ast.Exists | ast.Forall):
        inner = {k: v for k, v in b.items() if k not in {x.name for x in c.params}}
        if not expand:
            return type(c)(c.params, _ground(c.cond, w, inner, expand))
        parts = tuple(_ground(c.cond, w, {**inner, **nb}, expand) for nb in w.bindings(c.params))
        return ast.Or(parts) if isinstance(c, ast.Exists) else ast.And(parts)
    if isinstance(c, ast.Compare):
        return ast.Compare(c.op, _subst_n(c.lhs, b), _subst_n(c.rhs, b))
    if isinstance(c, ast.TimedCond):
        return ast.TimedCond(c.when, _ground(c.cond, w, b, expand))
    raise TypeError(f"not a condition: {c!r}")


def _nnf(c: ast.Cond, positive: bool) -> ast.Cond:
    """Negation normal form with constants folded (TRUE = (and), FALSE = (or))."""
    if isinstance(c, ast.Not):
        return _nnf(c.cond, not positive)
    if isinstance(c, ast.And | ast.Or):
        conj = isinstance(c, ast.And) == positive
        unit, zero = (TRUE, FALSE) if conj else (FALSE, TRUE)
        parts: list[ast.Cond] = []
        for x in c.parts:
            y = _nnf(x, positive)
            if y == zero:
                return zero
            if y == unit:
                continue
            kind = ast.And if conj else ast.Or
            parts += y.parts if isinstance(y, kind) else [y]
        parts = list(dict.fromkeys(parts))
        if len(parts) == 1:
            return parts[0]
        return (ast.And if conj else ast.Or)(tuple(parts))
    if isinstance(c, ast.Imply):
        return _nnf(ast.Or((ast.Not(c.ante), c.cons)), positive)
    if isinstance(c, ast.TimedCond):
        inner = _nnf(c.cond, positive)
        return inner if inner in (TRUE, FALSE) else ast.TimedCond(c.when, inner)
    if isinstance(c, ast.Exists | ast.Forall):
        kind = type(c) if positive else (ast.Forall if isinstance(c, ast.Exists) else ast.Exists)
        return kind(c.params, _nnf(c.cond, positive))
    if isinstance(c, ast.Compare) and not positive and _INVERSE[c.op]:
        return ast.Compare(_INVERSE[c.op], c.lhs, c.rhs)
    return c if positive else ast.Not(c)


def _timed(c: ast.Cond, when: str | None) -> ast.Cond:
    """Timings pushed down to the literals: ``(at start (and a b))`` → ``(and (at start a) (at start b))``."""
    if isinstance(c, ast.TimedCond):
        return _timed(c.cond, c.when)
    if isinstance(c, ast.And | ast.Or):
        return type(c)(tuple(_timed(x, when) for x in c.parts))
    if isinstance(c, ast.Exists | ast.Forall):
        return ast.TimedCond(when, c) if when else c
    if isinstance(c, ast.Not):
        return ast.Not(_timed(c.cond, when))
    return ast.TimedCond(when, c) if when else c


def _retime(c: ast.Cond) -> ast.Cond:
    """Literals back under one timing where a whole conjunct shares it (for readable files)."""
    if isinstance(c, ast.And | ast.Or):
        parts = tuple(_retime(x) for x in c.parts)
        whens = {x.when if isinstance(x, ast.TimedCond) else None for x in parts}
        if len(whens) == 1 and None not in whens:
            return ast.TimedCond(whens.pop(), type(c)(tuple(x.cond for x in parts)))
        return type(c)(parts)
    if isinstance(c, ast.Not) and isinstance(c.cond, ast.TimedCond):
        return ast.TimedCond(c.cond.when, ast.Not(c.cond.cond))
    return c


def _literal(c: ast.Cond) -> tuple[ast.Cond, bool] | None:
    """(variable, sign) of a literal: a timed atom or comparison, possibly negated."""
    if isinstance(c, ast.Not):
        inner = _literal(c.cond)
        return None if inner is None else (inner[0], not inner[1])
    if isinstance(c, ast.TimedCond):
        if isinstance(c.cond, ast.Not):
            return _literal(ast.Not(ast.TimedCond(c.when, c.cond.cond)))
        return (c, True) if isinstance(c.cond, ast.Atom | ast.Compare) else None
    return (c, True) if isinstance(c, ast.Atom | ast.Compare) else None


def _assume(c: ast.Cond, known: dict[ast.Cond, bool]) -> ast.Cond:
    """``c`` with the known literals replaced by their values, folded."""
    lit = _literal(c)
    if lit is not None:
        var, sign = lit
        if var in known:
            return TRUE if known[var] == sign else FALSE
        return c
    if isinstance(c, ast.And | ast.Or):
        return _nnf(type(c)(tuple(_assume(x, known) for x in c.parts)), True)
    return c


def _variables(c: ast.Cond, out: Counter) -> Counter:
    lit = _literal(c)
    if lit is not None:
        out[lit[0]] += 1
    elif isinstance(c, ast.And | ast.Or):
        for x in c.parts:
            _variables(x, out)
    elif not isinstance(c, ast.Exists | ast.Forall) and c not in (TRUE, FALSE):
        raise TypeError(f"not a split literal: {c!r}")
    return out


# --- effects ---------------------------------------------------------------------------------------------

def _flat_effects(e: ast.Effect | None, w: _World, b: dict, when: str | None, cond: ast.Cond, expand: bool,
                  out: list[tuple[ast.Cond, ast.Effect]]) -> None:
    """(condition, timed primitive effect) pairs; ``forall`` effects expanded where they hold a ``when`` (or
    everywhere with ``expand``), conditions grounded and timed."""
    if e is None:
        return
    if isinstance(e, ast.AndEffect):
        for x in e.parts:
            _flat_effects(x, w, b, when, cond, expand, out)
    elif isinstance(e, ast.TimedEffect):
        _flat_effects(e.effect, w, b, e.when, cond, expand, out)
    elif isinstance(e, ast.When):
        c = _nnf(_timed(_ground(e.cond, w, b, True), None), True)
        _flat_effects(e.effect, w, b, when, _nnf(ast.And((cond, c)), True), expand, out)
    elif isinstance(e, ast.ForallEffect):
        if expand or _has_when(e.effect):
            inner = {k: v for k, v in b.items() if k not in {x.name for x in e.params}}
            for nb in w.bindings(e.params):
                _flat_effects(e.effect, w, {**inner, **nb}, when, cond, expand, out)
        else:
            out.append((cond, _retimed_effect(_subst_e(e, b), when)))
    else:
        out.append((cond, _retimed_effect(_subst_e(e, b), when)))


def _has_when(e: ast.Effect) -> bool:
    if isinstance(e, ast.When):
        return True
    if isinstance(e, ast.AndEffect):
        return any(_has_when(x) for x in e.parts)
    return isinstance(e, ast.ForallEffect | ast.TimedEffect) and _has_when(e.effect)


def _subst_e(e: ast.Effect, b: dict) -> ast.Effect:
    if isinstance(e, ast.Add | ast.Delete):
        return type(e)(ast.Atom(e.atom.pred, tuple(_subst_t(a, b) for a in e.atom.args)))
    if isinstance(e, ast.Update):
        return ast.Update(e.op, _subst_n(e.fluent, b), _subst_n(e.expr, b))
    if isinstance(e, ast.ForallEffect):
        return ast.ForallEffect(e.params, _subst_e(e.effect, {k: v for k, v in b.items()
                                                               if k not in {x.name for x in e.params}}))
    if isinstance(e, ast.AndEffect):
        return ast.AndEffect(tuple(_subst_e(x, b) for x in e.parts))
    if isinstance(e, ast.TimedEffect):
        return ast.TimedEffect(e.when, _subst_e(e.effect, b))
    raise TypeError(f"not an effect: {e!r}")


def _retimed_effect(e: ast.Effect, when: str | None) -> ast.Effect:
    return ast.TimedEffect(when, e) if when else e


# --- the split -------------------------------------------------------------------------------------------

def _fired_sets(conditions: list[ast.Cond], conds: list[ast.Cond]) -> list[frozenset[int]]:
    """The sets of effect conditions that can hold together where the action is executable, found by a decision
    tree over their literals (a branch that falsifies one of ``conds`` is pruned); in order of discovery."""
    found: dict[frozenset[int], None] = {}
    leaves = 0

    def walk(known: dict[ast.Cond, bool]) -> None:
        nonlocal leaves
        if any(_assume(c, known) == FALSE for c in conds):
            return
        fired, open_ = set(), []
        for i, c in enumerate(conditions):
            v = _assume(c, known)
            if v == TRUE:
                fired.add(i)
            elif v != FALSE:
                open_.append(v)
        if not open_:
            leaves += 1
            found.setdefault(frozenset(fired))
            if leaves > MAX_LEAVES or len(found) > MAX_VARIANTS:
                raise _TooMany
            return
        counts: Counter = Counter()
        for v in open_:
            _variables(v, counts)
        var = max(counts, key=lambda x: (counts[x], -len(str(x))))  # most frequent, then shortest: deterministic
        for value in (True, False):
            walk({**known, var: value})

    seed = dict(lit for lit in map(_literal, conds) if lit is not None)
    walk(seed)
    return list(found)


class _TooMany(Exception):
    pass


def _negate(var: ast.Cond) -> ast.Cond:
    if isinstance(var, ast.TimedCond):
        return ast.TimedCond(var.when, _nnf(var.cond, False))
    return _nnf(var, False)


def _known(c: ast.Cond, out: dict[ast.Cond, bool]) -> dict[ast.Cond, bool]:
    """The literals a condition asserts (its own, or its conjuncts')."""
    lit = _literal(c)
    if lit is not None:
        out[lit[0]] = lit[1]
    elif isinstance(c, ast.And):
        for x in c.parts:
            _known(x, out)
    return out


def _lower_operator(op: ast.Operator, w: _World, expand: bool) -> list[ast.Operator]:
    durative = isinstance(op, ast.DurativeAction)
    raw_cond = op.condition if durative else op.precondition
    conds = [_nnf(_timed(_ground(c, w, {}, expand), None), True) for c in _conjuncts_c(raw_cond)]
    if FALSE in conds:  # a static condition fails: never executable here
        return []
    conds = [c for c in conds if c != TRUE]
    flat: list[tuple[ast.Cond, ast.Effect]] = []
    _flat_effects(op.effect, w, {}, None, TRUE, expand, flat)
    plain = [e for c, e in flat if c == TRUE]
    grouped: dict[ast.Cond, list[ast.Effect]] = {}  # effects under the same condition fire together
    for c, e in flat:
        if c not in (TRUE, FALSE):
            grouped.setdefault(c, []).append(e)
    conditions = list(grouped)
    sets = _fired_sets(conditions, conds) if conditions else [frozenset()]
    out: list[ast.Operator] = []
    for fired in sets:
        extra = [conditions[k] if k in fired else _nnf(conditions[k], False) for k in range(len(conditions))]
        known: dict[ast.Cond, bool] = {}
        for c in (*conds, *(conditions[k] for k in sorted(fired))):
            _known(c, known)
        extra = [x if k in fired or _literal(x) else _assume(x, known) for k, x in enumerate(extra)]  # what
        # `known` comes from stays as it is
        parts = [c if _literal(c) else _assume(c, known) for c in conds]
        if FALSE in parts or FALSE in extra:  # contradicts what the set asserts: never executable
            continue
        cond = ast.And(tuple(_retime(c) for c in dict.fromkeys((*parts, *extra)) if c != TRUE))
        fires = [e for k in sorted(fired) for e in grouped[conditions[k]]]
        effect = ast.AndEffect(tuple(dict.fromkeys((*plain, *fires))))
        name = op.name if len(sets) == 1 else f"{op.name}_{len(out)}"
        out.append(replace(op, name=name, condition=cond, effect=effect) if durative
                   else replace(op, name=name, precondition=cond, effect=effect))
    return out


def _mentions(d: ast.Domain) -> set[str]:
    names: set[str] = set()

    def terms_c(c):  # noqa: ANN001, ANN202
        if isinstance(c, ast.Atom):
            names.update(a.name for a in c.args if isinstance(a, ast.Const))
        elif isinstance(c, ast.Not | ast.Exists | ast.Forall | ast.TimedCond):
            terms_c(c.cond)
        elif isinstance(c, ast.And | ast.Or):
            for x in c.parts:
                terms_c(x)
        elif isinstance(c, ast.Compare):
            terms_n(c.lhs)
            terms_n(c.rhs)

    def terms_n(e):  # noqa: ANN001, ANN202
        if isinstance(e, ast.FuncTerm):
            names.update(a.name for a in e.args if isinstance(a, ast.Const))
        elif isinstance(e, ast.BinOp):
            for a in e.args:
                terms_n(a)
        elif isinstance(e, ast.Neg):
            terms_n(e.expr)

    def terms_e(e):  # noqa: ANN001, ANN202
        if isinstance(e, ast.Add | ast.Delete):
            terms_c(e.atom)
        elif isinstance(e, ast.AndEffect):
            for x in e.parts:
                terms_e(x)
        elif isinstance(e, ast.ForallEffect | ast.TimedEffect):
            terms_e(e.effect)
        elif isinstance(e, ast.Update):
            terms_n(e.fluent)
            terms_n(e.expr)

    for op in d.operators:
        terms_c(op.condition if isinstance(op, ast.DurativeAction) else op.precondition)
        terms_e(op.effect)
    return names


def named_constants(d: ast.Domain, p: ast.Problem) -> tuple[ast.Domain, ast.Problem]:
    """Problem objects the domain names moved to its constants."""
    used = _mentions(d) & {o.name for o in p.objects}
    if not used:
        return d, p
    moved = tuple(o for o in p.objects if o.name in used)
    return (replace(d, constants=(*d.constants, *moved)),
            replace(p, objects=tuple(o for o in p.objects if o.name not in used)))


def _binary_sums(e: ast.NExpr) -> ast.NExpr:
    """``(+ a b c)`` → ``(+ a (+ b c))`` (LPG-td reads a + of two terms only)."""
    if isinstance(e, ast.BinOp):
        args = tuple(_binary_sums(a) for a in e.args)
        if e.op in "+*" and len(args) > 2:
            return ast.BinOp(e.op, (args[0], _binary_sums(ast.BinOp(e.op, args[1:]))))
        return ast.BinOp(e.op, args)
    return e


def lower(domain: ast.Domain, problem: ast.Problem, ticks: str = "drop", expand_conditions: bool = True,
          metric: str = "keep") -> Lowered:
    """The lowered domain and problem (see the module docstring); ``metric``: keep | binary | drop."""
    if metric == "drop":
        problem = replace(problem, metric=None)
    domain, problem, tick_note = _ticks(domain, problem, ticks)
    w = _World(domain, problem)
    ops: list[ast.Operator] = []
    variants: dict[str, str] = {}
    try:
        for op in domain.operators:
            for v in _lower_operator(op, w, expand_conditions):
                ops.append(v)
                variants[v.name] = op.name
                if len(ops) > MAX_VARIANTS:
                    raise _TooMany
    except _TooMany:
        raise InputError(f"splitting the conditional effects of {domain.name} into action variants takes more than "
                         f"{MAX_LEAVES} cases for one action or writes more than {MAX_VARIANTS} variants: this target "
                         "cannot take this problem; use one that reads conditional effects (val, up, kairos)") from None
    clash = [n for n, a in variants.items() if n != a and n in {op.name for op in domain.operators}]
    if clash:
        raise ValueError(f"variant names clash with actions: {clash}")
    lowered = replace(domain, operators=tuple(ops))
    lowered, problem = named_constants(lowered, problem)
    forall_effects = any(isinstance(e, ast.ForallEffect) for op in ops for e in _conjuncts_e(op.effect))
    reqs = [r for r in lowered.requirements if (r != ":conditional-effects" or forall_effects) and
            (expand_conditions is False or r not in (":universal-preconditions", ":existential-preconditions"))]
    lowered = replace(lowered, requirements=tuple(reqs))
    if metric == "binary" and problem.metric is not None:
        problem = replace(problem, metric=ast.Metric(problem.metric.direction, _binary_sums(problem.metric.expr)))
    split = sum(1 for n, a in variants.items() if n != a)
    notes = [n for n in (tick_note,) if n]
    if split:
        notes.append(f"conditional effects split into {split} variants of "
                     f"{len({a for n, a in variants.items() if n != a})} actions ({len(ops)} actions in all)")
    return Lowered(lowered, problem, variants, tuple(notes))


def joined_processes(d: ast.Domain) -> list[str]:
    """Actions with an ``over all`` literal on a predicate some other durative action adds at start and deletes
    at end (a process the action joins: hot_cocoa's add-while-cooking inside cook)."""
    opened = set()
    for op in d.operators:
        if isinstance(op, ast.DurativeAction):
            parts = _conjuncts_e(op.effect)
            starts = {e.effect.atom.pred for e in parts if isinstance(e, ast.TimedEffect) and
                      e.when == ast.AT_START and isinstance(e.effect, ast.Add)}
            ends = {e.effect.atom.pred for e in parts if isinstance(e, ast.TimedEffect) and
                    e.when == ast.AT_END and isinstance(e.effect, ast.Delete)}
            opened |= starts & ends
    out = []
    for op in d.operators:
        if isinstance(op, ast.DurativeAction):
            over = {p for c in _conjuncts_c(op.condition) if isinstance(c, ast.TimedCond) and c.when == ast.OVER_ALL
                    for p in _symbols_c(c.cond, set())}
            if over & opened:
                out.append(op.name)
    return sorted(dict.fromkeys(o.split("_")[0] if o.rsplit("_", 1)[-1].isdigit() else o for o in out))

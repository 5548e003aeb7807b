"""Evaluate conditions and numeric expressions in a state; mark VAL's precondition ownership."""

from __future__ import annotations

from fractions import Fraction

from hygiene_pddl.pddl import ast
from hygiene_pddl.pddl.printer import cond as cond_text
from hygiene_pddl.pddl.printer import nexpr as nexpr_text

from .numeric import Arith, Num, UndefinedValue, decimal_text
from .ownership import NPRE, PPRE, PRE, Ownership
from .world import UnsupportedError, World, ground

#: Marks an advice item about a fact or value that no action or timed literal changes (nothing to "set").
NEVER_CHANGES = "in every state"


class State:
    """Facts (a set of tuples), fluent values (dict keyed by tuples) and the clock."""

    __slots__ = ("facts", "fluents", "time")

    def __init__(self, facts: set[tuple], fluents: dict[tuple, Num], time: Num):
        self.facts = facts
        self.fluents = fluents
        self.time = time

    def copy(self) -> State:
        return State(set(self.facts), dict(self.fluents), self.time)


#: VAL compares numbers within this error (Comparison::evaluateAtPointError): ``a < b`` holds when
#: a - b < 0.0001, so ``(< 2 2)`` is true and ``(> 2 2)`` too; ``=`` means |a - b| < 0.0001.
VAL_COMPARISON_ERROR = Fraction(1, 10000)


def _compare(op: str, a: Num, b: Num) -> bool:
    """A numeric comparison as VAL evaluates it (within VAL_COMPARISON_ERROR, in both arithmetic modes)."""
    err = 0.0001 if isinstance(a, float) or isinstance(b, float) else VAL_COMPARISON_ERROR
    d = a - b
    if op == "<":
        return d < err
    if op == "<=":
        return d <= err
    if op == "=":
        return -err < d < err
    if op == ">=":
        return d >= -err
    return d > -err


class Evaluator:
    """Interprets the AST under a binding (dict from variable name to object)."""

    def __init__(self, world: World, arith: Arith):
        self.world = world
        self.arith = arith
        self._numbers: dict[Fraction, Num] = {}
        self._deriving: set[tuple] = set()

    # ---- numbers ---------------------------------------------------------------------
    def number(self, q: Fraction) -> Num:
        n = self._numbers.get(q)
        if n is None:
            n = self._numbers[q] = self.arith.num(q)
        return n

    def value(self, e: ast.NExpr, b: dict, state: State) -> Num:
        """Value of a numeric expression (VAL folds n-ary +/* to the right)."""
        if isinstance(e, ast.Number):
            return self.number(e.value)
        if isinstance(e, ast.FuncTerm):
            key = ground(e, b)
            try:
                return state.fluents[key]
            except KeyError:
                raise UndefinedValue(key) from None
        if isinstance(e, ast.BinOp):
            vals = [self.value(a, b, state) for a in e.args]
            if e.op == "-":
                return vals[0] - vals[1]
            if e.op == "/":
                return self.arith.div(vals[0], vals[1])
            acc = vals[-1]
            for v in reversed(vals[:-1]):
                acc = v + acc if e.op == "+" else v * acc
            return acc
        if isinstance(e, ast.Neg):
            return -self.value(e.expr, b, state)
        if isinstance(e, ast.DurationVar):
            return b["?duration"]
        if isinstance(e, ast.TotalTime):
            return b.get("total-time", state.time)
        raise UnsupportedError("continuous effects (#t) are not supported")

    # ---- truth -----------------------------------------------------------------------
    def holds(self, c: ast.Cond, b: dict, state: State) -> bool:
        """Truth of condition `c` in `state` (numeric comparisons without tolerance)."""
        if isinstance(c, ast.Atom):
            if c.pred == "=":
                key = ground(c, b)
                return key[1] == key[2]
            if c.pred in self.world.derived:
                return self._derived(c, b, state)
            return ground(c, b) in state.facts
        if isinstance(c, ast.Not):
            return not self.holds(c.cond, b, state)
        if isinstance(c, ast.And):
            return all(self.holds(p, b, state) for p in c.parts)
        if isinstance(c, ast.Or):
            return any(self.holds(p, b, state) for p in c.parts)
        if isinstance(c, ast.Imply):
            return not self.holds(c.ante, b, state) or self.holds(c.cons, b, state)
        if isinstance(c, ast.Forall):
            return all(self.holds(c.cond, {**b, **q}, state) for q in self.world.bindings(c.params))
        if isinstance(c, ast.Exists):
            return any(self.holds(c.cond, {**b, **q}, state) for q in self.world.bindings(c.params))
        if isinstance(c, ast.Compare):
            return _compare(c.op, self.value(c.lhs, b, state), self.value(c.rhs, b, state))
        raise UnsupportedError(f"a timed condition where none may be: {cond_text(c)}")

    def _derived(self, c: ast.Atom, b: dict, state: State) -> bool:
        key = ground(c, b)
        if key in self._deriving:
            return False
        rule = self.world.derived[c.pred]
        self._deriving.add(key)
        try:
            inner = {p.name: arg for p, arg in zip(rule.params, key[1:], strict=True)}
            return self.holds(rule.cond, inner, state)
        finally:
            self._deriving.discard(key)

    # ---- ownership (VAL's mutex bookkeeping) -----------------------------------------
    def mark(self, c: ast.Cond, b: dict, actor: object, own: Ownership, w: int = PPRE) -> bool:
        """Mark the literals and fluents `c` reads as owned by `actor` (VAL's order)."""
        if isinstance(c, ast.Atom):
            if c.pred in self.world.derived:
                rule = self.world.derived[c.pred]
                key = ground(c, b)
                if key in self._deriving:
                    return True
                self._deriving.add(key)
                try:
                    inner = {p.name: a for p, a in zip(rule.params, key[1:], strict=True)}
                    return self.mark(rule.cond, inner, actor, own, w)
                finally:
                    self._deriving.discard(key)
            return own.mark_pre(actor, ground(c, b), w)
        if isinstance(c, ast.Not):
            return self.mark(c.cond, b, actor, own, PRE if w == PRE else (
                NPRE if w == PPRE else PPRE))
        if isinstance(c, ast.And):
            return all(self.mark(p, b, actor, own, w) for p in c.parts)
        if isinstance(c, ast.Or):
            return all(self.mark(p, b, actor, own, PRE) for p in c.parts)
        if isinstance(c, ast.Imply):
            return (self.mark(c.ante, b, actor, own, PRE)
                    and self.mark(c.cons, b, actor, own, PRE))
        if isinstance(c, ast.Forall | ast.Exists):
            inner_w = w if isinstance(c, ast.Forall) else PRE
            return all(self.mark(c.cond, {**b, **q}, actor, own, inner_w)
                       for q in self.world.bindings(c.params))
        if isinstance(c, ast.Compare):
            return self.mark_fe(c.lhs, b, actor, own) and self.mark_fe(c.rhs, b, actor, own)
        return True

    def mark_fe(self, e: ast.NExpr, b: dict, actor: object, own: Ownership) -> bool:
        """Mark the fluents an expression reads."""
        if isinstance(e, ast.FuncTerm):
            return own.mark_pre_fe(actor, ground(e, b))
        if isinstance(e, ast.BinOp):
            return all(self.mark_fe(a, b, actor, own) for a in e.args)
        if isinstance(e, ast.Neg):
            return self.mark_fe(e.expr, b, actor, own)
        return True

    # ---- explanations ----------------------------------------------------------------
    def text(self, c: ast.Cond, b: dict) -> str:
        """The condition with its variables replaced by the binding's objects."""
        return cond_text(substitute(c, b))

    def explain(self, c: ast.Cond, b: dict, state: State, want: bool = True) -> list[str]:
        """What would have to change for `c` to become `want` (VAL-style advice items)."""
        try:
            if self.holds(c, b, state) == want:
                return []
        except UndefinedValue as exc:
            return [f"give {'(' + ' '.join(exc.key) + ')'} a value"]
        if isinstance(c, ast.Atom):
            if c.pred != "=" and c.pred not in self.world.changeable()[0]:
                return [f"{self.text(c, b)} is {'false' if want else 'true'} {NEVER_CHANGES} (no action or timed "
                        f"literal changes {c.pred})"]
            return [f"set {self.text(c, b)} to {'true' if want else 'false'}"]
        if isinstance(c, ast.Not):
            return self.explain(c.cond, b, state, not want)
        if isinstance(c, ast.And) and want or isinstance(c, ast.Or) and not want:
            return [x for p in c.parts for x in self.explain(p, b, state, want)]
        if isinstance(c, ast.Forall) and want:
            return [x for q in self.world.bindings(c.params)
                    for x in self.explain(c.cond, {**b, **q}, state, want)]
        if isinstance(c, ast.Compare):
            lhs = self.arith.to_fraction(self.value(c.lhs, b, state))
            rhs = self.arith.to_fraction(self.value(c.rhs, b, state))
            verb = "make" if want else "break"
            reads = _functions(c)
            if reads is not None and not reads & self.world.changeable()[1]:
                return [f"{self.text(c, b)} is {'false' if want else 'true'} {NEVER_CHANGES} (no action or timed "
                        "literal changes the values it reads)"]
            return [f"{verb} {self.text(c, b)} (now {nexpr_text(substitute(c.lhs, b))} = "
                    f"{decimal_text(lhs)}, {nexpr_text(substitute(c.rhs, b))} = "
                    f"{decimal_text(rhs)})"]
        options = []
        parts = c.parts if isinstance(c, ast.And | ast.Or) else ()
        for p in parts:
            options += self.explain(p, b, state, want)
        changeable = [o for o in options if NEVER_CHANGES not in o]  # never advise changing a static fact
        options = changeable or options[:1]
        if len(options) == 1:
            return options
        if options:
            return ["follow one of: " + " | ".join(options)]
        return [f"make {self.text(c, b)} {'true' if want else 'false'}"]


def _functions(node) -> set[str] | None:
    """The function names a numeric comparison reads; None when it reads the clock or a duration."""
    if isinstance(node, ast.Compare):
        a, b = _functions(node.lhs), _functions(node.rhs)
        return None if a is None or b is None else a | b
    if isinstance(node, ast.FuncTerm):
        return {node.name}
    if isinstance(node, ast.BinOp):
        out: set[str] = set()
        for x in node.args:
            got = _functions(x)
            if got is None:
                return None
            out |= got
        return out
    if isinstance(node, ast.Neg):
        return _functions(node.expr)
    if isinstance(node, ast.Number):
        return set()
    return None


def substitute(node, b: dict):
    """Replace variables bound in `b` by constants throughout an AST node."""
    if isinstance(node, ast.Var):
        value = b.get(node.name)
        return ast.Const(value) if isinstance(value, str) else node
    if isinstance(node, ast.Atom):
        return ast.Atom(node.pred, tuple(substitute(t, b) for t in node.args))
    if isinstance(node, ast.FuncTerm):
        return ast.FuncTerm(node.name, tuple(substitute(t, b) for t in node.args))
    if isinstance(node, ast.Not):
        return ast.Not(substitute(node.cond, b))
    if isinstance(node, ast.And | ast.Or):
        return type(node)(tuple(substitute(p, b) for p in node.parts))
    if isinstance(node, ast.Imply):
        return ast.Imply(substitute(node.ante, b), substitute(node.cons, b))
    if isinstance(node, ast.Forall | ast.Exists):
        inner = {k: v for k, v in b.items() if k not in {p.name for p in node.params}}
        return type(node)(node.params, substitute(node.cond, inner))
    if isinstance(node, ast.Compare):
        return ast.Compare(node.op, substitute(node.lhs, b), substitute(node.rhs, b))
    if isinstance(node, ast.BinOp):
        return ast.BinOp(node.op, tuple(substitute(a, b) for a in node.args))
    if isinstance(node, ast.Neg):
        return ast.Neg(substitute(node.expr, b))
    if isinstance(node, ast.TimedCond):
        return ast.TimedCond(node.when, substitute(node.cond, b))
    return node

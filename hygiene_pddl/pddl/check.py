"""Static checks VAL's type checker also makes: declared symbols, arities, types, variables.

Each problem is reported as one InputError with the nesting path of the offending construct.
"""

from __future__ import annotations

from hygiene_pddl.errors import InputError, Location

from . import ast


class _Checker:
    def __init__(self, domain: ast.Domain, file: str | None):
        self.file = file
        self.preds = {p.name: len(p.params) for p in domain.predicates}
        self.preds.update({d.name: len(d.params) for d in domain.derived})
        self.funcs = {f.name: len(f.params) for f in domain.functions}
        self.types = {"object", "number"} | {t.name for t in domain.types}
        self.types |= {p for t in domain.types for p in t.types}
        self.consts = {c.name for c in domain.constants}

    def fail(self, path: str, message: str) -> None:
        raise InputError(message, Location(self.file, None, None, path))

    def typed(self, items: tuple[ast.Typed, ...], path: str) -> None:
        for item in items:
            for t in item.types:
                if t not in self.types:
                    self.fail(path, f"unknown type '{t}' of {item.name}")

    def term(self, t: ast.Term, scope: set[str], objects: set[str], path: str) -> None:
        if isinstance(t, ast.Var):
            if t.name not in scope:
                self.fail(path, f"variable {t.name} is not a parameter or quantified variable")
        elif t.name not in objects:
            self.fail(path, f"unknown object or constant '{t.name}'")

    def atom(self, a: ast.Atom, scope: set[str], objects: set[str], path: str) -> None:
        if a.pred == "=":
            arity = 2
        elif a.pred not in self.preds:
            self.fail(path, f"undeclared predicate '{a.pred}'")
            return
        else:
            arity = self.preds[a.pred]
        if len(a.args) != arity:
            self.fail(path, f"predicate '{a.pred}' takes {arity} argument(s), "
                            f"({a.pred} ...) gives {len(a.args)}")
        for t in a.args:
            self.term(t, scope, objects, path)

    def nexpr(self, e: ast.NExpr, scope: set[str], objects: set[str], path: str) -> None:
        if isinstance(e, ast.FuncTerm):
            if e.name not in self.funcs:
                self.fail(path, f"undeclared function '{e.name}'")
            if len(e.args) != self.funcs[e.name]:
                self.fail(path, f"function '{e.name}' takes {self.funcs[e.name]} argument(s), "
                                f"({e.name} ...) gives {len(e.args)}")
            for t in e.args:
                self.term(t, scope, objects, path)
        elif isinstance(e, ast.BinOp):
            for a in e.args:
                self.nexpr(a, scope, objects, path)
        elif isinstance(e, ast.Neg):
            self.nexpr(e.expr, scope, objects, path)

    def cond(self, c, scope: set[str], objects: set[str], path: str) -> None:
        if c is None:
            return
        if isinstance(c, ast.Atom):
            self.atom(c, scope, objects, path)
        elif isinstance(c, ast.Not | ast.TimedCond):
            self.cond(c.cond, scope, objects, path)
        elif isinstance(c, ast.And | ast.Or):
            for p in c.parts:
                self.cond(p, scope, objects, path)
        elif isinstance(c, ast.Imply):
            self.cond(c.ante, scope, objects, path)
            self.cond(c.cons, scope, objects, path)
        elif isinstance(c, ast.Exists | ast.Forall):
            self.typed(c.params, path)
            self.cond(c.cond, scope | {p.name for p in c.params}, objects, path)
        elif isinstance(c, ast.Compare):
            self.nexpr(c.lhs, scope, objects, path)
            self.nexpr(c.rhs, scope, objects, path)

    def effect(self, e, scope: set[str], objects: set[str], path: str) -> None:
        if e is None:
            return
        if isinstance(e, ast.Add | ast.Delete):
            self.atom(e.atom, scope, objects, path)
        elif isinstance(e, ast.AndEffect):
            for p in e.parts:
                self.effect(p, scope, objects, path)
        elif isinstance(e, ast.ForallEffect):
            self.typed(e.params, path)
            self.effect(e.effect, scope | {p.name for p in e.params}, objects, path)
        elif isinstance(e, ast.When):
            self.cond(e.cond, scope, objects, path)
            self.effect(e.effect, scope, objects, path)
        elif isinstance(e, ast.Update):
            self.nexpr(e.fluent, scope, objects, path)
            self.nexpr(e.expr, scope, objects, path)
        elif isinstance(e, ast.TimedEffect):
            self.effect(e.effect, scope, objects, path)


def check_domain(domain: ast.Domain, file: str | None = None) -> None:
    """Raise InputError on an undeclared predicate/function/type, a wrong arity or a free
    variable in the domain."""
    ck = _Checker(domain, file)
    ck.typed(domain.constants, "domain > :constants")
    for p in domain.predicates:
        ck.typed(p.params, f"domain > :predicates > {p.name}")
    for dp in domain.derived:
        scope = {p.name for p in dp.params}
        ck.cond(dp.cond, scope, ck.consts, f"domain > :derived {dp.name}")
    for op in domain.operators:
        kind = ":action" if isinstance(op, ast.Action) else ":durative-action"
        base = f"domain > {kind} {op.name}"
        ck.typed(op.params, f"{base} > :parameters")
        scope = {p.name for p in op.params}
        if isinstance(op, ast.Action):
            ck.cond(op.precondition, scope, ck.consts, f"{base} > :precondition")
        else:
            for dc in op.duration:
                ck.nexpr(dc.expr, scope, ck.consts, f"{base} > :duration")
            ck.cond(op.condition, scope, ck.consts, f"{base} > :condition")
        ck.effect(op.effect, scope, ck.consts, f"{base} > :effect")


def check_problem(problem: ast.Problem, domain: ast.Domain, file: str | None = None) -> None:
    """Raise InputError on problem symbols the domain does not declare, or when the problem is for another domain
    (VAL ignores the name; we do not: a plan checked against the wrong domain would be judged by other rules)."""
    ck = _Checker(domain, file)
    if problem.domain != domain.name:
        ck.fail("problem > :domain", f"the problem is for domain '{problem.domain}', but the domain file defines "
                                     f"'{domain.name}': validate against the domain the problem names")
    ck.typed(problem.objects, "problem > :objects")
    objects = ck.consts | {o.name for o in problem.objects}
    for item in problem.init:
        inner = item.item if isinstance(item, ast.TimedInit) else item
        if isinstance(inner, ast.FluentInit):
            ck.nexpr(inner.fluent, set(), objects, "problem > :init")
        else:
            ck.cond(inner, set(), objects, "problem > :init")
    ck.cond(problem.goal, set(), objects, "problem > :goal")
    if problem.metric is not None:
        ck.nexpr(problem.metric.expr, set(), objects, "problem > :metric")

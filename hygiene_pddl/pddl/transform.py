"""Lark parse tree -> `hygiene_pddl.pddl.ast` (names lower-cased, typed lists grouped)."""

from __future__ import annotations

import re
from fractions import Fraction

from lark import Token, Transformer, v_args

from hygiene_pddl.decimals import parse_decimal

from . import ast

_WS = re.compile(r"\s+")


class SemanticError(Exception):
    """A well-formed but meaningless construct; `token` locates it when known."""

    def __init__(self, message: str, token: Token | None = None):
        super().__init__(message)
        self.message = message
        self.token = token


def number(token: Token) -> Fraction:
    """Exact value of a PDDL number literal (``1``, ``-2.5``, ``3.``; ``.5`` is not one, as in VAL)."""
    try:
        return parse_decimal(str(token))
    except ValueError as exc:
        raise SemanticError(str(exc), token) from None


def _group(items: list, what: str) -> tuple[ast.Typed, ...]:
    """Group a flat ``name name - type name`` sequence into typed names."""
    out: list[ast.Typed] = []
    pending: list[str] = []
    for kind, value in items:
        if kind == "name":
            pending.append(value)
        else:
            if not pending:
                raise SemanticError(f"a type ('- {' '.join(value)}') with no {what} before it")
            out.extend(ast.Typed(n, value) for n in pending)
            pending = []
    out.extend(ast.Typed(n) for n in pending)
    return tuple(out)


def _when(token: Token) -> str:
    return _WS.sub(" ", str(token).lower())


@v_args(inline=True)
class ToAst(Transformer):
    """Bottom-up conversion; every method returns an AST node or a tagged tuple."""

    # ---- typed lists ------------------------------------------------------------------
    def tn_name(self, tok):
        return ("name", str(tok).lower())

    def tn_type(self, types):
        return ("type", types)

    def tv_var(self, tok):
        return ("name", str(tok).lower())

    tv_type = tn_type

    def type_spec(self, *names):
        return tuple(str(n).lower() for n in names)

    def typed_names(self, *items):
        return _group(list(items), "name")

    def typed_vars(self, *items):
        return _group(list(items), "variable")

    # ---- domain -----------------------------------------------------------------------
    def requirements(self, *reqs):
        return ("requirements", tuple(str(r).lower() for r in reqs))

    def types_def(self, typed):
        return ("types", typed)

    def constants_def(self, typed):
        return ("constants", typed)

    def predicates_def(self, *preds):
        return ("predicates", preds)

    def predicate_decl(self, name, params):
        return ast.Predicate(str(name).lower(), params)

    def function_decl(self, name, params):
        return ("fdecl", ast.Function(str(name).lower(), params))

    def function_type(self, name):
        return ("ftype", str(name).lower())

    def functions_def(self, *items):
        out: list[ast.Function] = []
        pending: list[ast.Function] = []
        for kind, value in items:
            if kind == "fdecl":
                pending.append(value)
            else:
                if not pending:
                    raise SemanticError(f"function type '- {value}' with no function before it")
                out.extend(ast.Function(f.name, f.params, value) for f in pending)
                pending = []
        out.extend(pending)
        return ("functions", tuple(out))

    def derived_def(self, name, params, cond):
        return ("derived", ast.Derived(str(name).lower(), params, cond))

    def parameters(self, params):
        return ("params", params)

    def empty(self):
        return None

    def gd_or_empty(self, g):
        return g

    effect_or_empty = gd_or_empty
    da_gd_or_empty = gd_or_empty
    da_effect_or_empty = gd_or_empty

    def precondition_part(self, g):
        return ("precondition", g)

    def effect_part(self, e):
        return ("effect", e)

    def condition_part(self, g):
        return ("condition", g)

    da_effect_part = effect_part

    def action_def(self, name, *rest):
        params, parts = _split_params(rest)
        fields = _parts(parts, ("precondition", "effect"), name)
        return ("operator", ast.Action(str(name).lower(), params, fields["precondition"],
                                       fields["effect"]))

    def durative_action_def(self, name, *rest):
        params, parts = _split_params(rest)
        duration, parts = parts[0], parts[1:]
        fields = _parts(parts, ("condition", "effect"), name)
        return ("operator", ast.DurativeAction(str(name).lower(), params, duration,
                                               fields["condition"], fields["effect"]))

    def duration_and(self, *dcs):
        return tuple(dcs)

    def duration_single(self, dc):
        return (dc,)

    def duration_empty(self, _none):
        return ()

    def _dc(self, op, var, expr, when):
        if str(var).lower() != "?duration":
            raise SemanticError(f"expected ?duration in a duration constraint, found {var}", var)
        return ast.DurationConstraint(str(op), expr, when)

    def dc_plain(self, op, var, expr):
        return self._dc(op, var, expr, None)

    def dc_start(self, _at, op, var, expr):
        return self._dc(op, var, expr, ast.AT_START)

    def dc_end(self, _at, op, var, expr):
        return self._dc(op, var, expr, ast.AT_END)

    def domain(self, name, *items):
        fields: dict = {"requirements": (), "types": (), "constants": (), "predicates": (),
                        "functions": ()}
        operators: list = []
        derived: list = []
        for kind, value in items:
            if kind == "operator":
                operators.append(value)
            elif kind == "derived":
                derived.append(value)
            else:
                fields[kind] = fields[kind] + tuple(value)
        return ast.Domain(str(name).lower(), operators=tuple(operators), derived=tuple(derived),
                          **fields)

    # ---- conditions -------------------------------------------------------------------
    def const(self, tok):
        return ast.Const(str(tok).lower())

    def var(self, tok):
        return ast.Var(str(tok).lower())

    def atom(self, name, *terms):
        return ast.Atom(str(name).lower(), tuple(terms))

    def not_gd(self, g):
        return ast.Not(g)

    def and_gd(self, *gs):
        return ast.And(tuple(gs))

    def or_gd(self, *gs):
        return ast.Or(tuple(gs))

    def imply_gd(self, a, b):
        return ast.Imply(a, b)

    def exists_gd(self, params, g):
        return ast.Exists(params, g)

    def forall_gd(self, params, g):
        return ast.Forall(params, g)

    def comparison(self, op, lhs, rhs):
        op = str(op)
        if op == "=" and _is_term(lhs) and _is_term(rhs):
            return ast.Atom("=", (_as_term(lhs), _as_term(rhs)))
        return ast.Compare(op, _numeric(lhs, op), _numeric(rhs, op))

    def timed_gd(self, when, g):
        return ast.TimedCond(_when(when), g)

    # ---- numeric expressions ----------------------------------------------------------
    def number(self, tok):
        return ast.Number(number(tok))

    def fvar(self, tok):
        name = str(tok).lower()
        return ast.DurationVar() if name == "?duration" else ast.Var(name)

    def fname(self, tok):
        return ast.Const(str(tok).lower())  # a bare name: a 0-ary function unless in `(= a b)`

    def hash_t(self, _tok=None):
        return ast.HashT()

    def total_time(self, *_):
        return ast.TotalTime()

    def bare_fluent(self, name):
        return ast.FuncTerm(str(name).lower(), ())

    def f_head(self, name, *terms):
        return ast.FuncTerm(str(name).lower(), tuple(terms))

    def arith(self, tok, *args):
        op = str(tok)
        exprs = tuple(_numeric(a, op) for a in args)
        if op == "-" and len(exprs) == 1:
            return ast.Neg(exprs[0])
        if op in "-/" and len(exprs) != 2:
            raise SemanticError(f"'{op}' takes two arguments, found {len(exprs)}", tok)
        if op in "+*" and len(exprs) < 2:
            raise SemanticError(f"'{op}' takes at least two arguments, found {len(exprs)}", tok)
        return ast.BinOp(op, exprs)

    # ---- effects ----------------------------------------------------------------------
    def and_effect(self, *es):
        return ast.AndEffect(tuple(es))

    def forall_effect(self, params, e):
        return ast.ForallEffect(params, e)

    def when_effect(self, c, e):
        return ast.When(c, e)

    def add_effect(self, a):
        return ast.Add(a)

    def del_effect(self, a):
        return ast.Delete(a)

    def update_effect(self, op, fluent, expr):
        return ast.Update(str(op).lower(), fluent, _numeric(expr, str(op)))

    def timed_effect(self, when, e):
        return ast.TimedEffect(_when(when), e)

    # ---- problems ---------------------------------------------------------------------
    def objects_def(self, typed):
        return ("objects", typed)

    def init_atom(self, a):
        return _ground_atom(a)

    def init_not(self, a):
        return ast.Not(_ground_atom(a))

    def init_fluent(self, fluent, value):
        return ast.FluentInit(_ground_fluent(fluent), number(value))

    def til_add(self, a):
        return _ground_atom(a)

    def til_del(self, a):
        return ast.Not(_ground_atom(a))

    til_fluent = init_fluent

    def init_timed(self, _at, time, item):
        return ast.TimedInit(number(time), item)

    def init_def(self, *items):
        return ("init", tuple(items))

    def goal_def(self, g):
        return ("goal", g)

    def metric_def(self, direction, expr):
        return ("metric", ast.Metric(str(direction).lower(), _numeric(expr, "metric")))

    def problem(self, name, domain_name, *items):
        fields: dict = {}
        for kind, value in items:
            if kind in fields and kind != "requirements":
                raise SemanticError(f"the problem has two :{kind} sections")
            fields[kind] = fields.get(kind, ()) + value if kind == "requirements" else value
        return ast.Problem(str(name).lower(), str(domain_name).lower(), **fields)


# ---- helpers ---------------------------------------------------------------------------
def _split_params(rest: tuple) -> tuple[tuple[ast.Typed, ...], list]:
    if rest and isinstance(rest[0], tuple) and rest[0] and rest[0][0] == "params":
        return rest[0][1], list(rest[1:])
    return (), list(rest)


def _parts(parts: list, names: tuple[str, str], op_name: Token) -> dict:
    fields: dict = dict.fromkeys(names)
    seen: set[str] = set()
    for kind, value in parts:
        if kind in seen:
            raise SemanticError(f"operator '{op_name}' has two :{kind} sections", op_name)
        seen.add(kind)
        fields[kind] = value
    return fields


def _is_term(x) -> bool:
    return isinstance(x, (ast.Const, ast.Var))


def _as_term(x) -> ast.Term:
    return x


def _numeric(x, where: str) -> ast.NExpr:
    if isinstance(x, ast.Const):
        return ast.FuncTerm(x.name, ())
    if isinstance(x, ast.Var):
        raise SemanticError(f"variable {x.name} used as a number in '{where}'")
    return x


def _ground_atom(a: ast.Atom) -> ast.Atom:
    for t in a.args:
        if isinstance(t, ast.Var):
            raise SemanticError(f"variable {t.name} in the initial state ({a.pred} ...)")
    return a


def _ground_fluent(f: ast.FuncTerm) -> ast.FuncTerm:
    for t in f.args:
        if isinstance(t, ast.Var):
            raise SemanticError(f"variable {t.name} in the initial state ({f.name} ...)")
    return f

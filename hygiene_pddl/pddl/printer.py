"""Write the AST back as PDDL text (parse -> print -> parse is the identity on the AST)."""

from __future__ import annotations

from fractions import Fraction

from hygiene_pddl.decimals import decimal_literal

from . import ast


def format_number(value: Fraction) -> str:
    """Exact decimal text of a terminating fraction; ``a/b`` values are written ``(/ a b)``."""
    try:
        return decimal_literal(value)
    except ValueError:
        return f"(/ {value.numerator} {value.denominator})"


def _typed(items: tuple[ast.Typed, ...]) -> str:
    """``?a ?b - t ?c - (either u v)``; a trailing group of plain objects prints bare."""
    groups: list[tuple[tuple[str, ...], list[str]]] = []
    for item in items:
        if groups and groups[-1][0] == item.types:
            groups[-1][1].append(item.name)
        else:
            groups.append((item.types, [item.name]))
    out = []
    for i, (types, names) in enumerate(groups):
        if types == ("object",) and i == len(groups) - 1:
            out.append(" ".join(names))
        else:
            t = types[0] if len(types) == 1 else f"(either {' '.join(types)})"
            out.append(f"{' '.join(names)} - {t}")
    return " ".join(out)


def term(t: ast.Term) -> str:
    return t.name


def nexpr(e: ast.NExpr) -> str:
    """A numeric expression."""
    if isinstance(e, ast.Number):
        return format_number(e.value)
    if isinstance(e, ast.FuncTerm):
        return "(" + " ".join([e.name, *map(term, e.args)]) + ")"
    if isinstance(e, ast.BinOp):
        return f"({e.op} " + " ".join(map(nexpr, e.args)) + ")"
    if isinstance(e, ast.Neg):
        return f"(- {nexpr(e.expr)})"
    if isinstance(e, ast.DurationVar):
        return "?duration"
    if isinstance(e, ast.TotalTime):
        return "(total-time)"
    if isinstance(e, ast.HashT):
        return "#t"
    raise TypeError(f"not a numeric expression: {e!r}")


def cond(c: ast.Cond | None) -> str:
    """A goal description (``()`` for none)."""
    if c is None:
        return "()"
    if isinstance(c, ast.Atom):
        return "(" + " ".join([c.pred, *map(term, c.args)]) + ")"
    if isinstance(c, ast.Not):
        return f"(not {cond(c.cond)})"
    if isinstance(c, ast.And):
        return "(and " + " ".join(map(cond, c.parts)) + ")" if c.parts else "(and)"
    if isinstance(c, ast.Or):
        return "(or " + " ".join(map(cond, c.parts)) + ")" if c.parts else "(or)"
    if isinstance(c, ast.Imply):
        return f"(imply {cond(c.ante)} {cond(c.cons)})"
    if isinstance(c, ast.Exists):
        return f"(exists ({_typed(c.params)}) {cond(c.cond)})"
    if isinstance(c, ast.Forall):
        return f"(forall ({_typed(c.params)}) {cond(c.cond)})"
    if isinstance(c, ast.Compare):
        return f"({c.op} {nexpr(c.lhs)} {nexpr(c.rhs)})"
    if isinstance(c, ast.TimedCond):
        return f"({c.when} {cond(c.cond)})"
    raise TypeError(f"not a condition: {c!r}")


def effect(e: ast.Effect | None) -> str:
    """An effect (``()`` for none)."""
    if e is None:
        return "()"
    if isinstance(e, ast.Add):
        return cond(e.atom)
    if isinstance(e, ast.Delete):
        return f"(not {cond(e.atom)})"
    if isinstance(e, ast.AndEffect):
        return "(and " + " ".join(map(effect, e.parts)) + ")" if e.parts else "(and)"
    if isinstance(e, ast.ForallEffect):
        return f"(forall ({_typed(e.params)}) {effect(e.effect)})"
    if isinstance(e, ast.When):
        return f"(when {cond(e.cond)} {effect(e.effect)})"
    if isinstance(e, ast.Update):
        return f"({e.op} {nexpr(e.fluent)} {nexpr(e.expr)})"
    if isinstance(e, ast.TimedEffect):
        return f"({e.when} {effect(e.effect)})"
    raise TypeError(f"not an effect: {e!r}")


def _duration(dcs: tuple[ast.DurationConstraint, ...]) -> str:
    def one(dc: ast.DurationConstraint) -> str:
        text = f"({dc.op} ?duration {nexpr(dc.expr)})"
        return f"({dc.when} {text})" if dc.when else text

    if len(dcs) == 1:
        return one(dcs[0])
    return "(and " + " ".join(map(one, dcs)) + ")" if dcs else "()"


def _operator(op: ast.Operator) -> list[str]:
    if isinstance(op, ast.Action):
        lines = [f" (:action {op.name}", f"  :parameters ({_typed(op.params)})"]
        if op.precondition is not None:
            lines.append(f"  :precondition {cond(op.precondition)}")
        if op.effect is not None:
            lines.append(f"  :effect {effect(op.effect)}")
    else:
        lines = [f" (:durative-action {op.name}", f"  :parameters ({_typed(op.params)})",
                 f"  :duration {_duration(op.duration)}"]
        if op.condition is not None:
            lines.append(f"  :condition {cond(op.condition)}")
        if op.effect is not None:
            lines.append(f"  :effect {effect(op.effect)}")
    lines[-1] += ")"
    return lines


def print_domain(d: ast.Domain) -> str:
    """The domain as PDDL text."""
    lines = [f"(define (domain {d.name})"]
    if d.requirements:
        lines.append(f" (:requirements {' '.join(d.requirements)})")
    if d.types:
        lines.append(f" (:types {_typed(d.types)})")
    if d.constants:
        lines.append(f" (:constants {_typed(d.constants)})")
    if d.predicates:
        lines.append(" (:predicates")
        lines += [f"  ({' '.join([p.name, _typed(p.params)]).strip()})" for p in d.predicates]
        lines[-1] += ")"
    if d.functions:
        lines.append(" (:functions")
        lines += [f"  ({' '.join([f.name, _typed(f.params)]).strip()}) - {f.type}"
                  for f in d.functions]
        lines[-1] += ")"
    for dp in d.derived:
        lines.append(f" (:derived ({' '.join([dp.name, _typed(dp.params)]).strip()})"
                     f" {cond(dp.cond)})")
    for op in d.operators:
        lines += _operator(op)
    lines[-1] += ")"
    return "\n".join(lines) + "\n"


def _init_item(item: ast.InitItem) -> str:
    if isinstance(item, ast.FluentInit):
        return f"(= {nexpr(item.fluent)} {format_number(item.value)})"
    if isinstance(item, ast.TimedInit):
        return f"(at {format_number(item.time)} {_init_item(item.item)})"
    return cond(item)


def print_problem(p: ast.Problem) -> str:
    """The problem as PDDL text."""
    lines = [f"(define (problem {p.name})", f" (:domain {p.domain})"]
    if p.requirements:
        lines.append(f" (:requirements {' '.join(p.requirements)})")
    if p.objects:
        lines.append(f" (:objects {_typed(p.objects)})")
    lines.append(" (:init")
    lines += [f"  {_init_item(i)}" for i in p.init]
    lines[-1] += ")"
    if p.goal is not None:
        lines.append(f" (:goal {cond(p.goal)})")
    if p.metric is not None:
        lines.append(f" (:metric {p.metric.direction} {nexpr(p.metric.expr)})")
    lines[-1] += ")"
    return "\n".join(lines) + "\n"

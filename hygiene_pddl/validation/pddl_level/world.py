"""The grounded world of one domain/problem pair: types, objects, initial state, TILs.

Facts are tuples ``(predicate, arg, ...)`` and fluents tuples ``(function, arg, ...)``.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

from hygiene_pddl.errors import InputError, Location
from hygiene_pddl.pddl import ast
from hygiene_pddl.plans import PlanStep


class UnsupportedError(InputError):
    """A construct VAL cannot validate either (continuous effects, PDDL3, ...)."""


class World:
    """Symbol tables and the initial state; resolves plan steps to operators and bindings."""

    def __init__(self, domain: ast.Domain, problem: ast.Problem):
        self.domain = domain
        self.problem = problem
        self.durative = domain.is_durative
        self.operators = {op.name: op for op in domain.operators}
        self.predicates = {p.name: p for p in domain.predicates}
        self.functions = {f.name: f for f in domain.functions}
        self.derived = {d.name: d for d in domain.derived}
        self._parents: dict[str, set[str]] = {}
        for t in domain.types:
            self._parents.setdefault(t.name, set()).update(t.types)
        self.object_types: dict[str, tuple[str, ...]] = {}
        for o in (*domain.constants, *problem.objects):
            self.object_types[o.name] = o.types
        self._ancestor_cache: dict[str, frozenset[str]] = {}
        self._members: dict[tuple[str, ...], tuple[str, ...]] = {}
        self._is_a: dict[tuple[str, tuple[str, ...]], bool] = {}  # plan steps repeat objects and types
        self.init_facts, self.init_fluents, self.tils = self._initial_state()
        self._changing: tuple[set[str], set[str]] | None = None

    # ---- what can change ---------------------------------------------------------------
    def changeable(self) -> tuple[set[str], set[str]]:
        """(predicates, functions) that some effect or timed literal changes; the others are static."""
        if self._changing is None:
            preds: set[str] = set()
            funcs: set[str] = set()
            todo: list = [op.effect for op in self.domain.operators if op.effect is not None]
            todo += [til.item for til in self.tils]
            while todo:
                e = todo.pop()
                if isinstance(e, (ast.Add, ast.Delete)):
                    preds.add(e.atom.pred)
                elif isinstance(e, ast.Atom):
                    preds.add(e.pred)
                elif isinstance(e, ast.Not):
                    todo.append(e.cond)
                elif isinstance(e, ast.Update):
                    funcs.add(e.fluent.name)
                elif isinstance(e, ast.FluentInit):
                    funcs.add(e.fluent.name)
                elif isinstance(e, ast.AndEffect):
                    todo += e.parts
                elif isinstance(e, (ast.ForallEffect, ast.When, ast.TimedEffect)):
                    todo.append(e.effect)
            # a derived predicate changes when what it is derived from does: count it as changeable
            self._changing = (preds | set(self.derived), funcs)
        return self._changing

    # ---- types -----------------------------------------------------------------------
    def ancestors(self, type_name: str) -> frozenset[str]:
        """The type, its supertypes and ``object``."""
        cached = self._ancestor_cache.get(type_name)
        if cached is not None:
            return cached
        seen = {type_name, "object"}
        todo = [type_name]
        while todo:
            for parent in self._parents.get(todo.pop(), ()):
                if parent not in seen:
                    seen.add(parent)
                    todo.append(parent)
        result = frozenset(seen)
        self._ancestor_cache[type_name] = result
        return result

    def is_a(self, obj: str, types: tuple[str, ...]) -> bool:
        """True when object `obj` belongs to one of `types` (``either``)."""
        key = (obj, types)
        known = self._is_a.get(key)
        if known is None:
            own = self.object_types.get(obj)
            known = own is not None and any(t in self.ancestors(o) for o in own for t in types)
            self._is_a[key] = known
        return known

    def members(self, types: tuple[str, ...]) -> tuple[str, ...]:
        """Objects and constants of `types`, in declaration order."""
        cached = self._members.get(types)
        if cached is None:
            cached = tuple(o for o in self.object_types if self.is_a(o, types))
            self._members[types] = cached
        return cached

    def bindings(self, params: tuple[ast.Typed, ...]):
        """Every assignment of objects to `params` (as dicts), in VAL's nesting order."""
        names = [p.name for p in params]
        for combo in product(*(self.members(p.types) for p in params)):
            yield dict(zip(names, combo, strict=True))

    # ---- initial state ---------------------------------------------------------------
    def _initial_state(self):
        facts: set[tuple] = set()
        fluents: dict[tuple, Fraction] = {}
        tils: list[ast.TimedInit] = []
        for item in self.problem.init:
            if isinstance(item, ast.Atom):
                facts.add(ground(item))
            elif isinstance(item, ast.FluentInit):
                fluents[ground(item.fluent)] = item.value
            elif isinstance(item, ast.TimedInit):
                tils.append(item)
        return frozenset(facts), fluents, tuple(tils)

    # ---- plan steps ------------------------------------------------------------------
    def resolve(self, step: PlanStep, index: int, file: str | None = None
                ) -> tuple[ast.Operator, dict]:
        """The operator and parameter binding of a plan step; InputError when it cannot be."""
        where = Location(file, step.line, None, f"step {index + 1} {step.text()}")
        op = self.operators.get(step.action)
        if op is None:
            raise InputError(f"unknown action '{step.action}' (the domain has: "
                             f"{', '.join(sorted(self.operators)) or 'none'})", where)
        if len(step.args) != len(op.params):
            raise InputError(f"action '{op.name}' takes {len(op.params)} argument(s), "
                             f"the plan gives {len(step.args)}", where)
        binding: dict = {}
        for param, arg in zip(op.params, step.args, strict=True):
            if arg not in self.object_types:
                raise InputError(f"unknown object '{arg}' for {param.name} of '{op.name}'", where)
            if not self.is_a(arg, param.types):
                expected = " or ".join(param.types)
                got = " ".join(self.object_types[arg])
                raise InputError(f"object '{arg}' has type {got}, but {param.name} of "
                                 f"'{op.name}' needs {expected}", where)
            binding[param.name] = arg
        return op, binding


def ground(item: ast.Atom | ast.FuncTerm, binding: dict | None = None) -> tuple:
    """The tuple key of an atom or fluent under `binding`."""
    name = item.pred if isinstance(item, ast.Atom) else item.name
    if binding is None:
        return (name, *(t.name for t in item.args))
    try:
        return (name, *(binding[t.name] if isinstance(t, ast.Var) else t.name
                        for t in item.args))
    except KeyError as exc:
        raise InputError(f"variable {exc.args[0]} in ({name} ...) is not a parameter of its "
                         "action or quantifier") from None


def key_text(key: tuple) -> str:
    """``(pred a b)`` for a fact or fluent key."""
    return "(" + " ".join(key) + ")"

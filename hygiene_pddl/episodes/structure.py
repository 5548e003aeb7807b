"""Structure up to renaming (issue 13's gates): how many distinct domains and instances a benchmark really has.

Two PDDL files are *equal up to renaming* when a one-to-one renaming of every name (types, predicates,
functions, constants and objects, actions, variables) maps one onto the other. We compute an invariant of
that relation: the syntax tree becomes a graph (one node per syntax node, labelled by its kind and its
non-name contents such as numbers and time specifiers; one shared node per distinct name, labelled only by its
namespace), and a Weisfeiler-Lehman refinement of that graph is hashed. Files equal up to renaming always get
the same signature; different files almost always get different ones, and when they collide the count of
distinct signatures is *lower* than the true number of classes, so a gate "at least N classes" measured this way
is never passed by a hash accident.

Order is kept where PDDL gives it meaning (the arguments of an atom, the parameters of an action) and dropped
where it does not (the parts of ``and``, the actions of a domain, the facts of ``:init``).
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections import Counter
from collections.abc import Iterable
from fractions import Fraction

from hygiene_pddl.pddl import ast

#: Fields whose value is a name, by namespace (the renaming maps names within a namespace).
_NAME_FIELDS = {
    (ast.Atom, "pred"): "pred", (ast.FuncTerm, "name"): "func", (ast.Var, "name"): "var",
    (ast.Const, "name"): "obj", (ast.Typed, "name"): "typed", (ast.Predicate, "name"): "pred",
    (ast.Function, "name"): "func", (ast.Action, "name"): "action", (ast.DurativeAction, "name"): "action",
    (ast.Derived, "name"): "pred", (ast.Domain, "name"): "domain", (ast.Problem, "name"): "problem",
    (ast.Problem, "domain"): "domain",
}
#: Tuple fields whose order carries meaning.
_ORDERED = {"args", "params"}
_ROUNDS = 4


class _Graph:
    def __init__(self) -> None:
        self.labels: list[str] = []
        self.edges: list[list[tuple[str, int]]] = []
        self.names: dict[tuple[str, str], int] = {}
        self.scope = 0  # variables are local to their operator

    def node(self, label: str) -> int:
        self.labels.append(label)
        self.edges.append([])
        return len(self.labels) - 1

    def link(self, a: int, b: int, label: str) -> None:
        self.edges[a].append((label, b))
        self.edges[b].append(("~" + label, a))

    def name(self, namespace: str, value: str) -> int:
        key = (namespace, value)
        if key not in self.names:
            self.names[key] = self.node(f"name:{namespace}")
        return self.names[key]

    def add(self, value: object, context: str = "") -> int:
        """Add a syntax (sub)tree; return its node."""
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            cls = type(value)
            if cls in (ast.Action, ast.DurativeAction, ast.Derived):
                self.scope += 1
            scalars = []
            children = []
            for f in dataclasses.fields(value):
                v = getattr(value, f.name)
                ns = _NAME_FIELDS.get((cls, f.name))
                if ns is not None and isinstance(v, str):
                    if ns == "typed":
                        ns = context or "typed"
                    if ns == "var":
                        ns = f"var@{self.scope}"
                    children.append((f.name, None, self.name(ns, v)))
                elif isinstance(v, tuple):
                    for i, item in enumerate(v):
                        if isinstance(item, str):  # types of a Typed, requirements
                            key = self.name("type", item) if f.name == "types" else None
                            if key is None:
                                scalars.append(f"{f.name}={item}")
                            else:
                                children.append((f.name, None, key))
                            continue
                        edge = f"{f.name}#{i}" if f.name in _ORDERED else f.name
                        sub = "var" if f.name == "params" else ("obj" if f.name in ("objects", "constants")
                                                                  else "type" if f.name == "types" else "")
                        children.append((edge, None, self.add(item, sub)))
                elif dataclasses.is_dataclass(v):
                    children.append((f.name, None, self.add(v, context)))
                elif v is None:
                    continue
                else:
                    scalars.append(f"{f.name}={_scalar(v)}")
            me = self.node(f"{cls.__name__}({','.join(sorted(scalars))})")
            for edge, _, child in children:
                self.link(me, child, edge)
            return me
        return self.node(f"value={_scalar(value)}")

    def signature(self) -> str:
        labels = [hashlib.sha1(x.encode()).hexdigest()[:16] for x in self.labels]
        for _ in range(_ROUNDS):
            labels = [hashlib.sha1((labels[i] + "|" + ",".join(sorted(f"{e}:{labels[j]}" for e, j in self.edges[i])))
                                   .encode()).hexdigest()[:16] for i in range(len(labels))]
        counts = Counter(labels)
        return hashlib.sha256(repr(sorted(counts.items())).encode()).hexdigest()[:20]


def _scalar(v: object) -> str:
    if isinstance(v, Fraction):
        return f"{v.numerator}/{v.denominator}"
    return str(v)


def signature(*trees: object) -> str:
    """The renaming-invariant signature of one or more syntax trees (a domain; a domain and its problem)."""
    g = _Graph()
    for t in trees:
        g.add(t)
    return g.signature()


def distinct(signatures: Iterable[str]) -> int:
    return len(set(signatures))

"""Immutable PDDL 2.1/2.2 syntax tree: frozen dataclasses with structural equality.

Every name is lower case. Terms, numeric expressions, conditions and effects are small
tagged unions; `Domain` and `Problem` hold them in source order.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

AT_START = "at start"
AT_END = "at end"
OVER_ALL = "over all"


# ---- terms and typed names -------------------------------------------------------------
@dataclass(frozen=True)
class Var:
    """A variable such as ``?x`` (the name keeps its leading ``?``)."""

    name: str


@dataclass(frozen=True)
class Const:
    """An object or constant name."""

    name: str


Term = Var | Const


@dataclass(frozen=True)
class Typed:
    """A typed name: a variable, object, constant or type with its type(s) (`either`)."""

    name: str
    types: tuple[str, ...] = ("object",)


# ---- numeric expressions ---------------------------------------------------------------
@dataclass(frozen=True)
class Number:
    """A numeric literal (exact)."""

    value: Fraction


@dataclass(frozen=True)
class FuncTerm:
    """A function (numeric fluent) application ``(f a b)``."""

    name: str
    args: tuple[Term, ...] = ()


@dataclass(frozen=True)
class BinOp:
    """Arithmetic: ``+``/``*`` take two or more arguments, ``-``/``/`` exactly two."""

    op: str
    args: tuple[NExpr, ...]


@dataclass(frozen=True)
class Neg:
    """Unary minus."""

    expr: NExpr


@dataclass(frozen=True)
class DurationVar:
    """``?duration``."""


@dataclass(frozen=True)
class TotalTime:
    """``(total-time)`` (metrics only)."""


@dataclass(frozen=True)
class HashT:
    """``#t`` of continuous effects (parsed, not validated)."""


NExpr = Number | FuncTerm | BinOp | Neg | DurationVar | TotalTime | HashT


# ---- conditions ------------------------------------------------------------------------
@dataclass(frozen=True)
class Atom:
    """A predicate application; ``=`` is equality between terms."""

    pred: str
    args: tuple[Term, ...] = ()


@dataclass(frozen=True)
class Not:
    """Negation."""

    cond: Cond


@dataclass(frozen=True)
class And:
    """Conjunction."""

    parts: tuple[Cond, ...]


@dataclass(frozen=True)
class Or:
    """Disjunction."""

    parts: tuple[Cond, ...]


@dataclass(frozen=True)
class Imply:
    """Implication."""

    ante: Cond
    cons: Cond


@dataclass(frozen=True)
class Exists:
    """Existential quantification."""

    params: tuple[Typed, ...]
    cond: Cond


@dataclass(frozen=True)
class Forall:
    """Universal quantification."""

    params: tuple[Typed, ...]
    cond: Cond


@dataclass(frozen=True)
class Compare:
    """Numeric comparison; op is one of ``< <= = >= >``."""

    op: str
    lhs: NExpr
    rhs: NExpr


@dataclass(frozen=True)
class TimedCond:
    """``(at start C)``, ``(at end C)`` or ``(over all C)`` inside a durative action."""

    when: str
    cond: Cond


Cond = Atom | Not | And | Or | Imply | Exists | Forall | Compare | TimedCond


# ---- effects ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Add:
    """An add effect."""

    atom: Atom


@dataclass(frozen=True)
class Delete:
    """A delete effect."""

    atom: Atom


@dataclass(frozen=True)
class AndEffect:
    """Several effects at once."""

    parts: tuple[Effect, ...]


@dataclass(frozen=True)
class ForallEffect:
    """An effect for every binding of the parameters."""

    params: tuple[Typed, ...]
    effect: Effect


@dataclass(frozen=True)
class When:
    """A conditional effect."""

    cond: Cond
    effect: Effect


@dataclass(frozen=True)
class Update:
    """Numeric effect; op is assign, increase, decrease, scale-up or scale-down."""

    op: str
    fluent: FuncTerm
    expr: NExpr


@dataclass(frozen=True)
class TimedEffect:
    """An effect at start or at end of a durative action."""

    when: str
    effect: Effect


Effect = Add | Delete | AndEffect | ForallEffect | When | Update | TimedEffect


# ---- domain ----------------------------------------------------------------------------
@dataclass(frozen=True)
class DurationConstraint:
    """``(op ?duration expr)``, optionally wrapped in ``at start``/``at end`` (when)."""

    op: str
    expr: NExpr
    when: str | None = None


@dataclass(frozen=True)
class Action:
    """An instantaneous action."""

    name: str
    params: tuple[Typed, ...]
    precondition: Cond | None = None
    effect: Effect | None = None


@dataclass(frozen=True)
class DurativeAction:
    """A durative action (PDDL 2.1)."""

    name: str
    params: tuple[Typed, ...]
    duration: tuple[DurationConstraint, ...]
    condition: Cond | None = None
    effect: Effect | None = None


Operator = Action | DurativeAction


@dataclass(frozen=True)
class Predicate:
    """A predicate declaration."""

    name: str
    params: tuple[Typed, ...] = ()


@dataclass(frozen=True)
class Function:
    """A numeric function declaration."""

    name: str
    params: tuple[Typed, ...] = ()
    type: str = "number"


@dataclass(frozen=True)
class Derived:
    """A derived predicate (PDDL 2.2 axiom)."""

    name: str
    params: tuple[Typed, ...]
    cond: Cond


@dataclass(frozen=True)
class Domain:
    """A PDDL domain."""

    name: str
    requirements: tuple[str, ...] = ()
    types: tuple[Typed, ...] = ()
    constants: tuple[Typed, ...] = ()
    predicates: tuple[Predicate, ...] = ()
    functions: tuple[Function, ...] = ()
    operators: tuple[Operator, ...] = ()
    derived: tuple[Derived, ...] = ()

    def operator(self, name: str) -> Operator | None:
        """The action or durative action called `name` (lower case), if any."""
        for op in self.operators:
            if op.name == name:
                return op
        return None

    @property
    def is_durative(self) -> bool:
        """As VAL decides: the requirements declare :durative-actions or :time."""
        return ":durative-actions" in self.requirements or ":time" in self.requirements


# ---- problem ---------------------------------------------------------------------------
@dataclass(frozen=True)
class FluentInit:
    """``(= (f a) 3)`` in ``:init``."""

    fluent: FuncTerm
    value: Fraction


@dataclass(frozen=True)
class TimedInit:
    """A timed initial literal ``(at 10 item)``; item is an Atom, Not(Atom) or FluentInit."""

    time: Fraction
    item: Atom | Not | FluentInit


InitItem = Atom | Not | FluentInit | TimedInit


@dataclass(frozen=True)
class Metric:
    """The problem metric."""

    direction: str  # "minimize" | "maximize"
    expr: NExpr


@dataclass(frozen=True)
class Problem:
    """A PDDL problem."""

    name: str
    domain: str
    requirements: tuple[str, ...] = ()
    objects: tuple[Typed, ...] = ()
    init: tuple[InitItem, ...] = ()
    goal: Cond | None = None
    metric: Metric | None = None

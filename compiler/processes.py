"""Running processes keep their conditions (docs/world-model-v2.md §2).

Temporal flavours: for every over-all literal of an action still running at the decision time the problem holds
a *keep* fact ``(keep-<pred> args)`` (``keep-not-<pred>`` for a negative literal) that a timed literal deletes at
the action's end; every action that deletes ``<pred>`` needs ``(not (keep-<pred> args))`` when it deletes it.

Classical flavour (no time): a process is split into ``-start`` and ``-end`` with a ``(running-<a> ...)`` fact in
between; the goals end every started process, and an action may not delete (or add) what the over-all literals of
a running process need: ``(not (running-<a> ... args ...))`` for the process instances that need that atom.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from compiler.formulas import forall, imply
from compiler.kset import FamilyDomain
from hygiene_pddl.literals import Literal
from hygiene_pddl.registries.model import ActionSchema, Registries

KEEP_PREFIX = "keep-"
RUNNING_PREFIX = "running-"


def keep_predicate(pred: str, positive: bool) -> str:
    return f"{KEEP_PREFIX}{pred}" if positive else f"{KEEP_PREFIX}not-{pred}"


def kept(reg: Registries, fd: FamilyDomain) -> set[tuple[str, bool]]:
    """(predicate, polarity) of every plain over-all literal of K's actions (what a running process may keep)."""
    return {(lit.predicate, lit.positive) for a in fd.actions for lit in a.cond_overall
            if reg.counted_predicate(lit.predicate) is None}


def keep_guard(effect: Literal, kept_literals: set[tuple[str, bool]]) -> str | None:
    """The keep fact an effect literal must not break, negated (None when no running process can need it)."""
    key = (effect.predicate, not effect.positive)
    if key not in kept_literals:
        return None
    return f"(not ({keep_predicate(*key)} {' '.join(effect.args)}))".replace(" )", ")")


@dataclass(frozen=True)
class Running:
    """One splittable action of the classical flavour: its name and PDDL parameters (variable, type)."""

    schema: ActionSchema
    parameters: tuple[tuple[str, str], ...]

    @property
    def fact(self) -> str:
        return f"({RUNNING_PREFIX}{self.schema.name} " + " ".join(v for v, _ in self.parameters) + ")"


def running_guard(effect: Literal, effect_scope: Sequence[str], process: Running,
                  quantified: Sequence[tuple[str, str]] = (), guard: Sequence[str] = ()) -> str | None:
    """Classical: the condition that ``effect`` (an effect literal of another action, its variables in
    ``effect_scope``) does not break an over-all literal of a running ``process``; None when it cannot."""
    out = []
    for need in process.schema.cond_overall:
        if need.predicate != effect.predicate or need.positive == effect.positive:
            continue
        binding: dict[str, str] = {}
        same: list[str] = []  # a constant of the need against a variable of the effect: they must be equal
        ok = True
        for term, value in zip(need.args, effect.args, strict=True):
            if not term.startswith("?"):
                if value.startswith("?"):
                    same.append(f"(= {value} {term})")
                else:
                    ok = ok and term == value
            elif binding.setdefault(term, value) != value:
                ok = False  # the same variable twice against different terms: needs equality, left out
        if not ok:
            continue
        renamed = {}
        args = []
        free = []
        for var, vtype in process.parameters:
            if var in binding:
                args.append(binding[var])
            else:
                fresh = f"?run-{var[1:]}"
                while fresh in effect_scope:
                    fresh += "-"
                renamed[var] = fresh
                free.append((fresh, vtype))
                args.append(fresh)
        fact = f"({RUNNING_PREFIX}{process.schema.name} " + " ".join(args) + ")"
        out.append(forall([*quantified, *free], imply([*guard, *same], [f"(not {fact})"])))
    if not out:
        return None
    return out[0] if len(out) == 1 else "(and " + " ".join(out) + ")"

"""Small builders for PDDL formula text, and the two timings (temporal ``(at start ...)``, classical plain)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass


def conj(parts: Sequence[str]) -> str:
    """``(and ...)`` of the parts (the part itself when there is one; conjunctions among them spliced in)."""
    flat: list[str] = []
    for p in parts:
        flat += _conjuncts(p) if p.startswith("(and ") else [p]
    parts = list(dict.fromkeys(flat))
    return parts[0] if len(parts) == 1 else "(and " + " ".join(parts) + ")"


def _conjuncts(text: str) -> list[str]:
    """The top-level parts of ``(and A B ...)``."""
    out, depth, start = [], 0, None
    for i, ch in enumerate(text[5:-1], 5):
        if ch == "(":
            if depth == 0:
                start = i
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                out.append(text[start:i + 1])
    return out


def negate(text: str) -> str:
    """The negation of a literal's text (double negation removed)."""
    return text[5:-1] if text.startswith("(not ") else f"(not {text})"


def typed_vars(items: Iterable[tuple[str, str]]) -> str:
    """``?x - thing ?xc - carrier`` from (variable, type) pairs."""
    return " ".join(f"{v} - {t}" for v, t in items)


def forall(variables: Sequence[tuple[str, str]], body: str) -> str:
    return f"(forall ({typed_vars(variables)}) {body})" if variables else body


def imply(antecedent: Sequence[str], consequent: Sequence[str]) -> str:
    """``(imply A C)``; the consequent alone when there is no antecedent."""
    if not antecedent:
        return conj(consequent)
    return f"(imply {conj(antecedent)} {conj(consequent)})"


@dataclass(frozen=True)
class Timing:
    """Where a condition or effect is read or applied: at a time point (temporal) or at once (classical)."""

    temporal: bool

    def at(self, when: str, text: str) -> str:
        if not self.temporal:
            return text
        return f"(over all {text})" if when == "all" else f"(at {when} {text})"

    def when(self, when: str, condition: Sequence[str], effect: Sequence[str]) -> str:
        """A conditional effect with condition and effect at the same time point (VAL evaluates that form right;
        it mis-evaluates a ``forall`` around ``(when (at start C) (at end E))``)."""
        if not condition:
            return self.at(when, conj(effect))
        return f"(when {self.at(when, conj(condition))} {self.at(when, conj(effect))})"

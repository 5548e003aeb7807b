"""Literals of the registries' small condition language: ``(pred a ?x)`` and ``(not (pred ...))``.

Atoms are tuples ``(predicate, arg, ...)``: grounded facts are keyed by tuples, never joined strings.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

Atom = tuple[str, ...]

_TOKEN = re.compile(r"\(|\)|[^\s()]+")
_NAME = re.compile(r"^\??[a-z][a-z0-9_-]*$")


@dataclass(frozen=True)
class Literal:
    """A possibly negated atom whose arguments may be ``?variables``."""

    atom: Atom
    positive: bool = True

    @property
    def predicate(self) -> str:
        return self.atom[0]

    @property
    def args(self) -> tuple[str, ...]:
        return self.atom[1:]

    def ground(self, binding: Mapping[str, str]) -> Literal:
        """Substitute ``?x`` by ``binding['x']``; unknown variables are an error."""
        args = []
        for a in self.args:
            if a.startswith("?"):
                if a[1:] not in binding:
                    raise KeyError(f"variable {a} is not a parameter")
                args.append(binding[a[1:]])
            else:
                args.append(a)
        return Literal((self.predicate, *args), self.positive)

    def __str__(self) -> str:
        text = "(" + " ".join(self.atom) + ")"
        return text if self.positive else f"(not {text})"


def parse_literal(text: str) -> Literal:
    """Parse ``(p a b)`` or ``(not (p a b))``; raise ``ValueError`` saying what was expected."""
    tokens = _TOKEN.findall(text.strip().lower())
    positive = True
    if tokens[:2] == ["(", "not"]:
        if tokens[-1:] != [")"]:
            raise ValueError(f"expected ')' closing (not ...) in {text!r}")
        positive, tokens = False, tokens[2:-1]
    if len(tokens) < 3 or tokens[0] != "(" or tokens[-1] != ")" or "(" in tokens[1:] or ")" in tokens[:-1]:
        raise ValueError(f"expected a literal like (pred a ?x) or (not (pred a ?x)), found {text!r}")
    names = tokens[1:-1]
    for name in names:
        if not _NAME.match(name):
            raise ValueError(f"{name!r} in {text!r} is not a legal name")
    if names[0].startswith("?"):
        raise ValueError(f"expected a predicate name first in {text!r}, found variable {names[0]}")
    return Literal(tuple(names), positive)


def parse_record(text: str) -> Literal:
    """Parse a history record such as ``(pick left apple skin table)`` or ``(deadline-moved 14)``: a positive ground
    literal whose arguments are names or whole numbers (an event's amount or time)."""
    tokens = _TOKEN.findall(text.strip().lower())
    numbers = [i for i, t in enumerate(tokens) if i > 1 and t.isdigit()]
    lit = parse_literal(" ".join("n" if i in numbers else t for i, t in enumerate(tokens)))
    if not lit.positive or any(a.startswith("?") for a in lit.args):
        raise ValueError(f"expected a record like (action arg ...) or (event arg ...), found {text!r}")
    return Literal(tuple(tokens[1:-1]), True)


def atom_from_text(text: str) -> Atom:
    """Parse a positive ground atom such as ``(at apple counter)``."""
    lit = parse_literal(text)
    if not lit.positive or any(a.startswith("?") for a in lit.args):
        raise ValueError(f"expected a positive ground atom, found {text!r}")
    return lit.atom


def atom_text(atom: Atom) -> str:
    return "(" + " ".join(atom) + ")"

"""Grounded goals read from a request, however they were read (rule-sat's rules, an LLM grounder): the type
check against the registries, the record a planner keeps of its grounding, and accuracy against the
instance's grounded goals."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from hygiene_pddl.instances.model import Instance
from hygiene_pddl.literals import Atom, atom_text
from hygiene_pddl.registries import Registries


def goal_problem(reg: Registries, inst: Instance, atom: Atom) -> str | None:
    """Why ``atom`` is not a well-typed goal of ``inst`` (``None`` when it is): the predicate must be in the
    registry, with its arity, and each argument an object (item, place), gripper or region of the right kind."""
    kinds = dict(reg.predicates).get(atom[0])
    text = atom_text(atom)
    if kinds is None:
        return f"{text}: predicate {atom[0]} is not in the registry"
    if len(atom) - 1 != len(kinds):
        return f"{text}: {atom[0]} takes {len(kinds)} argument(s) ({' '.join(kinds)}), found {len(atom) - 1}"
    objects = dict(inst.objects)
    for arg, kind in zip(atom[1:], kinds, strict=True):
        if kind == "gripper":
            if arg not in reg.grippers:
                return f"{text}: {arg} is not a gripper ({', '.join(reg.grippers)})"
        elif kind == "region":
            owners = [o for o in atom[1:] if o in objects] or list(objects)
            if not any(arg in {r.name for r in reg.object_types[objects[o]].regions} for o in owners):
                return f"{text}: {arg} is not a region of {', '.join(owners)}"
        elif arg not in objects:
            return f"{text}: {arg} is not an object of this task ({', '.join(sorted(objects))})"
        elif kind == "item" and not reg.object_types[objects[arg]].is_item:
            return f"{text}: {arg} is not an item"
        elif kind == "place" and not reg.object_types[objects[arg]].is_place:
            return f"{text}: {arg} is not a place"
    return None


def with_implied_goals(reg: Registries, inst: Instance, goals: Sequence[Atom]) -> tuple[Atom, ...]:
    """``goals`` plus what the loader adds to an instance's own goals (deliveries are safe: ``(safe x)``), so
    that a grounding is planned for, and compared with the grounded goals, on the same terms."""
    from hygiene_pddl.hygiene import HygieneRules

    rules = HygieneRules(reg, dict(inst.objects), inst.hazards)
    implied = rules.implied_safe_goals(goals) if hasattr(rules, "implied_safe_goals") else []
    return tuple(goals) + tuple(g for g in implied if g not in goals)


def grounding_usage(grounder: str, goals: Sequence[Atom] | None, reason: str = "") -> dict:
    """The ``usage["grounding"]`` record of a planner's result: which grounder, its goals or why it failed."""
    if goals is None:
        return {"grounder": grounder, "status": "failed", "reason": reason}
    return {"grounder": grounder, "status": "ok", "goals": [atom_text(g) for g in goals]}


@dataclass(frozen=True)
class Accuracy:
    """Groundings compared with the grounded goals: ``exact`` counts equal goal sets; precision and recall are
    over goal atoms (micro-averaged; failed groundings contribute no predicted atoms)."""

    n: int
    grounded: int
    exact: int
    predicted: int
    true_atoms: int
    correct: int

    @property
    def precision(self) -> float | None:
        return self.correct / self.predicted if self.predicted else None

    @property
    def recall(self) -> float | None:
        return self.correct / self.true_atoms if self.true_atoms else None

    def as_dict(self) -> dict:
        return {"n": self.n, "grounded": self.grounded, "exact": self.exact, "predicted": self.predicted,
                "true_atoms": self.true_atoms, "correct": self.correct, "precision": self.precision,
                "recall": self.recall}


def accuracy(pairs: Iterable[tuple[Iterable[str] | None, Iterable[str]]]) -> Accuracy:
    """Over (predicted goal texts or None for a failed grounding, true goal texts) pairs."""
    n = grounded = exact = predicted = true_atoms = correct = 0
    for guess, truth in pairs:
        truth_set = {" ".join(t.lower().split()) for t in truth}
        n += 1
        true_atoms += len(truth_set)
        if guess is None:
            continue
        guess_set = {" ".join(g.lower().split()) for g in guess}
        grounded += 1
        exact += guess_set == truth_set
        predicted += len(guess_set)
        correct += len(guess_set & truth_set)
    return Accuracy(n, grounded, exact, predicted, true_atoms, correct)

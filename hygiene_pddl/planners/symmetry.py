"""Interchangeable objects: symmetry a planner may break without losing any plan cost.

Two objects are interchangeable when they have the same type, no history record mentions either, and
swapping their names maps the initial facts, the observations, the hazard sources and the goals onto
themselves. Swapping them in any plan then gives a plan that is valid exactly when the first one is and
costs the same, so a planner may require the objects of a class to be first used in name order.
"""

from __future__ import annotations

from hygiene_pddl.instances.model import Instance


def _swap(term: object, a: str, b: str) -> object:
    if isinstance(term, tuple):
        return tuple(_swap(t, a, b) for t in term)
    return b if term == a else a if term == b else term


def _invariant(inst: Instance, a: str, b: str) -> bool:
    sets = (inst.initial_facts, inst.observations, frozenset(inst.goals),
            frozenset((h.carrier, h.hazard) for h in inst.initial_hazards))
    return all(frozenset(_swap(x, a, b) for x in s) == s for s in sets)


def interchangeable_classes(inst: Instance) -> list[list[str]]:
    """Classes (of at least two objects, each sorted by name) of pairwise interchangeable objects."""
    in_history = {arg for rec in inst.history for arg in rec.args}
    classes: list[list[str]] = []
    for name, kind in inst.objects:  # sorted by name
        if name in in_history:
            continue
        for cls in classes:
            if inst.object_type(cls[0]) == kind and _invariant(inst, cls[0], name):
                cls.append(name)
                break
        else:
            classes.append([name])
    return [c for c in classes if len(c) > 1]

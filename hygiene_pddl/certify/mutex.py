"""At-most-one groups of atoms (invariant synthesis for the exact search's bounds).

Candidates come from the actions: when an action deletes an atom and adds another that share an object argument,
the two (predicate, argument position) pairs are linked (a pick moves an item from ``(at ?o ?s)`` to
``(holding ?g ?o)``). For each object and each linked family, the group is every dynamic atom naming the object at
one of those positions. A group is kept when it is provably an invariant: in the state at the decision time at
most one of its atoms holds, counting the ones an ongoing action will add at its end; and every ground action
that may add one of its atoms adds exactly one and, at its start, needs and deletes one (so between its start and
its end none holds, and no other action can add one meanwhile, as each needs one to hold). By induction at most
one atom of the group holds in every state of every execution.
"""

from __future__ import annotations

from collections.abc import Sequence

from hygiene_pddl.certify.bounds import bits
from hygiene_pddl.certify.task import GroundAction, Task


def _positions(atom: tuple[str, ...], name: str) -> list[int]:
    return [i for i, x in enumerate(atom[1:], 1) if x == name]


def mutex_groups(task: Task, actions: Sequence[GroundAction]) -> list[int]:
    """Verified at-most-one groups, as atom bit masks."""
    atoms = task.atoms
    parent: dict[tuple[str, int], tuple[str, int]] = {}

    def find(x: tuple[str, int]) -> tuple[str, int]:
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x

    for a in actions:
        dels = a.start.may_del | a.end.may_del
        adds = a.start.may_add | a.end.may_add
        for d in bits(dels):
            for x in atoms[d][1:]:
                for q in bits(adds):
                    for i in _positions(atoms[d], x):
                        for j in _positions(atoms[q], x):
                            parent[find((atoms[d][0], i))] = find((atoms[q][0], j))
    families: dict[tuple[str, int], set[tuple[str, int]]] = {}
    for key in list(parent):
        families.setdefault(find(key), set()).add(key)
    names = {x for a in atoms for x in a[1:]}
    groups = []
    for family in families.values():
        for name in sorted(names):
            mask = 0
            for i, a in enumerate(atoms):
                if any((a[0], j) in family for j in _positions(a, name)):
                    mask |= 1 << i
            if bits(mask)[1:] and _invariant(task, actions, mask):
                groups.append(mask)
    return groups


def _invariant(task: Task, actions: Sequence[GroundAction], mask: int) -> bool:
    pending = sum(1 for ga, _ in task.ongoing if (ga.end.may_add & mask))
    if (task.facts & mask).bit_count() + pending > 1:
        return False
    for a in actions:
        added = (a.start.may_add | a.end.may_add) & mask
        if not added:
            continue
        if added.bit_count() != 1 or not (a.start.cond[0] & a.start.dels & mask):
            return False
    return True


__all__ = ["mutex_groups"]

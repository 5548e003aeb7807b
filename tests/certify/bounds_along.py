"""The exact search's lower bound evaluated on every node of a given valid plan (admissibility checks).

A bound is admissible when it is at most the cost of every valid completion, so along any valid plan (not only the
one the search returns, where the check would be nearly circular: its nodes were taken from the queue before the
goal) each node's key must be at most the plan's final key, and no node may be judged a dead end. The plan is
executed by the plain transitions (no tight-plan or commuting-start rule, so any valid plan can be followed) on the
reduced search's ground actions, and each node is evaluated by the reduced search's bounds.
"""

from __future__ import annotations

from collections.abc import Iterable

from hygiene_pddl.certify.search import _Search, prepare
from hygiene_pddl.instances.model import Instance
from hygiene_pddl.registries import Registries

Step = tuple[int, str, tuple[str, ...]]  # (start, action name, arguments), in the plan's start order


def bounds_along(reg: Registries, inst: Instance, steps: Iterable[Step]) -> tuple[list[tuple], tuple] | None:
    """(the key of every node along the plan, the plan's final key); None when a step is not among the reduced
    search's ground actions (the relevance filter dropped it)."""
    search, node, _, _ = prepare(reg, inst)
    plain = _Search(search.task, search.steps, inst.profile.order, None, False)
    by_name = {(a.name, a.args): a for a in search.steps}
    plan = sorted(steps, key=lambda s: s[0])  # stable: simultaneous starts keep the plan's order
    if any((name, args) not in by_name for _, name, args in plan):
        return None
    keys: list[tuple] = []

    def bound() -> None:
        fresh = search.evaluate(node)
        assert fresh is not None, f"a node of a valid plan at t={node.t} was judged to have no valid completion"
        keys.append(fresh[0])

    bound()
    for start, name, args in plan:
        while node.t < start:
            node = plain.advance(node, min([r[0] for r in node.running] + [start]))
            bound()
        node = plain.start(node, by_name[(name, args)])
        bound()
    while node.running:
        node = plain.advance(node, node.running[0][0])
        bound()
    return keys, search.g_key(node)


__all__ = ["bounds_along"]

"""The exact search's lower bound evaluated on every node of a given valid plan (admissibility checks).

A bound is admissible when it is at most the cost of every valid completion, so along any valid plan (not only the
one the search returns, where the check would be nearly circular: its nodes were taken from the queue before the
goal) each node's key must be at most the plan's final key, and no node may be judged a dead end. The plan is
executed by the plain transitions (no tight-plan or commuting-start rule, so any valid plan can be followed) on the
reduced search's ground actions, and each node is evaluated by the reduced search's bounds.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from hygiene_pddl.certify.search import _Search, prepare
from hygiene_pddl.instances.model import Instance
from hygiene_pddl.planners.base import ChosenStep
from hygiene_pddl.registries import Registries
from tests.certify.brute import happening_order

Step = tuple[int, str, tuple[str, ...]]  # (start, action name, arguments), in the plan's start order


def bounds_along(reg: Registries, inst: Instance, steps: Iterable[Step | ChosenStep]
                 ) -> tuple[list[tuple], tuple] | None:
    """(the key of every node along the plan, the plan's final key); None when a step is not among the reduced
    search's ground actions (the relevance filter dropped it). Steps given as (start, name, args) end before the starts
    at their end time; a plan's ChosenSteps keep their happening order (``order``, ``end_order``)."""
    search, node, _, _ = prepare(reg, inst)
    plain = _Search(search.task, search.steps, inst.profile.order, None, False)
    by_name = {(a.name, a.args): a for a in search.steps}
    plan = [s if isinstance(s, ChosenStep) else ChosenStep(s[0], s[1], s[2], 0, i) for i, s in enumerate(steps)]
    if any((s.name, s.args) not in by_name for s in plan):
        return None
    plan = sorted((replace(s, duration=by_name[(s.name, s.args)].duration) for s in plan),
                  key=lambda s: (s.start, s.order))
    keys: list[tuple] = []

    def bound() -> None:
        fresh = search.evaluate(node)
        assert fresh is not None, f"a node of a valid plan at t={node.t} was judged to have no valid completion"
        keys.append(fresh[0])

    bound()
    rank: dict[int, int] = {}
    for time, _, phase, i in happening_order(plan):
        while node.t < time:
            assert not plain.pending(node), "the plan leaves an end undone"
            node = plain.advance(node, min([r[0] for r in node.running] + [time]))
            bound()
        if phase:
            rank[i] = node.n
            node = plain.start(node, by_name[(plan[i].name, plan[i].args)])
        else:
            node = plain.end(node, next(r for r in node.running if r[1] == 1 and r[2] == rank[i]))
        bound()
    while node.running:
        node = plain.advance(node, node.running[0][0])
        bound()
    return keys, search.g_key(node)


__all__ = ["bounds_along"]

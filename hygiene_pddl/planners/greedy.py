"""Greedy best-first search over sequential plans, for Hygiene-NSP: a first plan for its CP-SAT model, and the
order in which the actions chosen by its relaxation are scheduled (planners/nsp.py).

CP-SAT spends most of its time on longer tasks finding a first plan; once it has one, the optimum and its
proof follow quickly (docs/planners.md). This search finds a sequential plan (one action at a time, each
starting when the previous ends) under the full hygiene semantics: conditions, effects, contacts that copy
hazards where the materials let them cross, no contact bringing a hazard onto a region protected against it,
treatments, stocks, the deadline and the goals including ``(safe o)``. Successors are ordered by an FF-style
relaxed plan length plus the unsafe facts still to clean, then by the action's cost under the profile. It is
never trusted alone: the CP-SAT model or the instance-level evaluator checks it, and ``None`` (no plan within
the bound and the node budget, e.g. a task that needs concurrency) just means none. History actions still
running are not simulated: Hygiene-NSP does not search then.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterable

from hygiene_pddl.hygiene import HygieneRules
from hygiene_pddl.instances.model import Carrier, Instance
from hygiene_pddl.literals import Atom
from hygiene_pddl.planners.grounding import GroundAction, RelaxedPlanner, initial_fluents
from hygiene_pddl.registries.model import Registries
from hygiene_pddl.replay import ReplayResult

Contamination = frozenset[tuple[Carrier, str]]


class _Blocked(Exception):
    """The action cannot run here."""


def _apply(facts: set[Atom], effects: Iterable[tuple[Atom, bool]]) -> None:
    effects = list(effects)
    facts -= {a for a, pos in effects if not pos}
    facts |= {a for a, pos in effects if pos}  # a happening that deletes and adds a fact adds it


def _contacts(rules: HygieneRules, contam: set[tuple[Carrier, str]], pairs: Iterable[tuple[Carrier, Carrier]]
              ) -> set[tuple[Carrier, str]]:
    """Copy hazards across the contacts of one happening (from the state before it); return what crossed."""
    before = frozenset(contam)
    crossed = set()
    for x, y in pairs:
        for src, dst in ((x, y), (y, x)):
            for h in rules.hazards:
                if (src, h) in before and rules.crosses(h, src, dst):
                    if rules.violates(dst, h) and (dst, h) not in before:
                        raise _Blocked
                    crossed.add((dst, h))
    contam |= crossed
    return crossed


class SequentialSearch:
    """Greedy best-first search for a sequential plan of at most ``bound`` actions."""

    def __init__(self, reg: Registries, inst: Instance, state: ReplayResult, actions: list[GroundAction]):
        self.rules = HygieneRules(reg, dict(inst.objects), inst.hazards)
        self.inst, self.actions = inst, actions
        self.init = frozenset(initial_fluents(reg, inst, state))
        self.contam: Contamination = frozenset((c, h) for c, hs in state.carried().items() for h in hs)
        self.horizon = state.horizon - inst.decision_time
        self.stocks = tuple(sorted({s for a in actions for s, _ in a.consumes}))
        self.physical_goals = [g for g in inst.goals if g[0] != "safe"]
        self.unsafe = [f for g in inst.goals if g[0] == "safe" for f in self.rules.unsafe_facts(g[1])]
        order = inst.profile.order
        self.action_key = {a: tuple(a.cost(d) for d in order if d != "makespan") for a in actions}
        self.relaxed = RelaxedPlanner(actions)

    def _step(self, a: GroundAction, facts: frozenset, contam: Contamination, stocks: tuple[int, ...], t: int
              ) -> tuple[frozenset, Contamination, tuple[int, ...], int]:
        """The state after running ``a`` alone from time ``t``; :class:`_Blocked` when it cannot run."""
        if t + a.duration > self.horizon or not all((x in facts) == pos for x, pos in a.cond_start):
            raise _Blocked
        use = dict(a.consumes)
        left = tuple(n - use.get(s, 0) for s, n in zip(self.stocks, stocks, strict=True))
        if any(n < 0 for n in left):
            raise _Blocked
        now, dirty = set(facts), set(contam)
        _apply(now, a.eff_start)
        _contacts(self.rules, dirty, a.contacts_start)
        if not all((x in now) == pos for x, pos in (*a.cond_overall, *a.cond_end)):
            raise _Blocked
        _apply(now, a.eff_end)
        crossed = _contacts(self.rules, dirty, a.contacts_end)
        if a.treatment:  # at the end, unless a contact of the same happening brings the hazard back
            treatment, target = a.treatment
            dirty -= {(c, h) for c, h in dirty
                      if c == target and (c, h) not in crossed and self.rules.removes(treatment, c, h)}
        return frozenset(now), frozenset(dirty), left, t + a.duration

    def _h(self, facts: frozenset, contam: Contamination) -> int | None:
        relaxed = self.relaxed.plan(set(facts), self.physical_goals)
        if relaxed is None:
            return None
        return len(relaxed) + sum(f in contam for f in self.unsafe)

    def _goal(self, facts: frozenset, contam: Contamination) -> bool:
        return all(g in facts for g in self.physical_goals) and not any(f in contam for f in self.unsafe)

    def search(self, bound: int, max_nodes: int = 2000) -> list[GroundAction] | None:
        """A plan of at most ``bound`` actions, or ``None`` when none was found within ``max_nodes`` nodes."""
        if not all(self.inst.remaining(s) >= 0 for s in self.stocks):
            return None
        start = (self.init, self.contam, tuple(self.inst.remaining(s) for s in self.stocks), 0)
        counter = itertools.count()
        queue = [(0, (), next(counter), start, ())]
        seen = {start[:3]}
        while queue and max_nodes > 0:
            _, _, _, (facts, contam, stocks, t), plan = heapq.heappop(queue)
            max_nodes -= 1
            if self._goal(facts, contam):
                return list(plan)
            if len(plan) >= bound:
                continue
            for a in self.actions:
                try:
                    nxt = self._step(a, facts, contam, stocks, t)
                except _Blocked:
                    continue
                if nxt[:3] in seen:
                    continue
                seen.add(nxt[:3])
                h = self._h(nxt[0], nxt[1])
                if h is not None and len(plan) + 1 + h <= bound + len(self.unsafe):
                    heapq.heappush(queue, (h, self.action_key[a], next(counter), nxt, (*plan, a)))
        return None

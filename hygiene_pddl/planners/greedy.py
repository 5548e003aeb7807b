"""Greedy best-first search over sequential plans, for Hygiene-NSP: a first plan for its CP-SAT model, and the
order in which the actions chosen by its relaxation are scheduled (planners/nsp.py).

CP-SAT spends most of its time on longer tasks finding a first plan; once it has one, the optimum and its
proof follow quickly (docs/planners.md). This search finds a sequential plan (one action at a time, each
starting when the previous ends) under the full semantics of planners/happenings.py: conditions, guarded
effects, contacts and treatments read from each happening's pre-state, protection, capacities, stocks, the
deadline and the goals including ``(safe o)``; history actions still running end at their times (before a plan
happening at the same time) and keep their over-all conditions until then. Successors are ordered by an
FF-style relaxed plan length plus the unsafe facts still to clean, then by the action's cost under the profile.
It is never trusted alone: the CP-SAT model or the instance-level evaluator checks it, and ``None`` (no plan
within the bound and the node budget, e.g. a task that needs concurrency) just means none.
"""

from __future__ import annotations

import heapq
import itertools
import time

from hygiene_pddl.hygiene import HygieneRules
from hygiene_pddl.instances.model import Instance
from hygiene_pddl.planners.grounding import GroundAction, RelaxedPlanner, initial_fluents, ongoing_actions
from hygiene_pddl.planners.happenings import Blocked, Contamination, apply, check
from hygiene_pddl.registries.model import Registries
from hygiene_pddl.replay import ReplayResult

State = tuple[frozenset, frozenset, tuple[int, ...], int, int]  # facts, contamination, stocks, time, ongoing ended


class SequentialSearch:
    """Greedy best-first search for a sequential plan of at most ``bound`` actions."""

    def __init__(self, reg: Registries, inst: Instance, state: ReplayResult, actions: list[GroundAction]):
        self.rules = HygieneRules(reg, dict(inst.objects), inst.hazards)
        self.inst, self.actions = inst, actions
        self.init = frozenset(initial_fluents(reg, inst, state))
        self.contam = frozenset((c, h) for c, hs in state.carried().items() for h in hs)
        self.horizon = state.horizon - inst.decision_time
        self.ongoing = ongoing_actions(reg, inst, state)
        self.stocks = tuple(sorted({s for a in actions for s, _ in a.consumes}))
        self.physical_goals = [g for g in inst.goals if g[0] != "safe"]
        self.unsafe = [f for g in inst.goals if g[0] == "safe" for f in self.rules.unsafe_facts(g[1])]
        order = inst.profile.order
        self.action_key = {a: tuple(a.cost(d) for d in order if d != "makespan") for a in actions}
        self.relaxed = RelaxedPlanner(actions)

    def _ongoing_until(self, facts: set, dirty: Contamination, done: int, t: int, inclusive: bool,
                       also: tuple = ()) -> int:
        """End the ongoing history actions due by ``t`` (at ``t`` too when ``inclusive``); after each, check the
        over-all conditions of those still running and ``also``. Returns how many have ended."""
        while done < len(self.ongoing) and (self.ongoing[done].end < t or (inclusive and self.ongoing[done].end == t)):
            o = self.ongoing[done]
            apply(self.rules, o.action.phase("end"), facts, dirty, f"end of {o.record.text()}")
            done += 1
            self._running_ok(facts, done)
            check(also, facts, "over all")
        return done

    def _running_ok(self, facts: set, done: int) -> None:
        for o in self.ongoing[done:]:
            check(o.action.cond_overall, facts, f"over all of the running {o.record.text()}")

    def _step(self, a: GroundAction, node: State) -> State:
        """The state after running ``a`` alone from the node's time; :class:`Blocked` when it cannot run."""
        facts0, contam0, stocks, t, done = node
        if t + a.duration > self.horizon:
            raise Blocked("deadline")
        use = dict(a.consumes)
        left = tuple(n - use.get(s, 0) for s, n in zip(self.stocks, stocks, strict=True))
        if any(n < 0 for n in left):
            raise Blocked("stock")
        facts, dirty = set(facts0), set(contam0)
        done = self._ongoing_until(facts, dirty, done, t, inclusive=True)
        apply(self.rules, a.phase("start"), facts, dirty)
        check(a.cond_overall, facts, "over all")
        self._running_ok(facts, done)
        end = t + a.duration
        done = self._ongoing_until(facts, dirty, done, end, inclusive=True, also=a.cond_overall)
        apply(self.rules, a.phase("end"), facts, dirty)
        self._running_ok(facts, done)
        return frozenset(facts), frozenset(dirty), left, end, done

    def _finish(self, node: State) -> tuple[frozenset, frozenset] | None:
        """The final state once every ongoing history action has ended, or None when one of them cannot."""
        facts, dirty = set(node[0]), set(node[1])
        try:
            self._ongoing_until(facts, dirty, node[4], self.horizon + max((o.end for o in self.ongoing), default=0)
                                + 1, inclusive=True)
        except Blocked:
            return None
        return frozenset(facts), frozenset(dirty)

    def _h(self, facts: frozenset, contam: frozenset) -> int | None:
        relaxed = self.relaxed.plan(set(facts) | {a for o in self.ongoing for a in o.action.adds()},
                                    self.physical_goals)
        if relaxed is None:
            return None
        return len(relaxed) + sum(f in contam for f in self.unsafe)

    def _goal(self, node: State) -> bool:
        final = self._finish(node)
        if final is None:
            return False
        facts, contam = final
        return all(g in facts for g in self.physical_goals) and not any(f in contam for f in self.unsafe)

    def search(self, bound: int, max_nodes: int = 2000, deadline: float | None = None) -> list[GroundAction] | None:
        """A plan of at most ``bound`` actions, or ``None`` when none was found within ``max_nodes`` nodes (and
        by ``deadline``, a ``time.perf_counter()`` value, when given: the node budget alone can take seconds on
        large groundings, and the search is only a heuristic)."""
        if not all(self.inst.remaining(s) >= 0 for s in self.stocks):
            return None
        start: State = (self.init, self.contam, tuple(self.inst.remaining(s) for s in self.stocks), 0, 0)
        counter = itertools.count()
        queue = [(0, (), next(counter), start, ())]
        seen = {start[:3] + start[4:]}
        while queue and max_nodes > 0 and (deadline is None or time.perf_counter() < deadline):
            _, _, _, node, plan = heapq.heappop(queue)
            max_nodes -= 1
            if self._goal(node):
                return list(plan)
            if len(plan) >= bound:
                continue
            for a in self.actions:
                try:
                    nxt = self._step(a, node)
                except Blocked:
                    continue
                key = nxt[:3] + nxt[4:]
                if key in seen:
                    continue
                seen.add(key)
                h = self._h(nxt[0], nxt[1])
                if h is not None and len(plan) + 1 + h <= bound + len(self.unsafe):
                    heapq.heappush(queue, (h, self.action_key[a], next(counter), nxt, (*plan, a)))
        return None

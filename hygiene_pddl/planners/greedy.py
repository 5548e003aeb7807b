"""Greedy best-first search over sequential plans, for Hygiene-NSP: a first plan for its CP-SAT model, and the
order in which the actions chosen by its relaxation are scheduled (planners/nsp.py).

CP-SAT spends most of its time on longer tasks finding a first plan; once it has one, the optimum and its
proof follow quickly (docs/planners.md). This search finds a sequential plan (one action at a time, each
starting when the previous ends) under the full semantics of planners/happenings.py: conditions, guarded
effects, contacts and treatments read from each happening's pre-state, protection, capacities, stocks, the
deadline and the goals including ``(safe o)``; history actions still running end at their times (before a plan
happening at the same time) and keep their over-all conditions until then. Successors are ordered by an
FF-style relaxed plan length (with a treatment, and what it needs, for each unsafe fact still to clean) plus
those facts, then by the action's cost under the profile.
It is never trusted alone: the CP-SAT model or the instance-level evaluator checks it, and ``None`` (no plan
within the bound and the node budget, e.g. a task that needs concurrency) just means none.
"""

from __future__ import annotations

import heapq
import itertools
import time
from collections.abc import Iterator

from hygiene_pddl.hygiene import HygieneRules
from hygiene_pddl.instances.model import Instance
from hygiene_pddl.planners.grounding import (
    GroundAction,
    RelaxedPlanner,
    holds,
    initial_fluents,
    is_derived,
    ongoing_actions,
    treatment_options,
)
from hygiene_pddl.planners.happenings import Blocked, Contamination, apply, check
from hygiene_pddl.registries.model import Registries
from hygiene_pddl.replay import ReplayResult

#: The weight of the heuristic in :meth:`SequentialSearch.staged` and its node budget per stage (measured on the
#: laundry family's 7 designs: 24-action plans in 1.5-2.8 s at weight 2, 0.3-0.5 s at 3 and 5; without the helpful
#: actions' queue, 7-16 s at 2 and none within 4000 nodes at 3 or more).
WEIGHT = 3.0
STAGE_NODES = 4000

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
        self.precise = RelaxedPlanner(actions, precise=True)
        self.starts = [([c for c, pos in a.cond_start if pos and not is_derived(c)],
                        [c for c, pos in a.cond_start if not pos and not is_derived(c)]) for a in actions]
        self.treating = treatment_options(self.rules, actions, self.unsafe)

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
        """The relaxed plan's length for the physical goals, plus the unsafe facts still to clean."""
        relaxed = self.relaxed.plan(set(facts) | {a for o in self.ongoing for a in o.action.adds()},
                                    self.physical_goals)
        if relaxed is None:
            return None
        return len(relaxed) + sum(f in contam for f in self.unsafe)

    def _h_staged(self, facts: frozenset, contam: frozenset, physical: bool
                  ) -> tuple[int, frozenset[int]] | None:
        """The precise relaxed plan's length (:class:`RelaxedPlanner`) for the physical goals (when
        ``physical``) and a treatment of every hazard a ``(safe o)`` goal needs gone, with what the treatment
        needs, plus those hazards; and the relaxed plan's actions (by ``id``: the helpful actions)."""
        dirty = [f for f in self.unsafe if f in contam]
        relaxed = self.precise.plan(set(facts) | {a for o in self.ongoing for a in o.action.adds()},
                                    self.physical_goals if physical else (), [self.treating[f] for f in dirty])
        if relaxed is None:
            return None
        return len(relaxed) + len(dirty) + len(self._to_treat(relaxed, facts, contam)), frozenset(map(id, relaxed))

    def _to_treat(self, relaxed: list[GroundAction], facts: frozenset, contam: frozenset) -> set:
        """The carriers that would pass a hazard to a ``(safe o)`` goal's region clean of it now through a
        contact of the relaxed plan (its guard read in the current state): each needs a treatment first."""
        carried: dict = {}
        for c, h in contam:
            carried.setdefault(c, []).append(h)
        clean = self.protected_clean(contam)
        out = set()
        for a in relaxed:
            for ct in a.contacts:
                if not all(holds(g, facts) for g in ct.guard):
                    continue
                for x, y in ((ct.a, ct.b), (ct.b, ct.a)):
                    if any((y, h) in clean for h in carried.get(x, ())):
                        out.add(x)
        return out

    def protected_clean(self, contam: frozenset) -> set:
        """The unsafe facts of the ``(safe o)`` goals on regions that carry none of them (treated, or never
        touched): what reaches them now stays until the end unless treated again."""
        dirty = {c for c, h in self.unsafe if (c, h) in contam}
        return {(c, h) for c, h in self.unsafe if c not in dirty}

    def _goal(self, node: State, physical: bool = True) -> bool:
        final = self._finish(node)
        if final is None:
            return False
        facts, contam = final
        return (not physical or all(g in facts for g in self.physical_goals)) and \
            not any(f in contam for f in self.unsafe)

    def _start(self) -> State | None:
        if not all(self.inst.remaining(s) >= 0 for s in self.stocks):
            return None
        return self.init, self.contam, tuple(self.inst.remaining(s) for s in self.stocks), 0, 0

    def search(self, bound: int, max_nodes: int = 2000, deadline: float | None = None) -> list[GroundAction] | None:
        """A plan of at most ``bound`` actions, or ``None`` when none was found within ``max_nodes`` nodes (and
        by ``deadline``, a ``time.perf_counter()`` value, when given: the node budget alone can take seconds on
        large groundings, and the search is only a heuristic)."""
        start = self._start()
        if start is None:
            return None
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
            for a, nxt in self._successors(node):
                key = nxt[:3] + nxt[4:]
                if key in seen:
                    continue
                seen.add(key)
                h = self._h(nxt[0], nxt[1])
                if h is not None and len(plan) + 1 + h <= bound + len(self.unsafe):
                    heapq.heappush(queue, (h, self.action_key[a], next(counter), nxt, (*plan, a)))
        return None

    def _successors(self, node: State) -> Iterator[tuple[GroundAction, State]]:
        """Every action that can run next, with the state after it."""
        facts, pending = node[0], node[4] < len(self.ongoing)  # an ongoing end may still make a condition true
        for a, (pos, neg) in zip(self.actions, self.starts, strict=True):
            if not pending and (not all(c in facts for c in pos) or any(c in facts for c in neg)):
                continue
            try:
                yield a, self._step(a, node)
            except Blocked:
                continue

    def staged(self, bound: int, max_nodes: int = STAGE_NODES, deadline: float | None = None
               ) -> list[GroundAction] | None:
        """A plan in two stages, each a weighted search (:meth:`_weighted`) of ``max_nodes`` nodes: first rid
        every ``(safe o)`` goal's regions of what they carry (the treatments and what they need, the physical
        goals aside), then, from there, every goal. The relaxed plan ignores what a treatment undoes (a wash
        leaves the laundry wet, a pad that loads it stays dirty), so one search over all goals meets a wide
        plateau before the treatment; the first stage reaches past it. Each ground action is used at most once
        (as in the joint model, which the plan hints). ``None`` when either stage finds nothing."""
        start = self._start()
        if start is None:
            return None
        first = self._weighted(start, (), bound, max_nodes, deadline, physical=False)
        if first is None:
            return None
        found = self._weighted(first[1], first[0], bound, max_nodes, deadline, physical=True)
        return None if found is None else list(found[0])

    def _weighted(self, start: State, prefix: tuple[GroundAction, ...], bound: int, max_nodes: int,
                  deadline: float | None, physical: bool) -> tuple[tuple[GroundAction, ...], State] | None:
        """Weighted best-first search (plan length plus ``WEIGHT`` times the heuristic) from ``start`` (reached
        by ``prefix``) to the goal (the hygiene goals alone unless ``physical``), no ground action twice (deferred
        evaluation, queueing a node by its parent's value, measured slower). Two queues, popped in turn (FF's
        helpful actions, as Fast Downward's preferred operators): the successors by an action of their parent's
        relaxed plan, and all successors. The plan and its last state."""
        counter = itertools.count()
        first = self._h_staged(start[0], start[1], physical)
        queues: tuple[list, list] = ([], [(0.0, (), next(counter), start, prefix, first[1] if first else frozenset())])
        expanded: set[int] = set()  # entries are queued in both queues
        seen = {start[:3] + start[4:]}
        slack = bound + len(self.unsafe)
        turn = 0
        while any(queues) and max_nodes > 0 and (deadline is None or time.perf_counter() < deadline):
            turn += 1
            queue = queues[turn % 2] if queues[turn % 2] else queues[1 - turn % 2]
            _, _, number, node, plan, helpful = heapq.heappop(queue)
            if number in expanded:
                continue
            expanded.add(number)
            max_nodes -= 1
            if self._goal(node, physical):
                return plan, node
            if len(plan) >= bound:
                continue
            for a, nxt in self._successors(node):
                key = nxt[:3] + nxt[4:]
                if key not in seen and a not in plan:
                    seen.add(key)
                    scored = self._h_staged(nxt[0], nxt[1], physical)
                    if scored is None or len(plan) + 1 + scored[0] > slack:
                        continue
                    entry = (len(plan) + 1 + WEIGHT * scored[0], self.action_key[a], next(counter), nxt, (*plan, a),
                             scored[1])
                    heapq.heappush(queues[1], entry)
                    if id(a) in helpful:
                        heapq.heappush(queues[0], entry)
        return None

"""Exact search for the lexicographically optimal continuation (the reference's second certifier).

Independent of the CP-SAT joint model: it compiles the registry's action schemas itself
(:mod:`hygiene_pddl.certify.task`), simulates the continuation on its own bit-mask state (facts, contamination as
(carrier, hazard) bits, stocks, running actions) and asks :class:`hygiene_pddl.hygiene.HygieneRules` only rule
questions. The state at the decision time comes from the shared history replay (:class:`hygiene_pddl.replay.World`).

Method (``docs/certification.md`` has the semantics, the bounds and the completeness argument):

* integer time; a node is a timed state at ``t`` after the happenings at ``t`` that are already done;
* from a node: start one more ground action at ``t``, end one of the actions ending at ``t``, or, when they have
  all ended, let time pass to the next time anything can happen (the ongoing history ends there happen first);
  the happenings at one instant interleave in every order that one epsilon offset per step (for its start and its
  end alike, as the plan writer and VAL read a plan) can give;
* A* on the profile's lexicographic key of cost so far plus admissible bounds (LM-cut per block of cost
  dimensions, a temporal and a workload bound on makespan), so the first complete plan taken from the queue is
  optimal; duplicate detection and dominance on timed states relative to their time;
* reductions that provably lose no optimal plan: a relevance filter on the ground actions, one order for
  simultaneous independent happenings, and tight plans (a start that interferes with nothing it follows at its
  time must be justified by an interfering happening before its end at that instant, else it could start one TU
  earlier);
* bounds: each action ends by the deadline, integer start times, optionally at most ``max_actions`` actions.
"""

from __future__ import annotations

import enum
import heapq
import itertools
import time
from dataclasses import dataclass, replace

from hygiene_pddl.certify.bounds import (
    DIGIT,
    RelaxedTask,
    decode,
    earliest_makespan,
    encode,
    lmcut,
    saturated,
    workload_makespan,
)
from hygiene_pddl.certify.mutex import mutex_groups
from hygiene_pddl.certify.relevance import relevant_actions
from hygiene_pddl.certify.symmetry import Symmetry, close_under, interchangeable
from hygiene_pddl.certify.task import ADDITIVE, GroundAction, Phase, Task, compile_task, holds
from hygiene_pddl.costs import CostVector
from hygiene_pddl.instances.model import Instance
from hygiene_pddl.planners.base import ChosenStep
from hygiene_pddl.registries import Registries
from hygiene_pddl.replay import World, run_history

INF = float("inf")


class SearchStatus(enum.StrEnum):
    OPTIMAL = "optimal"
    INFEASIBLE = "infeasible"
    UNDETERMINED = "undetermined"


@dataclass(frozen=True)
class SearchResult:
    """``optimal``: ``cost`` is the optimum within the bounds and ``steps`` one plan reaching it;
    ``infeasible``: proved that no valid continuation exists within the bounds; ``undetermined``: the time
    limit was hit first (``cost``/``steps`` then hold the best complete plan seen, if any, unproved).
    ``bounds`` states the plan space the claim covers."""

    status: SearchStatus
    cost: CostVector | None
    steps: tuple[ChosenStep, ...]
    expanded: int
    seconds: float
    max_actions: int | None = None
    ground_actions: int = 0  # after the relevance filter
    notes: tuple[str, ...] = ()
    bounds: str = ""
    cpu_seconds: float = 0.0  # process CPU time (the machine may be shared; wall-clock ``seconds`` then inflates)
    evaluations: int = 0  # fresh bounds computed


class _Invalid(Exception):
    """The happening cannot occur (condition, stock, resource), makes the plan invalid (violation, over-all
    condition), or closes a start group that nothing justified (the plan is not tight)."""


# A running action: (end, group: 0 ongoing history / 1 continuation, rank, key, start, gid)
#   rank: history: minus its record index (equal ends: later records first); continuation: the step's number (its
#   start sequence), which names it in the order relation; gid: the tight-plan group of a delayed start (-1: anchored,
#   or history)
Run = tuple[int, int, int, int, int, int]
# A group of delayed starts at one time: (gid, start, members still running, witnessed)
Group = tuple[int, int, int, bool]
# A happening at the node's time: (phase 0 start / 1 end, key, start, gid, rank (-1: history))
Now = tuple[int, int, int, int, int]
# The order of steps (their epsilon offsets), as pairs (rank a, rank b): a's happenings precede b's at every instant
# both have one (closed under transitivity; only pairs of steps that still have a happening)
Before = frozenset[tuple[int, int]]


def _run_order(r: Run) -> tuple:
    """Running actions by end; equal ends: history (later records first), then by action and start (not by start
    sequence: the ends at one instant are ordered by the search, not by this)."""
    return (r[0], r[1], r[2]) if r[1] == 0 else (r[0], r[1], r[3], r[4], r[2])


class _Node:
    __slots__ = ("t", "facts", "contam", "stocks", "running", "groups", "now", "before", "mk", "add", "n", "last",
                 "seq", "parent", "chosen", "ended", "landmarks", "alive", "total")

    def __init__(self, t: int, facts: int, contam: int, stocks: tuple[int, ...], running: tuple[Run, ...],
                 groups: tuple[Group, ...], now: tuple[Now, ...], before: Before, mk: int, add: tuple[int, ...],
                 n: int, last: tuple[int, int] | None, seq: int, parent: _Node | None, chosen: ChosenStep | None,
                 ended: tuple[tuple[int, int], ...] = ()):
        self.t, self.facts, self.contam, self.stocks = t, facts, contam, stocks
        self.running, self.groups, self.now, self.before = running, groups, now, before
        self.mk, self.add, self.n, self.last, self.seq = mk, add, n, last, seq
        self.parent, self.chosen, self.ended = parent, chosen, ended  # ended: (rank, position) of ends done here
        self.landmarks: _Landmarks | None = None  # from the last fresh bound on this path, with the cuts still
        self.alive = 0  # not hit since, and their total cost
        self.total = 0

    def signature(self, symmetry: Symmetry | None = None) -> tuple:
        """Everything the node's futures depend on, relative to its time (the cost so far is compared, not keyed;
        group ids renamed in order of appearance, steps named by their place among the running actions and the ends
        done at this time). With ``symmetry``, a node with no continuation happening yet at its time is represented
        by its orbit's representative (mid-time nodes keep their names: the commuting order is by action index,
        which a renaming does not preserve)."""
        t = self.t
        facts, contam, running_, now_ = self.facts, self.contam, self.running, self.now
        if symmetry is not None and self.last is None:
            renaming = symmetry.renaming(facts, contam, running_, now_, t)
            facts, contam, running_, now_ = symmetry.image(renaming, facts, contam, running_, now_)
        names: dict[int, int] = {}
        for r in running_:
            if r[5] >= 0 and r[5] not in names:
                names[r[5]] = len(names)

        def name(g: int) -> int:
            return names.get(g, -2) if g >= 0 else g

        running = tuple((e - t, grp, key, s - t, name(g)) for e, grp, _, key, s, g in running_)
        groups = tuple(sorted((name(g), s - t, left, wit) for g, s, left, wit in self.groups))
        now = tuple(sorted((ph, key, s - t, name(g)) for ph, key, s, g, _ in now_))
        order = ()
        if self.before:
            place = {r[2]: i for i, r in enumerate(running_) if r[1] == 1}
            for *_, rank in sorted(x for x in now_ if x[0] == 1 and x[4] >= 0):  # then the ends done at this time
                place[rank] = len(place)
            order = tuple(sorted((place[a], place[b]) for a, b in self.before))
        return (facts, contam, self.stocks, running, groups, now, order, self.last)


class _Search:
    """One search: the compiled task, the actions it may start, reductions and bounds."""

    def __init__(self, task: Task, actions: list[GroundAction], profile: tuple[str, ...], max_actions: int | None,
                 reductions: bool):
        self.task = task
        self.steps = actions  # continuation actions, re-indexed 0..n-1
        self.acts = actions + [ga for ga, _ in task.ongoing]  # keys of running actions
        self.n_steps = len(actions)
        self.max_actions = max_actions
        self.reductions = reductions
        self.H = task.H
        self.full = (1 << self.H) - 1
        self.horizon = task.horizon
        self.min_duration = min((a.duration for a in actions), default=0)
        mk_at = profile.index("makespan")
        self.pre_dims = [ADDITIVE.index(d) for d in profile[:mk_at]]
        self.post_dims = [ADDITIVE.index(d) for d in profile[mk_at + 1:]]
        self._rw: dict[tuple[int, int], tuple[int, int, int, int]] = {}
        self._inter: dict[tuple, bool] = {}
        self.potential = [self._potential(a) for a in actions] if reductions else []
        self.rivals = [self._rivals(k) if k < self.n_steps else [] for k in range(len(self.acts))] \
            if reductions else []
        self.start_adds = self.start_dels = 0
        for a in actions:
            self.start_adds |= a.start.may_add
            self.start_dels |= a.start.may_del
        self.relaxed = RelaxedTask(task, actions, mutex_groups(task, task.actions)) if reductions else None
        if self.relaxed is not None:
            rt = self.relaxed
            # one lexicographic cost: the pre-makespan dimensions as the high digits, the post-makespan ones low
            self.lex_costs = rt.action_costs([encode(a.additive[d] for d in self.pre_dims + self.post_dims)
                                              for a in actions])
            self.pre_costs = rt.action_costs([encode(a.additive[d] for d in self.pre_dims) for a in actions])
            self.work_costs = rt.action_costs([a.additive[-1] for a in actions])
            self.unit_costs = rt.action_costs([1] * len(actions))
            self.shift = DIGIT * len(self.post_dims)
            # stocks (Reductions 11): each stock's use per op, and the first pre-makespan dimension's cost per op
            self.stock_costs = [(s, rt.action_costs([dict(a.consumes).get(s, 0) for a in actions]))
                                for s in range(len(task.stocks)) if any(dict(a.consumes).get(s) for a in actions)]
            self.first_costs = rt.action_costs([a.additive[self.pre_dims[0]] for a in actions]) if self.pre_dims \
                else []
            self.tail_costs = rt.action_costs([encode(a.additive[d] for d in self.pre_dims[1:] + self.post_dims)
                                               for a in actions])
        self._cost_cache: dict[tuple, tuple | None] = {}
        self.evaluations = 0
        self._conflicts: dict[int, list[tuple[int, int]]] = {}

    # --- read/write sets (commutation, anchoring, witnesses) ----------------------------------------------
    def rw(self, key: int, phase: int) -> tuple[int, int, int, int]:
        """(atoms read, atoms written, carriers touched, resources) of one happening of a running action."""
        k = (key, phase)
        if k not in self._rw:
            a = self.acts[key]
            p: Phase = a.start if phase == 0 else a.end
            self._rw[k] = (p.reads, p.writes, p.carriers, a.resources)
        return self._rw[k]

    def interferes(self, x: tuple[int, int], y: tuple[int, int], resources: bool = True) -> bool:
        """One happening writes what the other reads or writes (atoms, carriers, and optionally resources)."""
        k = (x, y, resources)
        if k not in self._inter:
            rx, wx, cx, sx = self.rw(*x)
            ry, wy, cy, sy = self.rw(*y)
            self._inter[k] = bool(wx & (ry | wy) or wy & rx or cx & cy or (resources and sx & sy))
        return self._inter[k]

    def _potential(self, a: GroundAction) -> bool:
        """Whether a happening not yet known when ``a`` starts could come before its end at that instant and interfere
        with it (a tight-plan witness): the start of an action not sharing its resources, or the end of one as short
        or shorter (it starts no earlier)."""
        for b in self.steps:
            if b.resources & a.resources:
                continue
            if self.interferes((a.index, 1), (b.index, 0), False):
                return True
            if b.duration <= a.duration and self.interferes((a.index, 1), (b.index, 1), False):
                return True
        return False

    def _rivals(self, key: int) -> list[tuple[GroundAction, int, int]]:
        """The actions whose start might come before the end of running action ``key`` at its instant and interfere
        with it, with the atoms that must be true and false right before that start (its condition, and its
        over-all condition where the start does not make it so): they do not need its resources, neither their
        start condition, nor their over-all condition, nor what their start surely makes of an atom contradicts its
        over-all condition (which holds before and after every happening while it runs), and what its end surely
        makes of an atom does not contradict their over-all condition (they still run then)."""
        r = self.acts[key]
        need, forbid = r.overall[0], r.overall[1]
        out = []
        for b in self.steps:
            st = b.start
            if b.resources & r.resources or not self.interferes((key, 1), (b.index, 0)):
                continue
            pos = st.cond[0] | b.overall[0] & ~st.may_add
            neg = st.cond[1] | b.overall[1] & ~st.may_del
            if (pos | b.overall[0]) & forbid or (neg | b.overall[1]) & need or st.dels & ~st.may_add & need \
                    or st.adds & forbid or r.end.dels & ~r.end.may_add & b.overall[0] or r.end.adds & b.overall[1]:
                continue
            out.append((b, pos, neg))
        return out

    def eager(self, node: _Node, r: Run) -> bool:
        """No start can come before the pending end ``r`` at ``node.t`` and interfere with it: in the commuting order
        it comes before every start. A start comes before it only in a state reached from this one by starts and the
        other pending ends: it needs its resources free of the actions running on, no atom false now that none of
        those may add, no atom true now that none of them may delete, and the stock it consumes."""
        if not self.rivals[r[3]]:
            return True
        t, facts = node.t, node.facts
        adds, dels = self.start_adds, self.start_dels
        busy = 0
        for x in node.running:
            if x[0] > t:
                busy |= self.acts[x[3]].resources
            elif x is not r and x[1] == 1:
                adds |= self.acts[x[3]].end.may_add
                dels |= self.acts[x[3]].end.may_del
        for b, pos, neg in self.rivals[r[3]]:
            if (b.resources & busy or t + b.duration > self.horizon or pos & ~facts & ~adds or neg & facts & ~dels
                    or any(node.stocks[k] < n for k, n in b.consumes)):
                continue
            return False
        return True

    # --- happenings -------------------------------------------------------------------------------------------
    def happen(self, p: Phase, facts: int, contam: int) -> tuple[int, int]:
        """Apply one happening from its pre-state (docs/world-model-v2.md §1)."""
        if not holds(p.cond, facts):
            raise _Invalid("condition")
        for g in p.broken:
            if g is None or holds(g, facts):
                raise _Invalid("a region the object lacks")
        dels, adds = p.dels, p.adds
        for u in p.updates:
            if holds(u.guard, facts):
                dels |= u.dels
                adds |= u.adds
        H, full = self.H, self.full
        cadd = crem = 0
        for c in p.contacts:
            if c.guard is not None and not holds(c.guard, facts):
                continue
            ha = contam >> (c.a * H) & full
            hb = contam >> (c.b * H) & full
            nb = ha & c.cross_ab & ~hb
            na = hb & c.cross_ba & ~ha
            if nb & c.prot_b or na & c.prot_a:
                raise _Invalid("hygiene violation")
            cadd |= nb << (c.b * H) | na << (c.a * H)
        for tr in p.treats:
            if tr.guard is None or holds(tr.guard, facts):
                crem |= contam & (tr.removes << (tr.carrier * H))
        return (facts & ~(dels & ~adds)) | adds, (contam & ~crem) | cadd

    def check_overall(self, facts: int, running: tuple[Run, ...]) -> None:
        for r in running:
            if not holds(self.acts[r[3]].overall, facts):
                raise _Invalid("over all")

    def busy(self, running: tuple[Run, ...]) -> int:
        out = 0
        for r in running:
            out |= self.acts[r[3]].resources
        return out

    def startable(self, node: _Node, a: GroundAction, busy: int) -> bool:
        """The cheap part of a start's test: resources, deadline, at-start condition, stocks."""
        if a.resources & busy or node.t + a.duration > self.horizon or not holds(a.start.cond, node.facts):
            return False
        return all(node.stocks[s] >= n for s, n in a.consumes)

    def order(self, node: _Node, phase: int, key: int, rank: int, now: list[Now]) -> Before:
        """The order relation after a happening of step ``rank`` at ``node.t``: every step whose happening done
        at this time interferes with it comes before it (its epsilon offset is smaller). Raises when the relation
        would say the opposite too (no offsets realise the plan)."""
        before = node.before
        preds = {m for ph, k, _, _, m in now if m >= 0 and m != rank and self.interferes((k, ph), (key, phase))}
        if not preds:
            return before
        if any((rank, m) in before for m in preds):
            raise _Invalid("no epsilon offsets order these happenings")
        lower = set(preds) | {x for x, y in before if y in preds}
        upper = {rank} | {y for x, y in before if x == rank}
        return before | frozenset((x, y) for x in lower for y in upper)

    def start(self, node: _Node, a: GroundAction) -> _Node:
        """``a`` starts at ``node.t`` after every happening already done at ``node.t``."""
        t = node.t
        stocks = list(node.stocks)
        for s, n in a.consumes:
            stocks[s] -= n
        facts, contam = self.happen(a.start, node.facts, node.contam)
        gid = -1
        groups = list(node.groups)
        running = list(node.running)
        now = list(node.now)
        if self.reductions and t > 0 and not any(
                self.interferes((a.index, 0), (key, ph)) for ph, key, _, g, _ in now if ph == 1 or g < 0):
            # a delayed start: it interferes with no end done at t and no anchored start at t before it
            joined = sorted({g for ph, key, _, g, _ in now if ph == 0 and g >= 0
                             and self.interferes((a.index, 0), (key, 0))})
            gid = joined[0] if joined else node.n
            if not joined and not self.potential[a.index] and not any(
                    r[0] == t + a.duration and self.interferes((a.index, 1), (r[3], 1), False) for r in running):
                raise _Invalid("not tight")  # nothing could come before its end at that instant and interfere
            left = 1
            for g in [x for x in groups if x[0] in joined]:
                left += g[2]
                groups.remove(g)
            rename = set(joined)
            if len(joined) > 1:
                running = [(*r[:5], gid if r[5] in rename else r[5]) for r in running]
                now = [(ph, k, s, gid if g in rename else g, m) for ph, k, s, g, m in now]
            groups.append((gid, t, left, False))
        before = self.order(node, 0, a.index, node.n, now)
        entry: Run = (t + a.duration, 1, node.n, a.index, t, gid)
        running.append(entry)
        running.sort(key=_run_order)
        run_t = tuple(running)
        self.check_overall(facts, run_t)
        now.append((0, a.index, t, gid, node.n))
        add = tuple(x + y for x, y in zip(node.add, a.additive, strict=True))
        chosen = ChosenStep(t, a.name, a.args, a.duration, node.seq)
        return _Node(t, facts, contam, tuple(stocks), run_t, tuple(sorted(groups)), tuple(now), before,
                     max(node.mk, t + a.duration), add, node.n + 1, (1, a.index) if self.reductions else None,
                     node.seq + 1, node, chosen)

    def pending(self, node: _Node) -> list[Run]:
        """The continuation actions that end at ``node.t`` and have not ended yet."""
        return [r for r in node.running if r[0] == node.t and r[1] == 1]

    def end(self, node: _Node, r: Run) -> _Node:
        """The end of running continuation action ``r`` at ``node.t``, after every happening already done there."""
        t = node.t
        _, _, rank, key, s, gid = r
        facts, contam = self.happen(self.acts[key].end, node.facts, node.contam)
        running = tuple(x for x in node.running if x is not r)
        self.check_overall(facts, running)
        now = list(node.now)
        before = self.order(node, 1, key, rank, now)
        groups = list(node.groups)
        if gid >= 0:
            i = next(i for i, g in enumerate(groups) if g[0] == gid)
            g = groups[i]
            # a witness: a happening before this end at this instant that the end interferes with (moving the
            # group one TU earlier would pass it)
            wit = g[3] or any(hg != gid and self.interferes((key, 1), (k, ph), False) for ph, k, _, hg, _ in now)
            if g[2] == 1:
                if not wit:
                    raise _Invalid("not tight")
                del groups[i]
            else:
                groups[i] = (gid, g[1], g[2] - 1, wit)
        now.append((1, key, s, gid, rank))
        return _Node(t, facts, contam, node.stocks, running, tuple(groups), tuple(now), before, node.mk, node.add,
                     node.n, (0, key) if self.reductions else None, node.seq + 1, node, None, ((rank, node.seq),))

    def advance(self, node: _Node, to: int) -> _Node:
        """Let time pass to ``to`` (nothing happens strictly between) and perform the ends of ongoing history
        actions at ``to`` (they come first); with the reductions, also the continuation ends at ``to`` that nothing
        else at ``to`` can interfere with (they commute with everything there). The other ends at ``to`` are left
        pending: they happen at ``to``, in an order the search chooses, interleaved with the starts."""
        facts, contam = node.facts, node.contam
        running = list(node.running)
        now: list[Now] = []
        while running and running[0][0] == to and running[0][1] == 0:
            _, _, _, key, s, _ = running.pop(0)
            facts, contam = self.happen(self.acts[key].end, facts, contam)
            self.check_overall(facts, tuple(running))
            now.append((1, key, s, -1, -1))
        live = {r[2] for r in running if r[1] == 1}
        before = frozenset(p for p in node.before if p[0] in live and p[1] in live)
        mid = _Node(to, facts, contam, node.stocks, tuple(running), node.groups, tuple(now), before, node.mk,
                    node.add, node.n, None, node.seq, node, None)
        if not self.reductions:
            return mid
        ends = [r for r in running if r[0] == to]
        free = [r for r in ends if not any(x is not r and self.interferes((r[3], 1), (x[3], 1)) for x in ends)
                and self.eager(mid, r)]
        ended: list[tuple[int, int]] = []
        for r in sorted(free, key=lambda x: x[3]):
            mid = self.end(mid, r)
            ended += mid.ended
        return _Node(to, mid.facts, mid.contam, mid.stocks, mid.running, mid.groups, mid.now, mid.before, mid.mk,
                     mid.add, mid.n, None, mid.seq, node, None, tuple(ended))

    def next_time(self, node: _Node, startable: list[GroundAction]) -> int | None:
        """The next time anything can happen: the next end, or an earlier time at which an action startable now
        could start delayed and still be justified (plain search: one TU on)."""
        nxt = node.running[0][0] if node.running else None
        t = node.t
        if not self.reductions:
            if t + 1 + self.min_duration <= self.horizon:
                return t + 1
            return nxt
        if nxt is None:
            return None
        best = nxt
        for a in startable:
            if self.potential[a.index]:
                if t + 1 + a.duration <= self.horizon:
                    return t + 1 if t + 1 < best else best
                continue
            for r in node.running:
                s = r[0] - a.duration
                if t < s < best and self.interferes((a.index, 1), (r[3], 1), False):
                    best = s
        return best

    # --- bounds ------------------------------------------------------------------------------------------------
    def conflicts(self, key: int) -> list[tuple[int, int]]:
        """(action, offset): the action cannot start before ``end(running key) - offset`` (its start or end would
        break the running action's over-all condition, or it needs the same resource)."""
        if key not in self._conflicts:
            r = self.acts[key]
            need, forbid = r.overall[0], r.overall[1]
            out = []
            for a in self.steps:
                if a.resources & r.resources or a.start.dels & need or a.start.adds & forbid:
                    out.append((a.index, 0))
                elif a.end.dels & need or a.end.adds & forbid:
                    out.append((a.index, a.duration))
            self._conflicts[key] = out
        return self._conflicts[key]

    def g_key(self, node: _Node) -> tuple[int, int, int]:
        """The key of the cost so far (a lower bound on every completion's key)."""
        return (encode(node.add[d] for d in self.pre_dims), node.mk, encode(node.add[d] for d in self.post_dims))

    def key_of(self, node: _Node, total: int, mk: float) -> tuple:
        """The key from a bound ``total`` on the rest of the encoded additive cost (pre-makespan dimensions high,
        post-makespan low): g + total is at most every completion's encoded cost, so its high digits bound the
        pre-makespan block, and for a completion whose block equals them, ``mk`` bounds the makespan and the low
        digits bound the rest."""
        g = encode(node.add[d] for d in self.pre_dims + self.post_dims)
        both = g + total
        return (both >> self.shift, max(node.mk, mk), both & ((1 << self.shift) - 1))

    def evaluate(self, node: _Node) -> tuple[tuple, _Landmarks | None] | None:
        """A fresh key for the node and the landmarks behind it; None when no valid completion exists."""
        if not self.reductions:
            return self.g_key(node), None
        rt = self.relaxed
        assert rt is not None
        started = tuple(sorted({r[3] for r in node.running if r[1] == 1}))
        history = tuple(sorted({self.acts[r[3]].history for r in node.running if r[1] == 0}))
        ckey = (node.facts, node.contam, started, history, node.stocks)
        pre, pre_of = rt.preconditions(node.contam)
        init = rt.initial(node.facts, node.contam, started, history)
        if ckey not in self._cost_cache:
            self._cost_cache[ckey] = self._costs(node, self.enabled(node), pre, pre_of, init)
        cached = self._cost_cache[ckey]
        return None if cached is None else self._key(node, cached, pre, pre_of, init)

    def _costs(self, node: _Node, enabled: list[bool], pre: list[list[int]], pre_of: list[list[int]],
               init: list[int]) -> tuple | None:
        """The cost bounds of a state (None: no valid completion)."""
        rt = self.relaxed
        assert rt is not None
        total, cuts = lmcut(rt, pre, pre_of, init, self.lex_costs, enabled)
        if total == INF or not self.fits(cuts, enabled, node.stocks):
            return None
        total = int(total)
        # a completion whose pre-makespan cost equals the bound cannot use an action costing more than it
        h_pre = total >> self.shift
        within = [e and c <= h_pre for e, c in zip(enabled, self.pre_costs, strict=True)]
        work = saturated(cuts, self.work_costs, within)
        more = saturated(cuts, self.unit_costs, enabled)  # actions any completion still starts
        first = self.first_digit(cuts, enabled, node.stocks, total)
        tail = work_first = 0
        if first > total >> (self.shift + DIGIT * (len(self.pre_dims) - 1)):
            # completions costing exactly ``first`` more there use only ops costing at most that: the other
            # dimensions' bound over those ops (none reach the goal: take 0, still a bound)
            allowed = [e and c <= first for e, c in zip(enabled, self.first_costs, strict=True)]
            tail, _ = lmcut(rt, pre, pre_of, init, self.tail_costs, allowed)
            tail = 0 if tail == INF else int(tail)
            work_first = saturated(cuts, self.work_costs, allowed)
        return (total, _Landmarks.of(cuts, self.lex_costs), work, within, enabled, more, (first, tail, work_first))

    def fits(self, cuts: list[list[int]], allowed: list[bool], stocks: tuple[int, ...]) -> bool:
        """Whether completions using only ``allowed`` ops may exist as far as the landmarks and the stocks tell
        (Reductions 11): each landmark needs an allowed op, and the stock the landmarks use up (a saturated cost
        partition of each stock's use) must be left."""
        if any(not any(allowed[o] for o in cut) for cut in cuts):
            return False
        return all(saturated(cuts, costs, allowed) <= stocks[s] for s, costs in self.stock_costs)

    def first_digit(self, cuts: list[list[int]], enabled: list[bool], stocks: tuple[int, ...], total: int) -> int:
        """A lower bound on the rest of a completion's cost in the profile's first dimension (Reductions 11): the
        least v, from the landmark bound's digit on, such that completions whose ops each cost at most v there fit
        the stocks (at most four steps up)."""
        if not self.first_costs or not self.stock_costs:
            return 0
        v = total >> (self.shift + DIGIT * (len(self.pre_dims) - 1))
        for _ in range(4):
            if self.fits(cuts, [e and c <= v for e, c in zip(enabled, self.first_costs, strict=True)], stocks):
                break
            v += 1
        return v

    def enabled(self, node: _Node) -> list[bool]:
        """The ops the node's completions may use in the relaxation: those whose stock use fits, less (Reductions
        10) the "kept" op of each goal atom true now that a running end deletes for certain (unguarded, or under a
        guard that holds now and cannot change while the action runs): it needs an adder after that end."""
        rt = self.relaxed
        assert rt is not None
        enabled = rt.enabled(node.stocks)
        for r in node.running:
            s = rt.started[r[3]] if r[1] == 1 else rt.history_started[self.acts[r[3]].history]
            for x, guard, stable in rt.end_deletes.get(s, ()):
                if node.facts >> x & 1 and (guard is None or (stable and holds(guard, node.facts))):
                    enabled[rt.keep_goal[x]] = False
        return enabled

    def _key(self, node: _Node, cached: tuple, pre: list[list[int]], pre_of: list[list[int]], init: list[int]
             ) -> tuple[tuple, _Landmarks | None] | None:
        """The key of a node from its state's cost bounds, or None when no valid completion exists."""
        rt = self.relaxed
        assert rt is not None
        total, landmarks, work, within, enabled, more, (first, tail, work_first) = cached
        if self.max_actions is not None and node.n + more > self.max_actions:
            return None
        t = node.t
        available = []
        for g in range(len(self.task.resources)):
            bit = 1 << g
            if self.task.gripper_resources & bit:
                available.append(max([t] + [r[0] for r in node.running if self.acts[r[3]].resources & bit]))
        not_before: dict[int, int] = {}
        seeds: dict[int, int] = {}
        for r in node.running:
            for k, off in self.conflicts(r[3]):
                not_before[k] = max(not_before.get(k, 0), r[0] - off)
            a = self.acts[r[3]]
            p = rt.started[r[3]] if r[1] == 1 else rt.history_started[a.history]
            seeds[p] = min(seeds.get(p, INF), r[0] - a.duration)
        rest = [p for p in init if p not in seeds]
        if first:  # the first dimension's rest is at least ``first``: a larger key when the landmarks gave less
            top = DIGIT * (len(self.pre_dims) - 1)
            low = encode(node.add[d] for d in self.pre_dims[1:] + self.post_dims) + tail
            raised = ((node.add[self.pre_dims[0]] + first) << top) + (low >> self.shift)
            if raised > self.key_of(node, total, 0)[0]:
                # the completions costing ``first`` more there use only ops costing at most that
                allowed = [e and c <= first for e, c in zip(enabled, self.first_costs, strict=True)]
                mk = max(workload_makespan(available, work_first),
                         earliest_makespan(rt, pre, pre_of, rest, allowed, t, not_before, seeds))
                if mk > self.horizon:  # none of them fits the deadline: the first dimension costs more
                    return ((node.add[self.pre_dims[0]] + first + 1) << top, node.mk, 0), landmarks
                return (raised, max(node.mk, mk), low & ((1 << self.shift) - 1)), landmarks
        mk = max(workload_makespan(available, int(work)),
                 earliest_makespan(rt, pre, pre_of, rest, within, t, not_before, seeds))
        key = self.key_of(node, total, mk)
        if mk <= self.horizon:
            return key, landmarks
        if within is not enabled and earliest_makespan(rt, pre, pre_of, rest, enabled, t, not_before,
                                                       seeds) <= self.horizon:
            # no completion at the bound's pre-makespan cost fits the deadline: the next lexicographic value
            return (key[0] + 1, node.mk, self.g_key(node)[2]), landmarks
        return None

    def reuse(self, child: _Node, parent: _Node, a: GroundAction) -> tuple:
        """The key of ``child`` (``parent`` with ``a`` started) from the parent's landmarks: those without a's start
        are still landmarks of the child (its completions are the parent's that start a here), with the same
        admissible cost partition."""
        lm = parent.landmarks
        assert lm is not None and self.relaxed is not None
        hit = 0
        for o in self.relaxed.start_ops[a.index]:  # the action's start op and its copies
            hit |= lm.of_op.get(o, 0)
        hit &= parent.alive
        child.landmarks, child.alive, child.total = lm, parent.alive & ~hit, parent.total - lm.sum(hit)
        return self.key_of(child, child.total, 0)


@dataclass(frozen=True)
class _Landmarks:
    """The cuts of one LM-cut run: their costs and, per op, the cuts it is in (a bit mask)."""

    costs: tuple[int, ...]
    of_op: dict[int, int]
    total: int

    @classmethod
    def of(cls, cuts: list[list[int]], op_costs: list[int]) -> _Landmarks:
        costs = []
        of_op: dict[int, int] = {}
        left = list(op_costs)
        for i, cut in enumerate(cuts):
            m = min(left[o] for o in cut)
            costs.append(m)
            for o in cut:
                left[o] -= m
                of_op[o] = of_op.get(o, 0) | 1 << i
        return cls(tuple(costs), of_op, sum(costs))

    def sum(self, mask: int) -> int:
        out = 0
        while mask:
            low = mask & -mask
            out += self.costs[low.bit_length() - 1]
            mask ^= low
        return out


def _bounds_text(task: Task, max_actions: int | None) -> str:
    parts = [f"integer start times, every action ending by the deadline ({task.horizon} TU after the decision time)",
             "the happenings at one instant in every order one epsilon offset per action gives, ongoing history "
             "ends first", "distinct objects for distinct object parameters"]
    if max_actions is not None:
        parts.append(f"at most {max_actions} continuation actions")
    return "; ".join(parts)


def prepare(reg: Registries, inst: Instance, max_actions: int | None = None, reductions: bool = True
            ) -> tuple[_Search, _Node, Symmetry | None, list[str]]:
    """The search of ``inst`` (compiled task, kept actions, bounds), its root node, the symmetry and the notes."""
    world = World.initial(reg, inst)
    ongoing = run_history(reg, inst, world)
    task = compile_task(reg, inst, world, ongoing)
    kept = relevant_actions(task) if reductions else task.actions
    classes: list[list[str]] = []
    if reductions:
        fixed = {x for rec in ongoing for x in rec.args}
        classes = interchangeable(task, inst.goals, dict(inst.objects), reg.grippers, task.actions, fixed)
        kept = close_under(kept, task.actions, classes)
    actions = [GroundAction(i, a.name, a.args, a.duration, a.resources, a.consumes, a.additive, a.start, a.end,
                            a.overall) for i, a in enumerate(kept)]
    symmetry = Symmetry(task, actions, classes) if classes else None
    search = _Search(task, actions, inst.profile.order, max_actions, reductions)
    notes = [f"{len(task.actions)} ground actions, {len(actions)} relevant", *task.notes]
    if classes:
        notes.append("interchangeable: " + "; ".join(" ".join(c) for c in classes))
    if task.prior_violations:
        notes.append(f"{task.prior_violations} prior violation(s) in the history (kept on record)")
    n_steps = len(actions)
    running0 = tuple(sorted((end, 0, -ga.history, n_steps + j, -1, -1) for j, (ga, end) in enumerate(task.ongoing)))
    root = _Node(0, task.facts, task.contam, task.stocks, running0, (), (), frozenset(), 0, (0,) * len(ADDITIVE), 0,
                 None, 0, None, None)
    return search, root, symmetry, notes


def exact_search(reg: Registries, inst: Instance, max_actions: int | None = None, time_limit: float = 60.0, *,
                 reductions: bool = True) -> SearchResult:
    """The lexicographically optimal continuation of ``inst`` under its profile, each action ending by the
    deadline (and at most ``max_actions`` actions when given); or a proof that there is none; or undetermined.

    ``reductions=False`` turns off everything beyond plain exhaustive uniform-cost search over integer start
    times with exact duplicate detection (relevance filter, commuting-start order, tight plans, bounds, dominance
    across times): slow, for cross-checking that the reductions lose nothing.

    Raises :class:`hygiene_pddl.replay.PhysicalInconsistency` when the history itself cannot be replayed.
    """
    t_begin, cpu_begin = time.perf_counter(), time.process_time()
    search, root, symmetry, notes = prepare(reg, inst, max_actions, reductions)
    task, actions = search.task, search.steps
    bounds_text = _bounds_text(task, max_actions)

    def result(status: SearchStatus, node: _Node | None, expanded: int) -> SearchResult:
        chosen: dict[int, ChosenStep] = {}
        ends: dict[int, int] = {}
        cost = None
        if node is not None:
            cost = CostVector((*node.add, node.mk))
            while node is not None:
                if node.chosen is not None:
                    assert node.parent is not None
                    chosen[node.parent.n] = node.chosen
                ends.update(node.ended)
                node = node.parent
        # order, end_order: the positions of each step's start and end among the plan's happenings (the plan writer
        # orders interfering happenings at one instant by them)
        plan = tuple(sorted((replace(c, end_order=ends.get(rank)) for rank, c in chosen.items()),
                            key=lambda c: (c.start, c.order)))
        return SearchResult(status, cost, plan, expanded, time.perf_counter() - t_begin, max_actions, len(actions),
                            tuple(notes), bounds_text, time.process_time() - cpu_begin, search.evaluations)

    counter = itertools.count()
    queue: list[tuple] = []

    def push(node: _Node, key: tuple, complete: bool = False, evaluated: bool = False) -> None:
        heapq.heappush(queue, (key, not complete, -node.n, next(counter), evaluated, node))

    # expanded timed states: relative signature -> [(t, pre cost, makespan, post cost, actions used)]
    closed: dict[tuple, list[tuple[int, int, int, int, int]]] = {}

    def record(node: _Node) -> tuple[int, int, int, int, int]:
        return (node.t, encode(node.add[d] for d in search.pre_dims), node.mk,
                encode(node.add[d] for d in search.post_dims), node.n)

    def dominates(a: tuple[int, int, int, int, int], b: tuple[int, int, int, int, int]) -> bool:
        """Every completion of b, moved to a's time, is valid from a and costs no less lexicographically."""
        if (a[0] != b[0] and not reductions) or a[0] > b[0] or (max_actions is not None and a[4] > b[4]):
            return False
        return a[1] < b[1] or (a[1] == b[1] and a[2] <= b[2] and a[3] <= b[3])

    def dominated(node: _Node, sig: tuple) -> bool:
        mine = record(node)
        return any(dominates(other, mine) for other in closed.get(sig, ()))

    # Keys are lexicographic lower bounds on every completion's final key. A child first gets its parent's key (its
    # completions are some of the parent's), or, when it starts an action, the larger key its parent's landmarks give
    # (those the start does not hit), and a fresh bound when it reaches the top of the queue (lazy evaluation): the
    # larger key is used, and the node goes back if the key grew.
    push(root, search.g_key(root))
    expanded = 0
    best: _Node | None = None
    best_key: tuple | None = None
    while queue:
        key, incomplete, _, _, evaluated, node = heapq.heappop(queue)
        if not incomplete:
            return result(SearchStatus.OPTIMAL, node, expanded)
        sig = node.signature(symmetry)
        if dominated(node, sig):
            continue
        if not evaluated and (node.landmarks is None or not search.pending(node)):
            search.evaluations += 1
            fresh = search.evaluate(node)
            if fresh is None:
                continue
            node.landmarks = fresh[1]
            if fresh[1] is not None:
                node.alive, node.total = (1 << len(fresh[1].costs)) - 1, fresh[1].total
            if fresh[0] > key:
                push(node, fresh[0], evaluated=True)
                continue
        mine = record(node)
        closed[sig] = [r for r in closed.get(sig, ()) if not dominates(mine, r)] + [mine]
        expanded += 1
        if time.perf_counter() - t_begin > time_limit:
            return result(SearchStatus.UNDETERMINED, best, expanded)
        if not node.running and holds(task.goal, node.facts) and not node.contam & task.unsafe:
            final = search.g_key(node)
            push(node, final, complete=True)  # a complete plan: any extension costs at least as much
            if best_key is None or final < best_key:
                best, best_key = node, final
            continue
        children: list[tuple[_Node, GroundAction | None]] = []
        busy = search.busy(node.running)
        startable = [a for a in actions if search.startable(node, a, busy)]
        pending = search.pending(node)
        # happenings at one instant that do not interfere commute: only their sorted order is explored (ends before
        # starts, each by action index; docs/certification.md, "Reductions" 4); prev: the last one, (key, phase)
        last = node.last if reductions else None
        prev = None if last is None else (last[1], 1 - last[0])
        if pending:
            for r in pending:
                if last is not None and (0, r[3]) < last and not search.interferes(prev, (r[3], 1)):
                    continue
                try:
                    children.append((search.end(node, r), None))
                except _Invalid:
                    pass
            if reductions and all(search.eager(node, r) for r in pending):
                startable = []  # no start can come before these ends: in the sorted order they come first
        elif node.running or not reductions:
            to = search.next_time(node, startable)
            if to is not None:
                try:
                    children.append((search.advance(node, to), None))
                except _Invalid:
                    pass
        if max_actions is None or node.n < max_actions:
            for a in startable:
                if last is not None and (1, a.index) < last and not search.interferes(prev, (a.index, 0)):
                    continue
                try:
                    children.append((search.start(node, a), a))
                except _Invalid:
                    pass
        for child, a in children:
            if dominated(child, child.signature(symmetry)):
                continue
            if a is not None and node.landmarks is not None:
                push(child, max(key, search.reuse(child, node, a)))
            elif a is None and search.pending(child) and node.landmarks is not None:
                # ends still pending: its completions are some of the parent's, so are its landmarks; no fresh bound
                # until no end is pending at its time
                child.landmarks, child.alive, child.total = node.landmarks, node.alive, node.total
                push(child, max(key, search.g_key(child)))
            else:
                push(child, max(key, search.g_key(child)))
    return result(SearchStatus.INFEASIBLE, None, expanded)


__all__ = ["SearchResult", "SearchStatus", "exact_search", "decode"]

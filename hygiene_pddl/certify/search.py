"""Exact search for the lexicographically optimal continuation (the reference's second certifier).

Independent of the CP-SAT joint model: it grounds the registry's action schemas itself, simulates the
continuation with its own light state (physical facts, contamination as (carrier, hazard) pairs, stocks,
running actions) and asks :class:`hygiene_pddl.hygiene.HygieneRules` only the rule questions (does a hazard
cross this contact, is this carrier protected, does this treatment remove it). The state at the decision
time comes from the shared history replay (:class:`hygiene_pddl.replay.World`).

Method (``docs/certification.md`` has the semantics, the bounds and the completeness argument):

* integer time; a node is a timed state at time ``t`` after the happenings at ``t`` that are already done;
* from a node: start one more ground action at ``t`` (after everything already done at ``t``), or, when
  something is running, let one TU pass (ends at the new time happen first, in start order);
* uniform-cost (A*) order on the profile's lexicographic key of cost so far plus a componentwise admissible
  bound, so the first complete plan taken from the queue is optimal; duplicate detection on the full timed
  state; reductions that provably lose no optimal plan: a goal-relevance filter on the ground actions, one
  order for simultaneous independent starts, and "tight plans" (a start at a time where nothing ends must
  be justified by an interfering happening next to its end, else it could move one TU earlier);
* bounds: at most ``max_actions`` continuation actions, each ending by the deadline, integer start times.
"""

from __future__ import annotations

import enum
import heapq
import itertools
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace

from hygiene_pddl.costs import DIMENSIONS, CostVector
from hygiene_pddl.hygiene import HygieneRules
from hygiene_pddl.instances.model import Carrier, HistoryRecord, Instance
from hygiene_pddl.literals import Atom, Literal
from hygiene_pddl.planners.base import ChosenStep
from hygiene_pddl.registries import Registries
from hygiene_pddl.registries.model import ActionSchema
from hygiene_pddl.replay import World, run_history

#: The dimensions a step adds to (all but makespan), in canonical order.
ADDITIVE: tuple[str, ...] = DIMENSIONS[:-1]
Cond = tuple[Atom, bool]
# A rule-checked transfer across one contact: (source, target, hazard, target protected against it?)
TransferRule = tuple[Carrier, Carrier, str, bool]


class SearchStatus(enum.StrEnum):
    OPTIMAL = "optimal"
    INFEASIBLE = "infeasible"
    UNDETERMINED = "undetermined"


@dataclass(frozen=True)
class SearchResult:
    """``optimal``: ``cost`` is the optimum within the bounds and ``steps`` one plan reaching it;
    ``infeasible``: proved that no valid continuation exists within the bounds; ``undetermined``: the time
    limit was hit first (``cost``/``steps`` then hold the best complete plan seen, if any, unproved)."""

    status: SearchStatus
    cost: CostVector | None
    steps: tuple[ChosenStep, ...]
    expanded: int
    seconds: float
    max_actions: int = 6
    ground_actions: int = 0  # after the relevance filter
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class GroundStep:
    """One ground continuation action, compiled for the simulator."""

    index: int
    name: str
    args: tuple[str, ...]
    duration: int
    resources: tuple[str, ...]
    pre_start: tuple[Cond, ...]
    pre_overall: tuple[Cond, ...]
    pre_end: tuple[Cond, ...]
    del_start: frozenset[Atom]
    add_start: frozenset[Atom]
    del_end: frozenset[Atom]
    add_end: frozenset[Atom]
    contacts_start: tuple[tuple[Carrier, Carrier], ...]
    contacts_end: tuple[tuple[Carrier, Carrier], ...]
    treatment: tuple[str, Carrier] | None
    consumes: tuple[tuple[str, int], ...]
    additive: tuple[int, ...]  # per ADDITIVE dimension

    def text(self) -> str:
        return "(" + " ".join((self.name, *self.args)) + ")"


# --- grounding ------------------------------------------------------------------------------------------
def _domain(reg: Registries, objects: Mapping[str, str], kind: str, schema: str) -> list[str]:
    if kind == "gripper":
        return list(reg.grippers)
    if kind == "item":
        return [o for o in sorted(objects) if reg.object_types[objects[o]].is_item]
    if kind == "place":
        return [o for o in sorted(objects) if reg.object_types[objects[o]].is_place]
    if kind == "region":
        return sorted({r.name for ty in objects.values() for r in reg.object_types[ty].regions})
    raise ValueError(f"action {schema}: parameter kind {kind!r} is not supported by the exact search")


def _split(lits: Iterable[Literal], binding: Mapping[str, str], static_preds: set[str],
           static_true: set[Atom]) -> tuple[Cond, ...] | None:
    """Dynamic conditions, or None when a static one is false (the ground action can never run)."""
    out = []
    for lit in lits:
        g = lit.ground(binding)
        if g.predicate in static_preds:
            if (g.atom in static_true) != g.positive:
                return None
        else:
            out.append((g.atom, g.positive))
    return tuple(out)


def _effects(lits: Iterable[Literal], binding: Mapping[str, str]) -> tuple[frozenset[Atom], frozenset[Atom]]:
    """(deleted, added) as World applies them: deletes first, then adds (an atom in both ends up true)."""
    ground = [lit.ground(binding) for lit in lits]
    adds = frozenset(g.atom for g in ground if g.positive)
    return frozenset(g.atom for g in ground if not g.positive) - adds, adds


def _compile(reg: Registries, rules: HygieneRules, schema: ActionSchema, binding: Mapping[str, str],
             index: int, static_preds: set[str], static_true: set[Atom]) -> GroundStep | None:
    conds = [_split(lits, binding, static_preds, static_true)
             for lits in (schema.cond_start, schema.cond_overall, schema.cond_end)]
    if any(c is None for c in conds):
        return None
    carriers = set(rules.carriers())
    try:
        contacts = {w: tuple((rules.ground(c.a, binding), rules.ground(c.b, binding)) for c in schema.contacts
                             if c.when == w) for w in ("start", "end")}
        treatment = ((schema.treats[0].treatment, rules.ground(schema.treats[0].target, binding))
                     if schema.treats else None)
    except ValueError:  # an @base/@surface role the object type does not have
        return None
    touched = [c for pairs in contacts.values() for pair in pairs for c in pair] + ([treatment[1]] if treatment
                                                                                    else [])
    if any(c not in carriers for c in touched):  # a region the object does not have
        return None
    del_s, add_s = _effects(schema.eff_start, binding)
    del_e, add_e = _effects(schema.eff_end, binding)
    amounts = dict(schema.costs)
    # the eight summed dimensions from the registry; active_robot_time: the duration if a gripper is occupied
    additive = tuple(amounts.get(d, 0) for d in ADDITIVE[:-1]) + ((schema.duration if schema.occupies else 0),)
    resources = tuple([f"gripper:{binding[g]}" for g in schema.occupies]
                      + [f"appliance:{binding[a]}" for a in schema.appliances]
                      + [f"capacity:{c}" for c in schema.capacities])
    return GroundStep(index, schema.name, tuple(binding[p] for p in schema.param_names), schema.duration, resources,
                      conds[0], conds[1], conds[2], del_s, add_s, del_e, add_e, contacts["start"],
                      contacts["end"], treatment, tuple(schema.consumes), additive)


def _static_predicates(reg: Registries, action_names: Iterable[str]) -> set[str]:
    """Predicates no action of K ever changes: their truth is fixed for the whole continuation."""
    changed = {lit.predicate for a in action_names for lit in (*reg.actions[a].eff_start, *reg.actions[a].eff_end)}
    return {p for p, _ in reg.predicates} - changed


def _statics(reg: Registries, inst: Instance, world: World) -> tuple[set[str], set[Atom]]:
    """The static predicates and their true atoms (type-level statics and unchanging facts)."""
    static_preds = _static_predicates(reg, inst.actions)
    return static_preds, {a for a in (*world.static, *world.facts) if a[0] in static_preds}


def ground_steps(reg: Registries, inst: Instance, world: World) -> list[GroundStep]:
    """Every ground action of K: each argument combination of the right kinds (distinct objects for distinct
    object parameters) whose static conditions hold in ``world`` and whose contacts name real carriers."""
    objects = dict(inst.objects)
    static_preds, static_true = _statics(reg, inst, world)
    out: list[GroundStep] = []
    for name in sorted(inst.actions):
        schema = reg.actions[name]
        domains = [_domain(reg, objects, kind, name) for _, kind in schema.parameters]
        obj = [i for i, (_, kind) in enumerate(schema.parameters) if kind in ("item", "place")]
        for values in itertools.product(*domains):
            if len({values[i] for i in obj}) != len(obj):
                continue
            step = _compile(reg, world.rules, schema, dict(zip(schema.param_names, values, strict=True)), len(out),
                            static_preds, static_true)
            if step is not None:
                out.append(step)
    return out


def relevant_steps(steps: list[GroundStep], goals: Iterable[Atom], forced_conds: Iterable[Cond],
                   forced_carriers: Iterable[Carrier],
                   can_remove: Callable[[GroundStep], bool] = lambda s: True) -> list[GroundStep]:
    """The ground actions that can matter for a valid plan (docs/certification.md, "Relevance").

    A step is relevant when it adds an atom some relevant condition (or a goal) needs true, deletes one some
    relevant condition needs false, or treats a carrier that a relevant step (or an ongoing history action)
    touches and that may then carry a hazard the treatment removes (``can_remove``); its own conditions and
    touched carriers then become relevant. Dropping every other step from a valid plan keeps it valid and
    makes no cost dimension larger, so no optimum is lost.
    """
    need_true = set(goals)
    need_false: set[Atom] = set()
    for atom, pos in forced_conds:
        (need_true if pos else need_false).add(atom)
    touched = set(forced_carriers)
    keep: set[int] = set()
    changed = True
    while changed:
        changed = False
        for s in steps:
            if s.index in keep:
                continue
            if ((s.add_start | s.add_end) & need_true or (s.del_start | s.del_end) & need_false
                    or (s.treatment is not None and s.treatment[1] in touched and can_remove(s))):
                keep.add(s.index)
                changed = True
                for atom, pos in (*s.pre_start, *s.pre_overall, *s.pre_end):
                    (need_true if pos else need_false).add(atom)
                touched |= {c for pair in (*s.contacts_start, *s.contacts_end) for c in pair}
    return [s for s in steps if s.index in keep]


def possible_contamination(rules: HygieneRules, contamination: Iterable[tuple[Carrier, str]],
                           steps: Iterable[GroundStep]) -> set[tuple[Carrier, str]]:
    """Every (carrier, hazard) any execution of ``steps`` could produce from ``contamination`` (transfer only
    adds, so the closure of the contact graph under the crossing rule over-approximates every schedule)."""
    pairs = {pair for s in steps for pair in (*s.contacts_start, *s.contacts_end)}
    out = set(contamination)
    frontier = list(out)
    while frontier:
        c, h = frontier.pop()
        for a, b in pairs:
            for src, dst in ((a, b), (b, a)):
                if src == c and (dst, h) not in out and rules.crosses(h, src, dst):
                    out.add((dst, h))
                    frontier.append((dst, h))
    return out


def _reads_writes(s: GroundStep, phase: str) -> tuple[set, set]:
    """What one happening of ``s`` reads and writes (atoms, carriers, resources) — for commutation."""
    over = {a for a, _ in s.pre_overall}
    res = {("resource", r) for r in s.resources}
    if phase == "start":
        reads = {a for a, _ in s.pre_start} | over
        writes = set(s.del_start | s.add_start)
        contacts = s.contacts_start
    else:
        reads = {a for a, _ in s.pre_end} | over
        writes = set(s.del_end | s.add_end)
        contacts = s.contacts_end
        if s.treatment:
            writes.add(("carrier", *s.treatment[1]))
    for pair in contacts:
        for c in pair:
            reads.add(("carrier", *c))
            writes.add(("carrier", *c))
    return reads | res, writes | res


def _interferes(x: tuple[set, set], y: tuple[set, set]) -> bool:
    """Two happenings interfere when one writes what the other reads or writes (else they commute)."""
    (rx, wx), (ry, wy) = x, y
    return bool(wx & (ry | wy) or wy & rx)


# --- the simulator ---------------------------------------------------------------------------------------
StepKey = tuple[str, int]  # ("s", ground step index) or ("h", history record index)


@dataclass(frozen=True)
class _Ending:
    """An action still running: a continuation step or an ongoing history action."""

    end: int
    group: int  # 0: ongoing history action (they end first at equal times), 1: continuation step
    rank: int  # order among equal (end, group): -history index, or the step's start sequence number
    key: StepKey
    start: int  # relative to the decision time (negative for history actions)
    delayed: bool = False  # started at a time at which nothing ended (see "Tight plans")

    def order(self) -> tuple[int, int, int]:
        return (self.end, self.group, self.rank)


@dataclass(frozen=True)
class _Happening:
    time: int
    phase: str  # start | end
    key: StepKey
    start: int


class _Node:
    """A timed state at ``t``: the ends at ``t`` are done, and the starts at ``t`` chosen so far."""

    __slots__ = ("t", "epoch", "facts", "contam", "stocks", "running", "pending", "recent", "mk", "add", "n",
                 "last", "parent", "chosen")

    def __init__(self, t: int, epoch: bool, facts: frozenset, contam: frozenset, stocks: tuple, running: tuple,
                 pending: tuple, recent: tuple, mk: int, add: tuple, n: int, last: int, parent: _Node | None,
                 chosen: ChosenStep | None):
        self.t, self.epoch, self.facts, self.contam, self.stocks = t, epoch, facts, contam, stocks
        self.running, self.pending, self.recent = running, pending, recent
        self.mk, self.add, self.n, self.last, self.parent, self.chosen = mk, add, n, last, parent, chosen

    def signature(self) -> tuple:
        """Everything the future depends on (the cost so far is compared, not keyed)."""
        running = tuple((e.end, e.group, e.key, e.start, e.delayed) for e in self.running)  # rank: only the order
        return (self.t, self.epoch, self.facts, self.contam, self.stocks, running, self.pending, self.recent,
                self.mk, self.last)


class _Invalid(Exception):
    """The happening cannot occur (condition, stock, resource), makes the plan invalid (violation, over-all
    condition), or closes a delayed start group that nothing justified (the plan is not tight)."""


class _Sim:
    def __init__(self, reg: Registries, inst: Instance, world: World, steps: list[GroundStep],
                 ongoing: list[HistoryRecord]):
        self.rules = world.rules
        self.steps = steps
        self.t0 = inst.decision_time
        self.horizon = (world.horizon if world.horizon is not None else inst.horizon) - self.t0
        self.stock_names = tuple(sorted(set(world.stocks) | {s for st in steps for s, _ in st.consumes}))
        self.busy = {res: int(free) - self.t0 for res, (free, _) in world.busy.items() if free > self.t0}
        self.history: dict[int, GroundStep] = {}
        self.doomed: list[str] = []  # ongoing actions whose end can never happen (a static at-end condition)
        static_preds, static_true = _statics(reg, inst, world)
        for rec in ongoing:
            schema = reg.actions[rec.name]
            compiled = _compile(reg, self.rules, schema, dict(zip(schema.param_names, rec.args, strict=True)), -1,
                                set(), set())
            assert compiled is not None, rec  # the replay ran it: its contacts name real carriers
            # as in the evaluator, only the at-end conditions of an ongoing action are checked (at its end)
            pre_end = []
            for atom, pos in compiled.pre_end:
                if atom[0] not in static_preds:
                    pre_end.append((atom, pos))
                elif (atom in static_true) != pos:
                    self.doomed.append(rec.text())
            self.history[rec.index] = replace(compiled, pre_overall=(), pre_end=tuple(pre_end))
        self.hazards = tuple(sorted(reg.hazards))
        self.tight = True  # only tight plans (docs/certification.md): starts at no-end times need a witness
        self.min_duration = min((s.duration for s in steps), default=0)
        self._transfers: dict[tuple[Carrier, Carrier], tuple[TransferRule, ...]] = {}
        self._removed: dict[tuple[str, Carrier], frozenset[str]] = {}
        self._rw: dict[tuple[StepKey, str], tuple[set, set]] = {}
        self._interfere: dict[tuple, bool] = {}

    def step_of(self, key: StepKey) -> GroundStep:
        return self.steps[key[1]] if key[0] == "s" else self.history[key[1]]

    def interferes(self, a: tuple[StepKey, str], b: tuple[StepKey, str]) -> bool:
        if (a, b) not in self._interfere:
            for x in (a, b):
                if x not in self._rw:
                    self._rw[x] = _reads_writes(self.step_of(x[0]), x[1])
            self._interfere[(a, b)] = _interferes(self._rw[a], self._rw[b])
        return self._interfere[(a, b)]

    def dependent(self, a: int, b: int) -> bool:
        """Some happening of step ``a`` interferes with some happening of step ``b``."""
        return any(self.interferes((("s", a), pa), (("s", b), pb)) for pa in ("start", "end")
                   for pb in ("start", "end"))

    # --- rules ------------------------------------------------------------------------------------------
    def transfers(self, a: Carrier, b: Carrier) -> tuple[TransferRule, ...]:
        if (a, b) not in self._transfers:
            self._transfers[(a, b)] = tuple(
                (src, dst, h, self.rules.violates(dst, h)) for src, dst in ((a, b), (b, a)) for h in self.hazards
                if self.rules.crosses(h, src, dst))
        return self._transfers[(a, b)]

    def removed(self, treatment: str, c: Carrier) -> frozenset[str]:
        if (treatment, c) not in self._removed:
            self._removed[(treatment, c)] = frozenset(h for h in self.hazards if self.rules.removes(treatment, c, h))
        return self._removed[(treatment, c)]

    def contact(self, contam: set, a: Carrier, b: Carrier) -> None:
        """Hazards cross from a snapshot of both sides; one arriving on a protected carrier is a violation."""
        new = [(dst, h, viol) for src, dst, h, viol in self.transfers(a, b)
               if (src, h) in contam and (dst, h) not in contam]
        for dst, h, viol in new:
            if viol:
                raise _Invalid(f"{h} onto {dst}")
            contam.add((dst, h))

    # --- happenings -------------------------------------------------------------------------------------
    @staticmethod
    def _holds(facts: frozenset, conds: tuple[Cond, ...]) -> bool:
        return all((atom in facts) == pos for atom, pos in conds)

    def _check_overall(self, facts: frozenset, running: Iterable[_Ending]) -> None:
        """Over-all conditions of running continuation steps, right after each happening (open interval)."""
        for e in running:
            if e.key[0] == "s" and not self._holds(facts, self.steps[e.key[1]].pre_overall):
                raise _Invalid("over all")

    def start(self, node: _Node, s: GroundStep) -> _Node:
        """``s`` starts at ``node.t`` after every happening already done at ``node.t``."""
        t = node.t
        for res in s.resources:
            if self.busy.get(res, 0) > t or any(e.key[0] == "s" and res in self.steps[e.key[1]].resources
                                                for e in node.running):
                raise _Invalid("busy")
        if not self._holds(node.facts, s.pre_start):
            raise _Invalid("condition")
        stocks = list(node.stocks)
        for stock, amount in s.consumes:
            i = self.stock_names.index(stock)
            if stocks[i] < amount:
                raise _Invalid("stock")
            stocks[i] -= amount
        facts = (node.facts - s.del_start) | s.add_start
        contam = set(node.contam)
        for a, b in s.contacts_start:
            self.contact(contam, a, b)
        delayed = self.tight and not node.epoch
        ending = _Ending(t + s.duration, 1, node.n, ("s", s.index), t, delayed)
        running = tuple(sorted((*node.running, ending), key=_Ending.order))
        self._check_overall(facts, running)
        pending = dict((g, (left, w)) for g, left, w in node.pending)
        if delayed:
            left, w = pending.get(t, (0, False))
            pending[t] = (left + 1, w)
        recent = (*node.recent, _Happening(t, "start", ("s", s.index), t)) if pending else ()
        add = tuple(x + y for x, y in zip(node.add, s.additive, strict=True))
        chosen = ChosenStep(t, s.name, s.args, s.duration, node.n)
        return _Node(t, node.epoch, facts, frozenset(contam), tuple(stocks), running,
                     tuple((g, left, w) for g, (left, w) in sorted(pending.items())), recent,
                     max(node.mk, t + s.duration), add, node.n + 1, s.index, node, chosen)

    def _witnessed(self, e: _Ending, to: int, recent: Iterable[_Happening]) -> bool:
        """Whether moving the end of delayed step ``e`` one TU earlier would pass an interfering happening."""
        mine = (e.key, "end")
        for h in recent:
            moved_past = ((h.time == to - 1 and h.phase == "end" and h.key[0] == "s" and h.start > e.start)
                          or (h.time == to - 1 and h.phase == "start" and h.start != e.start)
                          or (h.time == to and h.phase == "end" and h.start < e.start))
            if moved_past and self.interferes(mine, (h.key, h.phase)):
                return True
        return False

    def advance(self, node: _Node, to: int) -> _Node:
        """Let time pass to ``to`` (nothing happens strictly between) and perform the ends at ``to``."""
        facts, contam = node.facts, set(node.contam)
        running = list(node.running)
        pending = {g: (left, w) for g, left, w in node.pending}
        recent = [h for h in node.recent if h.time >= to - 1]
        ended = False
        while running and running[0].end == to:
            e = running.pop(0)
            ended = True
            s = self.step_of(e.key)
            if not self._holds(facts, s.pre_end):
                raise _Invalid("at end")
            facts = (facts - s.del_end) | s.add_end
            for a, b in s.contacts_end:
                self.contact(contam, a, b)
            if s.treatment is not None:
                gone = self.removed(*s.treatment)
                contam = {(c, h) for c, h in contam if c != s.treatment[1] or h not in gone}
            self._check_overall(facts, running)
            if e.delayed:
                left, w = pending[e.start]
                w = w or self._witnessed(e, to, recent)
                if left == 1 and not w:
                    raise _Invalid("not tight")
                pending[e.start] = (left - 1, w)
                if left == 1:
                    del pending[e.start]
            if pending:
                recent.append(_Happening(to, "end", e.key, e.start))
        return _Node(to, ended, facts, frozenset(contam), node.stocks, tuple(running),
                     tuple((g, left, w) for g, (left, w) in sorted(pending.items())),
                     tuple(recent) if pending else (), node.mk, node.add, node.n, -1, node, None)

    def next_time(self, node: _Node) -> int:
        """One TU on, or straight to the next end when no step could start (and end in time) before it."""
        nxt = node.running[0].end
        if node.t + 1 + self.min_duration > self.horizon:
            return nxt
        return min(node.t + 1, nxt)


class _Bound:
    """An admissible lower bound, per cost dimension, on the final cost of any valid completion.

    Additive dimensions: h_max on the delete relaxation, one dimension at a time (max over the goals of the
    cheapest relaxed achiever chain). Makespan: the earliest end of an achiever of each goal that does not
    yet hold, with relaxed earliest times; a step whose start (end) would break the over-all condition of a
    running step cannot start (end) before that step ends. Componentwise bounds make a lexicographic bound;
    neither part decreases along a search edge by more than the edge's own cost (consistency), so the first
    complete plan taken from the queue is optimal.
    """

    INF = float("inf")

    def __init__(self, sim: _Sim, goals: Iterable[Atom]):
        self.sim, self.goals = sim, tuple(goals)
        steps = sim.steps
        self.pre = [tuple(a for a, pos in (*s.pre_start, *s.pre_overall, *s.pre_end) if pos) for s in steps]
        self.achievers: dict[Atom, list[int]] = {}
        for s in steps:
            for atom in s.add_start | s.add_end:
                self.achievers.setdefault(atom, []).append(s.index)
        # conflicts[x] = [(a, by_start)]: a's start (end) would break step x's over-all condition
        self.conflicts: list[list[tuple[int, bool]]] = []
        for x in steps:
            need = {a for a, pos in x.pre_overall if pos}
            forbid = {a for a, pos in x.pre_overall if not pos}
            self.conflicts.append(
                [(a.index, True) for a in steps if a.del_start & need or a.add_start & forbid]
                + [(a.index, False) for a in steps if a.del_end & need or a.add_end & forbid])
        self.adds = [tuple(s.add_start | s.add_end) for s in steps]
        self.additive_cache: dict[tuple, tuple | None] = {}
        self.time_cache: dict[tuple, float] = {}

    def __call__(self, node: _Node) -> tuple[tuple[float, ...], float] | None:
        """(bound on the additive dimensions still to come, bound on the final makespan) or None: dead end."""
        pending = frozenset(a for e in node.running for a in self.sim.step_of(e.key).add_end)
        akey = (node.facts, pending)
        if akey not in self.additive_cache:
            self.additive_cache[akey] = self._additive(node.facts | pending)
        add = self.additive_cache[akey]
        if add is None:
            return None
        tkey = (node.t, node.facts, tuple((e.key, e.end) for e in node.running))
        if tkey not in self.time_cache:
            self.time_cache[tkey] = self._makespan(node.t, node.facts, node.running)
        return add, self.time_cache[tkey]

    def _additive(self, reached: frozenset) -> tuple | None:
        steps, zero = self.sim.steps, (0,) * len(ADDITIVE)
        cost: dict[Atom, tuple] = dict.fromkeys(reached, zero)
        changed = True
        while changed:
            changed = False
            for s in steps:
                pre = self.pre[s.index]
                if not all(a in cost for a in pre):
                    continue
                c = s.additive
                for a in pre:
                    if cost[a] is not zero:
                        c = tuple(map(max, c, (x + y for x, y in zip(cost[a], s.additive, strict=True))))
                for atom in self.adds[s.index]:
                    old = cost.get(atom)
                    if old is None:
                        cost[atom] = c
                        changed = True
                    elif old is not zero and c != old:
                        new = tuple(map(min, old, c))
                        if new != old:
                            cost[atom] = new
                            changed = True
        if any(g not in cost for g in self.goals):
            return None
        out = zero
        for g in self.goals:
            out = tuple(map(max, out, cost[g]))
        return out

    def _makespan(self, t: int, facts: frozenset, running: tuple[_Ending, ...]) -> float:
        steps, inf = self.sim.steps, self.INF
        when: dict[Atom, float] = dict.fromkeys(facts, t)  # earliest time the atom can hold
        not_before = [t] * len(steps)  # earliest start of each step
        for e in running:
            for atom in self.sim.step_of(e.key).add_end:
                when[atom] = min(when.get(atom, inf), e.end)
            if e.key[0] == "s":
                for a, by_start in self.conflicts[e.key[1]]:
                    not_before[a] = max(not_before[a], e.end if by_start else e.end - steps[a].duration)
        begin = [inf] * len(steps)
        changed = True
        while changed:
            changed = False
            for s in steps:
                i = s.index
                b = not_before[i]
                for a in self.pre[i]:
                    w = when.get(a, inf)
                    if w > b:
                        b = w
                if b >= begin[i]:
                    continue
                begin[i] = b
                for atom in s.add_start:
                    if b < when.get(atom, inf):
                        when[atom] = b
                        changed = True
                for atom in s.add_end:
                    if b + s.duration < when.get(atom, inf):
                        when[atom] = b + s.duration
                        changed = True
        mk = 0.0
        for g in self.goals:
            if g not in facts and not any(g in self.sim.step_of(e.key).add_end for e in running):
                mk = max(mk, min(begin[i] + steps[i].duration for i in self.achievers.get(g, ())))
        return mk


def _key(profile_index: tuple[int, ...], add: tuple, mk: float) -> tuple:
    vec = (*add, mk)
    return tuple(vec[i] for i in profile_index)


def exact_search(reg: Registries, inst: Instance, max_actions: int = 6, time_limit: float = 60.0, *,
                 reductions: bool = True) -> SearchResult:
    """The lexicographically optimal continuation of ``inst`` under its profile, with at most ``max_actions``
    continuation actions each ending by the deadline; or a proof that there is none; or undetermined.

    ``reductions=False`` turns off everything beyond plain exhaustive uniform-cost search over integer start
    times with duplicate detection (relevance filter, commuting-start order, tight plans, lower bound): slow,
    for cross-checking that the reductions lose nothing.

    Raises :class:`hygiene_pddl.replay.PhysicalInconsistency` when the history itself cannot be replayed.
    """
    t_begin = time.perf_counter()
    world = World.initial(reg, inst)
    ongoing = run_history(reg, inst, world)
    prior = len(world.violations)
    all_steps = ground_steps(reg, inst, world)
    probe = _Sim(reg, inst, world, [], ongoing)
    forced = [c for h in probe.history.values() for c in h.pre_end]
    forced_carriers = [c for h in probe.history.values() for pair in h.contacts_end for c in pair]
    carried = possible_contamination(
        world.rules, ((c, h) for c, hs in world.contamination.items() for h in hs),
        [*all_steps, *probe.history.values()])

    def can_remove(s: GroundStep) -> bool:
        assert s.treatment is not None
        return any(c == s.treatment[1] and h in probe.removed(*s.treatment) for c, h in carried)

    physical_goals = tuple(g for g in inst.goals if g[0] != "safe")
    # (safe o): none of o's regions may carry a hazard it is protected against; those regions count as touched,
    # so treatments that clean them stay relevant
    unsafe = frozenset(f for g in inst.goals if g[0] == "safe" for f in world.rules.unsafe_facts(g[1]))
    forced_carriers = [*forced_carriers, *(c for c, _ in unsafe)]
    relevant = (relevant_steps(all_steps, physical_goals, forced, forced_carriers, can_remove) if reductions
                else all_steps)
    steps = [replace(s, index=i) for i, s in enumerate(relevant)]
    sim = _Sim(reg, inst, world, steps, ongoing)
    sim.tight = reductions
    profile_index = tuple(DIMENSIONS.index(d) for d in inst.profile.order)
    notes = [f"{len(all_steps)} ground actions, {len(steps)} relevant"]
    if prior:
        notes.append(f"{prior} prior violation(s) in the history (kept on record)")
    if sim.doomed:
        notes.append(f"ongoing {', '.join(sim.doomed)} cannot end: a static at-end condition is false")

    def result(status: SearchStatus, node: _Node | None, expanded: int) -> SearchResult:
        chosen: list[ChosenStep] = []
        cost = None
        if node is not None:
            cost = CostVector((*node.add, node.mk))
            while node is not None:
                if node.chosen is not None:
                    chosen.append(node.chosen)
                node = node.parent
        plan = tuple(sorted(chosen, key=lambda c: (c.start, c.order)))
        return SearchResult(status, cost, plan, expanded, time.perf_counter() - t_begin, max_actions, len(steps),
                            tuple(notes))

    running0 = tuple(sorted((_Ending(rec.end - sim.t0, 0, -rec.index, ("h", rec.index), rec.start - sim.t0)
                             for rec in ongoing), key=_Ending.order))
    root = _Node(0, True, frozenset(world.facts),
                 frozenset((c, h) for c, hs in world.contamination.items() for h in hs),
                 tuple(world.stocks.get(s, 0) for s in sim.stock_names), running0, (), (), 0, (0,) * len(ADDITIVE),
                 0, -1, None, None)
    bound = _Bound(sim, physical_goals)

    def priority(node: _Node) -> tuple | None:
        """The node's lexicographic lower bound, or None when no valid completion can exist."""
        h = bound(node) if reductions else ((0,) * len(ADDITIVE), 0)
        if h is None or h[1] > sim.horizon:
            return None
        return _key(profile_index, tuple(g + x for g, x in zip(node.add, h[0], strict=True)), max(node.mk, h[1]))

    counter = itertools.count()
    queue: list[tuple[tuple, int, bool, _Node]] = []
    if not sim.doomed and (root_key := priority(root)) is not None:
        queue.append((root_key, next(counter), False, root))
    # expanded timed states: signature -> [(cost so far in profile order, actions used)], none dominating another.
    # Two nodes with one signature have the same futures, so the one with no larger cost so far (makespan is in
    # the signature) and no more actions used is at least as good; a better one is expanded again (re-opening
    # keeps the search exact even where the bound is not consistent).
    closed: dict[tuple, list[tuple[tuple, int]]] = {}

    def dominated(node: _Node, sig: tuple) -> bool:
        g = _key(profile_index, node.add, node.mk)
        return any(g0 <= g and n0 <= node.n for g0, n0 in closed.get(sig, ()))

    goals = frozenset(physical_goals)
    expanded = 0
    best: tuple[tuple[int, ...], _Node] | None = None
    while queue:
        key, _, complete, node = heapq.heappop(queue)
        if complete:
            return result(SearchStatus.OPTIMAL, node, expanded)
        sig = node.signature()
        if dominated(node, sig):
            continue
        g = _key(profile_index, node.add, node.mk)
        closed[sig] = [(g0, n0) for g0, n0 in closed.get(sig, ()) if not (g <= g0 and node.n <= n0)] + [(g, node.n)]
        expanded += 1
        if time.perf_counter() - t_begin > time_limit:
            return result(SearchStatus.UNDETERMINED, best[1] if best else None, expanded)
        children: list[_Node] = []
        if not node.running:
            if goals <= node.facts and not unsafe & node.contam:  # a complete plan: its cost is final
                final = _key(profile_index, node.add, node.mk)
                heapq.heappush(queue, (final, next(counter), True, node))
                if best is None or final < best[0]:
                    best = (final, node)
        else:
            try:
                children.append(sim.advance(node, sim.next_time(node)))
            except _Invalid:
                pass
        if node.n < max_actions:
            for s in steps:
                if node.t + s.duration > sim.horizon:
                    continue
                if reductions and node.last >= 0 and s.index < node.last and not sim.dependent(node.last, s.index):
                    continue  # simultaneous independent starts commute: only the sorted order is explored
                try:
                    children.append(sim.start(node, s))
                except _Invalid:
                    pass
        for child in children:
            if dominated(child, child.signature()):
                continue
            if (child_key := priority(child)) is not None:
                heapq.heappush(queue, (child_key, next(counter), False, child))
    return result(SearchStatus.INFEASIBLE, None, expanded)


__all__ = ["GroundStep", "SearchResult", "SearchStatus", "exact_search", "ground_steps", "relevant_steps"]

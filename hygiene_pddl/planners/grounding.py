"""Ground an instance's action schemas over its objects, pruned to what can matter (docs/world-model-v2.md).

Shared by the planners. A :class:`GroundAction` carries, for its start and end happening, the conditions, the
unconditional literal effects, the guarded literal updates, the contacts and the treatments, each contact and
treatment with the guard (literals read in the happening's pre-state) under which it happens. Quantified
contacts, treatments and updates are grounded over the objects of their kind; a guard literal over a predicate
that nothing can change any more (a static predicate, or one that no action of K and no ongoing history action
adds or deletes) is decided now: a false one drops that binding, a true one is left out. Derived capacity
conditions ``(room ?c)`` (M5) become :data:`ROOM` atoms that count the ``inside`` facts; a container without a
capacity always has room. Covering parts (M3) and contact blockers (M4) were desugared by the registry loader.
Gripper, appliance and capacity exclusivity become ordinary fluents (``idle``, ``appliance-free``, ``free``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from hygiene_pddl.hygiene import HygieneRules
from hygiene_pddl.instances.model import Carrier, HistoryRecord, Instance
from hygiene_pddl.literals import Atom, Literal
from hygiene_pddl.registries.model import ActionSchema, Binder, Registries
from hygiene_pddl.replay import ReplayResult, static_facts

Cond = tuple[Atom, bool]  # (atom, must be true?)

#: A derived capacity condition as an atom: ``("#room", counted predicate, container, capacity)`` holds while
#: fewer than ``capacity`` facts ``(counted ? container)`` hold.
ROOM = "#room"
#: A condition that never holds (an ongoing history action whose condition nothing can make true any more).
NEVER: Atom = ("#never",)


def is_derived(atom: Atom) -> bool:
    """Whether ``atom`` is no fact but derived from facts (:data:`ROOM`) or never holds (:data:`NEVER`)."""
    return atom[0].startswith("#")


def room_count(atom: Atom, facts: Iterable[Atom]) -> int:
    """How many facts a :data:`ROOM` atom counts."""
    return sum(1 for a in facts if a[0] == atom[1] and a[-1] == atom[2])


def holds(cond: Cond, facts: set[Atom] | frozenset[Atom]) -> bool:
    """A condition (derived ones included) in a set of facts."""
    atom, positive = cond
    if atom[0] == ROOM:
        present = room_count(atom, facts) < int(atom[3])
    else:
        present = atom in facts
    return present == positive


def counted_atoms(atom: Atom, atoms: Iterable[Atom]) -> list[Atom]:
    """The atoms among ``atoms`` that a :data:`ROOM` atom counts."""
    return [a for a in atoms if a[0] == atom[1] and a[-1] == atom[2]]


@dataclass(frozen=True)
class Contact:
    """Carriers ``a`` and ``b`` touch when every ``guard`` condition holds in the pre-state; an arrival on a
    protected carrier is a violation unless the contact is not ``checked`` (an exempt contact)."""

    a: Carrier
    b: Carrier
    guard: tuple[Cond, ...] = ()
    checked: bool = True

    @property
    def pair(self) -> tuple[Carrier, Carrier]:
        return self.a, self.b


@dataclass(frozen=True)
class Treat:
    """``treatment`` removes what the registry says from ``target`` when every ``guard`` condition holds."""

    treatment: str
    target: Carrier
    guard: tuple[Cond, ...] = ()


@dataclass(frozen=True)
class Update:
    """The literal ``effect`` applies when every ``guard`` condition holds in the pre-state."""

    effect: Cond
    guard: tuple[Cond, ...]


@dataclass(frozen=True)
class Phase:
    """What one happening (the start or the end of a ground action) needs and does."""

    conds: tuple[Cond, ...]
    effects: tuple[Cond, ...]
    updates: tuple[Update, ...]
    contacts: tuple[Contact, ...]
    treats: tuple[Treat, ...]


@dataclass(frozen=True)
class GroundAction:
    name: str
    args: tuple[str, ...]
    duration: int
    grippers: tuple[str, ...]
    cond_start: tuple[Cond, ...]
    cond_overall: tuple[Cond, ...]
    cond_end: tuple[Cond, ...]
    eff_start: tuple[Cond, ...]  # unconditional literal effects (deletes, then adds)
    eff_end: tuple[Cond, ...]
    contacts_start: tuple[Contact, ...]
    contacts_end: tuple[Contact, ...]
    treats_start: tuple[Treat, ...]
    treats_end: tuple[Treat, ...]
    consumes: tuple[tuple[str, int], ...]
    costs: tuple[tuple[str, int], ...]
    updates_start: tuple[Update, ...] = ()  # guarded literal effects
    updates_end: tuple[Update, ...] = ()

    def text(self) -> str:
        return "(" + " ".join((self.name, *self.args)) + ")"

    def cost(self, dim: str) -> int:
        if dim == "active_robot_time":
            return self.duration if self.grippers else 0
        return dict(self.costs).get(dim, 0)

    def phase(self, when: str) -> Phase:
        return self._phases[0 if when == "start" else 1]

    @cached_property
    def _phases(self) -> tuple[Phase, Phase]:
        return (Phase(self.cond_start, self.eff_start, self.updates_start, self.contacts_start, self.treats_start),
                Phase(self.cond_end, self.eff_end, self.updates_end, self.contacts_end, self.treats_end))

    @property
    def contacts(self) -> tuple[Contact, ...]:
        return self.contacts_start + self.contacts_end

    @property
    def treats(self) -> tuple[Treat, ...]:
        return self.treats_start + self.treats_end

    @property
    def updates(self) -> tuple[Update, ...]:
        return self.updates_start + self.updates_end

    @property
    def conditions(self) -> tuple[Cond, ...]:
        return self.cond_start + self.cond_overall + self.cond_end

    @property
    def guards(self) -> tuple[Cond, ...]:
        """Every guard condition of its contacts, treatments and updates."""
        return tuple(c for x in (*self.contacts, *self.treats, *self.updates) for c in x.guard)

    def effect_literals(self, when: str | None = None) -> list[Cond]:
        """The literal effects it may have (unconditional and guarded) at ``when`` (both phases by default)."""
        phases = ("start", "end") if when is None else (when,)
        out: list[Cond] = []
        for w in phases:
            p = self.phase(w)
            out += [*p.effects, *(u.effect for u in p.updates)]
        return out

    def adds(self) -> tuple[Atom, ...]:
        """Atoms it may make true (optimistically: guarded updates included)."""
        return self._adds

    @cached_property
    def _adds(self) -> tuple[Atom, ...]:
        return tuple(dict.fromkeys(a for a, pos in self.effect_literals() if pos))


def may_make(a: GroundAction, atom: Atom, positive: bool) -> list[str]:
    """The phases at which ``a`` may make ``atom`` true (``positive``) or false. A happening that deletes and
    unconditionally adds a fact adds it (deletes, then adds)."""
    out = []
    for when in ("start", "end"):
        p = a.phase(when)
        lits = [*p.effects, *(u.effect for u in p.updates)]
        if positive and (atom, True) in lits:
            out.append(when)
        elif not positive and (atom, False) in lits and (atom, True) not in p.effects:
            out.append(when)
    return out


def surely_makes(a: GroundAction, atom: Atom, positive: bool) -> list[str]:
    """The phases at which ``a`` certainly makes ``atom`` take that value (an unconditional effect and no effect,
    guarded or not, the other way in that happening)."""
    out = []
    for when in ("start", "end"):
        p = a.phase(when)
        lits = [*p.effects, *(u.effect for u in p.updates)]
        if (atom, positive) in p.effects and (atom, not positive) not in lits:
            out.append(when)
    return out


def resource_fluents(schema: ActionSchema, binding: Mapping[str, str]) -> list[Atom]:
    return ([("idle", binding[g]) for g in schema.occupies] + [("appliance-free", binding[a]) for a in
            schema.appliances] + [("free", c) for c in schema.capacities])


_OBJECT_KINDS = ("item", "place", "thing")


class _Pruned(Exception):
    """The ground action can never happen (a condition is constantly false, or an endpoint names nothing)."""


class Grounder:
    """Grounds schemas of one instance against the replayed state at the decision time."""

    def __init__(self, reg: Registries, inst: Instance, state: ReplayResult):
        self.reg, self.inst, self.state = reg, inst, state
        self.rules = HygieneRules(reg, dict(inst.objects), inst.hazards)
        self.carriers = frozenset(self.rules.carriers())
        statics = frozenset(static_facts(reg, dict(inst.objects)))
        changed = {lit.predicate for name in (*inst.actions, *(rec.name for rec in state.ongoing))
                   for lit in _effect_literals(reg.actions[name])}
        known = {p for p, _ in reg.predicates} | {"graspable"}
        self.constant = frozenset(known - changed)
        self.now = frozenset(state.facts) | statics
        self.counted = dict(reg.counted)
        self.capacity = {o: reg.object_types[ty].capacity for o, ty in inst.objects
                         if reg.object_types[ty].capacity is not None}

    def literal(self, lit: Literal, binding: Mapping[str, str]) -> Cond | bool:
        """A ground condition, or its truth value when it can no longer change."""
        pred = lit.atom[0]
        atom = (pred, *(binding[a[1:]] if a[0] == "?" else a for a in lit.atom[1:]))
        counted = self.counted.get(pred)
        if counted is not None:
            cap = self.capacity.get(atom[1])
            if cap is None:
                return lit.positive  # no capacity: always room
            return (ROOM, counted, atom[1], str(cap)), lit.positive
        if pred in self.constant:
            return (atom in self.now) == lit.positive
        return atom, lit.positive

    def bindings(self, schema: ActionSchema) -> Iterator[dict[str, str]]:
        """Parameter bindings (distinct objects for distinct object parameters: nothing is placed on or poured
        into itself) whose conditions over predicates that can no longer change hold, in product order."""
        params = schema.parameters
        position = {p: i for i, (p, _) in enumerate(params)}
        checks: list[list[Literal]] = [[] for _ in params]
        for lit in (*schema.cond_start, *schema.cond_overall, *schema.cond_end):
            if lit.predicate in self.constant and lit.predicate not in self.counted:
                places = [position.get(a[1:]) for a in lit.args if a.startswith("?")]
                if places and None not in places:
                    checks[max(places)].append(lit)
        domains = [self.domain(kind) for _, kind in params]
        binding: dict[str, str] = {}
        taken: set[str] = set()

        def extend(i: int) -> Iterator[dict[str, str]]:
            if i == len(params):
                yield dict(binding)
                return
            name, kind = params[i]
            is_object = kind in _OBJECT_KINDS
            for value in domains[i]:
                if is_object and value in taken:
                    continue
                binding[name] = value
                if all(self.literal(lit, binding) is not False for lit in checks[i]):
                    if is_object:
                        taken.add(value)
                    yield from extend(i + 1)
                    if is_object:
                        taken.discard(value)
            binding.pop(name, None)

        return extend(0)

    def domain(self, kind: str) -> list[str]:
        if kind == "gripper":
            return list(self.reg.grippers)
        if kind in _OBJECT_KINDS:
            return [o for o, ty in self.inst.objects if self.reg.object_types[ty].is_kind(kind)]
        if kind == "region":
            return sorted({r.name for _, ty in self.inst.objects for r in self.reg.object_types[ty].regions})
        return []

    def guard(self, lits: Sequence[Literal], binding: Mapping[str, str]) -> tuple[Cond, ...] | None:
        """The guard's conditions that can still change, or None when it is constantly false."""
        out: list[Cond] = []
        for lit in lits:
            c = self.literal(lit, binding)
            if c is False:
                return None
            if c is not True and c not in out:
                out.append(c)
        return tuple(out)

    def conditions(self, lits: Sequence[Literal], binding: Mapping[str, str], strict: bool) -> list[Cond]:
        out: list[Cond] = []
        for lit in lits:
            c = self.literal(lit, binding)
            if c is False:
                if strict:
                    raise _Pruned
                out.append((NEVER, True))
            elif c is not True and c not in out:
                out.append(c)
        return out

    def each(self, forall: Binder, binding: Mapping[str, str]) -> list[dict[str, str]]:
        out = [dict(binding)]
        for var, kind in forall:
            names = self.rules.objects_of(kind)
            out = [{**b, var: n} for b in out for n in names]
        return out

    def _guarded(self, spec, binding: Mapping[str, str]) -> Iterator[tuple[dict[str, str], tuple[Cond, ...]]]:  # noqa: ANN001
        """The bindings of a contact, treatment or update's quantified variables whose guard can still hold, with
        the guard's conditions that can still change."""
        for b in self.each(spec.forall, binding):
            guard = self.guard(spec.guard, b)
            if guard is not None:
                yield b, guard

    def _carriers(self, ep, b: Mapping[str, str], quantified: bool) -> list[Carrier] | None:  # noqa: ANN001
        """The carriers an endpoint names, or None for a quantified binding that names nothing."""
        try:
            found = self.rules.ground_all(ep, b)
        except (ValueError, KeyError):
            found = None
        if found is None or any(c not in self.carriers for c in found):
            if quantified:
                return None
            raise _Pruned
        return found

    def _crossing(self, x: Carrier, y: Carrier) -> bool:
        return any(self.rules.crosses(h, x, y) or self.rules.crosses(h, y, x) for h in self.rules.hazards)

    def _removes_any(self, treatment: str, c: Carrier) -> bool:
        return any(self.rules.removes(treatment, c, h) for h in self.rules.hazards)

    def ground(self, schema: ActionSchema, binding: Mapping[str, str], strict: bool = True) -> GroundAction | None:
        """One ground action, or None when it can never happen. With ``strict=False`` (an action already
        running) a constantly false condition is kept as :data:`NEVER` instead."""
        try:
            return self._ground(schema, binding, strict)
        except _Pruned:
            return None

    def _ground(self, schema: ActionSchema, binding: Mapping[str, str], strict: bool) -> GroundAction:
        cond = {w: self.conditions(lits, binding, strict) for w, lits in
                (("start", schema.cond_start), ("overall", schema.cond_overall), ("end", schema.cond_end))}
        contacts: dict[str, list[Contact]] = {"start": [], "end": []}
        for c in schema.contacts:
            for b, guard in self._guarded(c, binding):
                xs, ys = self._carriers(c.a, b, bool(c.forall)), self._carriers(c.b, b, bool(c.forall))
                if xs is None or ys is None or xs[0] == ys[0] or not self._crossing(xs[0], ys[0]):
                    continue  # a carrier touching itself does nothing; nor does a contact nothing can cross
                contact = Contact(xs[0], ys[0], guard, not getattr(c, "exempt", False))
                if contact not in contacts[c.when]:
                    contacts[c.when].append(contact)
        treats: dict[str, list[Treat]] = {"start": [], "end": []}
        for t in schema.treats:
            for b, guard in self._guarded(t, binding):
                for target in self._carriers(t.target, b, bool(t.forall)) or ():
                    use = Treat(t.treatment, target, guard)
                    if self._removes_any(t.treatment, target) and use not in treats[t.when]:
                        treats[t.when].append(use)
        res = resource_fluents(schema, binding)
        effects: dict[str, list[Cond]] = {
            "start": [(r, False) for r in res] + [(lit.ground(binding).atom, lit.positive) for lit in schema.eff_start],
            "end": [(r, True) for r in res] + [(lit.ground(binding).atom, lit.positive) for lit in schema.eff_end]}
        updates: dict[str, list[Update]] = {"start": [], "end": []}
        for u in schema.updates:
            for b, guard in self._guarded(u, binding):
                for lit in u.effects:
                    g = lit.ground(b)
                    if guard:
                        updates[u.when].append(Update((g.atom, g.positive), guard))
                    else:
                        effects[u.when].append((g.atom, g.positive))
        return GroundAction(
            name=schema.name, args=tuple(binding[p] for p in schema.param_names), duration=schema.duration,
            grippers=tuple(binding[g] for g in schema.occupies),
            cond_start=tuple((r, True) for r in res) + tuple(cond["start"]), cond_overall=tuple(cond["overall"]),
            cond_end=tuple(cond["end"]), eff_start=tuple(dict.fromkeys(effects["start"])),
            eff_end=tuple(dict.fromkeys(effects["end"])), contacts_start=tuple(contacts["start"]),
            contacts_end=tuple(contacts["end"]), treats_start=tuple(treats["start"]), treats_end=tuple(treats["end"]),
            consumes=schema.consumes, costs=schema.costs, updates_start=tuple(updates["start"]),
            updates_end=tuple(updates["end"]))


def _effect_literals(schema: ActionSchema) -> list[Literal]:
    return [*schema.eff_start, *schema.eff_end, *(lit for u in schema.updates for lit in u.effects)]


def ground(reg: Registries, inst: Instance, state: ReplayResult, schema: ActionSchema,
           binding: Mapping[str, str]) -> GroundAction | None:
    """One ground action against the replayed state, or None when it can never happen."""
    return Grounder(reg, inst, state).ground(schema, binding)


#: The replay's resource kinds ("gripper:left", "appliance:stove", "capacity:sink") -> the fluent saying it is free.
_FREE_PREDICATE = {"gripper": "idle", "appliance": "appliance-free", "capacity": "free"}


def free_fluent(resource: str) -> Atom:
    """The fluent that says a replay resource (``ReplayResult.busy_until`` key) is free."""
    kind, _, name = resource.partition(":")
    return (_FREE_PREDICATE[kind], name)


def initial_fluents(reg: Registries, inst: Instance, state: ReplayResult) -> set[Atom]:
    """The replayed physical facts plus free grippers, appliances and capacities at the decision time."""
    busy = {free_fluent(r) for r, _ in state.busy_until}
    caps = {c for a in inst.actions for c in reg.actions[a].capacities}
    resources = ({("idle", g) for g in reg.grippers}
                 | {("appliance-free", o) for o, ty in inst.objects if reg.object_types[ty].is_place}
                 | {("free", c) for c in caps})
    return set(state.facts) | (resources - busy)


@dataclass(frozen=True)
class Ongoing:
    """A history action still running at the decision time: its end happening as an end-only ground action
    (no plan step, no cost) at ``end`` (relative to the decision time), its over-all conditions kept until then."""

    action: GroundAction
    end: int
    record: HistoryRecord


def ongoing_actions(reg: Registries, inst: Instance, state: ReplayResult) -> list[Ongoing]:
    """The history actions still running at the decision time, in the order the evaluator ends them at equal
    times."""
    grounder = Grounder(reg, inst, state)
    out = []
    for rec in state.ongoing:
        schema = reg.actions[rec.name]
        ga = grounder.ground(schema, dict(zip(schema.param_names, rec.args, strict=True)), strict=False)
        assert ga is not None  # strict=False never prunes
        pseudo = replace(ga, name=f"ongoing:{ga.name}", duration=0, grippers=(), cond_start=(), eff_start=(),
                         contacts_start=(), treats_start=(), updates_start=(), consumes=(), costs=())
        out.append(Ongoing(pseudo, rec.end - inst.decision_time, rec))
    return sorted(out, key=lambda o: (o.end, -o.record.index))


def reachable_facts(actions: Iterable[GroundAction], init: set[Atom]) -> tuple[set[Atom], list[GroundAction]]:
    """Forward delete-relaxed reachability (positive conditions only, guards optimistic, derived conditions
    ignored): every fact that can ever hold and the actions that can ever happen."""
    candidates = list(actions)
    reached = set(init)
    usable: list[GroundAction] = []
    done: set[int] = set()
    changed = True
    while changed:
        changed = False
        for i, ga in enumerate(candidates):
            if i in done:
                continue
            if all(a in reached for a, pos in ga.conditions if pos and not is_derived(a)):
                usable.append(ga)
                done.add(i)
                new = set(ga.adds()) - reached
                if new:
                    reached |= new
                    changed = True
    order = {id(ga): i for i, ga in enumerate(candidates)}
    return reached, sorted(usable, key=lambda ga: order[id(ga)])


def _prune_guards(ga: GroundAction, reached: set[Atom]) -> GroundAction | None:
    """Conditions and guards decided by reachability: a positive one over a fact that can never hold is false
    (the action, or the guarded contact/treatment/update, never happens), a negative one is true."""

    def simplify(conds: Iterable[Cond]) -> tuple[Cond, ...] | None:
        out = []
        for atom, pos in conds:
            if is_derived(atom) or atom in reached:
                out.append((atom, pos))
            elif pos:
                return None
        return tuple(out)

    def keep(items: tuple) -> tuple:
        out = []
        for x in items:
            g = simplify(x.guard)
            if g is None:
                continue
            if isinstance(x, Update) and not g:
                continue  # handled by the caller (becomes unconditional)
            out.append(replace(x, guard=g))
        return tuple(out)

    conds = [simplify(c) for c in (ga.cond_start, ga.cond_overall, ga.cond_end)]
    if any(c is None for c in conds):
        return None
    eff = {w: list(getattr(ga, f"eff_{w}")) for w in ("start", "end")}
    for w in ("start", "end"):
        for u in getattr(ga, f"updates_{w}"):
            g = simplify(u.guard)
            if g is not None and not g:
                eff[w].append(u.effect)
    return replace(ga, cond_start=conds[0], cond_overall=conds[1], cond_end=conds[2],
                   eff_start=tuple(dict.fromkeys(eff["start"])), eff_end=tuple(dict.fromkeys(eff["end"])),
                   contacts_start=keep(ga.contacts_start), contacts_end=keep(ga.contacts_end),
                   treats_start=keep(ga.treats_start), treats_end=keep(ga.treats_end),
                   updates_start=keep(ga.updates_start), updates_end=keep(ga.updates_end))


def reachable_init(reg: Registries, inst: Instance, state: ReplayResult) -> set[Atom]:
    """The facts true at the decision time plus what the ongoing history actions may add when they end."""
    return initial_fluents(reg, inst, state) | {a for o in ongoing_actions(reg, inst, state) for a in o.action.adds()}


def reachable_actions(reg: Registries, inst: Instance, state: ReplayResult) -> list[GroundAction]:
    """Every ground action of the instance's K that can happen from the replayed state: no plan uses any other
    (delete-relaxed reachability over-approximates what can ever hold), and its guards are decided where
    reachability decides them."""
    grounder = Grounder(reg, inst, state)
    candidates = []
    for name in sorted(inst.actions):
        schema = reg.actions[name]
        for binding in grounder.bindings(schema):
            ga = grounder.ground(schema, binding)
            if ga is not None:
                candidates.append(ga)
    reached, usable = reachable_facts(candidates, reachable_init(reg, inst, state))
    return [p for p in (_prune_guards(ga, reached) for ga in usable) if p is not None]


def ground_all(reg: Registries, inst: Instance, state: ReplayResult, focus: bool = False) -> list[GroundAction]:
    """Ground actions of the instance's K that can happen from the replayed state (:func:`reachable_actions`);
    with ``focus`` (Hygiene-NSP's grounding, paper §IV-A) only near-cheapest achievers (:func:`focused`), a
    heuristic that is never the basis of a claim."""
    usable = reachable_actions(reg, inst, state)
    return focused(reg, inst, usable, reachable_init(reg, inst, state)) if focus else usable


#: Achievers kept per needed fact: those at most this many relaxed layers above the cheapest one.
SLACK = 1


def focused(reg: Registries, inst: Instance, usable: list[GroundAction], init: set[Atom]) -> list[GroundAction]:
    """Backward from the goals: for each needed condition that does not hold in ``init`` (now, or once the ongoing
    history actions end), its achievers (deleters, for a
    negative one) within ``SLACK`` relaxed layers of the cheapest; their conditions are needed in turn. Treatments
    of the carriers the kept actions touch and of the regions of ``(safe o)`` goals are kept too, and what they
    need (guards included). A planner heuristic, not a completeness claim: Hygiene-NSP proves its answers over
    every reachable action (docs/planners.md)."""
    relaxed = RelaxedPlanner(usable)
    level = relaxed.levels(init)
    deleters: dict[Atom, list[int]] = {}
    for i, ga in enumerate(usable):
        for a, pos in ga.effect_literals():
            if not pos:
                deleters.setdefault(a, []).append(i)
    rules = HygieneRules(reg, dict(inst.objects), inst.hazards)
    kept: dict[int, None] = {}
    needed: set[Cond] = set()
    goals: list[Cond] = [(g, True) for g in inst.goals if g[0] != "safe"]
    todo: list[Cond] = list(goals)
    touched = {c for g in inst.goals if g[0] == "safe" for c, _ in rules.unsafe_facts(g[1])}

    def keep(i: int) -> None:
        if i in kept:
            return
        kept[i] = None
        ga = usable[i]
        todo.extend(c for c in (*ga.conditions, *ga.guards) if not is_derived(c[0]))
        touched.update(c for x in ga.contacts for c in x.pair)

    broken: set[Cond] = set()  # over-all conditions that hold now but a kept action may undo: achievers too
    while True:
        while todo:
            cond = todo.pop()
            if cond in needed:
                continue
            needed.add(cond)
            atom, pos = cond
            if (atom in init) == pos and cond not in broken:
                continue
            pool = relaxed.achievers.get(atom, ()) if pos else deleters.get(atom, ())
            achievers = [i for i in pool if i in level]
            if achievers:
                best = min(level[i] for i in achievers)
                for i in achievers:
                    if level[i] <= best + SLACK:
                        keep(i)
        more = [i for i, ga in enumerate(usable) if i not in kept and any(t.target in touched for t in ga.treats)]
        undone = {(a, not pos) for i in kept for a, pos in usable[i].effect_literals()}
        # what holds now but a kept action may undo: over-all conditions (a door opened to load must be shut to
        # run) and goals (a wash wets what must end dry)
        again = {c for c in (*(c for i in kept for c in usable[i].cond_overall), *goals)
                 if c in undone and (c[0] in init) == c[1] and c not in broken}
        if not more and not again:
            break
        for i in more:
            keep(i)
        broken |= again
        needed -= again
        todo.extend(again)
    return [usable[i] for i in sorted(kept)]


class RelaxedPlanner:
    """FF-style relaxed plans over a fixed action list (delete effects, guards and hygiene ignored), with each
    action's positive conditions and adds and each fact's achievers indexed once for repeated calls.

    With ``precise`` (the sequential search's heuristic, planners/greedy.py), a negative condition ``(not p)``
    is a fact of its own (the usual compilation: it holds initially when ``p`` does not, and an action that may
    delete ``p`` adds it), and a guarded effect is a conditional effect: a unit of its own that needs the
    action's conditions and its guard. Opening a closed door then counts for what needs it open, and a dryer
    dries only what was loaded into it. Plans are over units; an action is counted once."""

    def __init__(self, actions: list[GroundAction], precise: bool = False):
        self.actions, self.precise = actions, precise
        self.negated: set[Atom] = set()
        units: list[tuple[int, tuple[Atom, ...], tuple[Atom, ...]]] = []  # (action, needs, adds)
        for i, ga in enumerate(actions):
            needs = [a for a, pos in ga.conditions if pos and not is_derived(a)]
            if not precise:
                units.append((i, tuple(dict.fromkeys(needs)), tuple(ga.adds())))
                continue
            needs += [_negation(a) for a, pos in ga.conditions if not pos and not is_derived(a)]
            sure = [(a, pos) for w in ("start", "end") for a, pos in ga.phase(w).effects]
            units.append((i, tuple(dict.fromkeys(needs)), _literal_facts(sure)))
            for u in ga.updates:
                guard = [a for a, pos in u.guard if pos and not is_derived(a)]
                guard += [_negation(a) for a, pos in u.guard if not pos and not is_derived(a)]
                units.append((i, tuple(dict.fromkeys(needs + guard)), _literal_facts([u.effect])))
        if precise:
            self.negated = {atom[1:] for _, needs, _ in units for atom in needs if atom[0] == "not"}
        self.unit_action = [i for i, _, _ in units]
        self.needs = [needs for _, needs, _ in units]
        self.adds = [tuple(a for a in adds if a[0] != "not" or a[1:] in self.negated) for _, _, adds in units]
        self.first_unit = {i: k for k, i in reversed(list(enumerate(self.unit_action)))}
        self.guard_needs = [tuple(dict.fromkeys(a for a, pos in ga.guards if pos and not is_derived(a)))
                            for ga in actions]
        self.achievers: dict[Atom, list[int]] = {}
        for k, adds in enumerate(self.adds):
            for a in adds:
                self.achievers.setdefault(a, []).append(k)
        self.readers: dict[Atom, list[int]] = {}
        for k, needs in enumerate(self.needs):
            for a in needs:
                self.readers.setdefault(a, []).append(k)
        # the same as matrices over atom indices (units x atoms), for :meth:`_layers`
        self.atom_index = {a: k for k, a in enumerate(dict.fromkeys(
            [*self.readers, *(a for adds in self.adds for a in adds)]))}
        n_units, n_atoms = len(self.needs), len(self.atom_index)
        self._need = np.zeros((n_units, n_atoms), dtype=np.int32)
        self._add = np.zeros((n_units, n_atoms), dtype=bool)
        for k, needs in enumerate(self.needs):
            self._need[k, [self.atom_index[a] for a in needs]] = 1
            self._add[k, [self.atom_index[a] for a in self.adds[k]]] = True
        self._need_count = self._need.sum(axis=1)
        self._negation_index = {a: self.atom_index[_negation(a)] for a in self.negated
                                if _negation(a) in self.atom_index}
        self._negations = np.zeros(n_atoms, dtype=bool)
        self._negations[list(self._negation_index.values())] = True

    def _initial(self, init: set[Atom]) -> set[Atom]:
        """``init`` with the negation facts that hold in it."""
        if not self.negated:
            return init
        return set(init) | {_negation(a) for a in self.negated if a not in init}

    def levels(self, init: set[Atom]) -> dict[int, int]:
        """h_max layer of every reachable unit (by index; a unit is an action unless ``precise``): a unit is in
        the layer after the one that reaches the last of its conditions."""
        layers = self._layers(init)
        return {k: int(v) for k, v in enumerate(layers) if v >= 0}

    def _layers(self, init: set[Atom]) -> list[int]:
        """:meth:`levels` as a list over the units (-1: unreachable), layer by layer over the need and add
        matrices: the units whose needs are all reached, then the atoms they add."""
        reached = self._negations.copy()  # a negation fact holds unless its atom does
        index = self.atom_index
        for a in init:
            k = index.get(a)
            if k is not None:
                reached[k] = True
            k = self._negation_index.get(a)
            if k is not None:
                reached[k] = False
        missing = self._need_count - self._need @ reached
        level = np.full(len(self.needs), -1)
        current = missing == 0
        layer = 0
        while current.any():
            level[current] = layer
            new = self._add[current].any(axis=0) & ~reached
            if not new.any():
                break
            reached |= new
            missing = missing - self._need[:, new].sum(axis=1)
            current = (missing == 0) & (level < 0)
            layer += 1
        return level.tolist()

    def plan(self, init: set[Atom], goals: Iterable[Atom],
             treatments: Iterable[Sequence[tuple[int, tuple[Atom, ...]]]] = ()) -> list[GroundAction] | None:
        """Backward from the goals, each needed fact's earliest achiever by h_max layer; ``None`` when a goal
        is unreachable even in the relaxation. Each of ``treatments`` lists the ways (an action's index and
        the guard its treatment needs, :func:`treatment_options`) to remove one hazard the goals need gone:
        the earliest (h_max layer, then index) is chosen, what it needs joins the goals (every guard of the
        action unless ``precise``), and it comes after the backward plan's actions."""
        layers = self._layers(init)
        level = {k: v for k, v in enumerate(layers) if v >= 0}
        init = self._initial(init)
        goals = [g for g in goals if g[0] != "safe"]
        treating: list[int] = []
        for options in treatments:
            reach = [(i, guard) for i, guard in options if self.first_unit[i] in level]
            if not reach:
                return None
            if self.precise:  # one action may treat several carriers: reuse it, and its guard for each
                best, guard = min(reach, key=lambda o: (o[0] not in treating, level[self.first_unit[o[0]]], o[0]))
                goals += [*self.needs[self.first_unit[best]], *guard]
            else:
                best, _ = min(reach, key=lambda o: (level[self.first_unit[o[0]]], o[0]))
                if best not in treating:
                    goals += [*self.needs[self.first_unit[best]], *self.guard_needs[best]]
            if best not in treating:
                treating.append(best)
        chosen: list[int] = []
        todo, seen = goals, set()
        while todo:
            atom = todo.pop()
            if atom in seen or atom in init:
                continue
            seen.add(atom)
            achievers = [k for k in self.achievers.get(atom, ()) if k in level]
            if not achievers:
                return None
            best = min(achievers, key=level.__getitem__)
            if best not in chosen:
                chosen.append(best)
                todo += list(self.needs[best])
        used = list(dict.fromkeys(self.unit_action[k] for k in chosen))
        return [self.actions[i] for i in used + [i for i in treating if i not in used]]


def _negation(atom: Atom) -> Atom:
    """The relaxation's fact for ``(not atom)``."""
    return ("not", *atom)


def _literal_facts(literals: Iterable[Cond]) -> tuple[Atom, ...]:
    """The relaxation's facts made by literal effects: the added atoms, and a deleted one's negation."""
    return tuple(dict.fromkeys(a if pos else _negation(a) for a, pos in literals))


def treatment_options(rules: HygieneRules, actions: Sequence[GroundAction], facts: Iterable[tuple[Carrier, str]]
                      ) -> dict[tuple[Carrier, str], list[tuple[int, tuple[Atom, ...]]]]:
    """For each (carrier, hazard) fact, the actions (by index) with a treatment of the carrier that removes it,
    each with the positive atoms of that treatment's guard."""
    out: dict[tuple[Carrier, str], list[tuple[int, tuple[Atom, ...]]]] = {}
    for c, h in facts:
        out[(c, h)] = []
        for i, ga in enumerate(actions):
            treat = next((t for t in ga.treats if t.target == c and rules.removes(t.treatment, c, h)), None)
            if treat is not None:
                out[(c, h)].append((i, tuple(a for a, pos in treat.guard if pos and not is_derived(a))))
    return out


def relaxed_service(reg: Registries, inst: Instance, state: ReplayResult, actions: list[GroundAction]
                    ) -> list[GroundAction] | None:
    """An FF-style relaxed plan for the goals: the physical ones, and for every hazard a ``(safe o)`` goal's
    regions carry now, the earliest (h_max) treatment that may remove it and what that needs (guards included).
    ``None`` when a goal is unreachable even relaxed. Its length estimates Hygiene-NSP's action bound."""
    rules = HygieneRules(reg, dict(inst.objects), inst.hazards)
    carried = state.carried()
    dirty = [(c, h) for g in inst.goals if g[0] == "safe" for c, h in rules.unsafe_facts(g[1])
             if h in carried.get(c, ())]
    options = treatment_options(rules, actions, dirty)
    return RelaxedPlanner(actions).plan(reachable_init(reg, inst, state), inst.goals, [options[f] for f in dirty])


def relaxed_plan(actions: list[GroundAction], init: set[Atom], goals: Iterable[Atom]) -> list[GroundAction] | None:
    """An FF-style relaxed plan for the physical goals (:class:`RelaxedPlanner`). Its length estimates how many
    service actions a plan needs (Hygiene-NSP's bound)."""
    return RelaxedPlanner(actions).plan(init, goals)

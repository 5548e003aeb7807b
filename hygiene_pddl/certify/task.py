"""The exact search's own compiled form of one continuation task (docs/certification.md, "Semantics").

Independent of the planners' grounding: every ground action of K is compiled from the registry schemas into two
happenings whose conditions, guarded and quantified contacts, treatments and literal updates are bit masks over
the dynamic atoms and over (carrier, hazard) pairs, so that applying a happening (docs/world-model-v2.md §1: read
the pre-state, deletes then adds, treatments then contact transfers) is a few integer operations. The hygiene
questions (crossing, protection, removal, regions of a role, room) are asked of :class:`HygieneRules`; the state at
the decision time is the shared replay's (:class:`hygiene_pddl.replay.World` after ``run_history``).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from hygiene_pddl.costs import DIMENSIONS
from hygiene_pddl.hygiene import HygieneRules
from hygiene_pddl.instances.model import Carrier, HistoryRecord, Instance
from hygiene_pddl.literals import Atom, Literal
from hygiene_pddl.registries import Registries
from hygiene_pddl.registries.model import ActionSchema, Endpoint
from hygiene_pddl.replay import World

#: The dimensions a step adds to (all but makespan), in canonical order.
ADDITIVE: tuple[str, ...] = DIMENSIONS[:-1]
OBJECT_KINDS = ("item", "place", "thing")

#: A condition: (atoms that must be true, atoms that must be false, derived room tests (inside mask, capacity,
#: wanted truth)). ``None`` where a condition is used means "always true".
Cond = tuple[int, int, tuple[tuple[int, int, bool], ...]]
TRUE: Cond = (0, 0, ())
NEVER: Cond = (0, 0, ((0, 0, True),))  # "fewer than 0 counted atoms": never holds


def holds(cond: Cond, facts: int) -> bool:
    pos, neg, rooms = cond
    if facts & pos != pos or facts & neg:
        return False
    for mask, cap, want in rooms:
        if ((facts & mask).bit_count() < cap) != want:
            return False
    return True


@dataclass(frozen=True)
class Contact:
    """One ground contact: hazards crossing from a to b (``cross_ab``) and back; ``prot_*`` are the hazards whose
    arrival is a violation (none for an exempt contact)."""

    guard: Cond | None
    a: int  # carrier index
    b: int
    cross_ab: int
    cross_ba: int
    prot_a: int
    prot_b: int


@dataclass(frozen=True)
class Treat:
    guard: Cond | None
    carrier: int
    removes: int  # hazard mask removed from the carrier


@dataclass(frozen=True)
class Update:
    guard: Cond
    dels: int
    adds: int


@dataclass(frozen=True)
class Phase:
    """One happening (the start or the end of a ground action)."""

    cond: Cond
    dels: int
    adds: int
    updates: tuple[Update, ...]
    contacts: tuple[Contact, ...]
    treats: tuple[Treat, ...]
    broken: tuple[Cond | None, ...]  # a contact/treatment naming a region its object lacks: impossible if it fires
    reads: int  # atoms read (conditions, the action's over-all condition, guards, counted atoms of room tests)
    writes: int  # atoms possibly written (effects and every update)
    carriers: int  # carriers touched or treated (bit per carrier)

    @property
    def may_add(self) -> int:
        return self.adds | _union(u.adds for u in self.updates)

    @property
    def may_del(self) -> int:
        return self.dels | _union(u.dels for u in self.updates)


def _union(masks: Iterable[int]) -> int:
    out = 0
    for m in masks:
        out |= m
    return out


@dataclass(frozen=True)
class GroundAction:
    index: int
    name: str
    args: tuple[str, ...]
    duration: int
    resources: int  # bit mask over Task.resources
    consumes: tuple[tuple[int, int], ...]  # (stock index, amount)
    additive: tuple[int, ...]  # per ADDITIVE dimension
    start: Phase
    end: Phase
    overall: Cond
    history: int = -1  # the history record index of an ongoing action, else -1

    def text(self) -> str:
        return "(" + " ".join((self.name, *self.args)) + ")"


@dataclass
class Task:
    """A continuation task in the exact search's terms (times relative to the decision time)."""

    rules: HygieneRules
    atoms: list[Atom]
    carriers: list[Carrier]
    hazards: list[str]
    resources: list[str]
    stock_names: tuple[str, ...]
    facts: int
    contam: int
    stocks: tuple[int, ...]
    actions: list[GroundAction]
    ongoing: list[tuple[GroundAction, int]]  # (compiled ongoing history action, its end)
    goal: Cond
    unsafe: int  # contamination bits that the (safe x) goals forbid
    horizon: int
    gripper_resources: int  # bit mask of the gripper resources
    notes: list[str] = field(default_factory=list)
    prior_violations: int = 0
    static: frozenset[Atom] = frozenset()  # true atoms of predicates no action of K changes

    def index_atom(self, atom: Atom) -> int:
        """The bit of an atom, adding it (never true, no action touches it) when it is new."""
        if not hasattr(self, "_atom_index"):
            self._atom_index = {a: i for i, a in enumerate(self.atoms)}
        if atom not in self._atom_index:
            self._atom_index[atom] = len(self.atoms)
            self.atoms.append(atom)
        return self._atom_index[atom]

    @property
    def H(self) -> int:  # noqa: N802 - hazards per carrier
        return len(self.hazards)

    def bit(self, c: int, h: int) -> int:
        return 1 << (c * self.H + h)

    def atom_names(self, mask: int) -> list[Atom]:
        return [a for i, a in enumerate(self.atoms) if mask >> i & 1]

    def contamination(self, mask: int) -> list[tuple[Carrier, str]]:
        H = self.H
        return [(self.carriers[i // H], self.hazards[i % H]) for i in range(len(self.carriers) * H) if mask >> i & 1]


class _Compiler:
    """Grounds schemas against one instance; keeps the atom, carrier and resource indices."""

    def __init__(self, reg: Registries, inst: Instance, world: World):
        self.reg, self.inst, self.world, self.rules = reg, inst, world, world.rules
        self.objects = dict(inst.objects)
        self.carriers = list(self.rules.carriers())
        self.carrier_index = {c: i for i, c in enumerate(self.carriers)}
        self.hazards = sorted({h for hs in world.contamination.values() for h in hs})
        self.H = len(self.hazards)
        self.atoms: list[Atom] = []
        self.atom_index: dict[Atom, int] = {}
        self.resources: list[str] = []
        changed = {lit.predicate for a in inst.actions for lit in _effect_literals(reg.actions[a])}
        self.counted = dict(reg.counted)
        self.static_preds = {p for p, _ in reg.predicates} - changed - set(self.counted)
        self.static_true = {a for a in (*world.static, *world.facts) if a[0] in self.static_preds}
        self.room_static = {d for d, p in self.counted.items() if p not in changed}

    # --- indices ------------------------------------------------------------------------------------------
    def atom(self, a: Atom) -> int:
        if a not in self.atom_index:
            self.atom_index[a] = len(self.atoms)
            self.atoms.append(a)
        return 1 << self.atom_index[a]

    def resource(self, name: str) -> int:
        if name not in self.resources:
            self.resources.append(name)
        return 1 << self.resources.index(name)

    # --- literals -------------------------------------------------------------------------------------------
    def cond(self, lits: Iterable[Literal], binding: Mapping[str, str]) -> Cond | None:
        """The dynamic part of a conjunction, or None when a static literal is false."""
        pos = neg = 0
        rooms: list[tuple[int, int, bool]] = []
        for lit in lits:
            g = lit.ground(binding)
            if g.predicate in self.counted:
                container = g.args[0]
                if g.predicate in self.room_static:
                    if self.rules.has_room(container, self.world.facts, self.counted[g.predicate]) != g.positive:
                        return None
                    continue
                cap = self._capacity(container)
                if cap is None:  # no capacity: always room
                    if not g.positive:
                        return None
                    continue
                rooms.append((self._counted_mask(g.predicate, container), cap, g.positive))
            elif g.predicate in self.static_preds:
                if (g.atom in self.static_true) != g.positive:
                    return None
            elif g.positive:
                pos |= self.atom(g.atom)
            else:
                neg |= self.atom(g.atom)
        if pos & neg:
            return None
        return (pos, neg, tuple(sorted(set(rooms))))

    def _capacity(self, container: str) -> int | None:
        otype = self.objects.get(container)
        return self.reg.object_types[otype].capacity if otype else None

    def _counted_mask(self, derived: str, container: str) -> int:
        """Every atom ``(counted ? container)`` any action could make true (the counted facts of a room test)."""
        pred = self.counted[derived]
        mask = 0
        for o in self.rules.objects_of("thing"):
            mask |= self.atom((pred, o, container))
        return mask

    def effects(self, lits: Iterable[Literal], binding: Mapping[str, str]) -> tuple[int, int]:
        dels = adds = 0
        for lit in lits:
            g = lit.ground(binding)
            if g.positive:
                adds |= self.atom(g.atom)
            else:
                dels |= self.atom(g.atom)
        return dels, adds

    @staticmethod
    def cond_atoms(c: Cond | None) -> int:
        if c is None:
            return 0
        out = c[0] | c[1]
        for mask, _, _ in c[2]:
            out |= mask
        return out

    # --- quantified bindings ----------------------------------------------------------------------------------
    def bindings(self, forall: Iterable[tuple[str, str]], binding: Mapping[str, str]) -> list[dict[str, str]]:
        out = [dict(binding)]
        for var, kind in forall:
            out = [{**b, var: n} for b in out for n in self.rules.objects_of(kind)]
        return out

    def carrier(self, ep: Endpoint, binding: Mapping[str, str]) -> int | None:
        try:
            c = self.rules.ground(ep, binding)
        except ValueError:
            return None
        return self.carrier_index.get(c)

    def targets(self, ep: Endpoint, binding: Mapping[str, str]) -> list[int] | None:
        try:
            cs = self.rules.ground_all(ep, binding)
        except ValueError:
            return None
        idx = [self.carrier_index.get(c) for c in cs]
        return None if any(i is None for i in idx) else [i for i in idx if i is not None]

    # --- hygiene masks ------------------------------------------------------------------------------------
    def crossing(self, src: int, dst: int) -> int:
        a, b = self.carriers[src], self.carriers[dst]
        return _mask(i for i, h in enumerate(self.hazards) if self.rules.crosses(h, a, b))

    def protected(self, c: int) -> int:
        carrier = self.carriers[c]
        return _mask(i for i, h in enumerate(self.hazards) if self.rules.violates(carrier, h))

    def removal(self, treatment: str, c: int) -> int:
        carrier = self.carriers[c]
        return _mask(i for i, h in enumerate(self.hazards) if self.rules.removes(treatment, carrier, h))

    # --- happenings -----------------------------------------------------------------------------------------
    def phase(self, schema: ActionSchema, binding: Mapping[str, str], when: str, cond: Cond,
              overall: Cond) -> Phase:
        dels, adds = self.effects(schema.eff_start if when == "start" else schema.eff_end, binding)
        reads = self.cond_atoms(cond) | self.cond_atoms(overall)
        writes = dels | adds
        carriers = 0
        broken: list[Cond | None] = []
        updates: list[Update] = []
        for u in schema.updates:
            if u.when != when:
                continue
            for b in self.bindings(u.forall, binding):
                guard = self.cond(u.guard, b)
                if guard is None:
                    continue
                d, a = self.effects(u.effects, b)
                reads |= self.cond_atoms(guard)
                writes |= d | a
                if guard == TRUE:
                    dels, adds = dels | d, adds | a
                else:
                    updates.append(Update(guard, d, a))
        contacts: list[Contact] = []
        for c in schema.contacts:
            if c.when != when:
                continue
            exempt = bool(getattr(c, "exempt", False))
            for b in self.bindings(c.forall, binding):
                guard = self.cond(c.guard, b)
                if guard is None:
                    continue
                reads |= self.cond_atoms(guard)
                x, y = self.carrier(c.a, b), self.carrier(c.b, b)
                if x is None or y is None:
                    broken.append(None if guard == TRUE else guard)
                    continue
                if x == y:
                    continue
                carriers |= 1 << x | 1 << y
                contacts.append(Contact(None if guard == TRUE else guard, x, y, self.crossing(x, y),
                                        self.crossing(y, x), 0 if exempt else self.protected(x),
                                        0 if exempt else self.protected(y)))
        treats: list[Treat] = []
        for t in schema.treats:
            if t.when != when:
                continue
            for b in self.bindings(t.forall, binding):
                guard = self.cond(t.guard, b)
                if guard is None:
                    continue
                reads |= self.cond_atoms(guard)
                targets = self.targets(t.target, b)
                if targets is None:
                    broken.append(None if guard == TRUE else guard)
                    continue
                for c in targets:
                    carriers |= 1 << c
                    removes = self.removal(t.treatment, c)
                    if removes:
                        treats.append(Treat(None if guard == TRUE else guard, c, removes))
        dels &= ~adds  # deletes then adds: an atom in both ends up true
        return Phase(cond, dels, adds, tuple(updates), tuple(contacts), tuple(treats), tuple(broken), reads, writes,
                     carriers)

    def action(self, schema: ActionSchema, binding: Mapping[str, str], index: int,
               history: int = -1) -> GroundAction | None:
        conds = [self.cond(lits, binding) for lits in (schema.cond_start, schema.cond_overall, schema.cond_end)]
        if any(c is None for c in conds):
            return None
        c_start, c_over, c_end = conds
        assert c_start is not None and c_over is not None and c_end is not None
        start = self.phase(schema, binding, "start", c_start, c_over)
        end = self.phase(schema, binding, "end", c_end, c_over)
        if history < 0 and (None in start.broken or None in end.broken):
            return None  # an unguarded contact or treatment names a region the object does not have
        amounts = dict(schema.costs)
        additive = tuple(amounts.get(d, 0) for d in ADDITIVE[:-1]) + ((schema.duration if schema.occupies else 0),)
        resources = 0
        for name in ([f"gripper:{binding[g]}" for g in schema.occupies]
                     + [f"appliance:{binding[a]}" for a in schema.appliances]
                     + [f"capacity:{c}" for c in schema.capacities]):
            resources |= self.resource(name)
        return GroundAction(index, schema.name, tuple(binding[p] for p in schema.param_names), schema.duration,
                            resources, tuple(schema.consumes), additive, start, end, c_over, history)

    def schema_bindings(self, schema: ActionSchema) -> Iterable[dict[str, str]]:
        """Every binding of the parameters: grippers, objects of the right kind (distinct objects for distinct
        object parameters), and for a region parameter the regions of the object(s) it is a region of."""
        plain = [(p, k) for p, k in schema.parameters if k != "region"]
        regions = [p for p, k in schema.parameters if k == "region"]
        owners: dict[str, set[str]] = {r: set() for r in regions}
        for ep in [*(e for c in schema.contacts for e in (c.a, c.b)), *(t.target for t in schema.treats)]:
            if ep.part.startswith("?") and ep.part[1:] in owners:
                owners[ep.part[1:]].add(ep.var)
        all_regions = sorted({r.name for ty in self.objects.values() for r in self.reg.object_types[ty].regions})
        domains = []
        for _, kind in plain:
            if kind == "gripper":
                domains.append(list(self.reg.grippers))
            elif kind in OBJECT_KINDS:
                domains.append(self.rules.objects_of(kind))
            else:
                raise ValueError(f"action {schema.name}: parameter kind {kind!r} is not supported by the exact search")
        objs = [i for i, (_, k) in enumerate(plain) if k in OBJECT_KINDS]
        for values in itertools.product(*domains):
            if len({values[i] for i in objs}) != len(objs):
                continue
            binding = dict(zip((p for p, _ in plain), values, strict=True))
            region_domains = []
            for r in regions:
                names = all_regions
                for var in owners[r]:
                    own = {x.name for x in self.reg.object_types[self.objects[binding[var]]].regions}
                    names = [n for n in names if n in own]
                region_domains.append(names)
            for rvalues in itertools.product(*region_domains):
                yield {**binding, **dict(zip(regions, rvalues, strict=True))}


def _mask(bits: Iterable[int]) -> int:
    out = 0
    for b in bits:
        out |= 1 << b
    return out


def _effect_literals(schema: ActionSchema) -> list[Literal]:
    return [*schema.eff_start, *schema.eff_end, *(lit for u in schema.updates for lit in u.effects)]


def compile_task(reg: Registries, inst: Instance, world: World, ongoing: list[HistoryRecord]) -> Task:
    """The continuation of ``inst`` from the replayed ``world`` (``ongoing``: the history actions still running)."""
    comp = _Compiler(reg, inst, world)
    t0 = inst.decision_time
    H = comp.H
    notes: list[str] = []
    actions: list[GroundAction] = []
    for name in sorted(inst.actions):
        schema = reg.actions[name]
        for binding in comp.schema_bindings(schema):
            ga = comp.action(schema, binding, len(actions))
            if ga is not None:
                actions.append(ga)
    running: list[tuple[GroundAction, int]] = []
    never_ends = False
    for rec in ongoing:
        schema = reg.actions[rec.name]
        ga = comp.action(schema, dict(zip(schema.param_names, rec.args, strict=True)), -1, rec.index)
        if ga is None:
            notes.append(f"ongoing {rec.text()} can never end: a static condition of it is false")
            never_ends = True
            ga = _doomed(rec)
        running.append((ga, rec.end - t0))
    goal_pos = 0
    goal_rooms: list[tuple[int, int, bool]] = []
    unsafe = 0
    feasible_goals = True
    for g in inst.goals:
        if g[0] == "safe":
            for carrier, h in comp.rules.unsafe_facts(g[1]):
                if h in comp.hazards:
                    unsafe |= 1 << (comp.carrier_index[carrier] * H + comp.hazards.index(h))
            continue
        c = comp.cond([Literal(g)], {})
        if c is None:
            feasible_goals = False
            notes.append(f"goal ({' '.join(g)}) is static and false")
            continue
        goal_pos |= c[0]
        goal_rooms += c[2]
    contam = 0
    for carrier, hs in world.contamination.items():
        for h in hs:
            contam |= 1 << (comp.carrier_index[carrier] * H + comp.hazards.index(h))
    facts = 0
    for a in world.facts:
        if a[0] not in comp.static_preds:
            facts |= comp.atom(a)
    stock_names = tuple(sorted(set(world.stocks) | {s for a in inst.actions for s, _ in reg.actions[a].consumes}))
    stock_index = {s: i for i, s in enumerate(stock_names)}
    actions = [_with_stock_indices(a, stock_index) for a in actions]
    running = [(_with_stock_indices(a, stock_index), e) for a, e in running]
    horizon = (world.horizon if world.horizon is not None else inst.horizon) - t0
    grippers = 0
    for g in reg.grippers:
        if f"gripper:{g}" in comp.resources:
            grippers |= 1 << comp.resources.index(f"gripper:{g}")
    goal: Cond = (goal_pos, 0, tuple(goal_rooms)) if feasible_goals and not never_ends else NEVER
    return Task(comp.rules, comp.atoms, comp.carriers, comp.hazards, comp.resources, stock_names, facts, contam,
                tuple(world.stocks.get(s, 0) for s in stock_names), actions, running, goal, unsafe, horizon,
                grippers, notes, len(world.violations), frozenset(comp.static_true))


def _doomed(rec: HistoryRecord) -> GroundAction:
    """An ongoing action whose end can never happen (its end condition is statically false)."""
    phase = Phase(NEVER, 0, 0, (), (), (), (), 0, 0, 0)
    return GroundAction(-1, rec.name, rec.args, rec.duration, 0, (), (0,) * len(ADDITIVE), phase, phase, TRUE,
                        rec.index)


def _with_stock_indices(a: GroundAction, index: Mapping[str, int]) -> GroundAction:
    consumes = tuple((index[s], n) if isinstance(s, str) else (s, n) for s, n in a.consumes)
    return GroundAction(a.index, a.name, a.args, a.duration, a.resources, consumes, a.additive, a.start, a.end,
                        a.overall, a.history)


__all__ = ["ADDITIVE", "NEVER", "TRUE", "Cond", "Contact", "GroundAction", "Phase", "Task", "Treat", "Update",
           "compile_task", "holds"]

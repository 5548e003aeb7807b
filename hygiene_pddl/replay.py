"""History replay (SPEC §4): the state at decision time from the initial conditions and L<=t.

:class:`World` applies happenings with the rules of :mod:`hygiene_pddl.hygiene`; the replay feeds it the
history, and the instance-level evaluator feeds it the same history followed by a plan's steps.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from hygiene_pddl.costs import SUMMED
from hygiene_pddl.errors import InstanceError, Location
from hygiene_pddl.hygiene import HygieneRules, Link, Provenance, Time, chain_text
from hygiene_pddl.instances.model import Carrier, HistoryRecord, Instance
from hygiene_pddl.literals import Atom, Literal, atom_text
from hygiene_pddl.registries import Registries, load_registries
from hygiene_pddl.registries.model import ActionSchema, ContactSpec, TreatmentUse, Update

#: The derived goal predicate: ``(safe o)``.
DERIVED_SAFE = "safe"


@dataclass(frozen=True)
class Violation:
    """A contact that brought ``hazard`` onto a carrier protected against it."""

    time: Time
    step: int
    label: str
    carrier: Carrier
    hazard: str
    provenance: Provenance

    def describe(self) -> str:
        return (f"{self.label} at {self.time}: {self.carrier[0]} {self.carrier[1]} received "
                f"{self.hazard} ({chain_text(self.provenance)})")


@dataclass(frozen=True)
class ContaminationFact:
    carrier: Carrier
    hazard: str
    provenance: Provenance


class PhysicalInconsistency(Exception):
    """A happening whose condition does not hold, or a resource used twice at once."""

    def __init__(self, step: int, message: str, advice: str = ""):
        self.step, self.message, self.advice = step, message, advice
        super().__init__(message)


@dataclass
class World:
    """Mutable world state: physical facts, contamination with provenance, stocks, busy resources."""

    rules: HygieneRules
    facts: set[Atom]
    static: frozenset[Atom]
    stocks: dict[str, int]
    contamination: dict[Carrier, dict[str, Provenance]] = field(default_factory=dict)
    violations: list[Violation] = field(default_factory=list)
    busy: dict[str, tuple[Time, int]] = field(default_factory=dict)  # resource -> (free at, step)
    consumed: dict[str, int] = field(default_factory=dict)
    costs: dict[str, int] = field(default_factory=dict)
    active_time: int = 0
    horizon: int | None = None
    #: contamination changes in order: (time, "+" or "-", carrier, hazard, step)
    log: list[tuple[Time, str, Carrier, str, int]] = field(default_factory=list)

    @classmethod
    def initial(cls, reg: Registries, inst: Instance) -> World:
        rules = HygieneRules(reg, dict(inst.objects), inst.hazards)
        world = cls(rules=rules, facts=set(inst.initial_facts), static=static_facts(reg, dict(inst.objects)),
                    stocks=dict(inst.initial_stocks), horizon=inst.horizon)
        for src in inst.initial_hazards:
            world.contamination.setdefault(src.carrier, {})[src.hazard] = (
                Link(src.carrier, 0, "initial source"),)
        return world

    # --- queries --------------------------------------------------------------------------
    def holds(self, lit: Literal) -> bool:
        """A ground literal in the current state; ``(room c)`` (M5) is derived from the facts it counts."""
        counted = self.rules.reg.counted_predicate(lit.predicate)
        if counted is not None:
            present = self.rules.has_room(lit.args[0], self.facts, counted)
        else:
            present = lit.atom in self.facts or lit.atom in self.static
        return present if lit.positive else not present

    def hazards_on(self, c: Carrier) -> frozenset[str]:
        return frozenset(self.contamination.get(c, {}))

    def goal_holds(self, atom: Atom) -> bool:
        """A goal atom: a physical fact, or ``(safe o)`` (no region of o carries a hazard it is protected against)."""
        if atom[0] == DERIVED_SAFE:
            return not any(h in self.contamination.get(c, {}) for c, h in self.rules.unsafe_facts(atom[1]))
        return atom in self.facts

    def snapshot(self) -> tuple[ContaminationFact, ...]:
        return tuple(ContaminationFact(c, h, p) for c in sorted(self.contamination)
                     for h, p in sorted(self.contamination[c].items()))

    # --- rules in action ------------------------------------------------------------------
    def bindings(self, forall: Iterable[tuple[str, str]], binding: Mapping[str, str]) -> list[dict[str, str]]:
        """The binding extended by every assignment of the quantified variables (objects of their kinds)."""
        out = [dict(binding)]
        for var, kind in forall:
            names = self.rules.objects_of(kind)
            out = [{**b, var: n} for b in out for n in names]
        return out

    def guard_holds(self, guard: Iterable[Literal], binding: Mapping[str, str]) -> bool:
        return all(self.holds(lit.ground(binding)) for lit in guard)

    def contacts_now(self, specs: Iterable[ContactSpec], when: str, binding: Mapping[str, str]
                     ) -> list[tuple[Carrier, Carrier, bool]]:
        """The carrier pairs the contacts at ``when`` touch in the current state (guards read now), each with
        whether arrivals there are checked against protection (not for exempt contacts)."""
        out = []
        for c in specs:
            if c.when != when:
                continue
            for b in self.bindings(c.forall, binding):
                if self.guard_holds(c.guard, b):
                    x, y = self.rules.ground(c.a, b), self.rules.ground(c.b, b)
                    if x != y:
                        out.append((x, y, not c.exempt))
        return out

    def treatments_now(self, specs: Iterable[TreatmentUse], when: str, binding: Mapping[str, str]
                       ) -> list[tuple[str, Carrier]]:
        """The (treatment, carrier) pairs the treatments at ``when`` apply in the current state."""
        out = []
        for t in specs:
            if t.when != when:
                continue
            for b in self.bindings(t.forall, binding):
                if self.guard_holds(t.guard, b):
                    out += [(t.treatment, c) for c in self.rules.ground_all(t.target, b)]
        return out

    def updates_now(self, specs: Iterable[Update], when: str, binding: Mapping[str, str]) -> list[Literal]:
        """The ground literal effects of the guarded, quantified updates at ``when`` (guards read now)."""
        out = []
        for u in specs:
            if u.when != when:
                continue
            for b in self.bindings(u.forall, binding):
                if self.guard_holds(u.guard, b):
                    out += [lit.ground(b) for lit in u.effects]
        return out

    def happen(self, effects: Iterable[Literal], contacts: list[tuple[Carrier, Carrier, bool]],
               treatments: list[tuple[str, Carrier]], binding: Mapping[str, str], time: Time, step: int,
               label: str) -> None:
        """Apply one happening from its pre-state (docs/world-model-v2.md §1): literal deletes, then adds;
        contact transfers and treatment removals both read the pre-state; removals, then transfers."""
        adds: dict[tuple[Carrier, str], Provenance] = {}
        checked: set[tuple[Carrier, str]] = set()
        for a, b, check in contacts:
            carried = {c: self.contamination.get(c, {}).keys() for c in (a, b)}
            for t in self.rules.transfers(carried, a, b):
                key = (t.target, t.hazard)
                if key not in adds:
                    adds[key] = self.contamination[t.source][t.hazard] + (Link(t.target, time, label, step),)
                if check:
                    checked.add(key)
        removed = [(c, h) for treatment, c in treatments for h in sorted(self.contamination.get(c, {}))
                   if self.rules.removes(treatment, c, h)]
        self._apply(effects, binding)
        for c, h in dict.fromkeys(removed):
            del self.contamination[c][h]
            self.log.append((time, "-", c, h, step))
            if not self.contamination[c]:
                del self.contamination[c]
        for (c, h), prov in adds.items():
            self.contamination.setdefault(c, {})[h] = prov
            self.log.append((time, "+", c, h, step))
            if (c, h) in checked and self.rules.violates(c, h):
                self.violations.append(Violation(time, step, label, c, h, prov))

    def contact(self, a: Carrier, b: Carrier, time: Time, step: int, label: str) -> None:
        """Apply one contact alone: hazards cross by material; arrivals on protected carriers are violations."""
        self.happen((), [(a, b, True)], [], {}, time, step, label)

    def treat(self, treatment: str, c: Carrier, time: Time = 0, step: int = -1) -> list[str]:
        """Remove exactly the hazards the registry says ``treatment`` removes from ``c``."""
        removed = [h for h in sorted(self.contamination.get(c, {})) if self.rules.removes(treatment, c, h)]
        self.happen((), [], [(treatment, c)], {}, time, step, "")
        return removed

    def _apply(self, effects: Iterable[Literal], binding: Mapping[str, str]) -> None:
        lits = [e.ground(binding) for e in effects]
        for lit in lits:
            if not lit.positive:
                self.facts.discard(lit.atom)
        for lit in lits:
            if lit.positive:
                self.facts.add(lit.atom)

    def _check(self, conds: Iterable[Literal], binding: Mapping[str, str], step: int, label: str,
               time: Time, when: str) -> None:
        for cond in conds:
            lit = cond.ground(binding)
            if not self.holds(lit):
                want = "true" if lit.positive else "false"
                raise PhysicalInconsistency(
                    step, f"{label} at {time}: condition {atom_text(lit.atom)} is not {want} {when}",
                    f"set {atom_text(lit.atom)} to {want} before {label}")

    def resources_of(self, schema: ActionSchema, binding: Mapping[str, str]) -> list[str]:
        return ([f"gripper:{binding[g]}" for g in schema.occupies] + [f"appliance:{binding[a]}" for a in
                schema.appliances] + [f"capacity:{c}" for c in schema.capacities])

    def _action_happening(self, schema: ActionSchema, binding: Mapping[str, str], when: str, time: Time, step: int,
                          label: str) -> None:
        effects = [lit.ground(binding) for lit in (schema.eff_start if when == "start" else schema.eff_end)]
        effects += self.updates_now(schema.updates, when, binding)
        self.happen(effects, self.contacts_now(schema.contacts, when, binding),
                    self.treatments_now(schema.treats, when, binding), binding, time, step, label)

    def start_action(self, schema: ActionSchema, args: tuple[str, ...], time: Time, step: int, label: str,
                     end: Time) -> None:
        binding = dict(zip(schema.param_names, args, strict=True))
        objects = [binding[p] for p, kind in schema.parameters if kind in ("item", "place", "thing")]
        if len(set(objects)) < len(objects):
            raise PhysicalInconsistency(step, f"{label} at {time}: one object fills two of its object parameters "
                                              f"(nothing is poured into, put on or cut on itself)",
                                        f"give {label} distinct objects")
        for res in self.resources_of(schema, binding):
            free_at, other = self.busy.get(res, (0, -1))
            if free_at > time:
                raise PhysicalInconsistency(step, f"{label} at {time}: {res.split(':')[1]} is busy until "
                                                  f"{free_at} with step {other}",
                                            f"start {label} at {free_at} or later")
            self.busy[res] = (end, step)
        self._check(schema.cond_start, binding, step, label, time, "at start")
        for stock, amount in schema.consumes:
            if self.stocks.get(stock, 0) < amount:
                raise PhysicalInconsistency(step, f"{label} at {time}: needs {amount} {stock}, "
                                                  f"only {self.stocks.get(stock, 0)} left")
            self.stocks[stock] = self.stocks.get(stock, 0) - amount
            self.consumed[stock] = self.consumed.get(stock, 0) + amount
        for dim, amount in schema.costs:
            self.costs[dim] = self.costs.get(dim, 0) + amount
        if schema.occupies:
            self.active_time += schema.duration
        self._action_happening(schema, binding, "start", time, step, label)

    def check_invariants(self, schema: ActionSchema, args: tuple[str, ...], time: Time, step: int,
                         label: str) -> None:
        binding = dict(zip(schema.param_names, args, strict=True))
        self._check(schema.cond_overall, binding, step, label, time, "over all")

    def end_action(self, schema: ActionSchema, args: tuple[str, ...], time: Time, step: int, label: str) -> None:
        binding = dict(zip(schema.param_names, args, strict=True))
        self._check(schema.cond_end, binding, step, label, time, "at end")
        self._action_happening(schema, binding, "end", time, step, label)

    def abort(self, appliance: str) -> int | None:
        """M6: free the appliance now; return the history index of the action it ran (or None)."""
        res = f"appliance:{appliance}"
        if res not in self.busy:
            return None
        _, step = self.busy.pop(res)
        for other, (_, owner) in list(self.busy.items()):
            if owner == step:
                del self.busy[other]
        return step

    def event(self, reg: Registries, rec: HistoryRecord) -> int | None:
        """Apply a history event; return the history index of an action it aborted (M6), if any."""
        schema = reg.events[rec.name]
        binding = dict(zip(schema.param_names, rec.args, strict=True))
        label = f"event {rec.text()}"
        self.happen(schema.effects, self.contacts_now(schema.contacts, "start", binding), [], binding, rec.start,
                    rec.index, label)
        for add in schema.adds_hazard:
            hazard = binding[add.hazard[1:]] if add.hazard.startswith("?") else add.hazard
            for c in self.rules.ground_all(add.target, binding):
                if hazard not in self.contamination.get(c, {}):
                    self.contamination.setdefault(c, {})[hazard] = (Link(c, rec.start, label, rec.index),)
                    self.log.append((rec.start, "+", c, hazard, rec.index))
        if schema.consumes_param:
            stock, amount = binding[schema.consumes_param[0]], int(binding[schema.consumes_param[1]])
            self.stocks[stock] = max(0, self.stocks.get(stock, 0) - amount)
        if schema.sets_horizon:
            self.horizon = int(binding[schema.sets_horizon])
        return self.abort(binding[schema.aborts]) if schema.aborts else None


def static_facts(reg: Registries, objects: Mapping[str, str]) -> frozenset[Atom]:
    """Facts that follow from object types and never change (``graspable``, type-level statics)."""
    out = set()
    for name, otype in objects.items():
        for region in reg.object_types[otype].grasp:
            out.add(("graspable", name, region))
        for pred in reg.object_types[otype].static:
            out.add((pred, name))
    return frozenset(out)


@dataclass(frozen=True)
class ReplayResult:
    """The hygiene state S_t and everything else the replay reconstructs."""

    instance: str
    decision_time: int
    contamination: tuple[ContaminationFact, ...]
    facts: frozenset[Atom]
    stocks: tuple[tuple[str, int], ...]
    consumed: tuple[tuple[str, int], ...]
    history_costs: tuple[tuple[str, int], ...]
    violations: tuple[Violation, ...]
    ongoing: tuple[HistoryRecord, ...]
    busy_until: tuple[tuple[str, int], ...]
    horizon: int

    def hazards_on(self, carrier: Carrier) -> frozenset[str]:
        return frozenset(f.hazard for f in self.contamination if f.carrier == carrier)

    def carried(self) -> dict[Carrier, frozenset[str]]:
        out: dict[Carrier, set[str]] = {}
        for f in self.contamination:
            out.setdefault(f.carrier, set()).add(f.hazard)
        return {c: frozenset(h) for c, h in out.items()}


def _happenings(history: Iterable[HistoryRecord], until: int) -> list[tuple[Time, int, int, str]]:
    """(time, phase, index, kind): ends before starts at equal times, then history order."""
    out: list[tuple[Time, int, int, str]] = []
    for rec in history:
        if rec.kind == "event":
            out.append((rec.start, 1, rec.index, "event"))
        else:
            out.append((rec.start, 1, rec.index, "start"))
            if rec.end <= until:
                out.append((rec.end, 0, rec.index, "end"))
    return sorted(out)


def run_history(reg: Registries, inst: Instance, world: World) -> list[HistoryRecord]:
    """Feed the history to ``world``; return the actions still running at the decision time (an action an
    event aborted is no longer running and its end never happens)."""
    running: dict[int, HistoryRecord] = {}
    aborted: set[int] = set()
    for time, _phase, idx, kind in _happenings(inst.history, inst.decision_time):
        rec = inst.history[idx]
        if kind == "event":
            stopped = world.event(reg, rec)
            if stopped is not None:
                aborted.add(stopped)
                running.pop(stopped, None)
        elif kind == "start":
            world.start_action(reg.actions[rec.name], rec.args, time, idx, f"history[{idx}] {rec.text()}", rec.end)
            running[idx] = rec
        elif idx not in aborted:
            world.end_action(reg.actions[rec.name], rec.args, time, idx, f"history[{idx}] {rec.text()}")
            del running[idx]
        for j, other in running.items():
            world.check_invariants(reg.actions[other.name], other.args, time, j, f"history[{j}] {other.text()}")
    return [running[i] for i in sorted(running)]


def replay(inst: Instance, registries: Registries | None = None, *, check: bool = True) -> ReplayResult:
    """Replay the instance's history; raise :class:`InstanceError` if it is physically inconsistent.

    With ``check=False`` the observations and R_t are not compared (the episode builder derives them).
    """
    reg = registries or load_registries()
    world = World.initial(reg, inst)
    where = inst.source_path
    try:
        ongoing = run_history(reg, inst, world)
    except PhysicalInconsistency as exc:
        raise InstanceError(f"history is physically inconsistent: {exc.message}"
                            + (f"; {exc.advice}" if exc.advice else ""),
                            Location(where, path=f"history.{exc.step}")) from None
    if check and world.facts != set(inst.observations):
        missing = sorted(atom_text(a) for a in set(inst.observations) - world.facts)
        extra = sorted(atom_text(a) for a in world.facts - set(inst.observations))
        raise InstanceError("the observations do not match the replayed history: "
                            + "; ".join(filter(None, [f"observed but not replayed: {', '.join(missing)}" if missing
                                                      else "", f"replayed but not observed: {', '.join(extra)}"
                                                      if extra else ""])),
                            Location(where, path="observations"))
    stocks_left = {k: world.stocks.get(k, 0) for k in set(world.stocks) | set(dict(inst.resources))}
    if check and any(dict(inst.resources).get(k, 0) != v for k, v in stocks_left.items()):
        raise InstanceError(f"remaining resources R_t {dict(inst.resources)} differ from the initial stocks minus "
                            f"the history's use {world.stocks}", Location(where, path="resources"))
    busy = {res: int(free) for res, (free, _) in world.busy.items() if free > inst.decision_time}
    costs = {d: world.costs.get(d, 0) for d in SUMMED}
    costs["active_robot_time"] = world.active_time
    return ReplayResult(
        instance=inst.id, decision_time=inst.decision_time, contamination=world.snapshot(),
        facts=frozenset(world.facts), stocks=tuple(sorted(world.stocks.items())),
        consumed=tuple(sorted(world.consumed.items())), history_costs=tuple(costs.items()),
        violations=tuple(world.violations), ongoing=tuple(ongoing), busy_until=tuple(sorted(busy.items())),
        horizon=world.horizon if world.horizon is not None else inst.horizon)


def time_value(t: Time) -> int | str:
    return int(t) if Fraction(t).denominator == 1 else str(Fraction(t))


def happening_fluents(schema: ActionSchema, args: tuple[str, ...], world: World, phase: str,
                      overall: bool = True, fired: bool = False) -> tuple[set, set]:
    """(reads, writes) of one happening: facts, carriers and resources; two coinciding happenings interfere when
    one writes what the other reads or writes (the mutex check, epsilon ordering, skeleton deordering).
    ``overall=False`` leaves the over-all conditions out of the reads, as VAL's mutex rule does.

    Guards and quantified contacts and treatments count with every binding they could have (their guard atoms are
    read, their carriers read and written), so the answer does not depend on the state. ``fired=True`` (the
    validator, in the happening's pre-state) is VAL's rule instead: a contact or treatment writes only the
    contamination literals it changes in ``world`` (the PDDL's conditional effects that fire) and reads those of
    both carriers."""
    if fired:
        return _fired_fluents(schema, args, world, phase, overall)
    binding = dict(zip(schema.param_names, args, strict=True))
    conds = schema.cond_start if phase == "start" else schema.cond_end
    effs = schema.eff_start if phase == "start" else schema.eff_end
    reads = {_fluent_atom(world, lit.ground(binding)) for lit in (*conds, *(schema.cond_overall if overall else ()))}
    writes = {lit.ground(binding).atom for lit in effs}
    for c in schema.contacts:
        if c.when == phase:
            for b in world.bindings(c.forall, binding):
                reads |= {_fluent_atom(world, lit.ground(b)) for lit in c.guard}
                for ep in (c.a, c.b):
                    carrier = world.rules.ground(ep, b)
                    reads.add(("carrier", *carrier))
                    writes.add(("carrier", *carrier))
    for u in schema.updates:
        if u.when == phase:
            for b in world.bindings(u.forall, binding):
                reads |= {_fluent_atom(world, lit.ground(b)) for lit in u.guard}
                writes |= {lit.ground(b).atom for lit in u.effects}
    for t in schema.treats:
        if t.when == phase:
            for b in world.bindings(t.forall, binding):
                reads |= {_fluent_atom(world, lit.ground(b)) for lit in t.guard}
                writes |= {("carrier", *c) for c in world.rules.ground_all(t.target, b)}
    counted = {pred for _, pred in world.rules.reg.counted}
    writes |= {("load", a[2]) for a in writes if a[0] in counted}
    res = set(world.resources_of(schema, binding))
    if phase == "start":  # a stock is checked and decreased at the start ((>= (stock-s) n), (decrease (stock-s) n))
        res |= {("stock", stock) for stock, _ in schema.consumes}
    return reads | res, writes | res


def _fired_fluents(schema: ActionSchema, args: tuple[str, ...], world: World, phase: str,
                   overall: bool) -> tuple[set, set]:
    plain = dataclasses.replace(schema, contacts=(), treats=())
    reads, writes = happening_fluents(plain, args, world, phase, overall)
    binding = dict(zip(schema.param_names, args, strict=True))
    hazards = world.rules.hazards
    for c in schema.contacts:
        if c.when != phase:
            continue
        for b in world.bindings(c.forall, binding):
            reads |= {_fluent_atom(world, lit.ground(b)) for lit in c.guard}
            a, z = world.rules.ground(c.a, b), world.rules.ground(c.b, b)
            reads |= {("contaminated", *x, h) for x in (a, z) for h in hazards}
            if world.guard_holds(c.guard, b):
                carried = {x: world.contamination.get(x, {}).keys() for x in (a, z)}
                writes |= {("contaminated", *t.target, t.hazard) for t in world.rules.transfers(carried, a, z)}
    for t in schema.treats:
        if t.when != phase:
            continue
        for b in world.bindings(t.forall, binding):
            reads |= {_fluent_atom(world, lit.ground(b)) for lit in t.guard}
            if world.guard_holds(t.guard, b):
                writes |= {("contaminated", *c, h) for c in world.rules.ground_all(t.target, b)
                           for h in world.contamination.get(c, {}) if world.rules.removes(t.treatment, c, h)}
    return reads, writes


def _fluent_atom(world: World, lit: Literal) -> Atom:
    """The atom a condition reads; a derived capacity condition reads the container's load."""
    if world.rules.reg.counted_predicate(lit.predicate) is not None:
        return ("load", lit.args[0])
    return lit.atom

"""Ground a family's action schemas over an instance's objects, pruned to what can matter.

Shared by the planners: each :class:`GroundAction` carries its conditions and effects as atoms, its
contacts as carrier pairs, its treatment, stock use and costs. Gripper, appliance and capacity
exclusivity become ordinary fluents (``idle``, ``appliance-free``, ``free``) so one state model
covers them.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass

from hygiene_pddl.hygiene import HygieneRules
from hygiene_pddl.instances.model import Carrier, Instance
from hygiene_pddl.literals import Atom
from hygiene_pddl.registries.model import ActionSchema, Registries
from hygiene_pddl.replay import ReplayResult, static_facts

Cond = tuple[Atom, bool]  # (atom, must be true?)


@dataclass(frozen=True)
class GroundAction:
    name: str
    args: tuple[str, ...]
    duration: int
    grippers: tuple[str, ...]
    cond_start: tuple[Cond, ...]
    cond_overall: tuple[Cond, ...]
    cond_end: tuple[Cond, ...]
    eff_start: tuple[Cond, ...]
    eff_end: tuple[Cond, ...]
    contacts_start: tuple[tuple[Carrier, Carrier], ...]
    contacts_end: tuple[tuple[Carrier, Carrier], ...]
    treatment: tuple[str, Carrier] | None
    consumes: tuple[tuple[str, int], ...]
    costs: tuple[tuple[str, int], ...]

    def text(self) -> str:
        return "(" + " ".join((self.name, *self.args)) + ")"

    def cost(self, dim: str) -> int:
        if dim == "active_robot_time":
            return self.duration if self.grippers else 0
        return dict(self.costs).get(dim, 0)


def resource_fluents(schema: ActionSchema, binding: dict[str, str]) -> list[Atom]:
    return ([("idle", binding[g]) for g in schema.occupies] + [("appliance-free", binding[a]) for a in
            schema.appliances] + [("free", c) for c in schema.capacities])


def _bindings(reg: Registries, inst: Instance, schema: ActionSchema) -> Iterable[dict[str, str]]:
    objects = dict(inst.objects)
    domains: list[list[str]] = []
    for _, kind in schema.parameters:
        if kind == "gripper":
            domains.append(list(reg.grippers))
        elif kind in ("item", "place"):
            domains.append([o for o, ty in inst.objects if (reg.object_types[ty].is_item if kind == "item"
                                                             else reg.object_types[ty].is_place)])
        elif kind == "region":
            domains.append(sorted({r.name for ty in objects.values() for r in reg.object_types[ty].regions}))
        else:
            domains.append([])
    object_params = [i for i, (_, kind) in enumerate(schema.parameters) if kind in ("item", "place")]
    for values in itertools.product(*domains):
        # distinct objects for distinct object parameters (nothing is placed on or poured into itself)
        if len({values[i] for i in object_params}) == len(object_params):
            yield dict(zip(schema.param_names, values, strict=True))


@dataclass(frozen=True)
class _Statics:
    """What grounding reads many times per instance: static facts, static predicates, carriers."""

    facts: frozenset[Atom]
    predicates: frozenset[str]
    carriers: frozenset


def _statics(reg: Registries, inst: Instance, rules: HygieneRules) -> _Statics:
    return _Statics(frozenset(static_facts(reg, dict(inst.objects))),
                    frozenset({"graspable"} | {p for ty in reg.object_types.values() for p in ty.static}),
                    frozenset(rules.carriers()))


def ground(reg: Registries, inst: Instance, schema: ActionSchema, binding: dict[str, str],
           rules: HygieneRules, statics: _Statics | None = None) -> GroundAction | None:
    """One ground action, or None when a static condition or a region binding rules it out."""
    ctx = statics or _statics(reg, inst, rules)
    statics_facts, static_preds = ctx.facts, ctx.predicates
    conds: dict[str, list[Cond]] = {}
    for key, lits in (("start", schema.cond_start), ("overall", schema.cond_overall), ("end", schema.cond_end)):
        out = []
        for lit in lits:
            g = lit.ground(binding)
            if g.predicate in static_preds:
                if (g.atom in statics_facts) != g.positive:
                    return None
                continue
            out.append((g.atom, g.positive))
        conds[key] = out
    try:
        contacts = {w: [(rules.ground(c.a, binding), rules.ground(c.b, binding)) for c in schema.contacts
                        if c.when == w] for w in ("start", "end")}
        treatment = ((schema.treats[0].treatment, rules.ground(schema.treats[0].target, binding))
                     if schema.treats else None)
    except ValueError:
        return None
    carriers = ctx.carriers
    if any(x not in carriers or y not in carriers or x == y for w in contacts.values() for x, y in w):
        return None
    res = resource_fluents(schema, binding)
    args = tuple(binding[p] for p in schema.param_names)
    return GroundAction(
        name=schema.name, args=args, duration=schema.duration, grippers=tuple(binding[g] for g in schema.occupies),
        cond_start=tuple((r, True) for r in res) + tuple(conds["start"]), cond_overall=tuple(conds["overall"]),
        cond_end=tuple(conds["end"]),
        eff_start=tuple((r, False) for r in res) + tuple((lit.ground(binding).atom, lit.positive)
                                                         for lit in schema.eff_start),
        eff_end=tuple((r, True) for r in res) + tuple((lit.ground(binding).atom, lit.positive)
                                                      for lit in schema.eff_end),
        contacts_start=tuple(contacts["start"]), contacts_end=tuple(contacts["end"]), treatment=treatment,
        consumes=schema.consumes, costs=schema.costs)


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


def ground_all(reg: Registries, inst: Instance, state: ReplayResult, focus: bool = False) -> list[GroundAction]:
    """Ground actions of the instance's K, reachable from the state and relevant to the goals.

    With ``focus`` (Hygiene-NSP's grounding, paper §IV-A), only near-cheapest achievers are kept:
    see :func:`focused`.
    """
    rules = HygieneRules(reg, dict(inst.objects), inst.hazards)
    candidates = []
    ctx = _statics(reg, inst, rules)
    for name in sorted(inst.actions):
        schema = reg.actions[name]
        for binding in _bindings(reg, inst, schema):
            ga = ground(reg, inst, schema, binding, rules, ctx)
            if ga is not None:
                candidates.append(ga)
    # forward relaxed reachability (positive conditions only)
    reached = set(initial_fluents(reg, inst, state)) | {a for rec in state.ongoing for a in _end_adds(reg, rec)}
    usable: list[GroundAction] = []
    done: set[int] = set()
    changed = True
    while changed:
        changed = False
        for i, ga in enumerate(candidates):
            if i in done:
                continue
            needs = [a for a, pos in (*ga.cond_start, *ga.cond_overall, *ga.cond_end) if pos]
            if all(a in reached for a in needs):
                usable.append(ga)
                done.add(i)
                for a, pos in (*ga.eff_start, *ga.eff_end):
                    if pos and a not in reached:
                        reached.add(a)
                        changed = True
    if focus:
        return focused(inst, usable, set(initial_fluents(reg, inst, state)))
    # backward relevance from the goals; treatments are relevant whenever their target can touch anything
    relevant_atoms = {g for g in inst.goals if g[0] != "safe"}
    relevant: set[GroundAction] = set()
    changed = True
    while changed:
        changed = False
        for ga in usable:
            if ga in relevant:
                continue
            adds = {a for a, pos in (*ga.eff_start, *ga.eff_end) if pos}
            if adds & relevant_atoms:
                relevant.add(ga)
                new = {a for a, _ in (*ga.cond_start, *ga.cond_overall, *ga.cond_end)} - relevant_atoms
                if new:
                    relevant_atoms |= new
                changed = True
    touched = {c for ga in relevant for x, y in (*ga.contacts_start, *ga.contacts_end) for c in (x, y)}
    for ga in usable:
        if ga.treatment and ga.treatment[1] in touched:
            relevant.add(ga)
    return [ga for ga in usable if ga in relevant]


def _end_adds(reg: Registries, rec) -> list[Atom]:  # noqa: ANN001
    schema = reg.actions[rec.name]
    binding = dict(zip(schema.param_names, rec.args, strict=True))
    return [lit.ground(binding).atom for lit in schema.eff_end if lit.positive] + [
        a for a in resource_fluents(schema, binding)]


#: Achievers kept per needed fact: those at most this many relaxed layers above the cheapest one.
SLACK = 1


def focused(inst: Instance, usable: list[GroundAction], init: set[Atom]) -> list[GroundAction]:
    """Backward from the goals: for each needed fact that is not already true, its achievers within
    ``SLACK`` relaxed layers of the cheapest; their conditions are needed in turn. Treatments of any
    gripper part the kept actions touch are kept too. (A planner heuristic, not a completeness claim:
    Hygiene-NSP falls back to the full grounding when the focused model is infeasible.)"""
    relaxed = RelaxedPlanner(usable)
    level = relaxed.levels(init)
    needed, todo, kept = set(), list(inst.goals), []
    while todo:
        atom = todo.pop()
        if atom in needed:
            continue
        needed.add(atom)
        if atom in init:
            continue
        achievers = [i for i in relaxed.achievers.get(atom, ()) if i in level]
        if not achievers:
            continue
        best = min(level[i] for i in achievers)
        for i in achievers:
            if level[i] <= best + SLACK and usable[i] not in kept:
                kept.append(usable[i])
                todo += relaxed.needs[i]
    touched = {c for ga in kept for x, y in (*ga.contacts_start, *ga.contacts_end) for c in (x, y)}
    safe_objects = {g[1] for g in inst.goals if g[0] == "safe"}
    touched |= {c for ga in usable if ga.treatment for c in [ga.treatment[1]] if c[0] in safe_objects}
    kept += [ga for ga in usable if ga.treatment and ga.treatment[1] in touched and ga not in kept]
    # a treatment that needs the item held needs the pick that holds it
    held = {a for ga in kept if ga.treatment and ga.treatment[1][0] in safe_objects
            for a, pos in ga.cond_start if pos and a[0] == "holding"}
    for atom in sorted(held):
        kept += [ga for ga in usable if ga not in kept and any(a == atom and pos for a, pos in ga.eff_end)]
    order = {ga: i for i, ga in enumerate(usable)}
    return sorted(kept, key=order.__getitem__)


class RelaxedPlanner:
    """FF-style relaxed plans over a fixed action list (delete effects and hygiene ignored), with each action's
    positive conditions and adds and each fact's achievers indexed once for repeated calls."""

    def __init__(self, actions: list[GroundAction]):
        self.actions = actions
        self.needs = [tuple(dict.fromkeys(a for a, pos in (*ga.cond_start, *ga.cond_overall, *ga.cond_end) if pos))
                      for ga in actions]
        self.adds = [tuple(dict.fromkeys(a for a, pos in (*ga.eff_start, *ga.eff_end) if pos)) for ga in actions]
        self.achievers: dict[Atom, list[int]] = {}
        for i, adds in enumerate(self.adds):
            for a in adds:
                self.achievers.setdefault(a, []).append(i)

    def levels(self, init: set[Atom]) -> dict[int, int]:
        """h_max layer of every reachable action (by index)."""
        reached = set(init)
        level: dict[int, int] = {}
        layer = 0
        while True:
            new = [i for i, needs in enumerate(self.needs) if i not in level and all(a in reached for a in needs)]
            if not new:
                return level
            for i in new:
                level[i] = layer
            layer += 1
            for i in new:
                reached.update(self.adds[i])

    def plan(self, init: set[Atom], goals: Iterable[Atom]) -> list[GroundAction] | None:
        """Backward from the goals, each needed fact's earliest achiever by h_max layer; ``None`` when a goal
        is unreachable even in the relaxation."""
        level = self.levels(init)
        chosen: list[int] = []
        todo, seen = [g for g in goals if g[0] != "safe"], set()
        while todo:
            atom = todo.pop()
            if atom in seen or atom in init:
                continue
            seen.add(atom)
            achievers = [i for i in self.achievers.get(atom, ()) if i in level]
            if not achievers:
                return None
            best = min(achievers, key=level.__getitem__)
            if best not in chosen:
                chosen.append(best)
                todo += list(self.needs[best])
        return [self.actions[i] for i in chosen]


def relaxed_plan(actions: list[GroundAction], init: set[Atom], goals: Iterable[Atom]) -> list[GroundAction] | None:
    """An FF-style relaxed plan for the physical goals (:class:`RelaxedPlanner`). Its length estimates how many
    service actions a plan needs (Hygiene-NSP's bound)."""
    return RelaxedPlanner(actions).plan(init, goals)

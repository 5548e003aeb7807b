"""An instance's continuation problem at decision time t (PDDL time 0 = t), from the replayed state."""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from fractions import Fraction

from compiler import ticks
from compiler.domain import (
    DomainView,
    build_domain,
    cost_fn,
    declared_functions,
    declared_predicates,
    domain_symbols,
    gripper_constants,
    parameters,
)
from compiler.formulas import forall
from compiler.kset import FamilyDomain
from compiler.mechanics import contact_forms, form_type, hazard_name, live_contacts, treatment_name
from compiler.metric import Bounds, derive_bounds, lex_weights
from compiler.names import NameMap, carrier_name, legal, whole_name
from compiler.processes import RUNNING_PREFIX, keep_predicate
from hygiene_pddl.costs import DIMENSIONS
from hygiene_pddl.decimals import decimal_literal as _num
from hygiene_pddl.errors import InputError, InstanceError, Location
from hygiene_pddl.hygiene import HygieneRules
from hygiene_pddl.instances.model import Carrier, Instance
from hygiene_pddl.limits import MAX_STOCK_LEVELS, MAX_TICKS
from hygiene_pddl.literals import Atom, atom_text
from hygiene_pddl.registries.model import ROLES, ActionSchema, Endpoint, Registries
from hygiene_pddl.replay import ReplayResult, World, run_history, static_facts

#: Deadline slack: continuation actions must end by the horizon on the TU grid; ε-offsets of a plan
#: writer drift < 0.5 TU, so the deadline literal goes false half a unit after the horizon.
DEADLINE_SLACK = Fraction(1, 2)


@dataclass
class ProblemView:
    name: str
    domain: str
    objects: list[str]
    init: list[str]
    tils: list[str]
    goals: list[str]
    metric: str | None
    comments: list[str]


def instance_uses_ticks(reg: Registries, inst: Instance) -> bool:
    """Whether the instance's problem declares its makespan with ``(finish tuK)`` (docs/world-model-v2.md §3)."""
    return ticks.uses_ticks(inst.profile, FamilyDomain.of_instance(reg, inst).cost_dims)


def names_for(reg: Registries, inst: Instance) -> NameMap:
    """Every PDDL object name of an instance, with its registry meaning (ticks first, so they keep ``tuK``)."""
    names = NameMap()
    for word in sorted(domain_symbols(reg)):  # object names must differ from the domain's own names
        names.reverse.setdefault(word, ("reserved", word))
    if instance_uses_ticks(reg, inst):
        left = inst.horizon - inst.decision_time
        if left > MAX_TICKS:
            raise InstanceError(f"the problem declares its makespan with one tick object per TU left; more than "
                                f"{MAX_TICKS} TU between the decision time and the horizon are not supported "
                                f"there (found {left})", Location(inst.source_path, path="horizon"))
        for k in range(left + 1):
            names.add(("tick", str(k)), ticks.tick_name(k))
    for g in reg.grippers:
        names.add(("gripper", g), legal(g))
    for obj, _ in inst.objects:
        names.add(("object", obj), legal(obj))
    for c in HygieneRules(reg, dict(inst.objects)).carriers():
        names.add(("carrier", *c), carrier_name(*c))
    return names


def _owners(reg: Registries, rules: HygieneRules, kind: str) -> list[str]:
    return list(reg.grippers) if kind == "gripper" else sorted(rules.objects)


def endpoint_domain(reg: Registries, rules: HygieneRules, kinds: dict[str, str], ep: Endpoint) -> list[Carrier]:
    """Every carrier an endpoint can name (``kinds``: the kinds of the parameters and quantified variables)."""
    out = []
    for owner in _owners(reg, rules, kinds[ep.var]):
        if kinds[ep.var] == "gripper":
            out.append((owner, ep.part))
            continue
        otype = reg.object_types[rules.objects[owner]]
        if ep.part.startswith("?") or ep.every_region:
            out += [(owner, r.name) for r in otype.regions]
        elif otype.role_region(ep.part[1:]) is not None:
            out.append((owner, otype.role_region(ep.part[1:])))
    return out


def possible_contacts(reg: Registries, rules: HygieneRules, actions: tuple[ActionSchema, ...],
                      fd: FamilyDomain | None = None) -> set[tuple]:
    """Ordered carrier pairs that some action of K could bring into contact."""
    pairs = set()
    for a in actions:
        for c in live_contacts(a, reg, fd):
            kinds = dict(a.parameters) | dict(c.forall)
            for x, y in itertools.product(endpoint_domain(reg, rules, kinds, c.a), endpoint_domain(reg, rules, kinds,
                                                                                                    c.b)):
                if x != y:
                    pairs |= {(x, y), (y, x)}
    return pairs


def _atom(names: NameMap, reg: Registries, atom: Atom) -> str:
    """Registry atom → PDDL atom (region arguments become carriers of the preceding object)."""
    kinds = dict(reg.predicates)[atom[0]]
    out, owner = [atom[0]], None
    for arg, kind in zip(atom[1:], kinds, strict=True):
        if kind == "region":
            out.append(names[("carrier", owner, arg)])
        elif kind == "gripper":
            out.append(names[("gripper", arg)])
        else:
            owner = arg
            out.append(names[("object", arg)])
    return "(" + " ".join(out) + ")"


def classical_weights(profile_order: tuple[str, ...], bounds: Bounds, actions: tuple[ActionSchema, ...]) -> dict:
    """Per-action cost for FD: lexicographic weights of the non-time dimensions, then action count."""
    dims = [d for d in profile_order if d not in ("active_robot_time", "makespan")]
    ub = dict(bounds.per_dimension)
    factor, weights = 1, {}
    ub_count = max(1, bounds.max_actions)
    count_weight = factor
    factor *= ub_count + 1
    for d in reversed(dims):
        weights[d] = factor if ub[d] > 0 else 0
        factor *= ub[d] + 1
    if factor * max(1, bounds.max_actions) >= 2**31:
        raise ValueError(f"classical action costs would reach {factor} per action, beyond Fast Downward's "
                         "32-bit costs; tighten the instance's horizon or stocks")
    return {a.name: sum(weights[d] * n for d, n in a.costs) + count_weight for a in actions}


def appliance_counts(reg: Registries, inst: Instance, fd: FamilyDomain) -> dict[str, int]:
    """For each appliance action, how many objects pass its static conditions on the appliance."""
    statics = static_facts(reg, dict(inst.objects))
    places = [o for o, ty in inst.objects if reg.object_types[ty].is_place]
    out = {}
    for a in fd.actions:
        for var in a.appliances:
            conds = [lit for lit in a.cond_start if lit.args == (f"?{var}",) and lit.predicate in
                     {p for ty in reg.object_types.values() for p in ty.static}]
            out[a.name] = sum(all((c.predicate, o) in statics for c in conds) for o in places)
    return out


def instance_bounds(reg: Registries, inst: Instance, state: ReplayResult, fd: FamilyDomain) -> Bounds:
    places = [o for o, ty in inst.objects if reg.object_types[ty].is_place]
    return derive_bounds(list(fd.actions), state.horizon - inst.decision_time, len(reg.grippers), len(places),
                         dict(state.stocks), appliance_counts(reg, inst, fd))


def instance_weights(reg: Registries, inst: Instance, state: ReplayResult) -> dict[str, int]:
    """Classical per-action costs for this instance (profile and bounds)."""
    fd = FamilyDomain.of_instance(reg, inst)
    try:
        return classical_weights(inst.profile.order, instance_bounds(reg, inst, state, fd), fd.actions)
    except ValueError as exc:  # a limit of the classical flavour, set by this instance's horizon and stocks
        raise InstanceError(str(exc), Location(inst.source_path, path="horizon")) from None


def running_at_decision(state: ReplayResult) -> frozenset[str]:
    """Actions of the history still running at the decision time (the classical flavour splits them)."""
    return frozenset(rec.name for rec in state.ongoing)


@functools.lru_cache(maxsize=512)
def _declared(reg: Registries, fd: FamilyDomain, flavor: str, weights: tuple | None,
              split: frozenset[str]) -> tuple[frozenset[str], frozenset[str]]:
    """The predicate and function names a domain declares (instances of one K share it)."""
    view = build_domain(reg, fd, flavor, dict(weights) if weights is not None else None, split)
    return frozenset(declared_predicates(view)), frozenset(declared_functions(view))


class _Init:
    """Initial facts and numeric values, filtered to what the domain declares."""

    def __init__(self, declared: tuple[frozenset[str], frozenset[str]]):
        self.preds, self.funcs = declared
        self.facts: set[str] = set()
        self.numeric: list[str] = []
        self.dropped: set[str] = set()

    def add(self, fact: str) -> None:
        name = fact[1:].split(" ", 1)[0].rstrip(")")
        if name in self.preds:
            self.facts.add(fact)
        else:
            self.dropped.add(name)

    def value(self, fluent: str, value: int) -> None:
        if fluent[1:].split(" ", 1)[0].rstrip(")") in self.funcs:
            self.numeric.append(f"(= {fluent} {value})")


def _carrier_objects(reg: Registries, rules: HygieneRules, names: NameMap, fd: FamilyDomain) -> list[str]:
    """Carrier objects, each typed by the quantified endpoint roles it plays (mechanics.form_type)."""
    forms = contact_forms(fd.actions)
    groups: dict[str, list[str]] = {}
    for c in rules.carriers():
        plays: frozenset = frozenset()
        if not rules.is_gripper_part(c):
            otype = reg.object_types[rules.objects[c[0]]]
            plays = frozenset(f for f in forms if otype.is_kind(f[1]) and otype.role_region(f[0]) == c[1])
        groups.setdefault(form_type(plays) if plays else "carrier", []).append(names[("carrier", *c)])
    return [" ".join(group) + f" - {t}" for t, group in groups.items()]


def _static_init(init: _Init, reg: Registries, inst: Instance, rules: HygieneRules, names: NameMap,
                 fd: FamilyDomain) -> None:
    for g in reg.grippers:
        for part, _ in reg.parts:
            init.add(f"({part}-of {names[('gripper', g)]} {names[('carrier', g, part)]})")
    for obj, ty in inst.objects:
        otype = reg.object_types[ty]
        o = names[("object", obj)]
        for r in otype.regions:
            init.add(f"(region-of {o} {names[('carrier', obj, r.name)]})")
        for role in ROLES:
            if otype.role_region(role):
                init.add(f"({role}-of {o} {names[('carrier', obj, otype.role_region(role))]})")
        for kind, pred in (("item", "is-item"), ("place", "is-place")):
            if otype.is_kind(kind):
                init.add(f"({pred} {o})")
    for x, y in sorted(possible_contacts(reg, rules, fd.actions, fd)):
        for h in fd.hazards:
            if rules.crosses(h, x, y):
                xs, ys = names[("carrier", *x)], names[("carrier", *y)]
                init.add(f"(crosses {hazard_name(h)} {xs} {ys})")
                if rules.violates(y, h):
                    init.add(f"(unsafe {hazard_name(h)} {xs} {ys})")
    for a in fd.actions:
        for use in a.treats:
            kinds = dict(a.parameters) | dict(use.forall)
            for target in endpoint_domain(reg, rules, kinds, use.target):
                for h in fd.hazards:
                    if rules.removes(use.treatment, target, h):
                        carrier = names[("carrier", *target)]
                        init.add(f"(removes {treatment_name(use.treatment, fd)} {hazard_name(h)} {carrier})")


def _load_init(init: _Init, reg: Registries, inst: Instance, state: ReplayResult, names: NameMap,
               flavor: str, levels: list[str]) -> None:
    """M5: each container's load (what the counted predicate counts) and capacity."""
    counted = {pred for _, pred in reg.counted}
    n_objects = len(inst.objects)
    for obj, ty in inst.objects:
        o = names[("object", obj)]
        load = sum(1 for a in state.facts if a[0] in counted and a[-1] == obj)
        cap = reg.object_types[ty].capacity
        if flavor == "temporal":
            init.value(f"(current-load {o})", load)
            init.value(f"(capacity {o})", n_objects + 1 if cap is None else cap)
        else:
            init.add(f"(load-of {o} {levels[load]})")
            for n, level in enumerate(levels):
                if cap is None or n < cap:
                    init.add(f"(room-at {o} {level})")


def _ongoing(reg: Registries, inst: Instance, names: NameMap, init: _Init, fd: FamilyDomain) -> list[str]:
    """Temporal: what the actions running at the decision time do at their ends (timed literals, computed from
    the state at the decision time), and the keep facts that hold their over-all conditions until then."""
    world = World.initial(reg, inst)
    ongoing = run_history(reg, inst, world)
    tils: list[str] = []
    t = inst.decision_time
    for rec in ongoing:
        schema = reg.actions[rec.name]
        binding = dict(zip(schema.param_names, rec.args, strict=True))
        at = _num(rec.end - t)
        effects: dict[str, bool] = {}
        lits = [lit.ground(binding) for lit in schema.eff_end] + world.updates_now(schema.updates, "end", binding)
        counted = {pred for _, pred in reg.counted}
        if any(lit.predicate in counted for lit in lits):
            raise InputError(f"history[{rec.index}] {rec.text()} changes {sorted(counted)} at its end after the "
                             "decision time; the compiler cannot write that as a timed literal",
                             Location(inst.source_path, path=f"history.{rec.index}"))
        for lit in lits:
            effects[_atom(names, reg, lit.atom)] = lit.positive
        for treat, c in world.treatments_now(schema.treats, "end", binding):
            for h in fd.hazards:
                if world.rules.removes(treat, c, h):
                    effects[f"(contaminated {names[('carrier', *c)]} {hazard_name(h)})"] = False
        for pair in world.contacts_now(schema.contacts, "end", binding):
            a, b = pair[0], pair[1]
            carried = {c: world.contamination.get(c, {}).keys() for c in (a, b)}
            for tr in world.rules.transfers(carried, a, b):
                if tr.hazard in fd.hazards:
                    effects[f"(contaminated {names[('carrier', *tr.target)]} {hazard_name(tr.hazard)})"] = True
        for fact, positive in effects.items():
            tils.append(f"(at {at} {fact if positive else f'(not {fact})'})")
        for need in schema.cond_overall:
            lit = need.ground(binding)
            if reg.counted_predicate(lit.predicate) is not None:
                raise InputError(f"history[{rec.index}] {rec.text()} is running at the decision time and needs "
                                 f"{lit} throughout; the compiler cannot keep a derived condition",
                                 Location(inst.source_path, path=f"history.{rec.index}"))
            args = _atom(names, reg, lit.atom)[len(lit.predicate) + 1:]
            keep = "(" + keep_predicate(lit.predicate, lit.positive) + args
            if keep[1:].split(" ", 1)[0].rstrip(")") in init.preds:
                init.add(keep)
                tils.append(f"(at {at} (not {keep}))")
    return tils


def _goals(reg: Registries, inst: Instance, state: ReplayResult, rules: HygieneRules, names: NameMap,
           fd: FamilyDomain, init: _Init) -> tuple[list[str], list[str]]:
    """(goals, notes): ``(safe o)`` expanded; a goal over a predicate no action of K uses stays as it is now."""
    goals, notes = [], []
    for g in inst.goals:
        if g[0] == "safe":  # derived: none of the object's regions carries a hazard it is protected against
            goals += [f"(not (contaminated {names[('carrier', *c)]} {hazard_name(h)}))"
                      for c, h in rules.unsafe_facts(g[1]) if h in fd.hazards]
        elif g[0] in init.preds:
            goals.append(_atom(names, reg, g))
        elif g in state.facts:
            notes.append(f"goal {atom_text(g)} holds and no action of K changes {g[0]}: left out")
        else:
            raise InputError(f"goal {atom_text(g)} can never hold: it is false at the decision time and no action "
                             f"of the instance's registry entries (K) makes {g[0]} true",
                             Location(inst.source_path, path="goals"))
    return goals, notes


def _metric(inst: Instance, fd: FamilyDomain, bounds: Bounds, use_ticks: bool, total_time: bool,
            funcs: set[str]) -> tuple[str | None, list[str]]:
    dims = tuple(d for d in DIMENSIONS if (d in fd.cost_dims and f"cost-{legal(d)}" in funcs) or d == "makespan")
    weights = lex_weights(inst.profile, bounds, dims)
    terms = []
    for d in inst.profile.order:
        if d not in weights or weights[d] == 0:
            continue
        if d == "makespan":
            if use_ticks:
                terms.append(f"(* {_num(weights[d])} (cost-makespan))")
            elif total_time:
                terms.append(f"(* {_num(weights[d])} (total-time))")
            continue
        terms.append(f"(* {_num(weights[d])} {cost_fn(d)})")
    metric = "minimize (+ " + " ".join(terms) + ")" if len(terms) > 1 else (
        f"minimize {terms[0]}" if terms else None)
    comments = ["metric: lexicographic profile as one weighted sum; weight_i = prod_{j>i}(U_j + 1) "
                "over upper bounds U derived from the time left (proof: compiler/metric.py)"]
    if use_ticks:
        comments.append("makespan in whole TU: the plan declares it with (finish tuK), which adds K to "
                        "(cost-makespan); (total-time), which carries epsilon offsets, is not weighed")
    comments += [f"  {d}: upper bound {bounds[d]}, weight {weights[d]}" for d in inst.profile.order if d in weights]
    if not total_time and not use_ticks:
        comments.append("NOTE: written for readers that cannot take (total-time) inside a sum "
                        "(unified-planning): the makespan term is left out of this metric")
    return metric, comments


def build_problem(reg: Registries, inst: Instance, state: ReplayResult, flavor: str = "temporal",
                  metric_total_time: bool = True, domain: DomainView | None = None
                  ) -> tuple[ProblemView, NameMap, Bounds]:
    fd = FamilyDomain.of_instance(reg, inst)
    if domain is None:
        weights = instance_weights(reg, inst, state) if flavor != "temporal" else None
        declared = _declared(reg, fd, flavor, tuple(sorted(weights.items())) if weights is not None else None,
                             running_at_decision(state))
    else:
        declared = (frozenset(declared_predicates(domain)), frozenset(declared_functions(domain)))
    rules = HygieneRules(reg, dict(inst.objects), fd.hazards)
    names = names_for(reg, inst)
    t = inst.decision_time
    remaining = state.horizon - t
    bounds = instance_bounds(reg, inst, state, fd)
    use_ticks = flavor == "temporal" and ticks.uses_ticks(inst.profile, fd.cost_dims)
    init = _Init(declared)
    constant = set(gripper_constants(reg, fd))  # the domain declares these
    grippers = [names[("gripper", g)] for g in reg.grippers if g not in constant]
    objects = [*([" ".join(grippers) + " - gripper"] if grippers else []),
               " ".join(names[("object", o)] for o, _ in inst.objects) + " - thing",
               *_carrier_objects(reg, rules, names, fd)]
    for atom in state.facts | static_facts(reg, dict(inst.objects)):
        init.add(_atom(names, reg, atom))
    _static_init(init, reg, inst, rules, names, fd)
    for fact in state.contamination:
        if fact.hazard in fd.hazards:
            init.add(f"(contaminated {names[('carrier', *fact.carrier)]} {hazard_name(fact.hazard)})")
    busy = dict(state.busy_until)
    tils: list[str] = []
    comments = [f"instance {inst.id} (family {inst.family}); decision time t={t} is PDDL time 0",
                f"request: {inst.request}",
                f"profile {inst.profile.name}: {' > '.join(inst.profile.order)}"]
    goals, notes = _goals(reg, inst, state, rules, names, fd, init)
    if flavor == "temporal":
        places = [o for o, ty in inst.objects if reg.object_types[ty].is_place]
        resources = [(f"gripper:{g}", f"(idle {names[('gripper', g)]})") for g in reg.grippers]
        resources += [(f"appliance:{p}", f"(appliance-free {names[('object', p)]})") for p in places]
        resources += [(f"capacity:{c}", f"(free-{legal(c)})") for c in fd.capacities]
        for key, fact in resources:
            if key in busy:
                tils.append(f"(at {_num(busy[key] - t)} {fact})")
            else:
                init.add(fact)
        tils += _ongoing(reg, inst, names, init, fd)
        init.add("(in-time)")
        tils.append(f"(at {_num(remaining + DEADLINE_SLACK)} (not (in-time)))")
        comments.append(f"deadline: every action ends by t+{remaining} (in-time goes false at "
                        f"{_num(remaining + DEADLINE_SLACK)} to absorb epsilon offsets below 0.5 TU)")
        for s in fd.stocks:
            init.value(f"(stock-{legal(s)})", inst.remaining(s))
        for d in fd.cost_dims:
            init.value(cost_fn(d), 0)
        _load_init(init, reg, inst, state, names, flavor, [])
        init.value("(cost-makespan)", 0)
        if use_ticks:
            tick_objects, tick_init, tick_tils, tick_goals = ticks.problem_parts(remaining)
            objects += tick_objects
            for fact in tick_init:
                if fact.startswith("(= "):
                    init.numeric.append(fact)
                else:
                    init.add(fact)
            tils += tick_tils
            goals += tick_goals
        metric, metric_comments = _metric(inst, fd, bounds, use_ticks, metric_total_time, init.funcs)
        comments += metric_comments
    elif flavor == "numeric":  # stocks and loads as numeric fluents
        for s in fd.stocks:
            init.value(f"(stock-{legal(s)})", inst.remaining(s))
        _load_init(init, reg, inst, state, names, "temporal", [])
    else:
        levels = max([inst.remaining(s) for s in fd.stocks] + [0])
        if levels > MAX_STOCK_LEVELS:
            raise InstanceError(f"the classical flavour writes one object per stock level; stocks above "
                                f"{MAX_STOCK_LEVELS} are not supported there (found {levels})",
                                Location(inst.source_path, path="resources"))
        if "load-of" in init.preds:
            levels = max(levels, len(inst.objects) + 1)
        lv = [names.add(("level", str(i)), f"n{i}") for i in range(levels + 1)]  # after the objects: they keep theirs
        objects.append(" ".join(lv) + " - level")
        for s in fd.stocks:
            init.add(f"(level-{legal(s)} {lv[inst.remaining(s)]})")
        for n in sorted({n for a in fd.actions for _, n in a.consumes} | {1}):
            for i in range(n, levels + 1):
                init.add(f"(minus-{n} {lv[i]} {lv[i - n]})")
        _load_init(init, reg, inst, state, names, flavor, lv)
    if flavor != "temporal":
        init.value("(total-cost)", 0)
        metric = "minimize (total-cost)"
        comments.append("action costs: lexicographic weights of the non-time dimensions in profile order, "
                        "then one unit per action; split processes count at their -start")
        comments += classical_drops(state.horizon - inst.decision_time)
        running = [a for a in fd.actions if f"{RUNNING_PREFIX}{a.name}" in init.preds]
        if running:
            comments.append("processes split into -start/-end (every started one must end): " +
                            ", ".join(a.name for a in running))
        from compiler.steps import StepMapper

        mapper = StepMapper(reg, inst)
        for rec in state.ongoing:
            init.add(f"({RUNNING_PREFIX}{rec.name} " + " ".join(mapper.to_pddl(rec.name, rec.args)[1]) + ")")
        for a in running:
            params = parameters(a, reg, fd)
            fact = f"({RUNNING_PREFIX}{a.name} " + " ".join(v for v, _ in params) + ")"
            goals.append(forall(params, f"(not {fact})"))
    comments += notes
    if init.dropped:
        comments.append("facts over predicates no action of K uses are left out: " + ", ".join(sorted(init.dropped)))
    view = ProblemView(whole_name(inst.id), fd.domain_name, objects, sorted(init.facts) + init.numeric, tils, goals,
                       metric, comments)
    return view, names, bounds


def classical_drops(time_left: int) -> list[str]:
    """What every classical flavour leaves out of the temporal problem, and why (its header says it)."""
    return [f"dropped: the deadline (every action ends by t+{time_left}): classical planning has no clock, so a "
            "plan found here may run past it; schedule and check it with `hygiene-pddl plan --planner fd-cpsat` "
            "or `hygiene-pddl validate ... --instance`",
            "dropped: durations and concurrency (actions are instantaneous and sequential), and with them the "
            "makespan and active-robot-time dimensions of the costs"]

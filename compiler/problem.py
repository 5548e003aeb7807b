"""An instance's continuation problem at decision time t (PDDL time 0 = t), from the replayed state."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction

from compiler.domain import FamilyDomain, cost_fn, hazard_name, needs_split
from compiler.metric import Bounds, derive_bounds, lex_weights
from compiler.names import NameMap, carrier_name, legal, whole_name
from hygiene_pddl.costs import DIMENSIONS
from hygiene_pddl.decimals import decimal_literal as _num
from hygiene_pddl.errors import InstanceError, Location
from hygiene_pddl.hygiene import HygieneRules
from hygiene_pddl.instances.model import Carrier, Instance
from hygiene_pddl.limits import MAX_STOCK_LEVELS
from hygiene_pddl.literals import Atom
from hygiene_pddl.registries.model import ActionSchema, Endpoint, Registries
from hygiene_pddl.replay import ReplayResult, static_facts

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


def names_for(reg: Registries, inst: Instance) -> NameMap:
    """Every PDDL object name of an instance, with its registry meaning."""
    names = NameMap()
    for g in reg.grippers:
        names.add(("gripper", g), legal(g))
    for obj, _ in inst.objects:
        names.add(("object", obj), legal(obj))
    for c in HygieneRules(reg, dict(inst.objects)).carriers():
        names.add(("carrier", *c), carrier_name(*c))
    return names


def _endpoint_domain(reg: Registries, rules: HygieneRules, schema: ActionSchema, ep: Endpoint) -> list[Carrier]:
    kind = dict(schema.parameters)[ep.var]
    owners = list(reg.grippers) if kind == "gripper" else sorted(rules.objects)
    out = []
    for owner in owners:
        if kind == "gripper":
            out.append((owner, ep.part))
            continue
        otype = reg.object_types[rules.objects[owner]]
        if ep.part.startswith("?"):
            out += [(owner, r.name) for r in otype.regions]
        elif otype.role_region(ep.part[1:]) is not None:
            out.append((owner, otype.role_region(ep.part[1:])))
    return out


def possible_contacts(reg: Registries, rules: HygieneRules, actions: tuple[ActionSchema, ...]) -> set[tuple]:
    """Ordered carrier pairs that some action of the family could bring into contact."""
    pairs = set()
    for a in actions:
        for c in a.contacts:
            for x, y in itertools.product(_endpoint_domain(reg, rules, a, c.a), _endpoint_domain(reg, rules, a, c.b)):
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


def instance_weights(reg: Registries, inst: Instance, state: ReplayResult) -> dict[str, int]:
    """Classical per-action costs for this instance (profile and bounds)."""
    fd = FamilyDomain.of(reg, inst.family)
    places = [o for o, ty in inst.objects if reg.object_types[ty].is_place]
    bounds = derive_bounds(list(fd.actions), state.horizon - inst.decision_time, len(reg.grippers), len(places),
                           dict(state.stocks), appliance_counts(reg, inst, fd))
    try:
        return classical_weights(inst.profile.order, bounds, fd.actions)
    except ValueError as exc:  # a limit of the classical flavour, set by this instance's horizon and stocks
        raise InstanceError(str(exc), Location(inst.source_path, path="horizon")) from None


def build_problem(reg: Registries, inst: Instance, state: ReplayResult, flavor: str = "temporal",
                  metric_total_time: bool = True) -> tuple[ProblemView, NameMap, Bounds]:
    fd = FamilyDomain.of(reg, inst.family)
    rules = HygieneRules(reg, dict(inst.objects), fd.hazards)
    names = names_for(reg, inst)
    t = inst.decision_time
    remaining = state.horizon - t
    places = [o for o, ty in inst.objects if reg.object_types[ty].is_place]
    bounds = derive_bounds(list(fd.actions), remaining, len(reg.grippers), len(places), dict(state.stocks),
                           appliance_counts(reg, inst, fd))

    objects = [" ".join(names[("gripper", g)] for g in reg.grippers) + " - gripper",
               " ".join(names[("object", o)] for o, _ in inst.objects) + " - thing",
               " ".join(names[("carrier", *c)] for c in rules.carriers()) + " - carrier"]
    init: set[str] = set()
    for atom in state.facts | static_facts(reg, dict(inst.objects)):
        init.add(_atom(names, reg, atom))
    for g in reg.grippers:
        for part, _ in reg.parts:
            init.add(f"({part}-of {names[('gripper', g)]} {names[('carrier', g, part)]})")
    for obj, ty in inst.objects:
        otype = reg.object_types[ty]
        for r in otype.regions:
            init.add(f"(region-of {names[('object', obj)]} {names[('carrier', obj, r.name)]})")
        for role in ("base", "surface"):
            if otype.role_region(role):
                init.add(f"({role}-of {names[('object', obj)]} {names[('carrier', obj, otype.role_region(role))]})")
    for fact in state.contamination:
        if fact.hazard in fd.hazards:
            init.add(f"(contaminated {names[('carrier', *fact.carrier)]} {hazard_name(fact.hazard)})")
    for x, y in sorted(possible_contacts(reg, rules, fd.actions)):
        for h in fd.hazards:
            if rules.crosses(h, x, y):
                xs, ys = names[("carrier", *x)], names[("carrier", *y)]
                init.add(f"(crosses {hazard_name(h)} {xs} {ys})")
                if rules.violates(y, h):
                    init.add(f"(unsafe {hazard_name(h)} {xs} {ys})")
    for a in fd.actions:
        if a.treats:
            for target in _endpoint_domain(reg, rules, a, a.treats.target):
                for h in fd.hazards:
                    if rules.removes(a.treats.treatment, target, h):
                        carrier = names[("carrier", *target)]
                        init.add(f"(removes {legal(a.treats.treatment)} {hazard_name(h)} {carrier})")
    busy = dict(state.busy_until)
    tils: list[str] = []
    comments = [f"instance {inst.id} (family {inst.family}); decision time t={t} is PDDL time 0",
                f"request: {inst.request}",
                f"profile {inst.profile.name}: {' > '.join(inst.profile.order)}"]
    if flavor == "temporal":
        for g in reg.grippers:
            if f"gripper:{g}" in busy:
                tils.append(f"(at {_num(busy[f'gripper:{g}'] - t)} (idle {names[('gripper', g)]}))")
            else:
                init.add(f"(idle {names[('gripper', g)]})")
        for p in places:
            if f"appliance:{p}" in busy:
                tils.append(f"(at {_num(busy[f'appliance:{p}'] - t)} (appliance-free {names[('object', p)]}))")
            else:
                init.add(f"(appliance-free {names[('object', p)]})")
        for c in fd.capacities:
            if f"capacity:{c}" in busy:
                tils.append(f"(at {_num(busy[f'capacity:{c}'] - t)} (free-{legal(c)}))")
            else:
                init.add(f"(free-{legal(c)})")
        for rec in state.ongoing:
            schema = reg.actions[rec.name]
            binding = dict(zip(schema.param_names, rec.args, strict=True))
            for lit in schema.eff_end:
                g = lit.ground(binding)
                text = _atom(names, reg, g.atom)
                tils.append(f"(at {_num(rec.end - t)} {text if g.positive else f'(not {text})'})")
        init.add("(in-time)")
        tils.append(f"(at {_num(remaining + DEADLINE_SLACK)} (not (in-time)))")
        comments.append(f"deadline: every action ends by t+{remaining} (in-time goes false at "
                        f"{_num(remaining + DEADLINE_SLACK)} to absorb epsilon offsets below 0.5 TU)")
        numeric = [f"(= (stock-{legal(s)}) {inst.remaining(s)})" for s in fd.stocks]
        numeric += [f"(= {cost_fn(d)} 0)" for d in fd.cost_dims]
        dims = tuple(d for d in DIMENSIONS if d in fd.cost_dims or d == "makespan")
        weights = lex_weights(inst.profile, bounds, dims)
        terms = []
        for d in inst.profile.order:
            if d not in weights or weights[d] == 0:
                continue
            if d == "makespan":
                if metric_total_time:
                    terms.append(f"(* {weights[d]} (total-time))")
                continue
            terms.append(f"(* {weights[d]} {cost_fn(d)})")
        metric = "minimize (+ " + " ".join(terms) + ")" if len(terms) > 1 else (
            f"minimize {terms[0]}" if terms else None)
        comments.append("metric: lexicographic profile as one weighted sum; weight_i = prod_{j>i}(U_j + 1) "
                        "over upper bounds U derived from the time left")
        comments += [f"  {d}: upper bound {bounds[d]}, weight {weights[d]}" for d in inst.profile.order
                     if d in weights]
        if not metric_total_time:
            comments.append("NOTE: written for readers that cannot take (total-time) inside a sum "
                            "(unified-planning): the makespan term is left out of this metric")
    else:
        levels = max([inst.remaining(s) for s in fd.stocks] + [0])
        if levels > MAX_STOCK_LEVELS:
            raise InstanceError(f"the classical flavour writes one object per stock level; stocks above "
                                f"{MAX_STOCK_LEVELS} are not supported there (found {levels})",
                                Location(inst.source_path, path="resources"))
        objects.append(" ".join(f"n{i}" for i in range(levels + 1)) + " - level")
        for s in fd.stocks:
            init.add(f"(level-{legal(s)} n{inst.remaining(s)})")
        for n in sorted({n for a in fd.actions for _, n in a.consumes}):
            for i in range(n, levels + 1):
                init.add(f"(minus-{n} n{i} n{i - n})")
        numeric = ["(= (total-cost) 0)"]
        metric = "minimize (total-cost)"
        comments.append("action costs: lexicographic weights of the non-time dimensions in profile order, "
                        "then one unit per action; split processes count at their -start")
        if any(needs_split(a) for a in fd.actions):
            comments.append("processes split into -start/-end: " +
                            ", ".join(a.name for a in fd.actions if needs_split(a)))
    goals = []
    for g in inst.goals:
        if g[0] == "safe":  # derived: none of the object's regions carries a hazard it is protected against
            goals += [f"(not (contaminated {names[('carrier', *c)]} {hazard_name(h)}))"
                      for c, h in rules.unsafe_facts(g[1]) if h in fd.hazards]
        else:
            goals.append(_atom(names, reg, g))
    view = ProblemView(whole_name(inst.id), f"hygiene-{legal(inst.family)}", objects,
                       sorted(init) + numeric, tils, goals, metric, comments)
    return view, names, bounds

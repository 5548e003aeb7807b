"""Lift a family's registry entries into PDDL domain structures (the decisions; templates only lay out).

Every contact endpoint becomes a ``carrier`` parameter tied to its owner by a static predicate
(``pad-of``, ``side-of``, ``region-of``, ``base-of``, ``surface-of``), so contamination can be written as
plain conditional effects: one ``when`` per hazard the family knows, no ``forall``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from compiler.names import legal
from hygiene_pddl.registries.model import ActionSchema, ContactSpec, Endpoint, Registries

PDDL_TYPE = {"gripper": "gripper", "item": "thing", "place": "thing", "region": "carrier"}
DURING_PREFIX = "running-"


@dataclass
class ActionView:
    name: str
    parameters: list[str]
    duration: int = 0
    conditions: list[str] = field(default_factory=list)  # temporal: "(at start ...)"; classical: plain
    effects: list[str] = field(default_factory=list)
    comment: str = ""


@dataclass
class DomainView:
    name: str
    flavor: str
    requirements: list[str]
    types: list[str]
    constants: list[str]
    predicates: list[str]
    functions: list[str]
    actions: list[ActionView]
    comments: list[str]


def endpoint_var(ep: Endpoint) -> str:
    """The carrier variable an endpoint is written with."""
    if ep.part.startswith("?"):
        return ep.part
    if ep.part.startswith("@"):
        return f"?{ep.var}-{ep.part[1:]}"
    return f"?{ep.var}-{ep.part}"


def endpoint_static(ep: Endpoint) -> str:
    """The static fact tying the carrier variable to its owner."""
    var = endpoint_var(ep)
    if ep.part.startswith("?"):
        return f"(region-of ?{ep.var} {var})"
    if ep.part.startswith("@"):
        return f"({ep.part[1:]}-of ?{ep.var} {var})"
    return f"({ep.part}-of ?{ep.var} {var})"


def _endpoints(schema: ActionSchema) -> list[Endpoint]:
    eps = [e for c in schema.contacts for e in (c.a, c.b)]
    eps += [t.target for t in schema.treats]
    return eps


def parameters(schema: ActionSchema) -> list[tuple[str, str]]:
    """Registry parameters, then one carrier parameter per endpoint that is not a region parameter."""
    out = [(f"?{p}", PDDL_TYPE[t]) for p, t in schema.parameters]
    seen = {v for v, _ in out}
    for ep in _endpoints(schema):
        var = endpoint_var(ep)
        if var not in seen:
            seen.add(var)
            out.append((var, "carrier"))
    return out


def statics(schema: ActionSchema) -> list[str]:
    out: list[str] = []
    for ep in _endpoints(schema):
        fact = endpoint_static(ep)
        if fact not in out:
            out.append(fact)
    return out


def hazard_name(h: str) -> str:
    return legal(h)


def contact_guards(c: ContactSpec, hazards: list[str]) -> list[str]:
    """Protection as conditions: no contact may bring a hazard onto a carrier protected against it."""
    out = []
    x, y = endpoint_var(c.a), endpoint_var(c.b)
    for h in hazards:
        hn = hazard_name(h)
        for src, dst in ((x, y), (y, x)):
            out.append(f"(or (not (contaminated {src} {hn})) (not (unsafe {hn} {src} {dst})) "
                       f"(contaminated {dst} {hn}))")
    return out


def contact_effects(c: ContactSpec, hazards: list[str]) -> list[tuple[str, str]]:
    """(condition, effect) pairs: hazards cross a contact where materials allow, in both directions."""
    out = []
    x, y = endpoint_var(c.a), endpoint_var(c.b)
    for h in hazards:
        hn = hazard_name(h)
        for src, dst in ((x, y), (y, x)):
            out.append((f"(and (contaminated {src} {hn}) (crosses {hn} {src} {dst}))", f"(contaminated {dst} {hn})"))
    return out


def treatment_effects(schema: ActionSchema, hazards: list[str]) -> list[tuple[str, str]]:
    out = []
    for use in schema.treats:
        var, t = endpoint_var(use.target), legal(use.treatment)
        out += [(f"(removes {t} {hazard_name(h)} {var})", f"(not (contaminated {var} {hazard_name(h)}))")
                for h in hazards]
    return out


def _lit(lit) -> str:  # noqa: ANN001
    return str(lit)


def _stock_fn(stock: str) -> str:
    return f"(stock-{legal(stock)})"


def cost_fn(dim: str) -> str:
    return f"(cost-{legal(dim)})"


@dataclass(frozen=True)
class FamilyDomain:
    """The family-specific facts the domain depends on."""

    family: str
    actions: tuple[ActionSchema, ...]
    hazards: tuple[str, ...]
    treatments: tuple[str, ...]
    capacities: tuple[str, ...]
    stocks: tuple[str, ...]
    cost_dims: tuple[str, ...]

    @classmethod
    def of(cls, reg: Registries, family: str) -> FamilyDomain:
        fam = reg.families[family]
        actions = tuple(reg.actions[a] for a in sorted(fam.actions))
        treatments = tuple(sorted({t for a in actions for t in a.treatment_names}))
        capacities = tuple(sorted({c for a in actions for c in a.capacities}))
        stocks = tuple(s for s in reg.stocks if any(s in dict(a.consumes) for a in actions))
        dims = [d for d in ("water", "cleaning_agent", "disinfectant", "replacement_parts", "discarded_items",
                            "solid_waste", "energy", "tool_wear") if any(dict(a.costs).get(d) for a in actions)]
        if any(a.occupies for a in actions):
            dims.append("active_robot_time")
        return cls(family, actions, tuple(sorted(fam.hazards)), treatments, capacities, stocks, tuple(dims))


def _predicates(reg: Registries, fd: FamilyDomain, flavor: str) -> list[str]:
    out = []
    for name, kinds in reg.predicates:
        if name == "safe":  # a derived goal, expanded by the problem writer
            continue
        args = " ".join(f"?x{i} - {PDDL_TYPE[k]}" for i, k in enumerate(kinds))
        out.append(f"({name} {args})" if args else f"({name})")
    out += [f"({part}-of ?g - gripper ?c - carrier)" for part, _ in reg.parts]
    out += ["(region-of ?o - thing ?c - carrier)", "(base-of ?o - thing ?c - carrier)",
            "(surface-of ?o - thing ?c - carrier)",
            "(contaminated ?c - carrier ?h - hazard)", "(crosses ?h - hazard ?x - carrier ?y - carrier)",
            "(unsafe ?h - hazard ?x - carrier ?y - carrier)",
            "(removes ?t - treatment ?h - hazard ?c - carrier)"]
    if flavor == "temporal":
        out += ["(idle ?g - gripper)", "(appliance-free ?s - thing)", "(in-time)"]
        out += [f"(free-{legal(c)})" for c in fd.capacities]
    else:
        for a in fd.actions:
            if needs_split(a):
                args = " ".join(f"{v} - {t}" for v, t in parameters(a))
                out.append(f"({DURING_PREFIX}{a.name} {args})")
        out += [f"(level-{legal(s)} ?n - level)" for s in fd.stocks]
        amounts = sorted({n for a in fd.actions for _, n in a.consumes})
        out += [f"(minus-{n} ?a - level ?b - level)" for n in amounts]
    return out


def needs_split(a: ActionSchema) -> bool:
    """Classical flavour: an action whose start adds a fact its end deletes (a process others join)."""
    start_adds = {lit.atom for lit in a.eff_start if lit.positive}
    end_dels = {lit.atom for lit in a.eff_end if not lit.positive}
    return bool(start_adds & end_dels)


def temporal_action(a: ActionSchema, fd: FamilyDomain) -> ActionView:
    hz = list(fd.hazards)
    conds: list[str] = [f"(at start {s})" for s in statics(a)]
    effs: list[str] = []
    for g in a.occupies:
        conds.append(f"(at start (idle ?{g}))")
        effs += [f"(at start (not (idle ?{g})))", f"(at end (idle ?{g}))"]
    for s in a.appliances:
        conds.append(f"(at start (appliance-free ?{s}))")
        effs += [f"(at start (not (appliance-free ?{s})))", f"(at end (appliance-free ?{s}))"]
    for c in a.capacities:
        conds.append(f"(at start (free-{legal(c)}))")
        effs += [f"(at start (not (free-{legal(c)})))", f"(at end (free-{legal(c)}))"]
    conds += [f"(at start {_lit(x)})" for x in a.cond_start]
    conds += [f"(over all {_lit(x)})" for x in a.cond_overall]
    conds += [f"(at end {_lit(x)})" for x in a.cond_end]
    conds += ["(over all (in-time))", "(at end (in-time))"]
    for stock, n in a.consumes:
        conds.append(f"(at start (>= {_stock_fn(stock)} {n}))")
        effs.append(f"(at start (decrease {_stock_fn(stock)} {n}))")
    for dim, n in a.costs:
        effs.append(f"(at start (increase {cost_fn(dim)} {n}))")
    if a.occupies:
        effs.append(f"(at start (increase {cost_fn('active_robot_time')} {a.duration}))")
    effs += [f"(at start {_lit(x)})" for x in a.eff_start]
    effs += [f"(at end {_lit(x)})" for x in a.eff_end]
    for c in a.contacts:
        when = "start" if c.when == "start" else "end"
        conds += [f"(at {when} {g})" for g in contact_guards(c, hz)]
        effs += [f"(when (at {when} {cond}) (at {when} {eff}))" for cond, eff in contact_effects(c, hz)]
    effs += [f"(when (at end {cond}) (at end {eff}))" for cond, eff in treatment_effects(a, hz)]
    params = [f"{v} - {t}" for v, t in parameters(a)]
    return ActionView(a.name, params, a.duration, conds, effs, a.description)


def _net_effects(start: list[str], end: list[str]) -> list[str]:
    """Sequential composition of start then end effects as one effect list (literal strings)."""
    state: dict[str, bool] = {}
    for lit in [*start, *end]:
        if lit.startswith("(not "):
            state[lit[5:-1]] = False
        else:
            state[lit] = True
    return [a if v else f"(not {a})" for a, v in state.items()]


def classical_actions(a: ActionSchema, fd: FamilyDomain, weight: int) -> list[ActionView]:
    hz = list(fd.hazards)
    params = [f"{v} - {t}" for v, t in parameters(a)]
    pre = list(statics(a))
    extra_params: list[str] = []
    stock_pre: list[str] = []
    stock_eff: list[str] = []
    for stock, n in a.consumes:
        s = legal(stock)
        extra_params += [f"?{s}-before - level", f"?{s}-after - level"]
        stock_pre += [f"(level-{s} ?{s}-before)", f"(minus-{n} ?{s}-before ?{s}-after)"]
        stock_eff += [f"(not (level-{s} ?{s}-before))", f"(level-{s} ?{s}-after)"]
    guards = {"start": [g for c in a.contacts if c.when == "start" for g in contact_guards(c, hz)],
              "end": [g for c in a.contacts if c.when == "end" for g in contact_guards(c, hz)]}
    cond_effs = {"start": [f"(when {cond} {eff})" for c in a.contacts if c.when == "start"
                           for cond, eff in contact_effects(c, hz)],
                 "end": [f"(when {cond} {eff})" for c in a.contacts if c.when == "end"
                         for cond, eff in contact_effects(c, hz)]
                 + [f"(when {cond} {eff})" for cond, eff in treatment_effects(a, hz)]}
    cost = [f"(increase (total-cost) {weight})"]
    start_lits = [str(x) for x in a.eff_start]
    end_lits = [str(x) for x in a.eff_end]
    if not needs_split(a):
        start_adds = {x for x in start_lits if not x.startswith("(not ")}
        pre += [str(x) for x in a.cond_start]
        pre += [str(x) for x in (*a.cond_overall, *a.cond_end) if str(x) not in start_adds]
        pre += stock_pre + guards["start"] + guards["end"]
        effs = _net_effects(start_lits, end_lits) + stock_eff + cond_effs["start"] + cond_effs["end"] + cost
        return [ActionView(a.name, params + extra_params, 0, pre, effs, a.description)]
    running = f"({DURING_PREFIX}{a.name} " + " ".join(v for v, _ in parameters(a)) + ")"
    start = ActionView(f"{a.name}-start", params + extra_params, 0,
                       pre + [str(x) for x in (*a.cond_start, *a.cond_overall)] + stock_pre + guards["start"],
                       start_lits + [running] + stock_eff + cond_effs["start"] + cost,
                       f"{a.description} (start)")
    end = ActionView(f"{a.name}-end", params, 0,
                     [running] + [str(x) for x in (*a.cond_overall, *a.cond_end)] + guards["end"],
                     end_lits + [f"(not {running})"] + cond_effs["end"] + ["(increase (total-cost) 0)"],
                     f"{a.description} (end)")
    return [start, end]


def build_domain(reg: Registries, family: str, flavor: str = "temporal",
                 weights: dict[str, int] | None = None) -> DomainView:
    """The family's domain; the classical flavour needs the instance's per-action ``weights``."""
    fd = FamilyDomain.of(reg, family)
    constants = []
    if fd.hazards:
        constants.append(" ".join(hazard_name(h) for h in fd.hazards) + " - hazard")
    if fd.treatments:
        constants.append(" ".join(legal(t) for t in fd.treatments) + " - treatment")
    comments = [f"HygieneRoboBench family {family}: {reg.families[family].service_goal}",
                f"source activity (adapted from BEHAVIOR-1K): {reg.families[family].source_activity}",
                "generated by hygiene-pddl's trusted compiler from the five registries; do not edit by hand"]
    if flavor == "temporal":
        reqs = [":strips", ":typing", ":negative-preconditions", ":disjunctive-preconditions",
                ":conditional-effects", ":durative-actions", ":numeric-fluents", ":timed-initial-literals"]
        functions = [_stock_fn(s) for s in fd.stocks] + [cost_fn(d) for d in fd.cost_dims]
        actions = [temporal_action(a, fd) for a in fd.actions]
        types = ["gripper thing carrier hazard treatment - object"]
        comments.append("contamination: (contaminated ?c ?h); contacts copy hazards where (crosses ?h ?x ?y); "
                        "a contact that would bring ?h onto a carrier protected against it is not executable")
    else:
        reqs = [":strips", ":typing", ":negative-preconditions", ":disjunctive-preconditions",
                ":conditional-effects", ":action-costs"]
        if weights is None:
            raise ValueError("the classical flavour needs per-action weights (they depend on the profile)")
        functions = ["(total-cost) - number"]
        actions = [v for a in fd.actions for v in classical_actions(a, fd, weights[a.name])]
        types = ["gripper thing carrier hazard treatment level - object"]
        comments.append("classical projection for Fast Downward: instantaneous actions (processes others join "
                        "are split into -start/-end), stocks as discrete levels, action costs = lexicographic "
                        "weights of the non-time dimensions under this instance's profile, "
                        "so this domain is per instance")
    return DomainView(f"hygiene-{legal(family)}", flavor, reqs, types, constants,
                      _predicates(reg, fd, flavor), functions, actions, comments)

"""Lift K's registry entries into PDDL domain structures (the decisions; templates only lay out).

Every contact endpoint becomes a ``carrier`` term tied to its owner by a static predicate (``pad-of``,
``region-of``, ``<role>-of``); contamination is written as conditional effects (one ``when`` per hazard of K and
direction, inside a ``forall`` for quantified mechanisms, condition and effect at the same time point). A domain
declares only the predicates and functions its actions use (the problem writer drops the rest).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from compiler import ticks
from compiler.formulas import Timing, forall, imply
from compiler.kset import FamilyDomain
from compiler.mechanics import (
    KIND_PREDICATE,
    Context,
    carrier_var,
    contact,
    contact_forms,
    form_types,
    hazard_name,
    literal_effects,
    owner_static,
    parameter_endpoints,
    protection,
    single_contact,
    transfers,
    treatment,
    treatment_name,
    update,
    update_guarded_literals,
)
from compiler.names import legal
from compiler.processes import RUNNING_PREFIX, Running, keep_guard, keep_predicate, kept, running_guard
from hygiene_pddl.literals import Literal
from hygiene_pddl.registries.model import ROLES, ActionSchema, Endpoint, Registries

FLAVORS = ("temporal", "classical", "numeric")
PDDL_TYPE = {"gripper": "gripper", "item": "thing", "place": "thing", "thing": "thing", "region": "carrier"}
DURING_PREFIX = RUNNING_PREFIX


@dataclass
class ActionView:
    name: str
    parameters: list[str]
    duration: int = 0
    conditions: list[str] = field(default_factory=list)  # temporal: "(at start ...)"; classical: plain
    effects: list[str] = field(default_factory=list)
    comment: str = ""
    durative: bool = True


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
    return carrier_var(ep)


def parameters(schema: ActionSchema, reg: Registries | None = None,
               fd: FamilyDomain | None = None) -> list[tuple[str, str]]:
    """Registry parameters, then one carrier parameter per endpoint that is not a region parameter (nor quantified,
    nor every region), for the contacts that can happen under K (``reg``, ``fd``; all contacts without them)."""
    out = [(f"?{p}", PDDL_TYPE[t]) for p, t in schema.parameters]
    seen = {v for v, _ in out}
    for ep in parameter_endpoints(schema, reg, fd):
        var = carrier_var(ep)
        if var not in seen:
            seen.add(var)
            out.append((var, "carrier"))
    return out


def statics(schema: ActionSchema, reg: Registries | None = None, fd: FamilyDomain | None = None) -> list[str]:
    return list(dict.fromkeys(owner_static(ep) for ep in parameter_endpoints(schema, reg, fd)))


def gripper_constants(reg: Registries, fd: FamilyDomain) -> list[str]:
    """The robot's grippers that a literal of K's actions names (``(holding left ?s)``): the domain declares them
    as constants (and the problem does not declare them again)."""
    kinds = dict(reg.predicates)
    used = {g for a in fd.actions for _, g in a.named_grippers(kinds)}
    return [g for g in reg.grippers if g in used]


def cost_fn(dim: str) -> str:
    return f"(cost-{legal(dim)})"


def _stock_fn(stock: str) -> str:
    return f"(stock-{legal(stock)})"


def needs_split(a: ActionSchema) -> bool:
    """Classical flavour: a process others join (its start adds a fact its end deletes), or an action whose end
    contacts, treatments or updates would read what its start changes."""
    start_adds = {lit.atom for lit in a.eff_start if lit.positive}
    end_dels = {lit.atom for lit in a.eff_end if not lit.positive}
    start_mech = any(x.when == "start" for x in (*a.contacts, *a.treats, *a.updates))
    end_mech = any(x.when == "end" for x in (*a.contacts, *a.treats, *a.updates))
    return bool(start_adds & end_dels) or (start_mech and end_mech)


# ---- what happens at one time point --------------------------------------------------------------------
@dataclass
class Point:
    """Conditions and effects of one time point of an action."""

    conditions: list[str] = field(default_factory=list)
    effects: list[str] = field(default_factory=list)


class ActionWriter:
    """Writes the conditions and effects of K's actions at their time points, for one flavour."""

    def __init__(self, reg: Registries, fd: FamilyDomain, temporal: bool, numeric: bool = True):
        self.reg, self.fd = reg, fd
        self.ctx = Context(reg, fd, contact_forms(fd.actions), Timing(temporal), temporal or numeric)
        self.kept = kept(reg, fd)
        self.running: list[Running] = []  # classical: the split processes

    @property
    def timing(self) -> Timing:
        return self.ctx.timing

    def conditions(self, a: ActionSchema, when: str) -> list[str]:
        lits = {"start": a.cond_start, "all": a.cond_overall, "end": a.cond_end}[when]
        simple = self.ctx.simplify(lits)
        if simple is None:  # a constantly false condition: keep the literal, the action never applies
            simple = lits
        return [self.timing.at(when, self.ctx.literal(x)) for x in simple]

    def point(self, a: ActionSchema, when: str, scope: list[str]) -> Point:
        """Everything of ``a`` at ``when`` (start or end) except resources, stocks and costs."""
        pt = Point(self.conditions(a, when))
        lits = a.eff_start if when == "start" else a.eff_end
        pt.effects += literal_effects(lits, when, self.ctx)
        contacts = [c for c in a.contacts if c.when == when]
        if single_contact(contacts, self.ctx):
            conds, effs = contact(contacts[0], self.ctx)
            pt.conditions += conds
            pt.effects += effs
        elif contacts:
            pt.conditions += [x for c in contacts for x in protection(c, self.ctx)]
            pt.effects += transfers(contacts, when, self.ctx)
        for t in a.treats:
            if t.when == when:
                pt.effects += treatment(t, self.ctx)
        for u in a.updates:
            if u.when == when:
                pt.effects += update(u, self.ctx)
        pt.conditions += self.guards(a, when, scope)
        return pt

    def guards(self, a: ActionSchema, when: str, scope: list[str]) -> list[str]:
        """What running processes need: keep facts (temporal), running facts (classical)."""
        lits: list[tuple[Literal, tuple, list[str]]] = [(x, (), []) for x in (a.eff_start if when == "start"
                                                                              else a.eff_end)]
        for u in a.updates:
            if u.when == when:
                lits += [(e, q.variables, pre) for e, q, pre in update_guarded_literals(u, self.ctx)]
        out = []
        for lit, variables, pre in lits:
            if self.timing.temporal:
                need = keep_guard(lit, self.kept)
                if need is not None:
                    out.append(self.timing.at(when, forall(variables, imply(pre, [need]))))
                continue
            for proc in self.running:
                need = running_guard(lit, [*scope, *(v for v, _ in variables)], proc, variables, pre)
                if need is not None:
                    out.append(need)
        return out


def _resources(a: ActionSchema) -> Point:
    pt = Point()
    for g in a.occupies:
        pt.conditions.append(f"(at start (idle ?{g}))")
        pt.effects += [f"(at start (not (idle ?{g})))", f"(at end (idle ?{g}))"]
    for s in a.appliances:
        pt.conditions.append(f"(at start (appliance-free ?{s}))")
        pt.effects += [f"(at start (not (appliance-free ?{s})))", f"(at end (appliance-free ?{s}))"]
    for c in a.capacities:
        pt.conditions.append(f"(at start (free-{legal(c)}))")
        pt.effects += [f"(at start (not (free-{legal(c)})))", f"(at end (free-{legal(c)}))"]
    for stock, n in a.consumes:
        pt.conditions.append(f"(at start (>= {_stock_fn(stock)} {n}))")
        pt.effects.append(f"(at start (decrease {_stock_fn(stock)} {n}))")
    for dim, n in a.costs:
        pt.effects.append(f"(at start (increase {cost_fn(dim)} {n}))")
    if a.occupies:
        pt.effects.append(f"(at start (increase {cost_fn('active_robot_time')} {a.duration}))")
    return pt


def temporal_action(a: ActionSchema, writer: ActionWriter) -> ActionView:
    scope = [v for v, _ in parameters(a, writer.reg, writer.fd)]
    res = _resources(a)
    start, end = writer.point(a, "start", scope), writer.point(a, "end", scope)
    conds = [f"(at start {s})" for s in statics(a, writer.reg, writer.fd)] + res.conditions + start.conditions
    conds += writer.conditions(a, "all") + end.conditions
    conds += ["(over all (in-time))", "(at end (in-time))", *ticks.durative_conditions(writer.timing)]
    effs = res.effects + start.effects + end.effects + ticks.durative_effects(writer.timing)
    params = [f"{v} - {t}" for v, t in parameters(a, writer.reg, writer.fd)]
    return ActionView(a.name, params, a.duration, list(dict.fromkeys(conds)), effs, a.description)


def _net_effects(start: list[str], end: list[str]) -> list[str]:
    """Sequential composition of start then end literal effects as one effect list (literal strings)."""
    state: dict[str, bool] = {}
    for lit in [*start, *end]:
        if lit.startswith("(not "):
            state[lit[5:-1]] = False
        else:
            state[lit] = True
    return [a if v else f"(not {a})" for a, v in state.items()]


def _plain(effects: list[str]) -> tuple[list[str], list[str]]:
    """(literal effects, the rest): conditional, quantified and numeric effects kept apart."""
    lits = [e for e in effects if not e.startswith(("(when ", "(forall ", "(increase ", "(decrease "))]
    return lits, [e for e in effects if e not in lits]


def classical_actions(a: ActionSchema, writer: ActionWriter, weight: int, split: bool) -> list[ActionView]:
    params = [f"{v} - {t}" for v, t in parameters(a, writer.reg, writer.fd)]
    scope = [v for v, _ in parameters(a, writer.reg, writer.fd)]
    pre = list(statics(a, writer.reg, writer.fd))
    extra_params: list[str] = []
    stock_pre: list[str] = []
    stock_eff: list[str] = []
    for stock, n in a.consumes:
        s = legal(stock)
        if writer.ctx.numeric:  # classical-numeric: stocks as fluents
            stock_pre.append(f"(>= {_stock_fn(stock)} {n})")
            stock_eff.append(f"(decrease {_stock_fn(stock)} {n})")
            continue
        extra_params += [f"?{s}-before - level", f"?{s}-after - level"]
        stock_pre += [f"(level-{s} ?{s}-before)", f"(minus-{n} ?{s}-before ?{s}-after)"]
        stock_eff += [f"(not (level-{s} ?{s}-before))", f"(level-{s} ?{s}-after)"]
    start, end = writer.point(a, "start", scope), writer.point(a, "end", scope)
    overall = writer.conditions(a, "all")
    cost = [f"(increase (total-cost) {weight})"]
    if not split:
        start_lits, start_rest = _plain(start.effects)
        end_lits, end_rest = _plain(end.effects)
        adds = {x for x in start_lits if not x.startswith("(not ")}
        conds = pre + start.conditions + [x for x in overall + end.conditions if x not in adds] + stock_pre
        effs = _net_effects(start_lits, end_lits) + stock_eff + start_rest + end_rest + cost
        return [ActionView(a.name, params + extra_params, 0, list(dict.fromkeys(conds)), effs, a.description, False)]
    running = Running(a, tuple(parameters(a, writer.reg, writer.fd))).fact
    first = ActionView(f"{a.name}-start", params + extra_params, 0,
                       list(dict.fromkeys(pre + start.conditions + overall + stock_pre)),
                       start.effects + [running] + stock_eff + cost, f"{a.description} (start)", False)
    last = ActionView(f"{a.name}-end", params, 0, list(dict.fromkeys([running, *overall, *end.conditions])),
                      end.effects + [f"(not {running})", "(increase (total-cost) 0)"], f"{a.description} (end)",
                      False)
    return [first, last]


# ---- declarations ---------------------------------------------------------------------------------------
def _candidates(reg: Registries, fd: FamilyDomain, forms, flavor: str) -> tuple[dict[str, str], dict[str, str]]:
    """Every predicate and function the compiler may use (name -> declaration)."""
    preds: dict[str, str] = {}
    for name, kinds in reg.predicates:
        if name == "safe" or reg.counted_predicate(name) is not None:
            continue  # derived: (safe o) is expanded by the problem writer, (room c) compares load and capacity
        args = " ".join(f"?x{i} - {PDDL_TYPE[k]}" for i, k in enumerate(kinds))
        preds[name] = f"({name} {args})" if args else f"({name})"
    own: dict[str, str] = {}
    for part, _ in reg.parts:
        own[f"{part}-of"] = f"({part}-of ?g - gripper ?c - carrier)"
    own["region-of"] = "(region-of ?o - thing ?c - carrier)"
    for role in ROLES:
        own[f"{role}-of"] = f"({role}-of ?o - thing ?c - carrier)"
    own |= {"contaminated": "(contaminated ?c - carrier ?h - hazard)",
            "crosses": "(crosses ?h - hazard ?x - carrier ?y - carrier)",
            "unsafe": "(unsafe ?h - hazard ?x - carrier ?y - carrier)",
            "removes": "(removes ?t - treatment ?h - hazard ?c - carrier)"}
    own |= {p: f"({p} ?x - thing)" for p in KIND_PREDICATE.values()}
    kinds = dict(reg.predicates)
    funcs: dict[str, str] = {}
    if flavor == "temporal":
        own |= {"idle": "(idle ?g - gripper)", "appliance-free": "(appliance-free ?s - thing)", "in-time": "(in-time)"}
        own |= {f"free-{legal(c)}": f"(free-{legal(c)})" for c in fd.capacities}
        for pred, positive in sorted(kept(reg, fd)):
            args = " ".join(f"?x{i} - {PDDL_TYPE[k]}" for i, k in enumerate(kinds[pred]))
            own[keep_predicate(pred, positive)] = f"({keep_predicate(pred, positive)} {args})"
        own |= ticks.PREDICATES
        funcs |= {f"stock-{legal(s)}": _stock_fn(s) for s in fd.stocks}
        funcs |= {f"cost-{legal(d)}": cost_fn(d) for d in fd.cost_dims}
        funcs |= {"current-load": "(current-load ?c - thing)", "capacity": "(capacity ?c - thing)"} | ticks.FUNCTIONS
    else:
        for a in fd.actions:
            args = " ".join(f"{v} - {t}" for v, t in parameters(a, reg, fd))
            own[f"{RUNNING_PREFIX}{a.name}"] = f"({RUNNING_PREFIX}{a.name} {args})"
        funcs |= {f"stock-{legal(s)}": f"{_stock_fn(s)} - number" for s in fd.stocks}  # classical-numeric
        funcs |= {"current-load": "(current-load ?c - thing) - number", "capacity": "(capacity ?c - thing) - number"}
        own |= {f"level-{legal(s)}": f"(level-{legal(s)} ?n - level)" for s in fd.stocks}
        amounts = sorted({n for a in fd.actions for _, n in a.consumes} | {1})
        own |= {f"minus-{n}": f"(minus-{n} ?a - level ?b - level)" for n in amounts}
        own |= {"load-of": "(load-of ?c - thing ?n - level)", "room-at": "(room-at ?c - thing ?n - level)"}
        funcs["total-cost"] = "(total-cost) - number"
    clash = sorted(set(preds) & set(own))
    if clash:
        raise ValueError(f"registry predicate(s) {clash} collide with the compiler's own predicates; rename them")
    actions = {a.name for a in fd.actions} | {f"{a.name}-{part}" for a in fd.actions for part in ("start", "end")}
    clash = sorted((set(preds) | set(own) | set(funcs)) & (actions | {ticks.FINISH}))
    if clash:  # VAL cannot read a domain where an action and a predicate or function share a name
        raise ValueError(f"action name(s) {clash} are also predicate or function names; rename them")
    return preds | own, funcs


@functools.lru_cache(maxsize=8)
def domain_symbols(reg: Registries) -> frozenset[str]:
    """Every name a domain of these registries may declare (predicates, functions, actions, constants, types):
    object names must differ from them (VAL and unified-planning refuse a clash)."""
    everything = FamilyDomain.build(reg, next(iter(reg.families)), reg.actions, reg.hazards)
    out = {"object", "gripper", "thing", "carrier", "hazard", "treatment", "tick", "level", ticks.FINISH}
    for flavor in FLAVORS[:2]:
        preds, funcs = _candidates(reg, everything, contact_forms(everything.actions), flavor)
        out |= set(preds) | set(funcs)
    out |= set(form_types(contact_forms(everything.actions)))
    for a in reg.actions:
        out |= {a, f"{a}-start", f"{a}-end"}
    out |= {hazard_name(h) for h in reg.hazards} | {legal(t) for t in reg.treatments}
    out |= {f"{legal(t)}-treatment" for t in reg.treatments}
    return frozenset(out)


_TOKEN = re.compile(r"\(\s*([^\s()]+)")


def _used(texts: list[str]) -> set[str]:
    return {m.group(1) for t in texts for m in _TOKEN.finditer(t)}


def _requirements(flavor: str, texts: list[str], universal_goal: bool) -> list[str]:
    """What the domain uses (a requirement named for a word that only occurs in effects is harmless)."""
    body = " ".join(texts)
    reqs = [":strips", ":typing"]
    reqs += [r for r, words in ((":negative-preconditions", ("(not ",)),
                                (":disjunctive-preconditions", ("(or ", "(imply ")),
                                (":equality", ("(= ?",)),
                                (":existential-preconditions", ("(exists ",)),
                                (":universal-preconditions", ("(forall ",)),
                                (":conditional-effects", ("(when ", "(forall ")))
             if any(w in body for w in words)]
    if universal_goal and ":universal-preconditions" not in reqs:
        reqs.append(":universal-preconditions")
    if flavor == "temporal":
        reqs += [":durative-actions", ":numeric-fluents", ":timed-initial-literals"]
    else:
        reqs += [":numeric-fluents"] if flavor == "numeric" else []
        reqs.append(":action-costs")
    return reqs


def build_domain(reg: Registries, fd: FamilyDomain | str, flavor: str = "temporal",
                 weights: dict[str, int] | None = None, split: frozenset[str] = frozenset()) -> DomainView:
    """K's domain (a family name means the family's own entries). Flavours: ``temporal``; ``classical`` (Fast
    Downward: instantaneous actions, stocks and loads as discrete levels) and ``numeric`` (the same with stocks and
    loads as numeric fluents, for numeric planners); both need the instance's per-action ``weights`` and split
    ``split`` (actions running at the decision time) besides the processes."""
    if isinstance(fd, str):
        fd = FamilyDomain.of(reg, fd)
    family = reg.families[fd.family]
    forms = contact_forms(fd.actions)
    if flavor not in FLAVORS:
        raise ValueError(f"unknown flavour {flavor!r}; expected one of {FLAVORS}")
    writer = ActionWriter(reg, fd, flavor == "temporal", flavor != "classical")
    constants = []
    grippers = gripper_constants(reg, fd)
    if grippers:
        constants.append(" ".join(legal(g) for g in grippers) + " - gripper")
    if fd.hazards:
        constants.append(" ".join(hazard_name(h) for h in fd.hazards) + " - hazard")
    if fd.treatments:
        constants.append(" ".join(treatment_name(t, fd) for t in fd.treatments) + " - treatment")
    comments = [f"HygieneRoboBench family {fd.family}: {family.service_goal}",
                f"source activity (adapted from BEHAVIOR-1K): {family.source_activity}",
                "generated by hygiene-pddl's trusted compiler from the five registries; do not edit by hand"]
    if fd.variant:
        comments.append("built from an instance's own registry entries (K): actions "
                        f"{', '.join(a.name for a in fd.actions)}; hazards {', '.join(fd.hazards) or 'none'}")
    types = ["gripper thing carrier hazard treatment - object"]
    if forms:
        types.append(" ".join(form_types(forms)) + " - carrier")
    if flavor == "temporal":
        actions = [temporal_action(a, writer) for a in fd.actions]
        pre, eff = ticks.finish_action()
        actions.append(ActionView(ticks.FINISH, ["?k - tick"], 0, pre, eff,
                                  "declare the plan's makespan in whole TU (docs/world-model-v2.md §3)", False))
        types.append("tick - object")
        comments.append("contamination: (contaminated ?c ?h); contacts copy hazards where (crosses ?h ?x ?y); "
                        "a contact that would bring ?h onto a carrier protected against it is not executable")
    else:
        if weights is None:
            raise ValueError("the classical flavour needs per-action weights (they depend on the profile)")
        splits = {a.name for a in fd.actions if needs_split(a) or a.name in split}
        writer.running = [Running(a, tuple(parameters(a, reg, fd))) for a in fd.actions if a.name in splits]
        actions = [v for a in fd.actions for v in classical_actions(a, writer, weights[a.name], a.name in splits)]
        if flavor == "classical":
            types.append("level - object")
        comments.append("classical projection for Fast Downward: instantaneous actions (processes others join "
                        "are split into -start/-end), stocks as discrete levels, action costs = lexicographic "
                        "weights of the non-time dimensions under this instance's profile, "
                        "so this domain is per instance")
    texts = [x for a in actions for x in (*a.conditions, *a.effects)]
    preds, funcs = _candidates(reg, fd, forms, flavor)
    used = _used(texts)
    universal_goal = flavor != "temporal" and bool(writer.running)
    return DomainView(fd.domain_name, flavor, _requirements(flavor, texts, universal_goal), types, constants,
                      [d for n, d in preds.items() if n in used], [d for n, d in funcs.items() if n in used],
                      actions, comments)


def declared_predicates(view: DomainView) -> set[str]:
    return {p[1:].split(" ", 1)[0].rstrip(")") for p in view.predicates}


def declared_functions(view: DomainView) -> set[str]:
    return {f[1:].split(" ", 1)[0].rstrip(")") for f in view.functions}


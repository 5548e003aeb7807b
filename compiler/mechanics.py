"""Contacts, treatments and updates (M1, M2) as PDDL conditions and effects.

Every endpoint is a ``carrier`` term tied to its owner by a static fact (``(pad-of ?g ?g-pad)``,
``(region-of ?o ?r)``, ``(<role>-of ?o ?c)``). An endpoint of a quantified object (``forall``) is a
quantified carrier variable whose type is the role it plays for objects of that kind (``outer-item-carrier``),
so VAL's mutex bookkeeping, which marks every literal of every binding of a universal precondition, reads
exactly the carriers the world model's mutex rule reads (``replay.happening_fluents``).

Within a happening everything reads the pre-state (docs/world-model-v2.md §1): a hazard crosses only onto a
carrier that does not carry it yet (so a treatment of that carrier in the same happening removes it, as in the
replay), and a hazard a contact brings survives a treatment of the same happening (adds after deletes).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

from compiler.formulas import Timing, conj, forall, imply, negate, typed_vars
from compiler.kset import FamilyDomain
from compiler.names import legal
from hygiene_pddl.literals import Literal
from hygiene_pddl.registries.model import ActionSchema, Binder, ContactSpec, Endpoint, Registries, TreatmentUse, Update

#: Kinds of quantified variables and the static predicate that restricts a ``thing`` to them.
KIND_PREDICATE = {"item": "is-item", "place": "is-place"}
Form = tuple[str, str]  # (role, kind) of a quantified contact endpoint


def carrier_var(ep: Endpoint) -> str:
    """The carrier term an endpoint is written with."""
    if ep.part.startswith("?"):
        return ep.part
    if ep.every_region:
        return f"?{ep.var}-each"
    if ep.part.startswith("@"):
        return f"?{ep.var}-{ep.part[1:]}"
    return f"?{ep.var}-{ep.part}"


def owner_static(ep: Endpoint) -> str:
    """The static fact tying the carrier term to its owner."""
    var = carrier_var(ep)
    if ep.part.startswith("?") or ep.every_region:
        return f"(region-of ?{ep.var} {var})"
    if ep.part.startswith("@"):
        return f"({ep.part[1:]}-of ?{ep.var} {var})"
    return f"({ep.part}-of ?{ep.var} {var})"


def hazard_name(h: str) -> str:
    return legal(h)


def treatment_name(t: str, fd: FamilyDomain) -> str:
    """A treatment's constant; ``<t>-treatment`` when an action of K has its name (readers such as
    unified-planning refuse a constant and an action of one name)."""
    name = legal(t)
    return f"{name}-treatment" if name in {legal(a.name) for a in fd.actions} else name


# ---- quantified carriers: types by role ---------------------------------------------------------------
def contact_forms(actions: Iterable[ActionSchema]) -> tuple[Form, ...]:
    """(role, kind) of every quantified contact endpoint ``?y.@role`` (``forall [[y, kind]]``) of the actions."""
    out = set()
    for a in actions:
        for c in a.contacts:
            kinds = dict(c.forall)
            for ep in (c.a, c.b):
                if ep.var in kinds and ep.part.startswith("@"):
                    out.add((ep.part[1:], kinds[ep.var]))
    return tuple(sorted(out))


def form_type(forms: frozenset[Form]) -> str:
    """The carrier type of carriers that play exactly ``forms``."""
    return "-and-".join(f"{role}-{kind}" for role, kind in sorted(forms)) + "-carrier"


def form_types(forms: Sequence[Form]) -> list[str]:
    """Every carrier type the forms need (one per non-empty combination a carrier may play)."""
    if len(forms) > 4:
        raise ValueError(f"{len(forms)} quantified endpoint roles ({forms}); the compiler types at most 4")
    return [form_type(frozenset(s)) for n in range(1, len(forms) + 1) for s in combinations(forms, n)]


def var_type(form: Form, forms: Sequence[Form]) -> str:
    """The type of a quantified carrier variable of ``form``: every combination that contains it."""
    names = [form_type(frozenset(s)) for n in range(1, len(forms) + 1) for s in combinations(forms, n)
             if form in s]
    return names[0] if len(names) == 1 else "(either " + " ".join(names) + ")"


# ---- the context of one action --------------------------------------------------------------------------
@dataclass(frozen=True)
class Context:
    reg: Registries
    fd: FamilyDomain
    forms: tuple[Form, ...]
    timing: Timing
    numeric: bool = True  # loads as numeric fluents (temporal and classical-numeric), else as levels

    @property
    def hazards(self) -> list[str]:
        return [hazard_name(h) for h in self.fd.hazards]

    def simplify(self, lits: Iterable[Literal]) -> tuple[Literal, ...] | None:
        """The literals without the constantly true ones; None when one of them is constantly false."""
        out = []
        for lit in lits:
            value = constant(self.reg, self.fd, lit)
            if value is False:
                return None
            if value is None:
                out.append(lit)
        return tuple(out)

    def literal(self, lit: Literal) -> str:
        """A condition literal; a derived capacity condition ``(room ?c)`` compares load and capacity (M5)."""
        if self.reg.counted_predicate(lit.predicate) is not None:
            c = lit.args[0]
            if self.numeric:
                # VAL reads (< a b) as a - b < 0.0001, so the strict form would let a full container take one more
                return (f"(<= (+ (current-load {c}) 1) (capacity {c}))" if lit.positive
                        else f"(>= (current-load {c}) (capacity {c}))")
            room = f"(exists (?room-level - level) (and (load-of {c} ?room-level) (room-at {c} ?room-level)))"
            return room if lit.positive else f"(not {room})"
        return str(lit)


@dataclass(frozen=True)
class Quantified:
    """The quantified variables of one guarded, quantified mechanism and what restricts them."""

    variables: tuple[tuple[str, str], ...]
    restrictions: tuple[str, ...]  # owner statics of quantified carriers, kind statics


def quantify(binder: Binder, endpoints: Sequence[tuple[Endpoint, str | None]]) -> Quantified:
    """Variables for ``binder`` (objects, typed ``thing``) and for the endpoints' carriers that depend on them
    (``endpoints``: each with the carrier type, or None for a plain ``carrier``)."""
    kinds = dict(binder)
    variables = [(f"?{v}", "thing") for v, _ in binder]
    restrictions: list[str] = []
    pinned = set()
    for ep, ctype in endpoints:
        if ep.part.startswith("?"):  # a region parameter: the carrier is the parameter itself
            if ep.var in kinds:
                restrictions.append(owner_static(ep))
        elif ep.var in kinds or ep.every_region:
            variables.append((carrier_var(ep), ctype or "carrier"))
            restrictions.append(owner_static(ep))
            if ctype is not None:
                pinned.add(ep.var)
    for v, kind in binder:
        if v not in pinned and kind in KIND_PREDICATE:
            restrictions.append(f"({KIND_PREDICATE[kind]} ?{v})")
    return Quantified(tuple(dict.fromkeys(variables)), tuple(dict.fromkeys(restrictions)))


def constant(reg: Registries, fd: FamilyDomain | None, lit: Literal) -> bool | None:
    """M3: a literal over a covering predicate (``gloved``) that no action of K changes is constant (false for the
    positive literal: the instance loader rejects such initial facts); None when it is not (or K is unknown)."""
    if fd is not None and lit.predicate in {w for _, _, w in reg.covers} and not fd.changes(lit.predicate):
        return not lit.positive
    return None


def live_contacts(schema: ActionSchema, reg: Registries | None = None,
                  fd: FamilyDomain | None = None) -> list[ContactSpec]:
    """The contacts whose guard is not constantly false under K (all of them when K is not given)."""
    if reg is None:
        return list(schema.contacts)
    return [c for c in schema.contacts if all(constant(reg, fd, g) is not False for g in c.guard)]


def parameter_endpoints(schema: ActionSchema, reg: Registries | None = None,
                        fd: FamilyDomain | None = None) -> list[Endpoint]:
    """Endpoints whose carrier is an action parameter (not a region parameter, not quantified, not ``?x.*``)."""
    out = []
    for c in live_contacts(schema, reg, fd):
        out += [ep for ep in (c.a, c.b) if ep.var not in dict(c.forall)]
    out += [t.target for t in schema.treats if t.target.var not in dict(t.forall)]
    return [ep for ep in out if not ep.every_region]


# ---- contacts --------------------------------------------------------------------------------------------
def _typed_endpoints(c: ContactSpec, ctx: Context) -> list[tuple[Endpoint, str | None]]:
    kinds = dict(c.forall)
    return [(ep, var_type((ep.part[1:], kinds[ep.var]), ctx.forms) if ep.var in kinds and ep.part.startswith("@")
             else None) for ep in (c.a, c.b)]


def contact(c: ContactSpec, ctx: Context) -> tuple[list[str], list[str]]:
    """(conditions, effects) of one contact alone at its time point: protection, then transfer both ways (one
    ``when`` per hazard and direction: the v1 form, for a time point with this one plain contact)."""
    guard = ctx.simplify(c.guard)
    if guard is None:
        return [], []
    q = quantify(c.forall, _typed_endpoints(c, ctx))
    pre = [*q.restrictions, *(ctx.literal(g) for g in guard)]
    x, y = carrier_var(c.a), carrier_var(c.b)
    whens = [ctx.timing.when(c.when, [*pre, f"(contaminated {s} {h})", f"(crosses {h} {s} {d})",
                                      f"(not (contaminated {d} {h}))"], [f"(contaminated {d} {h})"])
             for h in ctx.hazards for s, d in ((x, y), (y, x))]
    effects = [forall(q.variables, conj(whens))] if q.variables and whens else whens
    return protection(c, ctx), effects


Level = tuple[list[tuple[str, str]], list[str]]  # (quantified variables, conditions on them)
_VAR = re.compile(r"\?[a-z][a-z0-9_-]*")


def _levels(c: ContactSpec, ctx: Context, dst: Endpoint | None = None) -> tuple[list[str], list[Level], list[str]]:
    """(conditions decidable once ``dst``'s owner is bound, the quantifier levels of the rest of the binder, the guard
    literals left). One variable a level, each with what becomes decidable there (kind, owner statics, guard
    literals whose variables are bound): nested so, VAL and the PDDL level stop at a level's first false condition
    instead of enumerating the product of all variables. ``dst``: a quantified endpoint whose owner is bound
    outside (its carrier is the transfer's target)."""
    kinds = dict(c.forall)
    typed = dict(_typed_endpoints(c, ctx))
    quantified = {f"?{v}" for v in kinds}
    pending = [ctx.literal(g) for g in ctx.simplify(c.guard) or ()]
    bound = {f"?{dst.var}"} if dst is not None else set()

    def decidable() -> list[str]:
        ready = [g for g in pending if set(_VAR.findall(g)) & quantified <= bound]
        for g in ready:
            pending.remove(g)
        return ready

    head = decidable()
    levels: list[Level] = []
    for v, kind in c.forall:
        ends = [ep for ep in (c.a, c.b) if ep.var == v and ep != dst]
        if f"?{v}" not in bound:
            bound.add(f"?{v}")
            conds = [f"({KIND_PREDICATE[kind]} ?{v})"] if kind in KIND_PREDICATE else []
            conds += [owner_static(ep) for ep in ends if ep.part.startswith("?")]
            levels.append(([(f"?{v}", "thing")], conds + decidable()))
        for ep in ends:
            if ep.part.startswith("@"):
                levels.append(([(carrier_var(ep), typed[ep] or "carrier")], [owner_static(ep)]))
    return head, levels, pending


def _nest(levels: list[Level], inner: list[str], quantifier: str) -> str:
    """``(exists (v) (and conds ... inner))`` or ``(forall (v) (imply (and conds) ... inner))``, innermost last."""
    body = conj(inner) if inner else "(and)"
    for variables, conds in reversed(levels):
        if quantifier == "exists":
            body = f"(exists ({typed_vars(variables)}) {conj([*conds, body])})"
        else:
            body = f"(forall ({typed_vars(variables)}) {imply(conds, [body])})"
    return body


def protection(c: ContactSpec, ctx: Context) -> list[str]:
    """No contact may bring a hazard onto a carrier protected against it that does not carry it yet."""
    guard = ctx.simplify(c.guard)
    if guard is None or c.exempt:
        return []
    x, y = carrier_var(c.a), carrier_var(c.b)
    clauses = [f"(or (not (contaminated {s} {h})) (not (unsafe {h} {s} {d})) (contaminated {d} {h}))"
               for h in ctx.hazards for s, d in ((x, y), (y, x))]
    if not clauses:
        return []
    if not c.forall and not guard:
        return [ctx.timing.at(c.when, cl) for cl in clauses]
    head, levels, rest = _levels(c, ctx)
    return [ctx.timing.at(c.when, imply(head, [_nest(levels, [imply(rest, clauses)], "forall")]))]


def _quantified_dst(c: ContactSpec, dst: Endpoint) -> bool:
    return dst.var in dict(c.forall) and dst.part.startswith("@")


def _source(c: ContactSpec, dst: Endpoint, src: Endpoint, h: str, target: str, ctx: Context,
            owner: str = "?owner") -> str:
    """``c`` brings ``h`` from ``src`` onto ``target`` (the term of ``dst``'s carrier; for a quantified ``dst`` a
    variable whose owner is ``owner``)."""
    kinds = dict(c.forall)
    s = carrier_var(src)
    quantified = _quantified_dst(c, dst)
    head, levels, rest = _levels(c, ctx, dst if quantified else None)
    inner = [*rest, f"(contaminated {s} {h})", f"(crosses {h} {s} {target})"]
    body = conj([*head, _nest(levels, inner, "exists")])
    if not quantified:
        return body
    pin = [owner_static(dst).replace(carrier_var(dst), target)]
    if kinds[dst.var] in KIND_PREDICATE:
        pin.append(f"({KIND_PREDICATE[kinds[dst.var]]} ?{dst.var})")
    return re.sub(rf"\?{re.escape(dst.var)}(?![a-z0-9_-])", owner, conj([*pin, body]))


def transfers(contacts: Sequence[ContactSpec], when: str, ctx: Context) -> list[str]:
    """Transfer effects of all contacts of one time point, written per target and hazard so that each
    ``(contaminated c h)`` is added at most once: VAL fails an action that reads a literal and adds it twice
    when its happening has other members (Ownership::ownsForAdd on E_ADDNPRE).

    Parameter targets get one ``when`` each (a target equal to an earlier one is left to that one); quantified
    targets one ``forall`` over (owner, carrier) whose static owner fact comes first, so VAL, which evaluates
    ``exists`` slowly, reaches the sources only for the few carriers they can reach. (A quantified endpoint's
    carrier equal to a parameter endpoint's carrier would be its own owner's: none of the registry's contacts
    transfers anything there.)"""
    rules = [(c, dst, src) for c in contacts if ctx.simplify(c.guard) is not None
             for dst, src in ((c.a, c.b), (c.b, c.a))]
    params = list(dict.fromkeys(carrier_var(dst) for c, dst, _ in rules if not _quantified_dst(c, dst)))
    forms = sorted({(dst.part[1:], dict(c.forall)[dst.var]) for c, dst, _ in rules if _quantified_dst(c, dst)})
    out = []
    for h in ctx.hazards:
        for i, term in enumerate(params):
            sources = []
            for c, dst, src in rules:
                if _quantified_dst(c, dst) or params.index(carrier_var(dst)) < i:
                    continue
                found = _source(c, dst, src, h, carrier_var(dst), ctx)
                same = carrier_var(dst) == term
                sources.append(found if same else conj([f"(= {term} {carrier_var(dst)})", found]))
            distinct = [f"(not (= {term} {other}))" for other in params[:i]]
            out.append(ctx.timing.when(when, [*distinct, _any(sources), f"(not (contaminated {term} {h}))"],
                                       [f"(contaminated {term} {h})"]))
        if forms:
            types = sorted({t for f in forms for t in _either(var_type(f, ctx.forms))})
            ctype = types[0] if len(types) == 1 else "(either " + " ".join(types) + ")"
            sources = [_source(c, dst, src, h, "?target", ctx) for c, dst, src in rules if _quantified_dst(c, dst)]
            out.append(f"(forall (?owner - thing ?target - {ctype}) "
                       + ctx.timing.when(when, [_any(sources), f"(not (contaminated ?target {h}))"],
                                         [f"(contaminated ?target {h})"]) + ")")
    return out


def _any(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else "(or " + " ".join(parts) + ")"


def _either(t: str) -> list[str]:
    return t[len("(either "):-1].split() if t.startswith("(either ") else [t]


def single_contact(contacts: Sequence[ContactSpec], ctx: Context) -> bool:
    """Whether a time point's contacts are one plain contact (then the v1 form adds each literal once)."""
    live = [c for c in contacts if ctx.simplify(c.guard) is not None]
    return len(live) == 1 and not live[0].forall


# ---- treatments ------------------------------------------------------------------------------------------
def treatment(t: TreatmentUse, ctx: Context) -> list[str]:
    """Effects of one treatment at its time point: the hazards it removes from each target carrier."""
    guard = ctx.simplify(t.guard)
    if guard is None:
        return []
    q = quantify(t.forall, [(t.target, None)])
    pre = [*q.restrictions, *(ctx.literal(g) for g in guard)]
    v, name = carrier_var(t.target), treatment_name(t.treatment, ctx.fd)
    whens = [ctx.timing.when(t.when, [*pre, f"(removes {name} {h} {v})"], [f"(not (contaminated {v} {h}))"])
             for h in ctx.hazards]
    return [forall(q.variables, conj(whens))] if q.variables and whens else whens


# ---- literal effects and updates -------------------------------------------------------------------------
def counted_effects(lit: Literal, when: str, pre: Sequence[str], ctx: Context) -> list[str]:
    """M5: an effect on the counted predicate (``inside``) changes its container's load when the fact changes."""
    counted = {pred for _, pred in ctx.reg.counted}
    if lit.predicate not in counted:
        return []
    atom, c = str(Literal(lit.atom)), lit.args[-1]
    if ctx.numeric:
        op = "increase" if lit.positive else "decrease"
        return [ctx.timing.when(when, [*pre, negate(atom) if lit.positive else atom], [f"({op} (current-load {c}) 1)"])]
    a, b = "?load-before", "?load-after"
    step = f"(minus-1 {b} {a})" if lit.positive else f"(minus-1 {a} {b})"
    cond = conj([*pre, negate(atom) if lit.positive else atom, f"(load-of {c} {a})", step])
    return [f"(forall ({a} {b} - level) (when {cond} (and (not (load-of {c} {a})) (load-of {c} {b}))))"]


def literal_effects(lits: Sequence[Literal], when: str, ctx: Context) -> list[str]:
    out = [ctx.timing.at(when, str(lit)) for lit in lits]
    for lit in lits:
        out += counted_effects(lit, when, [], ctx)
    return out


def update(u: Update, ctx: Context) -> list[str]:
    """Effects of one guarded, quantified update at its time point."""
    guard = ctx.simplify(u.guard)
    if guard is None:
        return []
    q = quantify(u.forall, [])
    pre = [*q.restrictions, *(ctx.literal(g) for g in guard)]
    if pre:
        parts = [ctx.timing.when(u.when, pre, [str(e) for e in u.effects])]
    else:
        parts = [ctx.timing.at(u.when, str(e)) for e in u.effects]
    for e in u.effects:
        parts += counted_effects(e, u.when, pre, ctx)
    return [forall(q.variables, conj(parts))] if q.variables else parts


def update_guarded_literals(u: Update, ctx: Context) -> list[tuple[Literal, Quantified, list[str]]]:
    """Each effect literal of an update with its quantifier and guard (for conditions on what it deletes)."""
    guard = ctx.simplify(u.guard)
    if guard is None:
        return []
    q = quantify(u.forall, [])
    pre = [*q.restrictions, *(ctx.literal(g) for g in guard)]
    return [(e, q, pre) for e in u.effects]

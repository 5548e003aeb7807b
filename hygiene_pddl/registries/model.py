"""Typed, immutable values for the five registries (SPEC §1, §2)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from hygiene_pddl.costs import Profile
from hygiene_pddl.literals import Literal

WILDCARD = "*"


@dataclass(frozen=True)
class Hazard:
    name: str
    hazard_class: str
    transfers: frozenset[tuple[str, str]]  # ordered (from, to) material pairs, "*" allowed
    source: str
    description: str = ""

    def transfers_between(self, source_material: str, target_material: str) -> bool:
        """Whether this hazard moves from a carrier of ``source_material`` onto one of ``target_material``.

        Pairs are ordered ``[from, to]``; ``"*"`` matches any material.
        """
        return any(x in (WILDCARD, source_material) and y in (WILDCARD, target_material)
                   for x, y in self.transfers)


@dataclass(frozen=True)
class Treatment:
    name: str
    removes: tuple[tuple[str, frozenset[str]], ...]  # (hazard, materials or {"*"})
    removes_all: bool
    source: str
    description: str = ""

    def removes_from(self, hazard: str, material: str) -> bool:
        """Whether this treatment removes ``hazard`` from a part or region made of ``material``."""
        if self.removes_all:
            return True
        for h, mats in self.removes:
            if h == hazard and (WILDCARD in mats or material in mats):
                return True
        return False


@dataclass(frozen=True)
class Protection:
    tag: str
    against: frozenset[str]
    source: str
    description: str = ""


@dataclass(frozen=True)
class RegionSpec:
    name: str
    material: str
    tags: frozenset[str] = frozenset()


@dataclass(frozen=True)
class ObjectType:
    name: str
    kind: str  # item | place | both
    regions: tuple[RegionSpec, ...]
    tags: frozenset[str] = frozenset()
    grasp: tuple[str, ...] = ()
    base: str | None = None
    surface: str | None = None
    static: tuple[str, ...] = ()  # unary static predicates true of objects of this type
    roles: tuple[tuple[str, str], ...] = ()  # further region roles (work, outer, ...) -> region
    capacity: int | None = None  # how many items fit inside (the counted predicate, M5)

    @property
    def is_item(self) -> bool:
        return self.kind in ("item", "both")

    @property
    def is_place(self) -> bool:
        return self.kind in ("place", "both")

    def region(self, name: str) -> RegionSpec:
        for r in self.regions:
            if r.name == name:
                return r
        raise KeyError(name)

    @property
    def receives_contaminated(self) -> bool:
        """A hamper, bin, sink or washer (static ``for-dirty``): what is put there is not in use."""
        return "for-dirty" in self.static

    def role_region(self, role: str) -> str | None:
        """The region playing ``role``: ``base``, ``surface``, or a further role (``outer`` defaults to the base,
        ``grasp`` to the first grasp region)."""
        if role == "base":
            return self.base
        if role == "surface":
            return self.surface
        extra = dict(self.roles)
        if role == "outer":
            return extra.get("outer", self.base)
        if role == "grasp":
            return extra.get("grasp", self.grasp[0] if self.grasp else None)
        return extra.get(role)

    def is_kind(self, kind: str) -> bool:
        """Whether objects of this type can bind a parameter of ``kind`` (item, place or thing)."""
        return {"item": self.is_item, "place": self.is_place, "thing": True}.get(kind, False)


#: Region roles an endpoint may name as ``?x.@role``.
ROLES = ("base", "surface", "work", "outer", "grasp")


@dataclass(frozen=True)
class Endpoint:
    """One side of a contact: ``?x.pad``, ``?x.?r``, ``?x.@surface`` (a region role) or ``?x.*`` (every region,
    treatment targets only)."""

    var: str  # parameter name without '?'
    part: str  # literal part/region name, '?r' region variable, '@role', or '*'

    @classmethod
    def parse(cls, text: str) -> Endpoint:
        obj, sep, part = text.partition(".")
        if not sep or not obj.startswith("?") or not part:
            raise ValueError(f"expected an endpoint like ?g.pad, ?o.?r, ?o.@base or ?o.*, found {text!r}")
        if part.startswith("@") and part[1:] not in ROLES:
            raise ValueError(f"unknown region role {part!r} in {text!r}; expected one of "
                             + ", ".join(f"@{r}" for r in ROLES))
        return cls(obj[1:], part)

    @property
    def every_region(self) -> bool:
        return self.part == "*"

    def __str__(self) -> str:
        return f"?{self.var}.{self.part}"


Binder = tuple[tuple[str, str], ...]  # quantified variables (name, kind: item | place | thing)


@dataclass(frozen=True)
class ContactSpec:
    """A contact between two endpoints at the start or end of an action (or at an event), happening only when
    every ``guard`` literal holds in the pre-state, once for every binding of the ``forall`` variables."""

    a: Endpoint
    b: Endpoint
    when: str = "start"  # start | end
    guard: tuple[Literal, ...] = ()
    forall: Binder = ()
    #: hazards cross, but an arrival on a protected carrier is no violation (the load of a washing cycle: its
    #: programme treats it, and the goals say whether it comes out clean)
    exempt: bool = False


@dataclass(frozen=True)
class TreatmentUse:
    """A treatment applied to a target carrier (or every region of ``?x.*``), guarded and quantified like a
    contact."""

    target: Endpoint
    treatment: str
    when: str = "end"
    guard: tuple[Literal, ...] = ()
    forall: Binder = ()


@dataclass(frozen=True)
class Update:
    """Guarded, quantified literal effects (M2): at ``when``, for every binding of ``forall`` whose ``guard``
    holds in the pre-state, apply ``effects``."""

    effects: tuple[Literal, ...]
    when: str = "end"
    guard: tuple[Literal, ...] = ()
    forall: Binder = ()


@dataclass(frozen=True)
class ActionSchema:
    name: str
    parameters: tuple[tuple[str, str], ...]
    duration: int
    occupies: tuple[str, ...] = ()  # gripper parameters
    appliances: tuple[str, ...] = ()  # place parameters used as unary appliances
    capacities: tuple[str, ...] = ()  # named unary capacities (sink)
    cond_start: tuple[Literal, ...] = ()
    cond_overall: tuple[Literal, ...] = ()
    cond_end: tuple[Literal, ...] = ()
    eff_start: tuple[Literal, ...] = ()
    eff_end: tuple[Literal, ...] = ()
    contacts: tuple[ContactSpec, ...] = ()
    treats: tuple[TreatmentUse, ...] = ()
    updates: tuple[Update, ...] = ()
    consumes: tuple[tuple[str, int], ...] = ()
    costs: tuple[tuple[str, int], ...] = ()
    description: str = ""

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(p for p, _ in self.parameters)

    def param_type(self, var: str) -> str:
        return dict(self.parameters)[var]

    @property
    def treatment_names(self) -> tuple[str, ...]:
        return tuple(sorted({t.treatment for t in self.treats}))

    @property
    def literals(self) -> tuple[Literal, ...]:
        """Every literal: conditions, effects, and the guards and effects of its contacts, treatments, updates."""
        guards = tuple(g for m in (*self.contacts, *self.treats, *self.updates) for g in m.guard)
        effects = tuple(e for u in self.updates for e in u.effects)
        return (*self.cond_start, *self.cond_overall, *self.cond_end, *self.eff_start, *self.eff_end, *guards,
                *effects)

    def named_grippers(self, kinds: Mapping[str, Sequence[str]]) -> tuple[tuple[Literal, str], ...]:
        """(literal, gripper) for every gripper a literal names by name, not by parameter (``(holding left ?s)``);
        ``kinds`` gives each predicate's argument types."""
        return tuple((lit, arg) for lit in self.literals
                     for arg, kind in zip(lit.args, kinds[lit.predicate], strict=True)
                     if kind == "gripper" and not arg.startswith("?"))


@dataclass(frozen=True)
class HazardAddition:
    """An event's new hazard source: ``hazard`` (a name or a ``?h`` hazard parameter) appears on ``target``."""

    target: Endpoint
    hazard: str


@dataclass(frozen=True)
class EventSchema:
    name: str
    parameters: tuple[tuple[str, str], ...]
    contacts: tuple[ContactSpec, ...] = ()
    consumes_param: tuple[str, str] | None = None
    sets_horizon: str | None = None
    description: str = ""
    aborts: str | None = None  # a place parameter: the action running on that appliance ends without its end
    adds_hazard: tuple[HazardAddition, ...] = ()
    effects: tuple[Literal, ...] = ()

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(p for p, _ in self.parameters)


@dataclass(frozen=True)
class HistoryEntry:
    """One record of a family's history: ``(name args...)`` at ``start``; ``variants`` says in which history
    variants it occurs (empty: in all; ``!v``: in all but v)."""

    start: int
    record: str
    variants: tuple[str, ...] = ()
    note: str = ""

    def included(self, chosen: frozenset[str]) -> bool:
        plus = [v for v in self.variants if not v.startswith("!")]
        minus = {v[1:] for v in self.variants if v.startswith("!")}
        return (not plus or any(v in chosen for v in plus)) and not (minus & chosen)


@dataclass(frozen=True)
class Variant:
    """A named change to a family's base scenario: its history records (tagged with the name), and optionally
    other stocks, more hazard sources, another deadline or decision time."""

    name: str
    note: str = ""
    stocks: tuple[tuple[str, int], ...] = ()
    sources: tuple[tuple[str, str, str], ...] = ()
    time_left: int | None = None
    decision_time: int | None = None


@dataclass(frozen=True)
class FamilySpec:
    """A family as data (issue 13): its objects, initial facts and hazard sources, stocks, goals, the base
    history and its variants, and the controlled designs it offers (episodes/designs.py)."""

    objects: tuple[tuple[str, str], ...]
    facts: tuple[str, ...]
    sources: tuple[tuple[str, str, str], ...]
    stocks: tuple[tuple[str, int], ...]
    goals: tuple[str, ...]
    decision_time: int
    time_left: int
    profile: str
    history: tuple[HistoryEntry, ...] = ()
    variants: tuple[Variant, ...] = ()
    designs: tuple[tuple[str, object], ...] = ()

    def variant(self, name: str) -> Variant:
        return {v.name: v for v in self.variants}[name]


@dataclass(frozen=True)
class Family:
    name: str
    source_activity: str
    service_goal: str
    activity_group: str
    household_area: str
    object_roles: tuple[tuple[str, str], ...]
    actions: tuple[str, ...]
    hazards: tuple[str, ...] = ()
    events: tuple[str, ...] = ()
    kind: str = "first_family"
    requests: tuple[str, ...] = ()
    spec: FamilySpec | None = None


@dataclass(frozen=True)
class Registries:
    """All five registries, loaded and cross-checked together."""

    grippers: tuple[str, ...]
    parts: tuple[tuple[str, str], ...]  # (part, material)
    predicates: tuple[tuple[str, tuple[str, ...]], ...]
    stocks: tuple[str, ...]
    materials: tuple[str, ...]
    sources: tuple[tuple[str, str], ...]
    hazards: dict[str, Hazard] = field(hash=False)
    treatments: dict[str, Treatment] = field(hash=False)
    protection: dict[str, Protection] = field(hash=False)
    object_types: dict[str, ObjectType] = field(hash=False)
    actions: dict[str, ActionSchema] = field(hash=False)
    events: dict[str, EventSchema] = field(hash=False)
    profiles: dict[str, Profile] = field(hash=False)
    families: dict[str, Family] = field(hash=False)
    activity_groups: tuple[str, ...] = ()
    household_areas: tuple[str, ...] = ()
    #: covering parts (M3): (covering part, covered part, unary gripper predicate that says it is worn)
    covers: tuple[tuple[str, str, str], ...] = field(default=())
    #: derived capacity conditions (M5): (derived predicate, counted predicate), e.g. ("room", "inside")
    counted: tuple[tuple[str, str], ...] = field(default=())
    #: unary predicates that block every contact with a region of their object (M4)
    blocked_by: tuple[str, ...] = field(default=())
    #: two-argument predicates whose goals deliver an item somewhere (deliveries are safe)
    deliveries: tuple[str, ...] = field(default=("at",))

    def part_material(self, part: str) -> str:
        return dict(self.parts)[part]

    def protected_against(self, tags: frozenset[str]) -> frozenset[str]:
        """Hazards a region carrying ``tags`` (its own plus its object's) is protected against."""
        out: set[str] = set()
        for tag in tags:
            if tag in self.protection:
                out |= self.protection[tag].against
        return frozenset(out)

    def counted_predicate(self, derived: str) -> str | None:
        """The predicate a derived capacity condition counts (``room`` -> ``inside``), or None."""
        return dict(self.counted).get(derived)

    def covering(self, part: str) -> list[tuple[str, str]]:
        """(covering part, predicate that says it is worn) for each part that can cover ``part``."""
        return [(c, pred) for c, covered, pred in self.covers if covered == part]

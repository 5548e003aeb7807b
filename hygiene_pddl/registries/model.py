"""Typed, immutable values for the five registries (SPEC §1, §2)."""

from __future__ import annotations

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

    def role_region(self, role: str) -> str | None:
        """The region playing ``role`` (``base`` or ``surface``)."""
        return {"base": self.base, "surface": self.surface}[role]


@dataclass(frozen=True)
class Endpoint:
    """One side of a contact: ``?x.pad``, ``?x.?r`` or ``?x.@surface``."""

    var: str  # parameter name without '?'
    part: str  # literal part/region name, '?r' region variable, or '@base' / '@surface'

    @classmethod
    def parse(cls, text: str) -> Endpoint:
        obj, sep, part = text.partition(".")
        if not sep or not obj.startswith("?") or not part:
            raise ValueError(f"expected an endpoint like ?g.pad, ?o.?r or ?o.@base, found {text!r}")
        if part.startswith("@") and part[1:] not in ("base", "surface"):
            raise ValueError(f"unknown region role {part!r} in {text!r}; expected @base or @surface")
        return cls(obj[1:], part)

    def __str__(self) -> str:
        return f"?{self.var}.{self.part}"


@dataclass(frozen=True)
class ContactSpec:
    a: Endpoint
    b: Endpoint
    when: str = "start"  # start | end


@dataclass(frozen=True)
class TreatmentUse:
    target: Endpoint
    treatment: str


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
    treats: TreatmentUse | None = None
    consumes: tuple[tuple[str, int], ...] = ()
    costs: tuple[tuple[str, int], ...] = ()
    description: str = ""

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(p for p, _ in self.parameters)

    def param_type(self, var: str) -> str:
        return dict(self.parameters)[var]


@dataclass(frozen=True)
class EventSchema:
    name: str
    parameters: tuple[tuple[str, str], ...]
    contacts: tuple[ContactSpec, ...] = ()
    consumes_param: tuple[str, str] | None = None
    sets_horizon: str | None = None
    description: str = ""

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(p for p, _ in self.parameters)


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

    def part_material(self, part: str) -> str:
        return dict(self.parts)[part]

    def protected_against(self, tags: frozenset[str]) -> frozenset[str]:
        """Hazards a region carrying ``tags`` (its own plus its object's) is protected against."""
        out: set[str] = set()
        for tag in tags:
            if tag in self.protection:
                out |= self.protection[tag].against
        return frozenset(out)

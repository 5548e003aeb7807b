"""The hygiene rules (SPEC §1), in one place: materials, transfer at contact, treatments, protection.

Every other module (replay, compiler, planners, validators) asks these questions here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction

from hygiene_pddl.decimals import rounded_text
from hygiene_pddl.instances.model import Carrier
from hygiene_pddl.registries.model import Endpoint, Registries

Time = int | Fraction


@dataclass(frozen=True)
class Link:
    """One hop of a provenance chain: the hazard reached ``carrier`` at ``time`` through ``via``."""

    carrier: Carrier
    time: Time
    via: str  # "initial source" or the record/step text
    step: int | None = None  # history index (or plan step index) of the contact

    def describe(self) -> str:
        owner, part = self.carrier
        return f"{owner} {part}" if self.step is None else f"{owner} {part} at {_fmt(self.time)}"


Provenance = tuple[Link, ...]


def _fmt(t: Time) -> str:
    return rounded_text(t)


def chain_text(prov: Provenance) -> str:
    """``tray rim → left pad at 2 → spoon handle at 4``."""
    return " → ".join(link.describe() for link in prov)


@dataclass(frozen=True)
class Transfer:
    source: Carrier
    target: Carrier
    hazard: str


class HygieneRules:
    """Rules bound to one set of objects (name → object type) and optionally a subset of hazards (K)."""

    def __init__(self, reg: Registries, objects: Mapping[str, str], hazards: Iterable[str] | None = None):
        self.reg = reg
        self.objects = dict(objects)
        self.hazards = tuple(sorted(hazards)) if hazards is not None else tuple(sorted(reg.hazards))

    # --- carriers -------------------------------------------------------------------------
    def carriers(self) -> tuple[Carrier, ...]:
        """Every gripper part and every object region, in a fixed order."""
        out = [(g, p) for g in self.reg.grippers for p, _ in self.reg.parts]
        for name in sorted(self.objects):
            out += [(name, r.name) for r in self.reg.object_types[self.objects[name]].regions]
        return tuple(out)

    def is_gripper_part(self, c: Carrier) -> bool:
        return c[0] in self.reg.grippers

    def material(self, c: Carrier) -> str:
        owner, part = c
        if owner in self.reg.grippers:
            return self.reg.part_material(part)
        return self.reg.object_types[self.objects[owner]].region(part).material

    def protected(self, c: Carrier) -> frozenset[str]:
        """Hazards this carrier is protected against (object-class tags plus region tags)."""
        owner, part = c
        if owner in self.reg.grippers:
            return frozenset()
        otype = self.reg.object_types[self.objects[owner]]
        return self.reg.protected_against(otype.tags | otype.region(part).tags) & frozenset(self.hazards)

    def objects_of(self, kind: str) -> list[str]:
        """The objects that can bind a parameter of ``kind`` (item, place, thing), in name order."""
        return [o for o in sorted(self.objects) if self.reg.object_types[self.objects[o]].is_kind(kind)]

    def ground(self, ep: Endpoint, binding: Mapping[str, str]) -> Carrier:
        """The carrier an endpoint names under a parameter binding."""
        owner = binding[ep.var]
        if ep.part.startswith("?"):
            return (owner, binding[ep.part[1:]])
        if ep.part.startswith("@"):
            region = self.reg.object_types[self.objects[owner]].role_region(ep.part[1:])
            if region is None:
                raise ValueError(f"{owner} has no {ep.part[1:]} region")
            return (owner, region)
        if ep.every_region:
            raise ValueError(f"?{ep.var}.* names every region of {owner}; use ground_all")
        return (owner, ep.part)

    def ground_all(self, ep: Endpoint, binding: Mapping[str, str]) -> list[Carrier]:
        """The carriers an endpoint names: every region of the object for ``?x.*``, else the one carrier."""
        if ep.every_region:
            owner = binding[ep.var]
            return [(owner, r.name) for r in self.reg.object_types[self.objects[owner]].regions]
        return [self.ground(ep, binding)]

    def has_room(self, container: str, facts: Iterable[tuple[str, ...]], counted: str) -> bool:
        """M5: fewer ``(counted ? container)`` facts than the container's capacity (no capacity: always)."""
        otype = self.objects.get(container)
        cap = self.reg.object_types[otype].capacity if otype else None
        if cap is None:
            return True
        return sum(1 for a in facts if a[0] == counted and a[-1] == container) < cap

    # --- rules ----------------------------------------------------------------------------
    def crosses(self, hazard: str, a: Carrier, b: Carrier) -> bool:
        """Whether ``hazard`` moves across a contact between carriers ``a`` and ``b``."""
        return self.reg.hazards[hazard].transfers_between(self.material(a), self.material(b))

    def transfers(self, carried: Mapping[Carrier, Iterable[str]], a: Carrier, b: Carrier) -> list[Transfer]:
        """Hazards a contact between ``a`` and ``b`` adds, both ways; sources keep theirs."""
        out = []
        for src, dst in ((a, b), (b, a)):
            have_dst = set(carried.get(dst, ()))
            for h in sorted(carried.get(src, ())):
                if h not in have_dst and self.crosses(h, src, dst):
                    out.append(Transfer(src, dst, h))
        return out

    def removes(self, treatment: str, c: Carrier, hazard: str) -> bool:
        """Whether ``treatment`` applied to carrier ``c`` removes ``hazard`` from it."""
        return self.reg.treatments[treatment].removes_from(hazard, self.material(c))

    def violates(self, c: Carrier, hazard: str) -> bool:
        return hazard in self.protected(c)

    def unsafe_facts(self, obj: str) -> list[tuple[Carrier, str]]:
        """The (region, hazard) facts that must be absent for ``(safe obj)`` to hold."""
        otype = self.reg.object_types[self.objects[obj]]
        return [((obj, r.name), h) for r in otype.regions for h in sorted(self.protected((obj, r.name)))]

    def implied_safe_goals(self, goals: Iterable[tuple[str, ...]]) -> list[tuple[str, str]]:
        """Deliveries are safe (docs/world-model-v2.md §2): ``(safe x)`` for every delivery goal ``(p x d)`` (p a
        delivery predicate) of an item protected against some hazard of K, unless ``d`` receives contaminated
        things (a hamper, a bin, a washer) or the goals already say it."""
        goals = list(goals)
        have = {g for g in goals if g[0] == "safe"}
        out: list[tuple[str, str]] = []
        for g in goals:
            if g[0] not in self.reg.deliveries or len(g) != 3 or g[1] not in self.objects or g[2] not in self.objects:
                continue
            x, d = g[1], g[2]
            if (self.reg.object_types[self.objects[d]].receives_contaminated or ("safe", x) in have
                    or ("safe", x) in out or not self.unsafe_facts(x)):
                continue
            out.append(("safe", x))
        return out

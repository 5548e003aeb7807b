"""Public instance input I_t and private assessment (SPEC §3) as immutable values."""

from __future__ import annotations

from dataclasses import dataclass

from hygiene_pddl.costs import CostVector, Profile
from hygiene_pddl.literals import Atom

Carrier = tuple[str, str]  # (gripper, part) or (object, region)


@dataclass(frozen=True)
class HistoryRecord:
    """One executed action (``kind='action'``) or observed event (``kind='event'``) of L<=t."""

    index: int
    kind: str
    name: str
    args: tuple[str, ...]
    start: int
    duration: int = 0
    note: str = ""

    @property
    def end(self) -> int:
        return self.start + self.duration

    def text(self) -> str:
        return "(" + " ".join((self.name, *self.args)) + ")"


@dataclass(frozen=True)
class HazardSource:
    carrier: Carrier
    hazard: str


@dataclass(frozen=True)
class Instance:
    id: str
    family: str
    request: str
    goals: tuple[Atom, ...]
    decision_time: int
    horizon: int
    objects: tuple[tuple[str, str], ...]  # (name, object type), sorted by name
    initial_facts: frozenset[Atom]
    initial_hazards: tuple[HazardSource, ...]
    initial_stocks: tuple[tuple[str, int], ...]
    history: tuple[HistoryRecord, ...]
    observations: frozenset[Atom]
    resources: tuple[tuple[str, int], ...]  # R_t
    known_events: tuple[int, ...]
    profile: Profile
    actions: tuple[str, ...]  # K: applicable registry entries
    events: tuple[str, ...]
    hazards: tuple[str, ...]
    treatments: tuple[str, ...]
    source_path: str | None = None
    #: what loading added or decided (e.g. goals implied by the delivery rule for a format-1 file)
    notes: tuple[str, ...] = ()
    format: int = 2

    def object_type(self, name: str) -> str:
        return dict(self.objects)[name]

    @property
    def object_names(self) -> tuple[str, ...]:
        return tuple(n for n, _ in self.objects)

    def remaining(self, stock: str) -> int:
        return dict(self.resources).get(stock, 0)


@dataclass(frozen=True)
class ReferenceStep:
    """One step of a reference plan; ``order`` / ``end_order`` are the happening positions the certifying
    planner fixed (written only when some end was placed among the starts of its instant, see
    :func:`hygiene_pddl.episodes.reference.reference_steps`)."""

    start: int
    name: str
    args: tuple[str, ...]
    duration: int
    order: int | None = None
    end_order: int | None = None


@dataclass(frozen=True)
class PairLink:
    """This instance and ``other`` form a controlled pair: history (relevant / irrelevant) or profile
    (flip / invariant / general)."""

    kind: str
    label: str
    other: str


@dataclass(frozen=True)
class Reference:
    instance: str
    family: str
    feasible: bool
    optimal_cost: CostVector | None
    plan: tuple[ReferenceStep, ...]
    design: str
    pairs: tuple[PairLink, ...]
    event: str  # none | relevant | irrelevant
    prior_violation: bool
    tier: str
    features: tuple[tuple[str, int], ...]
    activity_group: str
    household_area: str
    certified_by: tuple[str, ...] = ()
    group: str | None = None

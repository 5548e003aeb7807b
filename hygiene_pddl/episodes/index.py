"""The benchmark's composition as data: every instance's private facts and every controlled pair.

Read from the committed ``problems/<family>/<id>.reference.json`` files; shared by ``stats``, the bench
harness and the metrics (which must never read planner internals).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hygiene_pddl.costs import CostVector
from hygiene_pddl.errors import InputError, Location
from hygiene_pddl.instances import load_reference


@dataclass(frozen=True)
class InstanceInfo:
    id: str
    family: str
    path: Path  # public instance file
    reference_path: Path
    feasible: bool
    optimal_cost: CostVector | None
    tier: str
    activity_group: str
    household_area: str
    design: str
    event: str  # none | relevant | irrelevant
    prior_violation: bool
    group: str | None

    @property
    def safe_prefix(self) -> bool:
        return not self.prior_violation


@dataclass(frozen=True)
class Pair:
    kind: str  # history | profile
    label: str  # relevant | irrelevant | flip | invariant | general
    a: str
    b: str


@dataclass(frozen=True)
class BenchmarkIndex:
    instances: dict[str, InstanceInfo]
    pairs: tuple[Pair, ...]

    def eligible(self, pair: Pair) -> bool:
        """Both members have a safe prefix and a certified-feasible continuation (paper eqs. 3-4)."""
        return all(self.instances[x].safe_prefix and self.instances[x].feasible for x in (pair.a, pair.b))

    def pairs_of(self, kind: str, label: str | None = None, eligible_only: bool = True) -> list[Pair]:
        return [p for p in self.pairs if p.kind == kind and (label is None or p.label == label)
                and (not eligible_only or self.eligible(p))]


def load_index(problems_dir: Path | str) -> BenchmarkIndex:
    """Index every instance under ``problems_dir``; pairs must be declared on both members."""
    problems_dir = Path(problems_dir)
    infos: dict[str, InstanceInfo] = {}
    declared: dict[tuple, set[str]] = {}
    for ref_path in sorted(problems_dir.glob("*/*.reference.json")):
        ref = load_reference(ref_path)
        public = ref_path.with_name(ref_path.name.replace(".reference.json", ".json"))
        infos[ref.instance] = InstanceInfo(
            ref.instance, ref.family, public, ref_path, ref.feasible, ref.optimal_cost, ref.tier,
            ref.activity_group, ref.household_area, ref.design, ref.event, ref.prior_violation, ref.group)
        for link in ref.pairs:
            key = (link.kind, link.label, *sorted((ref.instance, link.other)))
            declared.setdefault(key, set()).add(ref.instance)
    pairs = []
    for (kind, label, a, b), seen in sorted(declared.items()):
        for member in (a, b):
            if member not in infos:
                raise InputError(f"{kind} pair ({a}, {b}) names an unknown instance {member!r}",
                                 Location(str(problems_dir)))
        if seen != {a, b}:
            missing = ({a, b} - seen).pop()
            raise InputError(f"{kind} pair ({a}, {b}) is declared by one member only; add it to {missing}",
                             Location(str(infos[missing].reference_path)))
        pairs.append(Pair(kind, label, a, b))
    return BenchmarkIndex(infos, tuple(pairs))

"""The ten cost dimensions, profiles and lexicographic comparison (SPEC §2)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

DIMENSIONS: tuple[str, ...] = (
    "water",
    "cleaning_agent",
    "disinfectant",
    "replacement_parts",
    "discarded_items",
    "solid_waste",
    "energy",
    "tool_wear",
    "active_robot_time",
    "makespan",
)
#: Dimensions that are sums of per-action amounts (the first eight).
SUMMED: tuple[str, ...] = DIMENSIONS[:8]


@dataclass(frozen=True)
class CostVector:
    """Ten non-negative integers in canonical order."""

    values: tuple[int, ...]

    def __post_init__(self) -> None:
        if len(self.values) != len(DIMENSIONS):
            raise ValueError(f"a cost vector has {len(DIMENSIONS)} entries, got {len(self.values)}")

    @classmethod
    def from_mapping(cls, amounts: Mapping[str, int]) -> CostVector:
        unknown = set(amounts) - set(DIMENSIONS)
        if unknown:
            raise ValueError(f"unknown cost dimension(s): {', '.join(sorted(unknown))}")
        return cls(tuple(int(amounts.get(d, 0)) for d in DIMENSIONS))

    @classmethod
    def zero(cls) -> CostVector:
        return cls((0,) * len(DIMENSIONS))

    def __getitem__(self, dim: str) -> int:
        return self.values[DIMENSIONS.index(dim)]

    def as_dict(self) -> dict[str, int]:
        return dict(zip(DIMENSIONS, self.values, strict=True))

    def key(self, profile: Profile) -> tuple[int, ...]:
        """The tuple that orders vectors lexicographically under ``profile``."""
        return tuple(self[d] for d in profile.order)

    def __str__(self) -> str:
        return " ".join(f"{d}={v}" for d, v in zip(DIMENSIONS, self.values, strict=True))


@dataclass(frozen=True)
class Profile:
    """A complete priority order over the ten dimensions."""

    name: str
    order: tuple[str, ...]

    @classmethod
    def from_prefix(cls, name: str, prefix: Iterable[str]) -> Profile:
        """Complete a prefix with the remaining dimensions in canonical order."""
        prefix = tuple(prefix)
        unknown = [d for d in prefix if d not in DIMENSIONS]
        if unknown:
            raise ValueError(f"unknown cost dimension(s) {unknown}; expected one of {DIMENSIONS}")
        if len(set(prefix)) != len(prefix):
            raise ValueError(f"profile {name!r} repeats a dimension: {list(prefix)}")
        return cls(name, prefix + tuple(d for d in DIMENSIONS if d not in prefix))

    def better(self, a: CostVector, b: CostVector) -> bool:
        """True when ``a`` is strictly better (lexicographically smaller) than ``b``."""
        return a.key(self) < b.key(self)

    def first_worse(self, plan: CostVector, optimum: CostVector) -> tuple[str, int] | None:
        """The first dimension in profile order where ``plan`` is worse, and by how much."""
        for d in self.order:
            if plan[d] != optimum[d]:
                return (d, plan[d] - optimum[d]) if plan[d] > optimum[d] else None
        return None

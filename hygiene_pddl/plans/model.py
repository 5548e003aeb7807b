"""Plan value objects: `PlanStep` and `Plan` (frozen; times as exact fractions)."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

STATUSES = ("infeasible", "undetermined")


@dataclass(frozen=True)
class PlanStep:
    """One plan line: ``time: (action args...) [duration]``; time/duration may be absent."""

    action: str
    args: tuple[str, ...] = ()
    time: Fraction | None = None
    duration: Fraction | None = None
    line: int | None = field(default=None, compare=False)

    def text(self) -> str:
        """``(action arg ...)``."""
        return "(" + " ".join((self.action, *self.args)) + ")"


@dataclass(frozen=True)
class Plan:
    """A plan file: its steps, or a status claim, plus optional cost annotations.

    `cost` holds our ``; cost: name=value ...`` annotation in file order; `trailer_cost`
    is Fast Downward's ``; cost = N (general cost)`` line.
    """

    steps: tuple[PlanStep, ...] = ()
    status: str | None = None
    cost: tuple[tuple[str, Fraction], ...] = ()
    trailer_cost: Fraction | None = None

    @property
    def cost_dict(self) -> dict[str, Fraction]:
        return dict(self.cost)

    def start_times(self) -> tuple[Fraction, ...]:
        """Each step's start as VAL reads it: its time stamp, else 1, 2, 3, ... counting the untimed steps."""
        untimed = 0
        out = []
        for s in self.steps:
            if s.time is None:
                untimed += 1
            out.append(Fraction(untimed) if s.time is None else s.time)
        return tuple(out)

    @property
    def is_temporal(self) -> bool:
        """True when any step carries a time stamp."""
        return any(s.time is not None for s in self.steps)

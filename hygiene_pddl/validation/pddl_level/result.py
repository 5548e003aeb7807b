"""Structured validation results (unified-planning style) and their JSON form."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from fractions import Fraction

from .numeric import decimal_text

SCHEMA_VERSION = 1


def number_json(value: Fraction | None) -> str | None:
    """JSON text of an exact number: a decimal when it terminates, else ``n/d``."""
    if value is None:
        return None
    den = value.denominator
    for p in (2, 5):
        while den % p == 0:
            den //= p
    if den != 1:
        return f"{value.numerator}/{value.denominator}"
    places = 0
    while (value * 10**places).denominator != 1:
        places += 1
    scaled = abs(value.numerator * 10**places // value.denominator)
    digits = str(scaled).rjust(places + 1, "0")
    sign = "-" if value < 0 else ""
    return sign + (f"{digits[:-places]}.{digits[-places:]}" if places else digits)


class Status(Enum):
    VALID = "valid"
    INVALID = "invalid"


class Reason(Enum):
    """Why a plan is invalid."""

    PRECONDITION = "precondition unsatisfied"
    DURATION = "duration constraint violated"
    MUTEX = "mutex violation"
    INVARIANT = "invariant violated"
    GOAL = "goal not satisfied"
    NUMERIC_ERROR = "numeric error"


@dataclass(frozen=True)
class TraceEntry:
    """One executed happening: its time, members and the state change it caused."""

    time: Fraction
    events: tuple[str, ...]
    added: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    changed: tuple[tuple[str, Fraction | None], ...] = ()

    def to_json(self) -> dict:
        return {
            "time": number_json(self.time), "events": list(self.events), "added": list(self.added),
            "deleted": list(self.deleted),
            "changed": {k: number_json(v) for k, v in self.changed},
        }


@dataclass(frozen=True)
class Failure:
    """Where and why execution stopped (or that the goal was missed)."""

    reason: Reason
    message: str
    step_index: int | None = None  # 0-based index into plan.steps (None: goal, TIL)
    time: Fraction | None = None
    action: str | None = None  # e.g. "(load a b) - start"
    condition: str | None = None  # the failing condition, ground
    unsatisfied: tuple[str, ...] = ()  # advice items ("set (p a) to true", ...)
    other_step_index: int | None = None  # the other side of a mutex
    other_action: str | None = None

    def to_json(self) -> dict:
        return {
            "reason": self.reason.name.lower(), "reason_text": self.reason.value,
            "message": self.message,
            "step": None if self.step_index is None else self.step_index + 1,
            "time": number_json(self.time),
            "action": self.action, "condition": self.condition,
            "unsatisfied": list(self.unsatisfied),
            "other_step": None if self.other_step_index is None else self.other_step_index + 1,
            "other_action": self.other_action,
        }


@dataclass(frozen=True)
class ValidationResult:
    """The verdict on one plan, VAL's `Final value`, diagnostics, advice and hints."""

    status: Status
    tolerance: Fraction
    failure: Failure | None = None
    metric_value: Fraction | None = None  # VAL's "Final value" (step count without metric)
    metric_text: str | None = None  # as VAL prints it
    metric_direction: str | None = None
    makespan: Fraction | None = None
    steps: int = 0
    happenings: int = 0
    advice: str = ""
    hints: tuple[str, ...] = ()
    trace: tuple[TraceEntry, ...] = field(default=(), compare=False)
    declared_status: str | None = None  # a plan file's "; status:" claim
    arithmetic: str = "val"

    @property
    def valid(self) -> bool:
        return self.status is Status.VALID

    @property
    def reason(self) -> Reason | None:
        return self.failure.reason if self.failure else None

    def to_json(self, include_trace: bool = True) -> dict:
        """The documented JSON object (docs/validate-json.md)."""
        out = {
            "schema": SCHEMA_VERSION,
            "status": self.status.value,
            "valid": self.valid,
            "tolerance": number_json(self.tolerance),
            "arithmetic": self.arithmetic,
            "reason": self.failure.reason.name.lower() if self.failure else None,
            "failure": self.failure.to_json() if self.failure else None,
            "metric": {
                "value": number_json(self.metric_value),
                "text": self.metric_text, "direction": self.metric_direction,
            },
            "makespan": number_json(self.makespan),
            "steps": self.steps,
            "happenings": self.happenings,
            "declared_status": self.declared_status,
            "advice": self.advice,
            "hints": list(self.hints),
        }
        if include_trace:
            out["trace"] = [t.to_json() for t in self.trace]
        return out

    def summary(self) -> str:
        """Two lines in VAL's words: the verdict and the final value / failure."""
        if self.valid:
            return f"Plan valid\nFinal value: {self.metric_text}"
        assert self.failure is not None
        head = "Goal not satisfied" if self.failure.reason is Reason.GOAL else (
            "Plan failed to execute")
        where = ""
        if self.failure.time is not None:
            where = f" at time {decimal_text(self.failure.time)}"
        return f"{head}: {self.failure.reason.value}{where}\n{self.failure.message}"

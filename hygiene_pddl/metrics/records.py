"""One bench result: what a planner answered on one instance, as the evaluator judged it.

The bench harness appends one :class:`ResultRecord` per line (JSON Lines) to its results store; the metrics
read them back with :func:`load_records`. ``to_json`` gives the line (a ``str`` without the newline),
``from_json`` takes a line or an already-parsed mapping; ``to_dict``/``from_dict`` work on plain dicts.

Field meanings (the contract between harness and metrics):

* ``status``: the planner's answer (``plan``, ``infeasible``, ``undetermined``) or the harness's verdict on
  the call (``error``, ``timeout``, ``memout``).
* ``plan_file``: the submitted plan, relative to the results directory (``None`` without a plan).
* ``valid``: the instance-level verdict on the submitted plan (``None`` when no plan was submitted);
  ``pddl_valid`` the PDDL-level one.
* ``cost``: dimension -> amount, recomputed by the evaluator from the plan (never the planner's claim).
* ``optimal``: the recomputed cost equals the reference optimum; ``first_worse``: ``{"dimension", "by"}``,
  the first dimension in the instance's profile order where the plan is worse than the optimum.
* ``timings``: ``build``, ``solve``, ``total`` seconds inside the planner; ``wall``: the planner call's wall
  time in the worker (from the call to its answer).
* ``projection``: only on state-projection-study runs, ``{"mode": "full"|"projected", "fallback": bool}``;
  ``None`` on the main comparison's runs.
* ``proved_optimal``: the planner's own claim that its plan is optimal for the task (``None``: not recorded).
* ``harness``: what the isolated call cost around the planner: ``call`` (seconds from starting the call's
  process to its record), ``start`` (before the planner began), ``check`` (both validators after it),
  ``process`` (``fork`` from the preloaded fork server, or ``spawn``), ``server_start`` (seconds of ``start``
  spent starting the fork server, paid by the first call of a bench process) and ``time_limit`` (the call's);
  ``None`` for records from elsewhere.
* ``usage``: what the call consumed besides time, as the planner reports it (e.g. a language model's
  ``prompt_tokens`` and ``completion_tokens``); ``{}`` when it reports nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hygiene_pddl.errors import InputError, Location

STATUSES: tuple[str, ...] = ("plan", "infeasible", "undetermined", "error", "timeout", "memout")
#: Statuses that are no answer at all (they count as "no plan or undetermined").
NO_ANSWER: tuple[str, ...] = ("undetermined", "error", "timeout", "memout")
PROJECTION_MODES: tuple[str, ...] = ("full", "projected")


@dataclass(frozen=True)
class ResultRecord:
    planner: str
    instance: str
    run: int
    status: str
    plan_file: str | None = None
    valid: bool | None = None
    pddl_valid: bool | None = None
    cost: dict[str, int] | None = None
    optimal: bool | None = None
    first_worse: dict[str, Any] | None = None
    timings: dict[str, float] = field(default_factory=dict)
    wall: float = 0.0
    notes: tuple[str, ...] = ()
    error: str | None = None
    projection: dict[str, Any] | None = None
    proved_optimal: bool | None = None
    harness: dict[str, Any] | None = None
    usage: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"unknown result status {self.status!r}; expected one of {', '.join(STATUSES)}")
        if self.projection is not None and self.projection.get("mode") not in PROJECTION_MODES:
            raise ValueError(f"projection mode must be one of {PROJECTION_MODES}, got {self.projection!r}")
        if self.first_worse is not None and "dimension" not in self.first_worse:
            raise ValueError(f"first_worse needs a 'dimension': {self.first_worse!r}")
        # normalise containers (lists from JSON, or callers' lists) so records compare equal
        object.__setattr__(self, "notes", tuple(self.notes))
        object.__setattr__(self, "timings", {k: float(v) for k, v in dict(self.timings).items()})
        if self.cost is not None:
            object.__setattr__(self, "cost", {k: int(v) for k, v in dict(self.cost).items()})

    @property
    def submitted_plan(self) -> bool:
        return self.status == "plan"

    @property
    def mode(self) -> str | None:
        """``full`` / ``projected`` on projection-study runs, else ``None``."""
        return None if self.projection is None else self.projection["mode"]

    def to_dict(self) -> dict[str, Any]:
        return {
            "planner": self.planner,
            "instance": self.instance,
            "run": self.run,
            "status": self.status,
            "plan_file": self.plan_file,
            "valid": self.valid,
            "pddl_valid": self.pddl_valid,
            "cost": None if self.cost is None else dict(self.cost),
            "optimal": self.optimal,
            "first_worse": None if self.first_worse is None else dict(self.first_worse),
            "timings": dict(self.timings),
            "wall": self.wall,
            "notes": list(self.notes),
            "error": self.error,
            "projection": None if self.projection is None else dict(self.projection),
            "proved_optimal": self.proved_optimal,
            "harness": None if self.harness is None else dict(self.harness),
            "usage": dict(self.usage),
        }

    def to_json(self) -> str:
        """One JSON Lines line (no trailing newline)."""
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ResultRecord:
        missing = [k for k in ("planner", "instance", "run", "status") if k not in data]
        if missing:
            raise ValueError(f"result record lacks {', '.join(missing)}")
        return cls(
            planner=str(data["planner"]),
            instance=str(data["instance"]),
            run=int(data["run"]),
            status=str(data["status"]),
            plan_file=data.get("plan_file"),
            valid=data.get("valid"),
            pddl_valid=data.get("pddl_valid"),
            cost=data.get("cost"),
            optimal=data.get("optimal"),
            first_worse=data.get("first_worse"),
            timings=data.get("timings") or {},
            wall=float(data.get("wall") or 0.0),
            notes=tuple(data.get("notes") or ()),
            error=data.get("error"),
            projection=data.get("projection"),
            proved_optimal=data.get("proved_optimal"),
            harness=data.get("harness"),
            usage=dict(data.get("usage") or {}),
        )

    @classmethod
    def from_json(cls, data: str | Mapping[str, Any]) -> ResultRecord:
        """A record from one JSON line or an already-parsed mapping."""
        return cls.from_dict(json.loads(data) if isinstance(data, str) else data)


def iter_records(lines: Iterable[str], source: str | None = None) -> Iterator[ResultRecord]:
    """Parse JSON Lines; blank lines are skipped. A damaged *last* line without a newline (a write cut
    short by an interrupted run) is ignored; any other damaged line raises :class:`InputError`."""
    lines = list(lines)
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            yield ResultRecord.from_json(line)
        except (ValueError, TypeError, KeyError) as exc:
            if number == len(lines) and not line.endswith("\n"):
                return
            raise InputError(f"damaged result record: {exc}", Location(source, number)) from None


def load_records(path: Path | str) -> list[ResultRecord]:
    """All records of a results store (a ``.jsonl`` file)."""
    path = Path(path)
    with path.open(encoding="utf-8") as fh:
        return list(iter_records(fh, str(path)))

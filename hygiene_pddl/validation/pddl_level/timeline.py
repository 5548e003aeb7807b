"""Plan steps -> events (instant actions, starts, ends, TILs) -> happenings, as VAL builds them.

Events are sorted by time (ties: creation order); a happening collects the events at most
tolerance/10 after its first event, and takes that first event's time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from hygiene_pddl.pddl import ast
from hygiene_pddl.pddl.printer import format_number

from .effects import DurativeShape, EffectLists, Monitor, shape_action, shape_durative
from .numeric import Arith, Num


@dataclass(eq=False)
class Actor:
    """Identity of one member of a happening (for mutex bookkeeping and reports)."""

    label: str
    part: str = ""  # "start", "end", "conditional effect", ""
    step_index: int | None = None

    def describe(self) -> str:
        return f"{self.label} - {self.part}" if self.part else self.label


@dataclass(eq=False)
class MonitorRun:
    """A conditional-effect monitor of one running instance (its binding and status)."""

    spec: Monitor
    binding: dict
    actor: Actor
    status: bool = True


@dataclass(eq=False)
class Instance:
    """One durative plan step while it runs."""

    shape: DurativeShape
    binding: dict
    start_actor: Actor
    monitors: list[MonitorRun] = field(default_factory=list)
    start_time: Fraction = Fraction(0)


@dataclass(eq=False)
class Event:
    """One start, end, instantaneous action or timed literal of a plan."""

    actor: Actor
    kind: str  # "action" | "start" | "end" | "til"
    time: Num
    exact: Fraction
    order: int
    binding: dict
    conds: list[ast.Cond]
    effects: EffectLists
    durations: list[ast.DurationConstraint] = field(default_factory=list)
    instance: Instance | None = None


@dataclass(eq=False)
class Happening:
    """Events VAL treats as simultaneous, at the time of the first."""

    time: Num
    exact: Fraction
    events: list[Event]
    after_plan: bool = False


class Shapes:
    """Per-operator compiled shapes (built once per domain)."""

    def __init__(self) -> None:
        self._cache: dict[str, DurativeShape | EffectLists] = {}

    def of(self, op: ast.Operator):
        shape = self._cache.get(op.name)
        if shape is None:
            shape = shape_durative(op) if isinstance(op, ast.DurativeAction) else (
                shape_action(op))
            self._cache[op.name] = shape
        return shape


def til_effects(item: ast.Atom | ast.Not | ast.FluentInit) -> EffectLists:
    lists = EffectLists()
    if isinstance(item, ast.Atom):
        lists.adds.append(item)
    elif isinstance(item, ast.Not):
        lists.dels.append(item.cond)
    else:
        lists.updates.append(ast.Update("assign", item.fluent, ast.Number(item.value)))
    return lists


def til_label(til: ast.TimedInit) -> str:
    from hygiene_pddl.pddl.printer import cond, nexpr

    item = til.item
    text = (f"(= {nexpr(item.fluent)} {format_number(item.value)})"
            if isinstance(item, ast.FluentInit) else cond(item))
    return f"(at {format_number(til.time)} {text})"


def merge_times(times: list[Num], margin: Num) -> list[list[int]]:
    """VAL's grouping: indices of `times`, sorted by (time, index), in groups that take every time at most
    `margin` after their first (greedy, anchored on the first: not transitive)."""
    order = sorted(range(len(times)), key=lambda i: (times[i], i))
    out: list[list[int]] = []
    i = 0
    while i < len(order):
        limit = times[order[i]] + margin
        j = i + 1
        while j < len(order) and not times[order[j]] > limit:
            j += 1
        out.append(order[i:j])
        i = j
    return out


def group(events: list[Event], arith: Arith, tolerance: Fraction) -> list[Happening]:
    """VAL's grouping: a happening takes every event within tolerance/10 of its first."""
    events.sort(key=lambda e: (e.time, e.order))
    out = [Happening(events[g[0]].time, events[g[0]].exact, [events[i] for i in g])
           for g in merge_times([e.time for e in events], arith.num(tolerance) / 10)]
    real = [e.time for e in events if e.kind != "til"]
    if real:
        last = max(real)
        for h in out:
            h.after_plan = h.time > last
    return out

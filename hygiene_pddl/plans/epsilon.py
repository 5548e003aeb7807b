"""Separate causally ordered, coinciding happenings by epsilon (PDDL 2.1 needs it, VAL checks it).

A step is shifted as a whole (start and end move together), so durations stay exact. Step j is
shifted at least epsilon past step i when j depends on i and a happening (start or end) of j
coincides with a happening of i; shifts accumulate along chains of such dependencies. A timed
initial literal cannot move: a step with a happening at a literal's time that depends on it is
shifted epsilon past it (VAL puts both in one happening and reads conditions before the literal).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from fractions import Fraction

from .model import PlanStep

Dependencies = Iterable[tuple[int, int]] | Callable[[int, int], bool] | None


def _times(step: PlanStep) -> tuple[Fraction, Fraction]:
    if step.time is None:
        raise ValueError(f"step {step.text()} has no time; epsilon offsets need time stamps")
    return step.time, step.time + (step.duration or 0)


def _default_pairs(spans: list[tuple[Fraction, Fraction]]) -> set[tuple[int, int]]:
    """j depends on i when j starts exactly when i ends (instantaneous ties: list order)."""
    pairs = set()
    for i, (si, ei) in enumerate(spans):
        for j, (sj, _ej) in enumerate(spans):
            if i != j and sj == ei and (ei > si or i < j):
                pairs.add((i, j))
    return pairs


def _pairs(deps: Dependencies, spans: list[tuple[Fraction, Fraction]]) -> set[tuple[int, int]]:
    if deps is None:
        return _default_pairs(spans)
    n = len(spans)
    if callable(deps):
        candidates = {(i, j) for i in range(n) for j in range(n) if i != j and deps(i, j)}
    else:
        candidates = set(deps)
    out = set()
    for i, j in candidates:
        if not (0 <= i < n and 0 <= j < n) or i == j:
            raise ValueError(f"bad dependency ({i}, {j}) for {n} steps")
        if set(spans[i]) & set(spans[j]):
            out.add((i, j))
    return out


def add_epsilon_offsets(steps: Sequence[PlanStep], dependencies: Dependencies = None,
                        epsilon: Fraction = Fraction(1, 100),
                        max_drift: Fraction = Fraction(1, 2),
                        literals: Iterable[tuple[Fraction, int]] = ()) -> tuple[PlanStep, ...]:
    """Shift dependent coinciding happenings by `epsilon` along chains.

    `dependencies` is a set of index pairs ``(i, j)`` meaning "step j depends on step i", or a
    predicate on such pairs; by default j depends on i when j starts exactly when i ends.
    `literals` holds ``(time, j)`` pairs: step j depends on a timed literal at `time` (it moves
    epsilon past the literal when one of its happenings is at that time).
    Raises ValueError on a cyclic dependency or when a shift would reach `max_drift`.
    """
    epsilon = Fraction(epsilon)
    spans = [_times(s) for s in steps]
    pairs = _pairs(dependencies, spans)
    offset = [Fraction(0)] * len(steps)
    for time, j in literals:
        if not 0 <= j < len(steps):
            raise ValueError(f"bad literal dependency ({time}, {j}) for {len(steps)} steps")
        if Fraction(time) in spans[j]:
            offset[j] = epsilon
    succ: dict[int, list[int]] = {i: [] for i in range(len(steps))}
    indegree = [0] * len(steps)
    for i, j in sorted(pairs):
        succ[i].append(j)
        indegree[j] += 1
    ready = [i for i, d in enumerate(indegree) if d == 0]
    done = 0
    while ready:
        i = ready.pop()
        done += 1
        for j in succ[i]:
            offset[j] = max(offset[j], offset[i] + epsilon)
            indegree[j] -= 1
            if indegree[j] == 0:
                ready.append(j)
    if done != len(steps):
        raise ValueError("the dependencies between coinciding happenings form a cycle")
    worst = max(offset, default=Fraction(0))
    if worst >= max_drift:
        raise ValueError(f"epsilon chains drift by {worst} >= {max_drift}; use a smaller epsilon")
    return tuple(replace(s, time=s.time + o) if o else s for s, o in zip(steps, offset,
                                                                          strict=True))

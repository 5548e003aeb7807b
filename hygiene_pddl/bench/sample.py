"""A deterministic stratified sample of benchmark instances (for engines too slow to run on all of them).

The sample is made of whole *units*: the connected groups of instances that controlled pairs link (a crossed
2x2 group, a profile pair, ...), so that every eligible pair with one member in the sample has both and the
pair metrics (PS, HC, HC*, history swaps) stay meaningful. Two phases, both deterministic for a seed:

1. **cover**: units are added greedily until every value seen in the population is in the sample: each
   activity group, tier, household area, design and (if given) family kind, both event conditions, an
   infeasible continuation and a prior violation;
2. **fill**: until the sample has ``size`` instances, a unit is added for the condition (infeasible / relevant
   event / irrelevant event / prior violation / plain) furthest below its proportional share, in that
   condition's (activity group x tier) stratum furthest below its share: the unit with the most instances in
   that stratum first.

Ties are broken by a hash of (seed, unit), never by file order. Everything is read from the instances'
reference files (the benchmark index), not from family names.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from hygiene_pddl.episodes.index import BenchmarkIndex, InstanceInfo
from hygiene_pddl.errors import InputError

#: The smallest sample for external engines that issue 14 asks for.
DEFAULT_SIZE = 150


def condition(info: InstanceInfo) -> str:
    """The instance's special condition, for stratification."""
    if not info.feasible:
        return "infeasible"
    if info.event != "none":
        return f"event_{info.event}"
    return "prior_violation" if info.prior_violation else "plain"


def _cover_values(info: InstanceInfo, kind: Callable[[InstanceInfo], str | None]) -> set[tuple[str, Any]]:
    values = {("group", info.activity_group), ("tier", info.tier), ("area", info.household_area),
              ("design", info.design)}
    if (k := kind(info)) is not None:
        values.add(("kind", k))
    values.add(("event", info.event))  # "none" too: a sample of event instances alone misses the plain ones
    values.add(("feasible", info.feasible))  # both: a sample of infeasible instances alone misses the feasible
    if info.prior_violation:
        values.add(("prior_violation", True))
    return values


def units(index: BenchmarkIndex, ids: Iterable[str]) -> list[tuple[str, ...]]:
    """The pair-linked groups among ``ids`` (pairs with a member outside ``ids`` do not link), sorted."""
    ids = sorted(set(ids))
    parent = {i: i for i in ids}

    def root(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for p in index.pairs:
        if p.a in parent and p.b in parent:
            a, b = root(p.a), root(p.b)
            if a != b:
                parent[max(a, b)] = min(a, b)
    groups: dict[str, list[str]] = {}
    for i in ids:
        groups.setdefault(root(i), []).append(i)
    return sorted(tuple(g) for g in groups.values())


def stratified_sample(index: BenchmarkIndex, size: int = DEFAULT_SIZE, seed: int = 0,
                      ids: Iterable[str] | None = None,
                      kind: Callable[[InstanceInfo], str | None] = lambda info: None) -> list[str]:
    """At least ``size`` instance ids of ``ids`` (default: the whole index), sorted (module docstring)."""
    pool = sorted(index.instances if ids is None else set(ids))
    if size <= 0:
        raise InputError(f"the sample size must be positive, got {size}")
    if size >= len(pool):
        return pool
    info = index.instances
    groups = units(index, pool)

    def tie(unit: tuple[str, ...]) -> str:
        return hashlib.sha256(f"{seed}:{unit[0]}".encode()).hexdigest()

    covers = {u: set().union(*(_cover_values(info[i], kind) for i in u)) for u in groups}
    wanted = set().union(*covers.values())
    chosen: list[tuple[str, ...]] = []
    left = set(groups)
    while wanted:
        best = min(left, key=lambda u: (-len(covers[u] & wanted), tie(u)))
        chosen.append(best)
        left.discard(best)
        wanted -= covers[best]

    def stratum(i: str) -> tuple[str, str, str]:
        return (info[i].activity_group, info[i].tier, condition(info[i]))

    population = Counter(stratum(i) for i in pool)
    by_condition = Counter(c for (_, _, c), n in population.items() for _ in range(n))
    have = Counter(stratum(i) for u in chosen for i in u)
    while sum(map(len, chosen)) < size and left:
        # the condition furthest below its share first, then its (group, tier) stratum furthest below its share
        got = Counter(c for (_, _, c), n in have.items() for _ in range(n))
        cond = max(sorted(by_condition), key=lambda c: by_condition[c] * size / len(pool) - got[c])
        target = max(sorted(s for s in population if s[2] == cond),
                     key=lambda s: population[s] * size / len(pool) - have[s])
        best = min(left, key=lambda u: (-sum(stratum(i) == target for i in u), tie(u)))
        chosen.append(best)
        left.discard(best)
        have.update(stratum(i) for i in best)
    return sorted(i for u in chosen for i in u)


def describe(index: BenchmarkIndex, ids: Iterable[str],
             kind: Callable[[InstanceInfo], str | None] = lambda info: None) -> dict[str, dict[str, int]]:
    """Counts of the sample per activity group, tier, area, design, kind and condition."""
    out: dict[str, Counter] = {k: Counter() for k in ("activity_group", "tier", "household_area", "design",
                                                        "kind", "condition")}
    for i in ids:
        x = index.instances[i]
        out["activity_group"][x.activity_group] += 1
        out["tier"][x.tier] += 1
        out["household_area"][x.household_area] += 1
        out["design"][x.design] += 1
        out["kind"][kind(x) or "(none)"] += 1
        out["condition"][condition(x)] += 1
    return {k: dict(sorted(v.items())) for k, v in out.items()}


def sample_files(files: list[Path], size: int, seed: int = 0, reg=None) -> list[Path]:  # noqa: ANN001
    """The stratified sample of instance files (their benchmark folders' references decide the strata)."""
    from hygiene_pddl.episodes.index import load_index

    roots = sorted({f.parent.parent for f in files})
    instances: dict[str, InstanceInfo] = {}
    pairs = []
    for root in roots:
        idx = load_index(root)
        instances.update(idx.instances)
        pairs.extend(idx.pairs)
    index = BenchmarkIndex(instances, tuple(pairs))
    by_id = {f.stem: f for f in files}
    missing = sorted(i for i in by_id if i not in instances)
    if missing:
        raise InputError(f"--sample needs each instance's reference file; none for {', '.join(missing[:5])}"
                         + (f" and {len(missing) - 5} more" if len(missing) > 5 else ""))
    return [by_id[i] for i in stratified_sample(index, size, seed, by_id, family_kind(reg))]


def family_kind(reg=None) -> Callable[[InstanceInfo], str | None]:  # noqa: ANN001
    """InstanceInfo -> its family's task kind (:func:`hygiene_pddl.metrics.tables.family_kind`), with the
    packaged registries by default."""
    from hygiene_pddl.metrics.tables import family_kind as kind_of
    from hygiene_pddl.registries import load_registries

    return kind_of(reg if reg is not None else load_registries())

"""The paper's metrics (§III-C, eqs. 2-4) as pure functions over result records and the benchmark index.

A planner's *results* are a mapping instance id -> :class:`ResultRecord` (see :func:`select`); an instance
of the comparison set without a result counts as "no plan". Definitions and decisions: docs/metrics.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hygiene_pddl.costs import CostVector
from hygiene_pddl.episodes.index import BenchmarkIndex, InstanceInfo, Pair
from hygiene_pddl.metrics.records import ResultRecord

Results = Mapping[str, ResultRecord]

PROFILE_LABELS: tuple[str, ...] = ("general", "flip", "invariant")
HISTORY_LABELS: tuple[str, ...] = ("relevant", "irrelevant")
EVENT_LABELS: tuple[str, ...] = ("relevant", "irrelevant")
TIER_ORDER: tuple[str, ...] = ("easy", "moderate", "hard")
#: first_nonoptimal keys for safe, non-optimal plans whose first worse dimension is not a cost dimension
NO_OPTIMUM = "(no certified optimum)"
UNKNOWN_DIMENSION = "(unknown)"


# --------------------------------------------------------------------------------------------- selection
def select(records: Iterable[ResultRecord], planner: str, run: int | None = None) -> dict[str, ResultRecord]:
    """The main-comparison result of ``planner`` on each instance.

    Projection-study records (``projection`` set) are left out. With ``run`` given only that run counts;
    otherwise the lowest run number. Two records with the same (instance, run) are a re-evaluation: the
    later one in the store wins.
    """
    chosen: dict[str, ResultRecord] = {}
    for rec in records:
        if rec.planner != planner or rec.projection is not None or (run is not None and rec.run != run):
            continue
        old = chosen.get(rec.instance)
        if old is None or rec.run <= old.run:
            chosen[rec.instance] = rec
    return chosen


def planners_of(records: Iterable[ResultRecord]) -> list[str]:
    """Planners with main-comparison records, sorted by name."""
    return sorted({r.planner for r in records if r.projection is None})


def comparison_set(records: Iterable[ResultRecord], index: BenchmarkIndex,
                   planners: Iterable[str] | None = None) -> tuple[str, ...]:
    """Instances of the index that any of ``planners`` (default: all) was run on, sorted."""
    wanted = None if planners is None else set(planners)
    return tuple(sorted({r.instance for r in records if r.projection is None and r.instance in index.instances
                         and (wanted is None or r.planner in wanted)}))


def _domain(results: Results, index: BenchmarkIndex, instances: Iterable[str] | None) -> tuple[str, ...]:
    if instances is None:
        return tuple(sorted(i for i in results if i in index.instances))
    ids = tuple(dict.fromkeys(instances))
    unknown = [i for i in ids if i not in index.instances]
    if unknown:
        raise KeyError(f"instances not in the benchmark index: {', '.join(unknown)}")
    return ids


# ------------------------------------------------------------------------------------------- indicators
@dataclass(frozen=True)
class Indicators:
    """The per-instance 0/1 indicators of eqs. 2-4."""

    f: int  # the reference continuation is feasible
    b: int  # safe completion: a plan was submitted and is valid at instance level
    r: int  # an explicit infeasibility judgment without a plan
    o: int  # a certified reference optimum exists
    m: int  # the recomputed cost of the submitted plan equals that optimum

    @property
    def sr(self) -> int:
        return self.f * self.b + (1 - self.f) * self.r

    @property
    def osr(self) -> int:
        return self.f * self.b * self.o * self.m + (1 - self.f) * self.r


def indicators(info: InstanceInfo, rec: ResultRecord | None) -> Indicators:
    """Indicators of one instance; ``rec is None`` (no result) is no plan and no judgment."""
    submitted = rec is not None and rec.status == "plan"
    o = info.optimal_cost is not None
    m = (submitted and o and rec.cost is not None
         and CostVector.from_mapping(rec.cost) == info.optimal_cost)
    return Indicators(
        f=int(info.feasible),
        b=int(submitted and rec.valid is True),
        r=int(rec is not None and rec.status == "infeasible"),
        o=int(o),
        m=int(m),
    )


# ------------------------------------------------------------------------------------------- SR and OSR
@dataclass(frozen=True)
class Resolution:
    n: int
    sr_count: int
    osr_count: int

    @property
    def sr(self) -> float | None:
        return self.sr_count / self.n if self.n else None

    @property
    def osr(self) -> float | None:
        return self.osr_count / self.n if self.n else None

    def as_dict(self) -> dict[str, Any]:
        return {"n": self.n, "sr_count": self.sr_count, "osr_count": self.osr_count, "sr": self.sr, "osr": self.osr}


def resolution(results: Results, index: BenchmarkIndex, instances: Iterable[str] | None = None) -> Resolution:
    """SR (eq. 2) and OSR (eq. 3) over the comparison set ``instances`` (default: the instances with results)."""
    ids = _domain(results, index, instances)
    ind = [indicators(index.instances[i], results.get(i)) for i in ids]
    return Resolution(len(ids), sum(x.sr for x in ind), sum(x.osr for x in ind))


def _ordered(values: Iterable[Any]) -> list[Any]:
    vals = set(values)
    head = [v for v in TIER_ORDER if v in vals]
    return head + sorted((v for v in vals if v not in TIER_ORDER), key=str)


def resolution_by(results: Results, index: BenchmarkIndex, attribute: str,
                  instances: Iterable[str] | None = None,
                  key: Callable[[InstanceInfo], Any] | None = None) -> dict[Any, Resolution]:
    """SR/OSR per value of an :class:`InstanceInfo` attribute (``tier``, ``activity_group``, ``family``, ...), or
    per value of ``key(info)`` when given (e.g. the family's kind from the registry)."""
    ids = _domain(results, index, instances)
    value = key or (lambda info: getattr(info, attribute))
    groups: dict[Any, list[str]] = {}
    for i in ids:
        groups.setdefault(value(index.instances[i]), []).append(i)
    return {v: resolution(results, index, groups[v]) for v in _ordered(groups)}


def event_instances(index: BenchmarkIndex, event: str, instances: Iterable[str]) -> tuple[str, ...]:
    """The ``event`` subset (relevant / irrelevant) of ``instances``: safe prefix, certified-feasible
    continuation and certified optimum (paper §III-C, contact events)."""
    return tuple(i for i in instances if (info := index.instances[i]).event == event and info.safe_prefix
                 and info.feasible and info.optimal_cost is not None)


def event_resolution(results: Results, index: BenchmarkIndex, event: str,
                     instances: Iterable[str] | None = None) -> Resolution:
    """SR/OSR on the relevant-event or irrelevant-event subset of the comparison set."""
    return resolution(results, index, event_instances(index, event, _domain(results, index, instances)))


# ----------------------------------------------------------------------------------------------- pairs
@dataclass(frozen=True)
class PairCounts:
    kind: str
    label: str
    n: int  # eligible pairs with both members in the comparison set
    completed: int  # sum of b_i b_j
    optimal: int  # sum of b_i b_j m_i m_j

    def as_dict(self) -> dict[str, Any]:
        if self.kind == "profile":
            return {"n": self.n, "ps": self.optimal}
        return {"n": self.n, "hc": self.completed, "hc_star": self.optimal}


def pair_set(index: BenchmarkIndex, kind: str, label: str, instances: Iterable[str]) -> list[Pair]:
    """Eligible pairs (both members with a safe prefix and a certified-feasible continuation) whose members
    are both in the comparison set."""
    ids = set(instances)
    return [p for p in index.pairs_of(kind, label) if p.a in ids and p.b in ids]


def pair_counts(results: Results, index: BenchmarkIndex, kind: str, label: str,
                instances: Iterable[str] | None = None) -> PairCounts:
    pairs = pair_set(index, kind, label, _domain(results, index, instances))
    completed = optimal = 0
    for p in pairs:
        a, b = (indicators(index.instances[x], results.get(x)) for x in (p.a, p.b))
        completed += a.b * b.b
        optimal += a.b * b.b * a.m * b.m
    return PairCounts(kind, label, len(pairs), completed, optimal)


def profile_success(results: Results, index: BenchmarkIndex, label: str,
                    instances: Iterable[str] | None = None) -> int:
    """PS = sum over eligible profile pairs of b_i b_j m_i m_j (eq. 3); label general / flip / invariant."""
    return pair_counts(results, index, "profile", label, instances).optimal


def history_completion(results: Results, index: BenchmarkIndex, label: str,
                       instances: Iterable[str] | None = None) -> tuple[int, int]:
    """(HC, HC*) over eligible history pairs (eq. 4); label relevant / irrelevant."""
    c = pair_counts(results, index, "history", label, instances)
    return c.completed, c.optimal


# ---------------------------------------------------------------------------------------- failure table
@dataclass(frozen=True)
class Failures:
    """Mutually exclusive outcome counts; the six columns sum to ``n``.

    The first three failure columns fail SR; ``safe_nonoptimal`` passes SR but not OSR.
    """

    n: int
    safe_optimal: int = 0  # f b o m
    correct_rejection: int = 0  # (1 - f) r
    no_plan: int = 0  # no plan or undetermined (incl. error, timeout, memout, missing result)
    incorrect_rejection: int = 0  # claims infeasible on a feasible instance
    invalid_continuation: int = 0  # a submitted plan that is not a safe completion
    safe_nonoptimal: int = 0  # f b (1 - o m)
    first_nonoptimal: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"n": self.n, "safe_optimal": self.safe_optimal, "correct_rejection": self.correct_rejection,
                "no_plan": self.no_plan, "incorrect_rejection": self.incorrect_rejection,
                "invalid_continuation": self.invalid_continuation, "safe_nonoptimal": self.safe_nonoptimal,
                "first_nonoptimal": dict(self.first_nonoptimal)}


def outcome(info: InstanceInfo, rec: ResultRecord | None) -> str:
    """The failure-table column of one instance (a :class:`Failures` field name)."""
    x = indicators(info, rec)
    status = None if rec is None else rec.status
    if not x.f:
        if x.r:
            return "correct_rejection"
        return "invalid_continuation" if status == "plan" else "no_plan"
    if status == "plan":
        if not x.b:
            return "invalid_continuation"
        return "safe_optimal" if x.o and x.m else "safe_nonoptimal"
    return "incorrect_rejection" if status == "infeasible" else "no_plan"


def first_nonoptimal_dimension(info: InstanceInfo, rec: ResultRecord) -> str:
    if info.optimal_cost is None:
        return NO_OPTIMUM
    if rec.first_worse and rec.first_worse.get("dimension"):
        return str(rec.first_worse["dimension"])
    return UNKNOWN_DIMENSION


def failure_table(results: Results, index: BenchmarkIndex, instances: Iterable[str] | None = None) -> Failures:
    ids = _domain(results, index, instances)
    counts = dict.fromkeys(("safe_optimal", "correct_rejection", "no_plan", "incorrect_rejection",
                            "invalid_continuation", "safe_nonoptimal"), 0)
    dims: dict[str, int] = {}
    for i in ids:
        info, rec = index.instances[i], results.get(i)
        col = outcome(info, rec)
        counts[col] += 1
        if col == "safe_nonoptimal":
            d = first_nonoptimal_dimension(info, rec)
            dims[d] = dims.get(d, 0) + 1
    return Failures(len(ids), **counts, first_nonoptimal=dict(sorted(dims.items())))

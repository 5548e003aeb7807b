"""The history-swap evaluation (paper §V-C): a planner's saved plan for one member of a history pair is
replayed, actions and schedule unchanged, under the other member's history and judged against that
member's reference. Relevant pairs should break safety or optimality; irrelevant pairs should not change
the outcome. Unlike the rest of :mod:`hygiene_pddl.metrics` this reads plan files and instances."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hygiene_pddl.episodes.index import BenchmarkIndex
from hygiene_pddl.errors import InputError
from hygiene_pddl.instances import load_instance, load_reference
from hygiene_pddl.metrics.core import HISTORY_LABELS, comparison_set, indicators, pair_set, planners_of, select
from hygiene_pddl.metrics.records import ResultRecord
from hygiene_pddl.plans.parser import parse_plan
from hygiene_pddl.registries import Registries, load_registries
from hygiene_pddl.validation.instance_level import evaluate_plan


@dataclass
class SwapCounts:
    evaluations: int = 0  # (pair, direction) cases, plan or not
    replayed: int = 0  # cases whose source result was a submitted plan that could be replayed
    safe_optimal_before: int = 0  # source plan safe and optimal under its own instance
    stayed_safe_optimal: int = 0  # ... and still safe and optimal under the swapped history
    outcome_preserved: int = 0  # (safe, safe and optimal) identical before and after (no plan stays no plan)
    unavailable: int = 0  # a submitted plan whose file is missing or unreadable (not counted as preserved)
    cases: list[dict[str, Any]] = field(default_factory=list)

    def add(self, other: SwapCounts) -> None:
        for name in ("evaluations", "replayed", "safe_optimal_before", "stayed_safe_optimal", "outcome_preserved",
                     "unavailable"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def as_dict(self, with_cases: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {k: getattr(self, k) for k in ("evaluations", "replayed", "safe_optimal_before",
                                                             "stayed_safe_optimal", "outcome_preserved",
                                                             "unavailable")}
        if with_cases:
            out["cases"] = list(self.cases)
        return out


class _Replayer:
    def __init__(self, index: BenchmarkIndex, results_dir: Path, reg: Registries | None):
        self.index, self.results_dir = index, results_dir
        self.reg = reg or load_registries()
        self._inst: dict[str, Any] = {}

    def instance(self, iid: str):
        if iid not in self._inst:
            info = self.index.instances[iid]
            self._inst[iid] = (load_instance(info.path, self.reg), load_reference(info.reference_path))
        return self._inst[iid]

    def replay(self, plan_file: str, target: str) -> tuple[int, int, str]:
        """(b, m, note) of the plan file judged under instance ``target``; raises OSError/InputError."""
        path = self.results_dir / plan_file
        plan = parse_plan(path.read_text(encoding="utf-8"), str(path))
        inst, ref = self.instance(target)
        rep = evaluate_plan(self.reg, inst, plan, ref, plan_file=str(path))
        optimum = self.index.instances[target].optimal_cost
        b = int(rep.valid and rep.claimed_status is None)
        m = int(rep.cost is not None and optimum is not None and rep.cost == optimum)
        note = rep.findings[0].message if rep.findings else ("optimal" if b and m else f"cost {rep.cost}")
        return b, m, note


def history_swaps(records: Iterable[ResultRecord], index: BenchmarkIndex, results_dir: Path | str,
                  reg: Registries | None = None, planners: Iterable[str] | None = None,
                  instances: Iterable[str] | None = None) -> dict[str, Any]:
    """Per planner and label, and totals over planners: :class:`SwapCounts` as plain dicts.

    For every eligible history pair in the comparison set and both directions i -> j, the planner's
    main-comparison result on i is replayed under j. "Before" is (b_i, b_i m_i) from the record on i; "after"
    is (b, b m) of the same plan file under j. A source without a submitted plan has no plan in both.
    """
    records = list(records)
    planners = planners_of(records) if planners is None else list(planners)
    ids = comparison_set(records, index, planners) if instances is None else tuple(instances)
    replayer = _Replayer(index, Path(results_dir), reg)
    out: dict[str, Any] = {"by_planner": {}, "total": {}}
    totals = {label: SwapCounts() for label in HISTORY_LABELS}
    for planner in planners:
        results = select(records, planner)
        per_label = {}
        for label in HISTORY_LABELS:
            counts = SwapCounts()
            for pair in pair_set(index, "history", label, ids):
                for src, dst in ((pair.a, pair.b), (pair.b, pair.a)):
                    _swap_case(counts, replayer, index, results.get(src), src, dst)
            per_label[label] = counts.as_dict()
            totals[label].add(counts)
        out["by_planner"][planner] = per_label
    out["total"] = {label: c.as_dict(with_cases=False) for label, c in totals.items()}
    return out


def _swap_case(counts: SwapCounts, replayer: _Replayer, index: BenchmarkIndex, rec: ResultRecord | None,
               src: str, dst: str) -> None:
    counts.evaluations += 1
    x = indicators(index.instances[src], rec)
    before = (x.b, x.b * x.m)  # (safe, safe and optimal)
    case: dict[str, Any] = {"from": src, "to": dst, "before": {"safe": bool(before[0]), "optimal": bool(before[1])}}
    if before[1]:
        counts.safe_optimal_before += 1
    if rec is None or rec.status != "plan":
        counts.outcome_preserved += 1
        case["after"] = case["before"]
        case["note"] = "no plan submitted"
        counts.cases.append(case)
        return
    if not rec.plan_file:
        counts.unavailable += 1
        case["note"] = "the record has no plan file"
        counts.cases.append(case)
        return
    try:
        b, m, note = replayer.replay(rec.plan_file, dst)
    except (OSError, InputError) as exc:
        counts.unavailable += 1
        case["note"] = f"cannot replay: {exc}"
        counts.cases.append(case)
        return
    counts.replayed += 1
    after = (b, b * m)
    case["after"] = {"safe": bool(after[0]), "optimal": bool(after[1])}
    case["note"] = note
    if before[1] and after[1]:
        counts.stayed_safe_optimal += 1
    if before == after:
        counts.outcome_preserved += 1
    counts.cases.append(case)


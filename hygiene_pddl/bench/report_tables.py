"""The report's tables: raw cells (CSV, JSON) and display cells (Markdown, terminal) from the metrics' dicts
(:func:`hygiene_pddl.metrics.all_tables`) and the harness's run records. Formatting only: every number comes
from :mod:`hygiene_pddl.metrics` or is a count or median of the records."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hygiene_pddl.costs import DIMENSIONS

FAILURE_HEADERS = (("safe_optimal", "safe+optimal"), ("correct_rejection", "correct rejection"),
                   ("no_plan", "no plan/undet."), ("incorrect_rejection", "incorrect rejection"),
                   ("invalid_continuation", "invalid contin."), ("safe_nonoptimal", "safe non-optimal"))
STATUSES = ("plan", "infeasible", "undetermined", "error", "timeout", "memout")
#: Breakdowns of SR / OSR: (key in the metrics' tables, title).
BREAKDOWNS = (("tier", "Table II-A: SR / OSR by difficulty tier"),
              ("activity_group", "Table II-B: SR / OSR by activity group"),
              ("household_area", "SR / OSR by household area"), ("design", "SR / OSR by construction design"),
              ("kind", "SR / OSR by task kind (family structure)"))
#: Up to this many categories the planners are the rows (as in the paper); with more, the categories are.
WIDE = 6
#: Short outcome words of the per-instance table.
OUTCOME_WORD = {"safe_optimal": "optimal", "correct_rejection": "rejected (right)", "no_plan": "no plan",
                "incorrect_rejection": "rejected (wrong)", "invalid_continuation": "INVALID",
                "safe_nonoptimal": "non-optimal"}


@dataclass
class Table:
    """One output table: raw cells for CSV and JSON, display cells for Markdown and the terminal."""

    name: str
    title: str
    headers: list[str]
    rows: list[list[Any]]
    display: list[list[str]]
    note: str = ""
    main: bool = True  # printed on the terminal and in report.md
    display_headers: list[str] | None = None

    def as_records(self) -> list[dict[str, Any]]:
        return [dict(zip(self.headers, row, strict=True)) for row in self.rows]


def rate(count: int | None, n: int | None) -> str:
    return "–" if not n else f"{count / n:.1%} ({count}/{n})"


def seconds(v: float | None) -> str:
    return "–" if v is None else f"{v:.2f}"


def pct(v: float | None) -> str:
    return "–" if v is None else f"{v:.1%}"


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


# ------------------------------------------------------------------------------------------ run records


def _overhead(harness: dict[str, Any], wall: float) -> float:
    """What one call cost around the planner, without starting the fork server (paid once, shown apart)."""
    return harness["call"] - wall - harness.get("server_start", 0.0)


def run_summary(raw: list[dict], planners: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Per planner over all its main-comparison records (not only the comparison set): runs, statuses,
    validator agreement, optimality claims, planner times, what the isolated call cost around the planner
    (harness overhead = call wall - the planner call's own wall), and summed numeric usage."""
    out = {}
    for planner in planners:
        mine = [r for r in raw if r["planner"] == planner and not r.get("projection")]
        totals = [float(r["timings"]["total"]) for r in mine if (r.get("timings") or {}).get("total") is not None]
        walls = [float(r.get("wall") or 0.0) for r in mine]
        harness = [(r["harness"], float(r.get("wall") or 0.0)) for r in mine if isinstance(r.get("harness"), dict)]
        plans = [r for r in mine if r["status"] == "plan"]
        claims = [r for r in plans if r.get("proved_optimal")]
        usage: dict[str, float] = {}
        for r in mine:
            for k, v in (r.get("usage") or {}).items():
                if isinstance(v, int | float) and not isinstance(v, bool):
                    usage[k] = usage.get(k, 0) + v
        out[planner] = {
            "runs": len(mine), **{s: sum(1 for r in mine if r["status"] == s) for s in STATUSES},
            "valid_plans": sum(1 for r in plans if r.get("valid") is True),
            "levels_agree": sum(1 for r in plans if r.get("pddl_valid") is not None
                                and r.get("pddl_valid") == r.get("valid")),
            "levels_checked": sum(1 for r in plans if r.get("pddl_valid") is not None),
            "late_answers": sum(1 for r in mine if r["status"] in ("plan", "infeasible") and isinstance(
                r.get("harness"), dict) and float(r.get("wall") or 0.0) > float(r["harness"].get("time_limit", 1e18))),
            "optimal_claims": len(claims),
            "wrong_optimal_claims": sum(1 for r in claims if r.get("optimal") is False or r.get("valid") is False),
            "median_total": _median(totals), "max_total": max(totals) if totals else None,
            "median_wall": _median(walls),
            "calls_measured": len(harness),
            "median_call": _median([h["call"] for h, _ in harness]),
            "median_overhead": _median([_overhead(h, w) for h, w in harness]),
            "max_overhead": max((_overhead(h, w) for h, w in harness), default=None),
            "median_start": _median([h["start"] - h.get("server_start", 0.0) for h, _ in harness]),
            "median_check": _median([h["check"] for h, _ in harness]),
            "server_start": sum(h.get("server_start", 0.0) for h, _ in harness),
            "overhead_share": (sum(_overhead(h, w) for h, w in harness) / sum(h["call"] for h, _ in harness)
                               if harness and sum(h["call"] for h, _ in harness) > 0 else None),
            "usage": dict(sorted(usage.items())),
        }
    return out


def run_tables(runs: dict[str, dict[str, Any]], planners: Sequence[str]) -> list[Table]:
    keys = ("runs", *STATUSES, "valid_plans", "levels_agree", "levels_checked", "late_answers", "optimal_claims",
            "wrong_optimal_claims", "median_total", "max_total")
    out = [Table(
        "runs", "Runs: statuses, validator agreement, optimality claims, planner time (s)", ["planner", *keys],
        [[p, *(runs[p][k] for k in keys)] for p in planners],
        [[p, str(runs[p]["runs"]), ", ".join(f"{s} {runs[p][s]}" for s in STATUSES if runs[p][s]) or "–",
          str(runs[p]["valid_plans"]), f"{runs[p]['levels_agree']}/{runs[p]['levels_checked']}",
          str(runs[p]["late_answers"]), f"{runs[p]['optimal_claims']} ({runs[p]['wrong_optimal_claims']} wrong)",
          seconds(runs[p]["median_total"]), seconds(runs[p]["max_total"])] for p in planners],
        note="all of each planner's runs; levels agree: plans whose instance-level and PDDL-level verdicts are the "
             "same; late: answers (plans, infeasibility) that came after the time limit, within its grace (they "
             "count as answers); optimality claims: plans the planner says are proved optimal for the task "
             "(wrong: not optimal or not valid by the evaluator); planner time is the planner's own total",
        display_headers=["planner", "runs", "statuses", "valid plans", "levels agree", "late", "optimality claims",
                         "median planner s", "max planner s"])]
    keys = ("calls_measured", "median_total", "median_call", "median_overhead", "max_overhead", "median_start",
            "median_check", "server_start", "overhead_share")
    out.append(Table(
        "overhead", "Harness overhead: process wall time against the planner's time (s)", ["planner", *keys],
        [[p, *(runs[p][k] for k in keys)] for p in planners],
        [[p, str(runs[p]["calls_measured"]), *(seconds(runs[p][k]) for k in keys[1:-1]),
          pct(runs[p]["overhead_share"])] for p in planners],
        note="per isolated call: call = from starting its process to its checked record; overhead = call - the "
             "planner call's wall time - fork-server start-up; start = before the planner began; check = both "
             "validators after it; server start-up = starting the preloaded fork server (once per bench process, "
             "or Dask worker, and plugins), summed over the planner's calls that paid it; share = overhead / call "
             "over all calls. The machine may have been shared: see the run's load.",
        display_headers=["planner", "calls", "median planner s", "median call s", "median overhead s",
                         "max overhead s", "median start s", "median check s", "server start-up s",
                         "overhead share"]))
    used = sorted({k for p in planners for k in runs[p]["usage"]})
    if used:
        out.append(Table("usage", "Usage reported by the planners (summed over runs)", ["planner", *used],
                         [[p, *(runs[p]["usage"].get(k) for k in used)] for p in planners],
                         [[p, *(f"{runs[p]['usage'][k]:g}" if k in runs[p]["usage"] else "–" for k in used)]
                          for p in planners]))
    return out


# ------------------------------------------------------------------------------------------ paper tables


def _breakdown(tables: dict[str, Any], key: str, title: str, planners: Sequence[str]) -> Table | None:
    by = tables.get(f"by_{key}")
    if not by:
        return None
    cats: list[str] = []
    for p in planners:
        cats += [c for c in by[p] if c not in cats]
    rows = [[p, c, *(by[p][c][k] for k in ("n", "sr_count", "sr", "osr_count", "osr"))]
            for p in planners for c in cats if c in by[p]]
    n_of = {c: max(by[p][c]["n"] for p in planners if c in by[p]) for c in cats}

    def cell(p: str, c: str) -> str:
        return f"{pct(by[p][c]['sr'])} / {pct(by[p][c]['osr'])}" if c in by[p] else "–"

    if len(cats) <= WIDE:
        display = [[p, *(cell(p, c) for c in cats)] for p in planners]
        heads = ["planner", *(f"{c} (n={n_of[c]})" for c in cats)]
    else:
        display = [[c, str(n_of[c]), *(cell(p, c) for p in planners)] for c in cats]
        heads = [key, "n", *planners]
    return Table(f"by_{key}", title, ["planner", key, "n", "sr_count", "sr", "osr_count", "osr"], rows, display,
                 note="cells: SR / OSR", display_headers=heads)


def tier_trend(by_tier: dict[str, dict[str, Any]], planners: Sequence[str]) -> Table | None:
    """Whether SR and OSR fall (never rise) from easy to moderate to hard, per planner (the paper's claim)."""
    tiers = [t for t in ("easy", "moderate", "hard") if all(t in by_tier[p] for p in planners)]
    if len(tiers) < 2:
        return None

    def falls(p: str, metric: str) -> bool:
        values = [by_tier[p][t][metric] for t in tiers]
        return all(a >= b for a, b in zip(values, values[1:], strict=False))

    rows = [[p, falls(p, "sr"), falls(p, "osr")] for p in planners]
    return Table("tier_trend", f"Do SR and OSR fall from {' to '.join(tiers)}?", ["planner", "sr_falls", "osr_falls"],
                 rows, [[p, "yes" if a else "NO", "yes" if b else "NO"] for p, a, b in rows],
                 note="the paper finds that both fall for every planner; NO: the rate rises somewhere along the tiers",
                 display_headers=["planner", "SR falls", "OSR falls"])


def paper_tables(tables: dict[str, Any], planners: Sequence[str]) -> list[Table]:
    out: list[Table] = []
    ov = tables["overall"]
    out.append(Table("overall", "Table II: SR and OSR over the comparison set (paper eqs. 2-3)",
                     ["planner", "n", "sr_count", "sr", "osr_count", "osr"],
                     [[p, ov[p]["n"], ov[p]["sr_count"], ov[p]["sr"], ov[p]["osr_count"], ov[p]["osr"]]
                      for p in planners],
                     [[p, str(ov[p]["n"]), rate(ov[p]["sr_count"], ov[p]["n"]), rate(ov[p]["osr_count"], ov[p]["n"])]
                      for p in planners], display_headers=["planner", "n", "SR", "OSR"]))
    out += [t for key, title in BREAKDOWNS if (t := _breakdown(tables, key, title, planners))]
    if tables.get("by_tier") and (trend := tier_trend(tables["by_tier"], planners)):
        out.insert(2, trend)

    fl = tables["failures"]
    out.append(Table("failures", "Table III: failure table (mutually exclusive outcomes)",
                     ["planner", "n", *(k for k, _ in FAILURE_HEADERS), "first_nonoptimal"],
                     [[p, fl[p]["n"], *(fl[p][k] for k, _ in FAILURE_HEADERS),
                       "; ".join(f"{d}: {c}" for d, c in fl[p]["first_nonoptimal"].items())] for p in planners],
                     [[p, str(fl[p]["n"]), *(str(fl[p][k]) for k, _ in FAILURE_HEADERS),
                       ", ".join(f"{d} {c}" for d, c in fl[p]["first_nonoptimal"].items()) or "–"]
                      for p in planners],
                     note="no plan/undet. counts undetermined answers, timeouts, memouts, errors and missing results; "
                          "first non-optimal: the first dimension, in the instance's profile order, where a safe "
                          "plan is worse than the certified optimum",
                     display_headers=["planner", "n", *(h for _, h in FAILURE_HEADERS), "first non-optimal"]))

    hp = tables["history_pairs"]
    out.append(Table("history_pairs", "Table IV-A: history pairs completed safely (HC) and optimally (HC*) on both "
                     "members (eq. 4)", ["planner", "label", "n", "hc", "hc_star"],
                     [[p, lb, hp[p][lb]["n"], hp[p][lb]["hc"], hp[p][lb]["hc_star"]] for p in planners
                      for lb in ("relevant", "irrelevant")],
                     [[p] + [f"{hp[p][lb]['hc']} / {hp[p][lb]['hc_star']} (n={hp[p][lb]['n']})"
                             for lb in ("relevant", "irrelevant")] for p in planners],
                     note="cells: HC / HC*", display_headers=["planner", "relevant", "irrelevant"]))
    pp = tables["profile_pairs"]
    labels = ("flip", "invariant", "general")
    out.append(Table("profile_pairs", "Table IV-B: profile pairs solved optimally on both members (PS, eq. 3)",
                     ["planner", "label", "n", "ps"],
                     [[p, lb, pp[p][lb]["n"], pp[p][lb]["ps"]] for p in planners for lb in labels],
                     [[p] + [f"{pp[p][lb]['ps']}/{pp[p][lb]['n']}" for lb in labels] for p in planners],
                     display_headers=["planner", "ranking flip", "ranking invariant", "general"]))
    ev = tables["events"]
    out.append(Table("events", "Table V: SR / OSR on the contact-event subsets",
                     ["planner", "event", "n", "sr_count", "sr", "osr_count", "osr"],
                     [[p, e, *(ev[p][e][k] for k in ("n", "sr_count", "sr", "osr_count", "osr"))]
                      for p in planners for e in ("relevant", "irrelevant")],
                     [[p] + [rate(ev[p][e][k], ev[p][e]["n"]) for e in ("relevant", "irrelevant")
                             for k in ("sr_count", "osr_count")] for p in planners],
                     display_headers=["planner", "SR relevant", "OSR relevant", "SR irrelevant", "OSR irrelevant"]))

    if "history_swaps" in tables:
        sw = tables["history_swaps"]["by_planner"]
        keys = ("evaluations", "replayed", "safe_optimal_before", "stayed_safe_optimal", "outcome_preserved",
                "unavailable")
        out.append(Table("history_swaps", "History-swap evaluation: saved plans replayed under the paired history",
                         ["planner", "label", *keys],
                         [[p, lb, *(sw[p][lb][k] for k in keys)] for p in planners
                          for lb in ("relevant", "irrelevant")],
                         [[p, lb, *(str(sw[p][lb][k]) for k in keys)] for p in planners
                          for lb in ("relevant", "irrelevant")],
                         note="relevant swaps should break safety or optimality; irrelevant swaps should change "
                              "nothing (outcome preserved)",
                         display_headers=["planner", "pairs", "cases", "replayed", "safe+opt before",
                                          "still safe+opt", "outcome kept", "unavail."]))
    pj = tables.get("projection") or {}
    if pj:
        keys = ("pairs", "unpaired", "agreement", "fallbacks", "new_violations", "families", "median_reduction")
        out.append(Table("projection", "State-projection study: paired full vs projected runs",
                         ["planner", *keys], [[p, *(pj[p][k] for k in keys)] for p in pj],
                         [[p, str(pj[p]["pairs"]), str(pj[p]["unpaired"]), f"{pj[p]['agreement']}/{pj[p]['pairs']}",
                           str(pj[p]["fallbacks"]), str(pj[p]["new_violations"]), str(pj[p]["families"]),
                           pct(pj[p]["median_reduction"])] for p in pj],
                         note="agreement: same status and cost; reduction: median over families of "
                              "1 - projected/full local planning time",
                         display_headers=["planner", "pairs", "unpaired", "agree", "fallbacks", "new violations",
                                          "families", "median time cut"]))
    return out


# ------------------------------------------------------------------------------------------ the extras


def quality_table(tables: dict[str, Any], planners: Sequence[str]) -> Table:
    q = tables["quality"]
    rows = [[p, d, q[p]["plans"], q[p]["optimal"], *(q[p]["dimensions"][d][k] for k in
                                                     ("worse", "better", "mean_excess", "ratio"))]
            for p in planners for d in DIMENSIONS]
    dims = [d for d in DIMENSIONS if any(q[p]["dimensions"][d]["worse"] or q[p]["dimensions"][d]["better"]
                                         for p in planners)]

    def cell(p: str, d: str) -> str:
        x = q[p]["dimensions"][d]
        if not (x["worse"] or x["better"]):
            return "–"
        counts = ", ".join(f"{n} {w}" for n, w in ((x["worse"], "worse"), (x["better"], "better")) if n)
        return f"{counts}; mean {x['mean_excess']:+.2f}"

    return Table("quality", "Plan quality against the certified optimum, per cost dimension",
                 ["planner", "dimension", "plans", "optimal", "worse", "better", "mean_excess", "ratio"], rows,
                 [[p, str(q[p]["plans"]), str(q[p]["optimal"]), *(cell(p, d) for d in dims)] for p in planners],
                 note="safe plans on instances with a certified optimum; per dimension how many plans use more "
                      "(worse) or less (better, possible in a dimension the profile ranks lower) than the optimum and "
                      "the mean of plan - optimum; dimensions where every plan matches the optimum are left out",
                 display_headers=["planner", "safe plans", "optimal", *dims])


def ratio_table(tables: dict[str, Any], planners: Sequence[str]) -> Table | None:
    tr = tables.get("time_ratio") or {}
    base, by = tr.get("baseline"), tr.get("by_planner") or {}
    if not by:
        return None
    keys = ("n", "geomean", "median", "min", "max")

    def times(v: float | None) -> str:
        return "–" if v is None else f"×{v:.3g}"

    return Table("time_ratio", f"Planner time against {base}'s (ratio of planner times)", ["planner", *keys],
                 [[p, *(by[p][k] for k in keys)] for p in planners],
                 [[p, str(by[p]["n"]), *(times(by[p][k]) for k in keys[1:])] for p in planners],
                 note=f"on the instances of the comparison set that both the planner and {base} resolved (SR); "
                      "times are each planner's own (timings.total), below 1 ms counted as 1 ms",
                 display_headers=["planner", "both resolved", "geometric mean", "median", "min", "max"])


def per_instance_table(rows: list[dict[str, Any]], planners: Sequence[str], columns: Sequence[str]) -> Table:
    raw = [[r["instance"], *(r[c] for c in columns), p, r[p]["outcome"], r[p]["status"], r[p]["time"],
            r[p]["first_worse"]] for r in rows for p in planners]

    def cell(x: dict[str, Any]) -> str:
        word = OUTCOME_WORD[x["outcome"]]
        if x["outcome"] == "no_plan":
            word = x["status"]
        elif x["first_worse"]:
            word += f" ({x['first_worse']})"
        return word if x["time"] is None else f"{word} {x['time']:.2f}s"

    return Table("per_instance", "Per instance: outcome and planner time", ["instance", *columns, "planner",
                 "outcome", "status", "time", "first_worse"], raw,
                 [[r["instance"], *(str(r[c]) for c in columns), *(cell(r[p]) for p in planners)] for r in rows],
                 main=False, display_headers=["instance", *columns, *planners])


def summary_tables(tables: dict[str, Any], planners: Sequence[str]) -> list[Table]:
    """Every main table in report order: runs and overhead, the paper's tables, quality and time ratios."""
    out = run_tables(tables["runs"], planners) + paper_tables(tables, planners) + [quality_table(tables, planners)]
    return out + [t for t in (ratio_table(tables, planners),) if t is not None]

"""``hygiene-pddl report``: the paper's tables from a bench results folder, as Markdown, CSV and JSON, PNG
plots, and the main tables on the terminal. The numbers come from :mod:`hygiene_pddl.metrics`; this module
only selects, formats and draws."""

from __future__ import annotations

import csv
import json
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hygiene_pddl.bench.store import META, RESULTS, Warn, _default_warn, read_results
from hygiene_pddl.errors import InputError, Location

FAILURE_HEADERS = (("safe_optimal", "safe+optimal"), ("correct_rejection", "correct rejection"),
                   ("no_plan", "no plan/undet."), ("incorrect_rejection", "incorrect rejection"),
                   ("invalid_continuation", "invalid contin."), ("safe_nonoptimal", "safe non-optimal"))
STATUSES = ("plan", "infeasible", "undetermined", "error", "timeout", "memout")


@dataclass
class Table:
    """One output table: raw cells for CSV and JSON, display cells for Markdown and the terminal."""

    name: str
    title: str
    headers: list[str]
    rows: list[list[Any]]
    display: list[list[str]]
    note: str = ""
    main: bool = True  # printed on the terminal
    display_headers: list[str] | None = None

    def as_records(self) -> list[dict[str, Any]]:
        return [dict(zip(self.headers, row, strict=True)) for row in self.rows]


@dataclass
class Report:
    out: Path
    planners: list[str]
    tables: dict[str, Any]  # hygiene_pddl.metrics.all_tables plus "runs"
    rendered: list[Table]
    files: list[Path] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


# ------------------------------------------------------------------------------------------ loading


def _problems_dirs(results_dir: Path, problems: Path | None) -> list[Path]:
    if problems is not None:
        dirs = [Path(problems)]
    else:
        meta_path = results_dir / META
        meta = json.loads(meta_path.read_text(encoding="utf-8")) if meta_path.exists() else {}
        dirs = [Path(p) for p in meta.get("problems", [])] or [Path("problems")]
    for d in dirs:
        if not d.is_dir():
            raise InputError(f"benchmark problems folder {d} does not exist (use --problems)")
    return dirs


def _bench_planner_order(results_dir: Path) -> list[str]:
    meta_path = results_dir / META
    if not meta_path.exists():
        return []
    order: list[str] = []
    for inv in json.loads(meta_path.read_text(encoding="utf-8")).get("invocations", []):
        for p in inv.get("planners", []):
            if p not in order:
                order.append(p)
    return order


def load_bench(results_dir: Path | str, problems: Path | None = None, warn: Warn = _default_warn):
    """(records as ResultRecord, raw dicts, benchmark index) of a results folder."""
    from hygiene_pddl.episodes.index import BenchmarkIndex, load_index
    from hygiene_pddl.metrics.records import ResultRecord

    results_dir = Path(results_dir)
    path = results_dir / RESULTS
    if not path.exists():
        raise InputError(f"no {RESULTS} in {results_dir} (run `hygiene-pddl bench --out {results_dir}` first)")
    raw, _ = read_results(path, warn)
    records = []
    for number, rec in enumerate(raw, start=1):
        try:
            records.append(ResultRecord.from_dict(rec))
        except (ValueError, TypeError) as exc:
            raise InputError(f"result record {number}: {exc}", Location(str(path))) from None
    instances, pairs = {}, []
    for d in _problems_dirs(results_dir, problems):
        index = load_index(d)
        instances.update(index.instances)
        pairs.extend(index.pairs)
    return records, raw, BenchmarkIndex(instances, tuple(pairs))


# ------------------------------------------------------------------------------------------ formatting


def _rate(count: int | None, n: int | None) -> str:
    if not n:
        return "–"
    return f"{count / n:.1%} ({count}/{n})"


def _seconds(v: float | None) -> str:
    return "–" if v is None else f"{v:.2f}"


def _pct(v: float | None) -> str:
    return "–" if v is None else f"{v:.1%}"


def run_summary(raw: list[dict], planners: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Per planner over its main-comparison records: runs, statuses, validator agreement, planner times."""
    out = {}
    for planner in planners:
        mine = [r for r in raw if r["planner"] == planner and not r.get("projection")]
        totals = [float(r["timings"]["total"]) for r in mine if (r.get("timings") or {}).get("total") is not None]
        walls = [float(r.get("wall") or 0.0) for r in mine]
        plans = [r for r in mine if r["status"] == "plan"]
        agree = sum(1 for r in plans if r.get("pddl_valid") is not None and r.get("pddl_valid") == r.get("valid"))
        checked = sum(1 for r in plans if r.get("pddl_valid") is not None)
        out[planner] = {
            "runs": len(mine), **{s: sum(1 for r in mine if r["status"] == s) for s in STATUSES},
            "valid_plans": sum(1 for r in plans if r.get("valid") is True),
            "levels_agree": agree, "levels_checked": checked,
            "median_total": statistics.median(totals) if totals else None,
            "max_total": max(totals) if totals else None,
            "median_wall": statistics.median(walls) if walls else None,
        }
    return out


def build_tables(tables: dict[str, Any], planners: Sequence[str]) -> list[Table]:
    out: list[Table] = []
    runs = tables["runs"]
    out.append(Table(
        "runs", "Runs: statuses, validator agreement, planner time (s)",
        ["planner", "runs", *STATUSES, "valid_plans", "levels_agree", "levels_checked", "median_total", "max_total",
         "median_wall"],
        [[p, *(runs[p][k] for k in ("runs", *STATUSES, "valid_plans", "levels_agree", "levels_checked",
                                    "median_total", "max_total", "median_wall"))] for p in planners],
        [[p, str(runs[p]["runs"]), ", ".join(f"{s} {runs[p][s]}" for s in STATUSES if runs[p][s]) or "–",
          str(runs[p]["valid_plans"]),
          f"{runs[p]['levels_agree']}/{runs[p]['levels_checked']}", _seconds(runs[p]["median_total"]),
          _seconds(runs[p]["max_total"]), _seconds(runs[p]["median_wall"])] for p in planners],
        note="levels agree: plans whose instance-level and PDDL-level verdicts are the same; planner time is "
             "the planner's own total, wall the isolated call",
        display_headers=["planner", "runs", "statuses", "valid plans", "levels agree", "median planner s",
                         "max planner s", "median wall s"]))

    ov = tables["overall"]
    out.append(Table("overall", "SR and OSR over the comparison set (paper eqs. 2-3)",
                     ["planner", "n", "sr_count", "sr", "osr_count", "osr"],
                     [[p, ov[p]["n"], ov[p]["sr_count"], ov[p]["sr"], ov[p]["osr_count"], ov[p]["osr"]]
                      for p in planners],
                     [[p, str(ov[p]["n"]), _rate(ov[p]["sr_count"], ov[p]["n"]), _rate(ov[p]["osr_count"], ov[p]["n"])]
                      for p in planners]))
    out[-1].display_headers = ["planner", "n", "SR", "OSR"]
    for attr, title in (("tier", "difficulty tier"), ("activity_group", "activity group")):
        key = f"by_{attr}"
        if key not in tables:
            continue
        cats: list[str] = []
        for p in planners:
            cats += [c for c in tables[key][p] if c not in cats]
        rows, display = [], []
        for p in planners:
            for c in cats:
                cell = tables[key][p].get(c)
                if cell:
                    rows.append([p, c, cell["n"], cell["sr_count"], cell["sr"], cell["osr_count"], cell["osr"]])
            display.append([p] + [f"{_pct(tables[key][p][c]['sr'])} / {_pct(tables[key][p][c]['osr'])}"
                                  if c in tables[key][p] else "–" for c in cats])
        t = Table(key, f"SR / OSR by {title}", ["planner", attr, "n", "sr_count", "sr", "osr_count", "osr"], rows,
                  display)
        n_of = {c: max(tables[key][p][c]["n"] for p in planners if c in tables[key][p]) for c in cats}
        t.display_headers = ["planner"] + [f"{c} (n={n_of[c]})" for c in cats]
        out.append(t)

    pp = tables["profile_pairs"]
    labels = ("general", "flip", "invariant")
    out.append(Table("profile_pairs", "PS: profile pairs solved optimally on both members (paper eq. 3)",
                     ["planner", "label", "n", "ps"],
                     [[p, lb, pp[p][lb]["n"], pp[p][lb]["ps"]] for p in planners for lb in labels],
                     [[p] + [f"{pp[p][lb]['ps']}/{pp[p][lb]['n']}" for lb in labels] for p in planners]))
    out[-1].display_headers = ["planner", "PS general", "PS ranking-flip", "PS ranking-invariant"]

    hp = tables["history_pairs"]
    out.append(Table("history_pairs", "HC / HC*: history pairs completed safely (optimally) on both members (eq. 4)",
                     ["planner", "label", "n", "hc", "hc_star"],
                     [[p, lb, hp[p][lb]["n"], hp[p][lb]["hc"], hp[p][lb]["hc_star"]] for p in planners
                      for lb in ("relevant", "irrelevant")],
                     [[p] + [f"{hp[p][lb][k]}/{hp[p][lb]['n']}" for lb in ("relevant", "irrelevant")
                             for k in ("hc", "hc_star")] for p in planners]))
    out[-1].display_headers = ["planner", "HC relevant", "HC* relevant", "HC irrelevant", "HC* irrelevant"]

    ev = tables["events"]
    out.append(Table("events", "SR / OSR on the contact-event subsets",
                     ["planner", "event", "n", "sr_count", "sr", "osr_count", "osr"],
                     [[p, e, *(ev[p][e][k] for k in ("n", "sr_count", "sr", "osr_count", "osr"))]
                      for p in planners for e in ("relevant", "irrelevant")],
                     [[p] + [_rate(ev[p][e][k], ev[p][e]["n"]) for e in ("relevant", "irrelevant")
                             for k in ("sr_count", "osr_count")] for p in planners]))
    out[-1].display_headers = ["planner", "SR relevant", "OSR relevant", "SR irrelevant", "OSR irrelevant"]

    fl = tables["failures"]
    out.append(Table("failures", "Failure table (mutually exclusive outcomes)",
                     ["planner", "n", *(k for k, _ in FAILURE_HEADERS), "first_nonoptimal"],
                     [[p, fl[p]["n"], *(fl[p][k] for k, _ in FAILURE_HEADERS),
                       "; ".join(f"{d}: {c}" for d, c in fl[p]["first_nonoptimal"].items())] for p in planners],
                     [[p, str(fl[p]["n"]), *(str(fl[p][k]) for k, _ in FAILURE_HEADERS),
                       ", ".join(f"{d} {c}" for d, c in fl[p]["first_nonoptimal"].items()) or "–"]
                      for p in planners],
                     note="first non-optimal: the first dimension, in the instance's profile order, where a safe "
                          "plan is worse than the certified optimum"))
    out[-1].display_headers = ["planner", "n", *(h for _, h in FAILURE_HEADERS), "first non-optimal"]

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
                              "nothing (outcome preserved)"))
        out[-1].display_headers = ["planner", "pairs", "cases", "replayed", "safe+opt before", "still safe+opt",
                                   "outcome kept", "unavail."]
    pj = tables.get("projection") or {}
    if pj:
        keys = ("pairs", "unpaired", "agreement", "fallbacks", "new_violations", "families", "median_reduction")
        out.append(Table("projection", "State-projection study: paired full vs projected runs",
                         ["planner", *keys], [[p, *(pj[p][k] for k in keys)] for p in pj],
                         [[p, str(pj[p]["pairs"]), str(pj[p]["unpaired"]), f"{pj[p]['agreement']}/{pj[p]['pairs']}",
                           str(pj[p]["fallbacks"]), str(pj[p]["new_violations"]), str(pj[p]["families"]),
                           _pct(pj[p]["median_reduction"])] for p in pj],
                         note="agreement: same status and cost; reduction: median over families of "
                              "1 - projected/full local planning time"))
        out[-1].display_headers = ["planner", "pairs", "unpaired", "agree", "fallbacks", "new violations",
                                   "families", "median time cut"]
    return out


def _headers(t: Table) -> list[str]:
    return t.display_headers or t.headers


def markdown(report_tables: list[Table], tables: dict[str, Any], results_dir: Path) -> str:
    cs = tables["comparison_set"]

    def counts(d: dict) -> str:
        return ", ".join(f"{k} {v}" for k, v in d.items())

    lines = [f"# Benchmark report: {results_dir}", "",
             f"Comparison set: {cs['n']} instances; planners: {', '.join(cs['planners'])}; eligible profile pairs: "
             f"{counts(cs['profile_pairs'])}; eligible history pairs: {counts(cs['history_pairs'])}; contact-event "
             f"instances: {counts(cs['events'])}.", ""]
    if tables.get("unindexed"):
        lines += [f"Records for instances not in the benchmark index (left out): {', '.join(tables['unindexed'])}",
                  ""]
    for t in report_tables:
        heads = _headers(t)
        lines += [f"## {t.title}", "", "| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
        lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in t.display]
        if t.note:
            lines += ["", f"_{t.note}_"]
        lines.append("")
    return "\n".join(lines)


def _csv_cell(v: Any) -> Any:
    if isinstance(v, float):
        return f"{v:.6g}"
    return "" if v is None else v


# ------------------------------------------------------------------------------------------ the report


def _choose_gantt(records, planners: Sequence[str], wanted: Sequence[tuple[str, str]] | None,
                  richness: Callable[[Any], tuple]) -> list:
    """The records whose plans to draw: those asked for, else each planner's plan on the richest instance
    (most lanes, then most bars) that every planner solved validly, else each planner's richest valid plan."""
    by_key = {}
    for r in records:
        if r.projection is None and r.status == "plan" and r.plan_file:
            by_key.setdefault((r.planner, r.instance), r)
    if wanted:
        missing = [f"{p}:{i}" for p, i in wanted if (p, i) not in by_key]
        if missing:
            raise InputError(f"no saved plan for {', '.join(missing)} (--gantt PLANNER:INSTANCE)")
        return [by_key[k] for k in wanted]
    valid = {k: r for k, r in by_key.items() if r.valid}
    common = sorted(set.intersection(*({i for (p, i) in valid if p == q} for q in planners))) if planners else []
    if common:
        best = max(common[:200], key=lambda i: (richness(valid[(planners[0], i)]), [-ord(ch) for ch in i]))
        return [valid[(p, best)] for p in planners]
    chosen = []
    for p in planners:
        mine = sorted(i for (q, i) in valid if q == p)[:200]
        if mine:
            chosen.append(valid[(p, max(mine, key=lambda i, p=p: (richness(valid[(p, i)]), [-ord(c) for c in i])))])
    return chosen


def write_report(results_dir: Path | str, out: Path | str, problems: Path | None = None,
                 planners: Sequence[str] | None = None, gantt: Sequence[tuple[str, str]] | None = None,
                 swaps: bool = True, warn: Warn = _default_warn) -> Report:
    """Compute every table with :func:`hygiene_pddl.metrics.all_tables` and write report.md, report.json,
    one CSV per table and the PNG plots into ``out``."""
    from hygiene_pddl.bench import plots
    from hygiene_pddl.instances import load_instance
    from hygiene_pddl.metrics import all_tables, planners_of
    from hygiene_pddl.plans.parser import read_plan
    from hygiene_pddl.registries import load_registries

    results_dir, out = Path(results_dir), Path(out)
    records, raw, index = load_bench(results_dir, problems, warn)
    present = planners_of(records)
    if planners is None:
        order = _bench_planner_order(results_dir)
        planners = [p for p in order if p in present] + [p for p in present if p not in order]
    else:
        unknown = [p for p in planners if p not in present]
        if unknown:
            raise InputError(f"no results for planner(s) {', '.join(unknown)}; the results have "
                             f"{', '.join(present) or 'none'}")
    planners = list(planners)
    if not planners:
        raise InputError(f"{results_dir / RESULTS} holds no main-comparison records")
    reg = load_registries()
    tables = all_tables(records, index, planners, results_dir=results_dir if swaps else None, reg=reg)
    tables["runs"] = run_summary(raw, planners)
    rendered = build_tables(tables, planners)
    from hygiene_pddl.bench.llm_report import llm_tables  # LLM calls and grounding accuracy (planners with usage)

    extra, more = llm_tables(raw, planners, index)
    tables.update(extra)
    rendered += more
    report = Report(out, planners, tables, rendered)
    out.mkdir(parents=True, exist_ok=True)

    def write(name: str, writer: Callable[[Path], None]) -> None:
        path = out / name
        writer(path)
        report.files.append(path)

    write("report.md", lambda p: p.write_text(markdown(rendered, tables, results_dir), encoding="utf-8"))
    write("report.json", lambda p: p.write_text(json.dumps({"tables": tables, "rows": {
        t.name: t.as_records() for t in rendered}}, indent=2, sort_keys=True, default=str) + "\n", encoding="utf-8"))
    for t in rendered:
        def write_csv(path: Path, t: Table = t) -> None:
            with open(path, "w", newline="", encoding="utf-8") as fh:
                w = csv.writer(fh)
                w.writerow(t.headers)
                w.writerows([[_csv_cell(v) for v in row] for row in t.rows])
        write(f"{t.name}.csv", write_csv)

    write("sr_osr_by_tier.png", lambda p: plots.sr_osr_chart(tables["by_tier"], p, "SR / OSR by difficulty tier"))
    write("sr_osr_by_activity.png", lambda p: plots.sr_osr_chart(tables["by_activity_group"], p,
                                                                  "SR / OSR by activity group"))
    write("failures.png", lambda p: plots.failure_chart(tables["failures"], p))
    bars_cache: dict[tuple[str, str], list | Exception] = {}

    def bars_of(rec) -> list:
        key = (rec.planner, rec.instance)
        if key not in bars_cache:
            try:
                info = index.instances[rec.instance]
                bars_cache[key] = plots.plan_bars(reg, load_instance(info.path, reg),
                                                  read_plan(results_dir / rec.plan_file))
            except (OSError, InputError, KeyError) as exc:
                bars_cache[key] = exc
        return bars_cache[key]

    def richness(rec) -> tuple:
        bars = bars_of(rec)
        return (0, 0) if isinstance(bars, Exception) else (len({b.lane for b in bars}), len(bars))

    charts = []
    for rec in _choose_gantt(records, planners, gantt, richness):
        bars = bars_of(rec)
        if isinstance(bars, Exception):
            report.warnings.append(f"no Gantt chart for {rec.planner} on {rec.instance}: {bars}")
            warn(report.warnings[-1])
            continue
        verdict = "valid" if rec.valid else "INVALID"
        cost = ", ".join(f"{d} {v}" for d, v in (rec.cost or {}).items() if v)
        charts.append((f"{rec.planner} on {rec.instance} ({verdict}{'; ' + cost if cost else ''})", bars))
    if charts:
        write("gantt.png", lambda p: plots.gantt_chart(charts, p))
    return report


def print_tables(report: Report, console=None) -> None:
    """The main tables on the terminal (rich)."""
    from rich.console import Console
    from rich.table import Table as RichTable

    if console is None:
        console = Console()
        if not console.is_terminal:  # a pipe or a file: wide enough that the tables do not wrap
            console = Console(width=140)
    for t in report.rendered:
        if not t.main:
            continue
        table = RichTable(title=t.title, title_justify="left", show_lines=False)
        for h in _headers(t):
            table.add_column(h, overflow="fold")
        for row in t.display:
            table.add_row(*row)
        console.print(table)
        if t.note:
            console.print(f"[dim]{t.note}[/dim]")

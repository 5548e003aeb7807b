"""``hygiene-pddl report``: the paper's tables and the comparison's extras from a bench results folder, as
Markdown, CSV and JSON, PNG plots, and the main tables on the terminal; optionally a self-contained results
document (docs/results.md). The numbers come from :mod:`hygiene_pddl.metrics`; this module selects, formats
(:mod:`hygiene_pddl.bench.report_tables`) and draws (:mod:`hygiene_pddl.bench.plots`)."""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hygiene_pddl.bench.report_tables import (
    BREAKDOWNS,
    Table,
    per_instance_table,
    run_summary,
    summary_tables,
)
from hygiene_pddl.bench.store import META, RESULTS, Warn, _default_warn, read_results
from hygiene_pddl.errors import InputError, Location

#: The comparison-set rules a user can choose (besides a file of instance ids).
SET_RULES = {"common": "the instances every compared planner has a result on",
             "union": "the instances any compared planner has a result on (a planner's missing results count as "
                      "no plan)",
             "given": "the instances listed in {source}"}
#: Per-instance columns: name -> InstanceInfo field.
INSTANCE_COLUMNS = ("tier", "activity_group", "design", "condition")
#: File stems of the breakdown charts (the first two kept from earlier reports).
CHART_NAMES = {"tier": "sr_osr_by_tier", "activity_group": "sr_osr_by_activity", "household_area": "sr_osr_by_area",
               "design": "sr_osr_by_design", "kind": "sr_osr_by_kind"}


@dataclass
class Report:
    out: Path
    planners: list[str]
    tables: dict[str, Any]  # hygiene_pddl.metrics.all_tables plus "runs" and "per_instance"
    rendered: list[Table]
    files: list[Path] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    figures: list[tuple[str, str]] = field(default_factory=list)  # (file name, caption)
    meta: dict[str, Any] = field(default_factory=dict)  # bench.json of the results folder


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


def read_instance_list(path: Path) -> list[str]:
    """Instance ids, one a line (``#`` starts a comment), from a ``--set`` file."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read the instance list {path}: {exc.strerror or exc}") from None
    ids = [line.split("#", 1)[0].strip() for line in text.splitlines()]
    return [i for i in ids if i]


def choose_set(comparison: str | Sequence[str], index, source: str = "") -> str | list[str]:  # noqa: ANN001
    """``"common"`` / ``"union"`` as they are; explicit ids checked against the index (InputError)."""
    if isinstance(comparison, str):
        if comparison not in ("common", "union"):
            raise InputError(f"unknown comparison set {comparison!r}; expected common, union or a file of ids")
        return comparison
    ids = list(dict.fromkeys(comparison))
    unknown = [i for i in ids if i not in index.instances]
    if unknown:
        raise InputError(f"{len(unknown)} instance(s) of the comparison set are not in the benchmark: "
                         f"{', '.join(unknown[:5])}", Location(source) if source else None)
    if not ids:
        raise InputError("the comparison set is empty", Location(source) if source else None)
    return ids


def _condition(info) -> str:  # noqa: ANN001
    from hygiene_pddl.bench.sample import condition

    return condition(info)


def set_sentence(tables: dict[str, Any], source: str = "") -> str:
    """What the comparison set is, and how much of each planner's results it holds."""
    cs = tables["comparison_set"]

    def counts(d: dict) -> str:
        return ", ".join(f"{k} {v}" for k, v in d.items())

    cover = "; ".join(f"{p} {c['in_set']} of its {c['results']}" for p, c in cs["coverage"].items())
    return (f"Comparison set ({cs['rule']}): {SET_RULES[cs['rule']].format(source=source)}: {cs['n']} instances. "
            f"Results in the set: {cover}. Eligible profile pairs: {counts(cs['profile_pairs'])}; eligible history "
            f"pairs: {counts(cs['history_pairs'])}; contact-event instances: {counts(cs['events'])}.")


def _md_table(t: Table, level: str = "##") -> list[str]:
    heads = t.display_headers or t.headers
    lines = [f"{level} {t.title}", "", "| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in t.display]
    if t.note:
        lines += ["", f"_{t.note}_"]
    return lines + [""]


def markdown_body(report: Report, link: str = "", level: str = "##", source: str = "") -> list[str]:
    """The tables, figures and the per-instance link; ``link`` is the report folder as seen from the file."""
    lines = [set_sentence(report.tables, source), ""]
    if report.tables.get("unindexed"):
        lines += [f"Records for instances not in the benchmark index (left out): "
                  f"{', '.join(report.tables['unindexed'])}", ""]
    for t in report.rendered:
        if t.main:
            lines += _md_table(t, level)
    if report.figures:
        lines += [f"{level} Figures", ""]
        lines += [f"![{caption}]({link}{name})" for name, caption in report.figures] + [""]
    lines += [f"Per-instance outcomes and times: [per_instance.md]({link}per_instance.md) "
              f"(and [per_instance.csv]({link}per_instance.csv)).", ""]
    return lines


def markdown(report: Report, results_dir: Path, source: str = "") -> str:
    return "\n".join([f"# Benchmark report: {results_dir}", "", *markdown_body(report, source=source)])


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
                 swaps: bool = True, warn: Warn = _default_warn, comparison: str | Sequence[str] = "common",
                 baseline: str | None = None, set_source: str = "") -> Report:
    """Compute every table with :func:`hygiene_pddl.metrics.all_tables` over the comparison set
    (``"common"``: the instances every compared planner ran on; ``"union"``; or explicit ids, read from
    ``set_source``) and write report.md, report.json, one CSV per table, per_instance.md and the PNG plots
    into ``out``."""
    from hygiene_pddl.bench import plots
    from hygiene_pddl.instances import load_instance
    from hygiene_pddl.metrics import all_tables, planners_of, select
    from hygiene_pddl.metrics.quality import per_instance
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
    if baseline is not None and baseline not in planners:
        raise InputError(f"--baseline {baseline} is not among the compared planners ({', '.join(planners)})")
    chosen_set = choose_set(comparison, index, set_source)
    reg = load_registries()
    tables = all_tables(records, index, planners, instances=chosen_set, results_dir=results_dir if swaps else None,
                        reg=reg, baseline=baseline)
    tables["runs"] = run_summary(raw, planners)
    ids = tables["comparison_set"]["instances"]
    results = {p: select(records, p) for p in planners}
    columns = {c: (_condition if c == "condition" else (lambda info, c=c: getattr(info, c))) for c in INSTANCE_COLUMNS}
    tables["per_instance"] = per_instance(results, index, ids, columns)
    rendered = summary_tables(tables, planners) + [per_instance_table(tables["per_instance"], planners,
                                                                      INSTANCE_COLUMNS)]
    from hygiene_pddl.bench.llm_report import llm_tables  # LLM calls and grounding accuracy (planners with usage)

    extra, more = llm_tables(raw, planners, index)
    tables.update(extra)
    rendered += more
    report = Report(out, planners, tables, rendered, meta=_read_meta(results_dir))
    out.mkdir(parents=True, exist_ok=True)

    def write(name: str, writer: Callable[[Path], None]) -> None:
        path = out / name
        writer(path)
        report.files.append(path)

    def figure(name: str, caption: str, draw: Callable[[Path], None]) -> None:
        write(name, draw)
        report.figures.append((name, caption))

    for key, title in BREAKDOWNS:
        if tables.get(f"by_{key}"):
            figure(f"{CHART_NAMES[key]}.png", title, lambda p, key=key, title=title: plots.sr_osr_chart(
                tables[f"by_{key}"], p, title.split(": ", 1)[-1]))
    figure("failures.png", "Outcomes per planner (failure table)", lambda p: plots.failure_chart(tables["failures"], p))
    figure("cactus.png", "Instances resolved over time, per planner",
           lambda p: plots.cactus_chart(tables["cactus"], len(ids), p))
    _gantt_figure(report, records, index, planners, gantt, reg, results_dir, warn, figure,
                  lambda info, reg: load_instance(info.path, reg), read_plan)
    per_md = ["# Per-instance outcomes", "", set_sentence(tables, set_source), "", *_md_table(rendered[-1])]
    write("per_instance.md", lambda p: p.write_text("\n".join(per_md), encoding="utf-8"))
    write("report.md", lambda p: p.write_text(markdown(report, results_dir, set_source), encoding="utf-8"))
    write("report.json", lambda p: p.write_text(json.dumps({"tables": tables, "rows": {
        t.name: t.as_records() for t in rendered}}, indent=2, sort_keys=True, default=str) + "\n", encoding="utf-8"))
    for t in rendered:
        def write_csv(path: Path, t: Table = t) -> None:
            with open(path, "w", newline="", encoding="utf-8") as fh:
                w = csv.writer(fh, lineterminator="\n")
                w.writerow(t.headers)
                w.writerows([[_csv_cell(v) for v in row] for row in t.rows])
        write(f"{t.name}.csv", write_csv)
    return report


def _read_meta(results_dir: Path) -> dict[str, Any]:
    path = results_dir / META
    try:
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    except (OSError, json.JSONDecodeError) as exc:
        raise InputError(f"unreadable {META}: {exc}", Location(str(path))) from None


def _gantt_figure(report: Report, records, index, planners, gantt, reg, results_dir, warn, figure, load,  # noqa: ANN001
                  read_plan) -> None:
    """gantt.png: the chosen plans (see :func:`_choose_gantt`) as Gantt charts."""
    from hygiene_pddl.bench import plots

    bars_cache: dict[tuple[str, str], list | Exception] = {}

    def bars_of(rec) -> list:  # noqa: ANN001
        key = (rec.planner, rec.instance)
        if key not in bars_cache:
            try:
                info = index.instances[rec.instance]
                bars_cache[key] = plots.plan_bars(reg, load(info, reg), read_plan(results_dir / rec.plan_file))
            except (OSError, InputError, KeyError) as exc:
                bars_cache[key] = exc
        return bars_cache[key]

    def richness(rec) -> tuple:  # noqa: ANN001
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
        figure("gantt.png", "Gantt charts of chosen plans", lambda p: plots.gantt_chart(charts, p))


def results_document(report: Report, doc: Path, results_dir: Path, command: str) -> str:
    """docs/results.md: how the run was made (bench commands, limits, machine), then every table and figure,
    with links to the report folder relative to ``doc``."""
    link = os.path.relpath(report.out, doc.parent).replace(os.sep, "/") + "/"
    lines = ["# Results", "", f"Generated by `{command}` from the results store `{results_dir}`; regenerate it with "
             "the same command (the figures and tables come out byte for byte the same).", "", "## The runs", ""]
    for k, inv in enumerate(report.meta.get("invocations", []), start=1):
        mem = f"{inv['memory_limit']} MB" if inv.get("memory_limit") else "none"
        lines.append(f"{k}. `{inv.get('command') or 'hygiene-pddl bench (library call)'}`: "
                     f"{', '.join(inv.get('planners', []))} on {len(inv.get('instances', []))} instances"
                     + (f" (stratified sample, seed {inv['sample']['seed']})" if inv.get("sample") else "")
                     + f"; time limit {inv.get('time_limit'):g} s, memory limit {mem}, {inv.get('jobs')} at a time, "
                     f"{inv.get('executor')} executor, started {inv.get('started')}")
        if inv.get("machine"):
            m = inv["machine"]
            lines.append(f"   on {m.get('cpu', m.get('machine'))}, {m.get('cpus')} CPUs, {m.get('memory_gb', '?')} GB, "
                         f"{m.get('system')}, Python {m.get('python')}; load average at the start "
                         f"{' / '.join(str(x) for x in m.get('load', [])) or '?'}")
    lines.append("")
    return "\n".join(lines + markdown_body(report, link=link))


def print_tables(report: Report, console=None) -> None:  # noqa: ANN001
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
        for h in t.display_headers or t.headers:
            table.add_column(h, overflow="fold")
        for row in t.display:
            table.add_row(*row)
        console.print(table)
        if t.note:
            console.print(f"[dim]{t.note}[/dim]")

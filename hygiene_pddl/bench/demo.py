"""The README's main command: bench planners on the committed benchmark and print the paper's tables."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from hygiene_pddl.errors import InputError


def default_problems() -> Path:
    """``./problems`` when run from a checkout's root, else the one beside the installed package."""
    here = Path("problems")
    if here.is_dir():
        return here
    return Path(__file__).resolve().parents[2] / "problems"


def sample_instances(problems: Path, families_per_group: int) -> list[Path]:
    """A deterministic sample of the committed benchmark: every instance of the first families plus every
    instance of the first ``families_per_group`` families (by name) of each activity group (0: the first
    families alone)."""
    from hygiene_pddl.episodes.index import load_index

    index = load_index(problems)
    by_group: dict[str, list[str]] = {}
    for info in sorted(index.instances.values(), key=lambda i: i.family):
        fams = by_group.setdefault(info.activity_group, [])
        if info.family not in fams:
            fams.append(info.family)
    first = {"spoon_fruit", "bowl_to_sink", "hot_cocoa"}
    keep = first | {f for fams in by_group.values() for f in [x for x in fams if x not in first][:families_per_group]}
    return sorted(info.path for info in index.instances.values() if info.family in keep)


def run_demo(out_dir: Path | str, planners: Sequence[str] = ("hygiene-nsp", "fd-cpsat"), jobs: int = 2,
             time_limit: float = 60, problems: Path | str | None = None, memory_limit: int | None = 4096,
             progress: bool = True, console=None, families_per_group: int | None = None):
    """Bench ``planners`` on the committed instances (all, or a sample of ``families_per_group`` families per
    activity group plus the first families) into ``out_dir`` (resuming what is there), write the report into
    ``out_dir/report`` and print the main tables; returns the :class:`~hygiene_pddl.bench.report.Report`.
    """
    from hygiene_pddl.bench.report import print_tables, write_report
    from hygiene_pddl.bench.runner import BenchConfig, run_bench

    problems = Path(problems) if problems is not None else default_problems()
    if not problems.is_dir():
        raise InputError(f"benchmark problems folder {problems} not found")
    out_dir = Path(out_dir)
    instances = [problems] if families_per_group is None else sample_instances(problems, families_per_group)
    summary = run_bench(BenchConfig(list(planners), instances, out_dir, jobs=jobs, time_limit=time_limit,
                                    memory_limit=memory_limit, progress=progress))
    report = write_report(out_dir, out_dir / "report", problems=problems)
    print_tables(report, console)
    print(f"{summary.total} runs ({summary.skipped} reused from {out_dir / 'results.jsonl'}) in {summary.wall:.1f} s; "
          f"report: {out_dir / 'report' / 'report.md'} and {len(report.files) - 1} more files")
    return report

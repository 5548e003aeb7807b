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


def run_demo(out_dir: Path | str, planners: Sequence[str] = ("hygiene-nsp", "fd-cpsat"), jobs: int = 2,
             time_limit: float = 60, problems: Path | str | None = None, memory_limit: int | None = 4096,
             progress: bool = True, console=None):
    """Bench ``planners`` on every committed instance into ``out_dir`` (resuming what is there), write the
    report into ``out_dir/report`` and print the main tables; returns the :class:`~hygiene_pddl.bench.report.Report`.
    """
    from hygiene_pddl.bench.report import print_tables, write_report
    from hygiene_pddl.bench.runner import BenchConfig, run_bench

    problems = Path(problems) if problems is not None else default_problems()
    if not problems.is_dir():
        raise InputError(f"benchmark problems folder {problems} not found")
    out_dir = Path(out_dir)
    summary = run_bench(BenchConfig(list(planners), [problems], out_dir, jobs=jobs, time_limit=time_limit,
                                    memory_limit=memory_limit, progress=progress))
    report = write_report(out_dir, out_dir / "report", problems=problems)
    print_tables(report, console)
    print(f"{summary.total} runs ({summary.skipped} reused from {out_dir / 'results.jsonl'}) in {summary.wall:.1f} s; "
          f"report: {out_dir / 'report' / 'report.md'} and {len(report.files) - 1} more files")
    return report

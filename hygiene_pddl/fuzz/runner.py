"""Run fuzz cases through ``hygiene-pddl`` and judge them: exit 0, 1 or 2 within the bound, never 3.

Cases run in worker processes forked from this one (registries loaded once), each case in-process through
:func:`hygiene_pddl.cli.main` in a fresh folder, with an address-space limit. A case fails when it exits 3,
prints a traceback, exits 2 without an ``error:`` message, writes outside its outputs (or makes
``/dev/null.png``), uses more CPU time than its bound, or does not answer at all within four times the
bound (a hang: the worker is killed and replaced). CPU time, not wall time, is what the bound measures, so
that a shared machine does not turn slow answers into hangs.
"""

from __future__ import annotations

import contextlib
import io
import multiprocessing
import os
import resource
import shutil
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path

from hygiene_pddl.fuzz.cases import TARGETS, Case, build_case

#: Address space of a worker (a run beyond it ends in MemoryError: exit 3, a failure).
MEMORY_MB = 4096
_PROBE = Path("/dev/null.png")


@dataclass
class Outcome:
    case: Case
    rc: int | None  # None: no answer (hang)
    cpu: float
    wall: float
    stdout: str
    stderr: str
    problem: str | None  # why the case failed, or None


@dataclass
class Summary:
    outcomes: list[Outcome] = field(default_factory=list)

    @property
    def failures(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.problem]

    def table(self) -> str:
        """Cases per target and exit code, failures and the slowest CPU time."""
        rows = ["target          cases  exit0  exit1  exit2  other  failed  max-cpu-s"]
        for target in sorted({o.case.target for o in self.outcomes}):
            mine = [o for o in self.outcomes if o.case.target == target]
            codes = Counter(o.rc for o in mine)
            rows.append(f"{target:<15} {len(mine):>5}  {codes[0]:>5}  {codes[1]:>5}  {codes[2]:>5}  "
                        f"{sum(n for c, n in codes.items() if c not in (0, 1, 2)):>5}  "
                        f"{sum(1 for o in mine if o.problem):>6}  {max(o.cpu for o in mine):>9.2f}")
        rows.append(f"{'all':<15} {len(self.outcomes):>5}  {'':>5}  {'':>5}  {'':>5}  {'':>5}  "
                    f"{len(self.failures):>6}")
        return "\n".join(rows)


def _registry_pipeline(data: str, instance: str) -> int:
    """``registries check --data`` and then what the commands do with registries: load an instance,
    replay it, compile both flavours (a registry that passes the check must not crash them)."""
    from compiler.render import render_classical, render_domain, render_problem
    from hygiene_pddl.instances import load_instance
    from hygiene_pddl.registries import load_registries
    from hygiene_pddl.replay import replay

    reg = load_registries(data)
    inst = load_instance(instance, reg)
    replay(inst, reg)
    render_domain(reg, inst.family)
    render_problem(reg, inst)
    render_classical(reg, inst)
    return 0


def _main(argv: list[str]) -> int:
    from hygiene_pddl.cli import main

    if argv[0] != "@registry-pipeline":
        return main(argv)
    import sys
    import traceback

    from hygiene_pddl.errors import EXIT_BAD_INPUT, EXIT_INTERNAL, InputError

    try:
        return _registry_pipeline(*argv[1:])
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Exception:  # noqa: BLE001 - the oracle: a bug
        print("internal error (please report):\n" + traceback.format_exc(), file=sys.stderr)
        return EXIT_INTERNAL


def execute(case: Case, folder: Path) -> tuple[int, str, str]:
    """Run ``case`` in ``folder`` in this process; return exit code, stdout and stderr."""
    for name, text in case.files:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        with open(folder / name, "w", encoding="utf-8", errors="surrogatepass", newline="") as f:
            f.write(text)
    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = _main(list(case.argv))
            except SystemExit as exc:  # argparse: usage errors
                rc = exc.code if isinstance(exc.code, int) else 2
    finally:
        os.chdir(cwd)
    return rc, out.getvalue(), err.getvalue()


def documented_codes(argv: list[str]) -> tuple[int, ...]:
    """The exit codes docs/exit-codes.md gives the command: 0, 1, 2 for all; ``plan`` also 10, 12 and 37."""
    from hygiene_pddl.errors import EXIT_INFEASIBLE, EXIT_UNAVAILABLE, EXIT_UNDETERMINED

    plan = bool(argv) and argv[0] == "plan"
    return (0, 1, 2) + ((EXIT_INFEASIBLE, EXIT_UNDETERMINED, EXIT_UNAVAILABLE) if plan else ())


def judge(case: Case, rc: int | None, cpu: float, stderr: str, written: list[str]) -> str | None:
    """Why the outcome breaks the exit-code contract, or None."""
    if rc is None:
        return f"hang: no answer within {4 * case.bound:.0f} s"
    if rc == 3 or "Traceback (most recent call last)" in stderr:
        return "internal error (exit 3)" if rc == 3 else f"traceback (exit {rc})"
    if rc not in documented_codes(case.argv):
        return f"exit {rc}"
    if rc == 2 and not stderr.lstrip().startswith(("error:", "usage:")):
        return "exit 2 without an error message"
    if cpu > case.bound:
        return f"slow: {cpu:.1f} s of CPU time, bound {case.bound:.0f} s"
    told = [os.path.normpath(a) for a in case.argv if not a.startswith("/")]
    stray = [w for w in written if not any(t == "." or w == t or w.startswith(t + "/") for t in ("out", *told))]
    if stray:
        return f"wrote where it was not told: {stray[:3]}"
    return None


def _worker(conn: Connection, root: str) -> None:
    """Serve cases until None arrives: run each in a fresh folder under ``root``."""
    limit = MEMORY_MB * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # subprocesses (external planners) write here, not into the report
    os.dup2(devnull, 2)
    while (case := conn.recv()) is not None:
        folder = Path(tempfile.mkdtemp(prefix="case-", dir=root))
        start, cpu0 = time.perf_counter(), _cpu()
        rc, out, err = execute(case, folder)
        written = sorted(str(p.relative_to(folder)) for p in folder.rglob("*")
                         if p.is_file() and str(p.relative_to(folder)) not in dict(case.files))
        shutil.rmtree(folder, ignore_errors=True)
        conn.send((rc, _cpu() - cpu0, time.perf_counter() - start, _ends(out), _ends(err), written))


def _ends(text: str, keep: int = 3000) -> str:
    """Long output's beginning and end (the judge reads the first line)."""
    return text if len(text) <= 2 * keep else f"{text[:keep]}\n[...]\n{text[-keep:]}"


def _cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


class _Slot:
    """One worker process and the case it is running."""

    def __init__(self, ctx, root: str):
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child, root), daemon=True)
        self.proc.start()
        child.close()
        self.case: Case | None = None
        self.started = 0.0

    def give(self, case: Case) -> None:
        self.case, self.started = case, time.perf_counter()
        self.conn.send(case)

    def stop(self, kill: bool = False) -> None:
        if kill:
            self.proc.kill()
        else:
            with contextlib.suppress(OSError):
                self.conn.send(None)
        self.proc.join(5)


def fuzz(seed: str = "0", *, cases: int | None = None, seconds: float | None = None, start: int = 0,
         targets: tuple[str, ...] = TARGETS, jobs: int = 1, failures_dir: Path | None = None,
         on_outcome=None, start_method: str = "fork") -> Summary:
    """Run cases ``start, start + 1, ...`` of ``seed`` until ``cases`` ran or ``seconds`` passed.

    ``start_method`` "fork" shares the loaded registries with the workers; "forkserver" suits a parent
    with threads (a test runner)."""
    if cases is None and seconds is None:
        raise ValueError("give cases or seconds")
    from hygiene_pddl.registries import load_registries

    if start_method == "fork":
        load_registries()  # once, before the workers fork
    ctx = multiprocessing.get_context(start_method)
    summary = Summary()
    deadline = None if seconds is None else time.perf_counter() + seconds
    next_index = start
    root = tempfile.mkdtemp(prefix="hygiene-fuzz-")
    slots = [_Slot(ctx, root) for _ in range(max(1, jobs))]

    def more() -> bool:
        in_time = deadline is None or time.perf_counter() < deadline
        return in_time and (cases is None or next_index < start + cases)

    try:
        while True:
            for slot in slots:
                if slot.case is None and more():
                    slot.give(build_case(seed, next_index, targets))
                    next_index += 1
            busy = [s for s in slots if s.case is not None]
            if not busy:
                break
            ready = wait([s.conn for s in busy], timeout=1.0)
            now = time.perf_counter()
            for slot in busy:
                case = slot.case
                if slot.conn in ready:
                    try:
                        rc, cpu, wall, out, err, written = slot.conn.recv()
                    except EOFError:  # the worker died (killed by the kernel, a crash in C code)
                        rc, cpu, wall, out, err, written = 3, 0.0, now - slot.started, "", "worker died", []
                        slots[slots.index(slot)] = _replace(slot, ctx, root)
                elif now - slot.started > 4 * case.bound:
                    rc, cpu, wall, out, err, written = None, 0.0, now - slot.started, "", "", []
                    slots[slots.index(slot)] = _replace(slot, ctx, root)
                else:
                    continue
                problem = judge(case, rc, cpu, err, written)
                if problem is None and _PROBE.exists():
                    problem = f"{_PROBE} exists"
                outcome = Outcome(case, rc, cpu, wall, out, err, problem)
                summary.outcomes.append(outcome)
                slot.case = None
                if problem and failures_dir is not None:
                    save_failure(outcome, failures_dir)
                if on_outcome is not None:
                    on_outcome(outcome)
    finally:
        for slot in slots:
            slot.stop(kill=slot.case is not None)
        shutil.rmtree(root, ignore_errors=True)
    return summary


def _replace(slot: _Slot, ctx, root: str) -> _Slot:
    slot.stop(kill=True)
    return _Slot(ctx, root)


def save_failure(outcome: Outcome, folder: Path) -> Path:
    """Write a failing case's files, command, output and verdict under ``folder/SEED_INDEX``."""
    case = outcome.case
    where = folder / case.key.replace(":", "_")
    where.mkdir(parents=True, exist_ok=True)
    for name, text in case.files:
        (where / name).parent.mkdir(parents=True, exist_ok=True)
        with open(where / name, "w", encoding="utf-8", errors="surrogatepass", newline="") as f:
            f.write(text)
    (where / "README.txt").write_text(
        f"case {case.key} ({case.target}): {outcome.problem}\nmutations: {', '.join(case.mutations)}\n"
        f"command (in this folder): hygiene-pddl {' '.join(case.argv)}\nexit: {outcome.rc}, "
        f"{outcome.cpu:.1f} s CPU, {outcome.wall:.1f} s wall\n--- stderr\n{outcome.stderr}\n"
        f"--- stdout\n{outcome.stdout}\n", encoding="utf-8")
    return where

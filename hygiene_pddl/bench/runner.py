"""The bench harness: planners × instances × runs, each planner call isolated in its own process group
with a hard wall-time limit and an address-space limit, answers checked by both validators, records
appended to the store as they arrive (resumable), run locally on N slots or on a Dask cluster.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from hygiene_pddl.bench.progress import Progress
from hygiene_pddl.bench.store import META, ResultStore, Warn, _default_warn, record_key
from hygiene_pddl.errors import InputError

#: Seconds allowed for the worker to start (imports, instance loading) before the planner call begins.
STARTUP_LIMIT = 120.0
#: Seconds allowed for checking one answer with both validators.
CHECK_LIMIT = 300.0
#: Seconds a worker may take to exit once its record is written; then its group is killed (and the record says so).
EXIT_LIMIT = 3.0
POLL = 0.05
#: Seconds to wait for a remote Dask scheduler to answer.
DASK_CONNECT_TIMEOUT = 20.0


@dataclass(frozen=True)
class Job:
    """One planner call; plain data so it travels to a Dask worker and into the worker process."""

    planner: str
    instance: str
    path: str  # absolute path of the public instance file
    run: int  # 1-based
    time_limit: float
    memory_limit: int | None = None  # MB of address space for the planner call
    grace: float = 5.0  # seconds after the time limit before the process group is killed
    plugins: tuple[str, ...] = ()
    mode: str | None = None  # projection study: "full" | "projected"; None in the main comparison
    start: str = "fork"  # "fork": forked from a preloaded fork server; "spawn": a fresh Python process

    @property
    def key(self) -> tuple[str, str, int, str | None]:
        return (self.planner, self.instance, self.run, self.mode)


@dataclass
class BenchConfig:
    planners: Sequence[str]
    instances: Sequence[str | Path]
    out: Path
    jobs: int = 1
    time_limit: float = 60.0
    memory_limit: int | None = 4096
    runs: int = 1
    grace: float = 5.0
    executor: str = "local"  # local | dask
    scheduler: str | None = None
    plugins: Sequence[str] = ()
    progress: bool = True
    projection_study: bool = False  # also run full- and projected-state runs of planners that can switch
    start: str = "fork"  # how each call's process starts: fork (preloaded fork server) or spawn
    command: str | None = None  # the command line, recorded in bench.json
    sample: int | None = None  # run on a stratified sample of this many of the instances (bench/sample.py)
    sample_seed: int = 0


@dataclass
class BenchSummary:
    total: int
    skipped: int
    ran: int
    failures: int
    wall: float
    statuses: dict[str, int] = field(default_factory=dict)
    planners_skipped: dict[str, str] = field(default_factory=dict)


# --------------------------------------------------------------------------- instances and jobs


def _instance_files_in(folder: Path) -> list[Path]:
    files = [p for p in folder.glob("*.json") if not p.name.endswith(".reference.json") and p.name != "MANIFEST.json"]
    if not files:  # a benchmark root: problems/<family>/<id>.json
        files = [p for p in folder.glob("*/*.json") if not p.name.endswith(".reference.json")]
    return files


def resolve_instances(specs: Iterable[str | Path]) -> list[Path]:
    """Instance files, family folders (or a problems folder) and glob patterns → sorted instance files."""
    found: dict[Path, None] = {}
    for spec in specs:
        text = str(spec)
        path = Path(text)
        if path.is_dir():
            matches = _instance_files_in(path)
        elif path.is_file():
            matches = [path]
        elif glob.has_magic(text):
            matches = []
            for hit in sorted(glob.glob(text, recursive=True)):
                p = Path(hit)
                matches.extend(_instance_files_in(p) if p.is_dir() else [p])
        else:
            raise InputError(f"no such instance file or folder: {text}")
        matches = [p for p in matches if p.suffix == ".json" and not p.name.endswith(".reference.json")]
        if not matches:
            raise InputError(f"no instance files match {text}")
        for p in matches:
            found[p.resolve()] = None
    files = sorted(found, key=lambda p: (p.stem, str(p)))
    seen: dict[str, Path] = {}
    for p in files:
        if p.stem in seen:
            raise InputError(f"two instances share the id {p.stem!r}: {seen[p.stem]} and {p}")
        seen[p.stem] = p
    return files


def check_planners(names: Sequence[str], plugins: Sequence[str] = (), warn: Warn = _default_warn) -> tuple[
        list[str], dict[str, str]]:
    """Known and available planners in the given order; unknown → InputError, unavailable → skipped."""
    from hygiene_pddl.bench.worker import import_plugins
    from hygiene_pddl.planners import canonical_name, catalogue, planner_info

    try:
        import_plugins(list(plugins))
    except (ImportError, OSError) as exc:
        raise InputError(f"cannot import plugin: {exc}") from None
    names = [canonical_name(n) for n in names]  # e.g. saved:DIR with an absolute DIR, as the workers read it
    infos = {n: planner_info(n) for n in names}
    unknown = [n for n in names if infos[n] is None]
    if unknown:
        raise InputError(f"unknown planner(s) {', '.join(unknown)}; available: {', '.join(sorted(catalogue()))} "
                         "and llm:<model>, saved:<dir>")
    keep, skipped = [], {}
    for name in dict.fromkeys(names):
        ok, why = infos[name].available()
        if ok:
            keep.append(name)
        else:
            skipped[name] = why
            warn(f"planner {name} is not available here and is skipped: {why}")
    if not keep:
        raise InputError("none of the requested planners can run here")
    return keep, skipped


def make_jobs(planners: Sequence[str], files: Sequence[Path], runs: int, time_limit: float,
              memory_limit: int | None, grace: float = 5.0, plugins: Sequence[str] = (),
              study: Sequence[str] = (), start: str = "fork") -> list[Job]:
    """The deterministic job order: run, then instance (sorted by id), then planner (as given), each
    planner's main run followed by its projection-study runs (full, projected) for planners in ``study``."""
    plugins = tuple(str(Path(p).resolve()) if p.endswith(".py") else p for p in plugins)
    jobs = []
    for run in range(1, runs + 1):
        for f in files:
            for planner in planners:
                for mode in (None, "full", "projected") if planner in study else (None,):
                    jobs.append(Job(planner, f.stem, str(f), run, float(time_limit), memory_limit, float(grace),
                                    plugins, mode, start))
    return jobs


def projection_capable(planner: str, plugins: Sequence[str] = ()) -> bool:
    """A planner whose object has a boolean ``project`` switch (Hygiene-NSP's state projection)."""
    from hygiene_pddl.bench.worker import import_plugins
    from hygiene_pddl.planners import planner_info

    import_plugins(list(plugins))
    try:
        return isinstance(getattr(planner_info(planner).factory(), "project", None), bool)
    except Exception:  # noqa: BLE001 - a factory that cannot even be built has no switch we can use
        return False


# --------------------------------------------------------------------------- one isolated planner call


def _kill_group(proc: subprocess.Popen, soft_first: bool = True) -> None:
    for sig in ((signal.SIGTERM, signal.SIGKILL) if soft_first else (signal.SIGKILL,)):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        try:
            proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            continue
        if sig is signal.SIGKILL:
            return
    try:  # the leader may be gone while group members (e.g. a planner's own subprocess) remain
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _read_json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None


MEMORY_SIGNS = ("MemoryError", "bad_alloc", "Cannot allocate memory", "out of memory", "failed to map segment",
                "std::length_error")


def _blank(job: Job) -> dict:
    """A record in the shape of :class:`hygiene_pddl.metrics.records.ResultRecord`."""
    return {"planner": job.planner, "instance": job.instance, "run": job.run, "status": "error",
            "plan_file": None, "valid": None, "pddl_valid": None, "cost": None, "optimal": None,
            "first_worse": None, "timings": {}, "wall": 0.0, "notes": [], "error": None,
            "projection": {"mode": job.mode, "fallback": False} if job.mode else None}


def execute_job(job: Job, cancel: threading.Event | None = None) -> dict | None:
    """Run one planner call in its own process group and check the answer; the record (with the plan
    text under ``plan_text``, which the store saves to a file), or None when cancelled."""
    workdir = Path(tempfile.mkdtemp(prefix="hygiene-bench-"))
    try:
        return _execute(job, workdir, cancel)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _worker_env(job: Job) -> dict[str, str]:
    env = dict(os.environ)
    if job.memory_limit:
        env.setdefault("MALLOC_ARENA_MAX", "2")  # glibc reserves 64 MB of address space per thread arena
    return env


def _start(job: Job, workdir: Path) -> tuple[Any, str, float]:
    """The call's process (a Popen or a fork-server Child), how it started ("fork" or "spawn") and the seconds
    spent getting the fork server (starting it, or waiting while another call starts it; about 0 once it
    runs): leading its own session, working in ``workdir`` (planners that write into the current folder,
    like Fast Downward's output.sas, do not collide), its output in ``workdir/worker.log``."""
    server_start = 0.0
    if job.start == "fork" and hasattr(os, "fork"):
        from hygiene_pddl.bench.forkserver import ServerGone, server_for

        t0 = time.monotonic()
        try:
            server = server_for(job.plugins, _worker_env(job))
            server_start = time.monotonic() - t0
            return server.spawn(workdir / "job.json", workdir), "fork", server_start
        except ServerGone:  # the server could not start or died: a fresh process does the same, only slower
            server_start = time.monotonic() - t0
    with open(workdir / "worker.log", "wb") as log:
        return subprocess.Popen([sys.executable, "-m", "hygiene_pddl.bench.worker", str(workdir / "job.json"),
                                 str(workdir)], stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                env=_worker_env(job), cwd=workdir, start_new_session=True), "spawn", server_start


def _execute(job: Job, workdir: Path, cancel: threading.Event | None) -> dict | None:
    spec = {**asdict(job), "parent_pid": os.getpid(), "sys_path": os.getcwd()}
    (workdir / "job.json").write_text(json.dumps(spec), encoding="utf-8")
    t_spawn = time.monotonic()
    proc, how, server_start = _start(job, workdir)
    phase, deadline, solve_start, check_start = "start", time.monotonic() + STARTUP_LIMIT, None, None
    check_end = None
    killed = None
    try:
        while proc.poll() is None:
            now = time.monotonic()
            if cancel is not None and cancel.is_set():
                _kill_group(proc, soft_first=False)
                return None
            if phase == "start" and (workdir / "solve_start").exists():
                phase, solve_start = "solve", now
                deadline = now + job.time_limit + job.grace
            if phase == "solve" and (workdir / "planner.json").exists():
                phase, deadline, check_start = "check", now + CHECK_LIMIT, now
            if phase == "check" and (workdir / "record.json").exists():
                phase, deadline, check_end = "exit", now + EXIT_LIMIT, now
            if now > deadline:
                killed = phase
                _kill_group(proc)
                break
            time.sleep(POLL)
    except BaseException:
        _kill_group(proc, soft_first=False)
        raise
    _kill_group(proc, soft_first=False)  # stray members of the group, if any
    end = time.monotonic()
    record = _blank(job)
    record["wall"] = end - (solve_start or t_spawn)
    record["harness"] = {"call": end - t_spawn, "start": (solve_start or end) - t_spawn,
                         "check": (check_end or end) - check_start if check_start is not None else 0.0,
                         "process": how, "server_start": server_start, "time_limit": job.time_limit}
    answer = _read_json(workdir / "record.json") or _read_json(workdir / "planner.json")
    log_tail = (workdir / "worker.log").read_text(encoding="utf-8", errors="replace")[-4000:]
    if answer is None:
        if killed == "solve":
            record["status"] = "timeout"
            record["notes"] = [f"killed after {end - solve_start:.1f} s (time limit {job.time_limit:g} s "
                               f"+ grace {job.grace:g} s)"]
        elif killed:
            record["error"] = f"worker start-up exceeded {STARTUP_LIMIT:g} s"
        elif _memory_sign(job, solve_start is not None, log_tail):
            record["status"] = "memout"
            record["error"] = f"address space limit of {job.memory_limit} MB: {_last_line(log_tail)}"
        else:
            code = proc.returncode
            how = f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
            record["error"] = f"worker died ({how}): {_last_line(log_tail) or 'no output'}"
        return record
    record["status"] = answer["status"]
    record["wall"] = float(answer.get("wall", record["wall"]))
    record["error"] = answer.get("error")
    if answer["status"] == "error" and _memory_sign(job, "setup" not in (answer["error"] or ""),
                                                    (answer["error"] or "") + (answer.get("traceback") or "")):
        record["status"] = "memout"  # e.g. a lazy import that could not map its library under the limit
    if record["status"] in ("error", "memout"):
        return record
    record.update(timings=answer.get("timings", {}), notes=list(answer.get("notes", ())),
                  proved_optimal=answer.get("proved_optimal", False), plan_text=answer.get("plan_text", ""),
                  claimed_cost=answer.get("claimed_cost"), usage=answer.get("usage") or {})
    if "valid" in answer:
        for key in ("pddl_valid", "cost", "optimal", "reference_feasible"):
            record[key] = answer.get(key)
        if record["status"] == "plan":
            record["valid"] = answer["valid"]
        worse = answer.get("first_worse")
        record["first_worse"] = {"dimension": worse[0], "by": worse[1]} if worse else None
        record["notes"] += answer.get("check_notes", [])
        for key in ("findings", "pddl_failure"):
            if answer.get(key):
                record[key] = answer[key]
    else:
        record["cost"] = answer.get("claimed_cost")
        why = answer.get("validation_error") or (f"checking exceeded {CHECK_LIMIT:g} s" if killed else
                                                 "the worker died while checking the answer")
        record["error"] = f"validation: {why}"
    if killed == "exit":
        record["notes"].append(f"the worker wrote its record but did not exit within {EXIT_LIMIT:g} s; "
                               "its process group was killed (the record is complete)")
    if answer.get("instance_id") not in (None, job.instance):
        record["notes"].append(f"the instance file declares id {answer['instance_id']!r}")
    if job.mode:
        record["projection"]["fallback"] = any("fallback" in n for n in record["notes"])
    return record


def _memory_sign(job: Job, solving: bool, text: str) -> bool:
    return bool(job.memory_limit) and solving and any(s in text for s in MEMORY_SIGNS)


def _last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1][:300] if lines else ""


# --------------------------------------------------------------------------- executors


def is_failure(record: dict) -> bool:
    """No safe answer: error/timeout/memout/undetermined, a plan that is not valid at instance level, or an
    infeasibility claim on an instance whose reference continuation is feasible."""
    status = record.get("status")
    if status == "plan":
        return record.get("valid") is not True
    if status == "infeasible":
        return record.get("reference_feasible") is True
    return True


def _store_record(store: ResultStore, record: dict) -> dict:
    """Save the plan file (submitted plans only), then append the record (the plan exists once it does)."""
    from hygiene_pddl.metrics.records import ResultRecord

    text = record.pop("plan_text", None)
    if text is not None and record["status"] == "plan":
        mode = (record.get("projection") or {}).get("mode")
        record["plan_file"] = store.save_plan(record["planner"], record["instance"], record["run"], text, mode)
    checked = ResultRecord.from_dict(record).to_dict()  # the metrics' contract; extra keys are kept beside it
    store.append({**record, **checked})
    return record


def _run_local(jobs: list[Job], n: int, on_record: Callable[[dict], None]) -> None:
    from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

    cancel = threading.Event()
    pool = ThreadPoolExecutor(max_workers=max(1, n), thread_name_prefix="bench")
    try:
        pending = {pool.submit(execute_job, job, cancel) for job in jobs}
        while pending:
            done, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
            for fut in done:
                record = fut.result()
                if record is not None:
                    on_record(record)
    except BaseException:
        cancel.set()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def _dask_client(scheduler: str | None, n: int):  # noqa: ANN202 - (Client, LocalCluster or None)
    """A client of the scheduler at ``scheduler``, or of a local cluster of ``n`` single-threaded worker
    processes started here (and closed with the client)."""
    from distributed import Client, LocalCluster

    if scheduler:
        try:
            return Client(scheduler, timeout=f"{DASK_CONNECT_TIMEOUT}s"), None
        except OSError as exc:
            raise InputError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
    import logging

    cluster = LocalCluster(n_workers=max(1, n), threads_per_worker=1, processes=True, dashboard_address=None,
                           silence_logs=logging.ERROR)
    return Client(cluster), cluster


def _run_dask(jobs: list[Job], scheduler: str | None, n: int, on_record: Callable[[dict], None]) -> None:
    from distributed import as_completed

    client, cluster = _dask_client(scheduler, n)
    try:
        window = max(n, sum(client.nthreads().values()))
        queue = list(jobs)
        futures = as_completed()
        inflight = []

        def submit() -> None:
            job = queue.pop(0)
            fut = client.submit(execute_job, job, pure=False, key=f"bench-{job.planner}-{job.instance}-{job.run}-"
                                                                   f"{os.getpid()}-{time.monotonic_ns()}")
            futures.add(fut)
            inflight.append(fut)

        while queue and len(inflight) < window:
            submit()
        try:
            for fut in futures:
                inflight.remove(fut)
                record = fut.result()
                if record is not None:
                    on_record(record)
                if queue:
                    submit()
        except BaseException:
            client.cancel(inflight)
            raise
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def run_bench(config: BenchConfig, warn: Warn = _default_warn) -> BenchSummary:
    """Run (or resume) a benchmark into ``config.out``; see the module docstring."""
    t0 = time.monotonic()
    if config.jobs < 1:
        raise InputError(f"--jobs must be at least 1, got {config.jobs}")
    if config.runs < 1:
        raise InputError(f"--runs must be at least 1, got {config.runs}")
    if config.time_limit <= 0:
        raise InputError(f"--time-limit must be positive, got {config.time_limit}")
    if config.executor not in ("local", "dask"):
        raise InputError(f"unknown executor {config.executor!r}; expected local or dask")
    planners, skipped_planners = check_planners(config.planners, config.plugins, warn)
    files = resolve_instances(config.instances)
    if config.sample is not None:
        from hygiene_pddl.bench.sample import sample_files

        files = sample_files(files, config.sample, config.sample_seed)
    study = [p for p in planners if projection_capable(p, config.plugins)] if config.projection_study else []
    if config.projection_study and not study:
        warn("--projection-study: none of the planners has a state-projection switch")
    if config.start not in ("fork", "spawn"):
        raise InputError(f"unknown worker start {config.start!r}; expected fork or spawn")
    jobs = make_jobs(planners, files, config.runs, config.time_limit, config.memory_limit, config.grace,
                     config.plugins, study, config.start)
    with ResultStore(config.out, warn) as store:
        _write_meta(store, config, planners, files)
        done = store.done()
        todo = [j for j in jobs if j.key not in done]
        wanted = {j.key for j in jobs}
        earlier = [r for r in store.records if record_key(r) in wanted]
        progress = Progress(len(jobs), len(jobs) - len(todo), sum(map(is_failure, earlier)), config.progress)
        statuses: dict[str, int] = {}

        def on_record(record: dict) -> None:
            _store_record(store, record)
            statuses[record["status"]] = statuses.get(record["status"], 0) + 1
            progress.advance(is_failure(record))

        with progress:
            if config.executor == "dask":
                _run_dask(todo, config.scheduler, config.jobs, on_record)
            else:
                try:
                    _run_local(todo, config.jobs, on_record)
                finally:
                    from hygiene_pddl.bench.forkserver import close_servers

                    close_servers()
    return BenchSummary(len(jobs), len(jobs) - len(todo), len(todo), progress.failures,
                        time.monotonic() - t0, statuses, skipped_planners)


def _shown(path: Path) -> str:
    """A path relative to the working folder when it lies inside it (a committed store names no machine's
    folders), else absolute."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(Path(path).resolve())


def machine() -> dict[str, Any]:
    """What the runs ran on: OS, CPU model and count, memory, Python, and the load when the run started."""
    import platform

    info: dict[str, Any] = {"system": f"{platform.system()} {platform.release()}", "machine": platform.machine(),
                            "cpus": os.cpu_count(), "python": platform.python_version()}
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("MemTotal"):
                info["memory_gb"] = round(int(line.split()[1]) / 1024 / 1024, 1)
                break
        info["load"] = [round(x, 2) for x in os.getloadavg()]
    except (OSError, ValueError, IndexError):
        pass
    return info


def _write_meta(store: ResultStore, config: BenchConfig, planners: list[str], files: list[Path]) -> None:
    """``DIR/bench.json``: what each invocation asked for (the report finds the problems folder here)."""
    path = store.dir / META
    meta = _read_json(path) or {"invocations": []}
    problems = sorted({_shown(f.parent.parent) for f in files})
    meta["problems"] = sorted(set(meta.get("problems", [])) | set(problems))
    meta["invocations"].append({
        "planners": planners, "instances": [_shown(f) for f in files], "runs": config.runs,
        "time_limit": config.time_limit, "memory_limit": config.memory_limit, "grace": config.grace,
        "jobs": config.jobs, "executor": config.executor, "start": config.start, "command": config.command,
        "sample": None if config.sample is None else {"size": config.sample, "seed": config.sample_seed},
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "machine": machine(),
    })
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)

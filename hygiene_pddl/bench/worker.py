"""The isolated process behind one planner call: ``python -m hygiene_pddl.bench.worker JOB.json WORKDIR``.

Phases, each announced by an atomically written file in WORKDIR so the parent knows which deadline
applies: ``solve_start`` (the planner call begins, under the address-space limit), ``planner.json``
(the planner's answer, or memout/error), ``record.json`` (the answer checked by both validator levels).
The worker leads its own session; the parent kills the whole process group on a deadline, and the
worker kills its group itself if the parent disappears.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import sys
import threading
import time
import traceback
from pathlib import Path


def _write_json(path: Path, data: dict) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, sort_keys=True), encoding="utf-8")
    os.replace(tmp, path)


def _watch_parent(parent: int, workdir: Path) -> None:
    """End the whole process group, and remove the work folder, when the parent that started us is gone
    (e.g. it was killed and cannot clean up any more)."""
    def loop() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                try:
                    shutil.rmtree(workdir, ignore_errors=True)
                    os.killpg(os.getpgid(0), signal.SIGKILL)
                finally:
                    os._exit(137)
    threading.Thread(target=loop, name="parent-watch", daemon=True).start()


def import_plugins(plugins: list[str] | tuple[str, ...]) -> None:
    """Import modules (dotted names) or files (paths ending in .py) that register extra planners."""
    import importlib
    import importlib.util

    for plugin in plugins:
        if plugin.endswith(".py") or os.sep in plugin:
            path = Path(plugin).resolve()
            name = "hygiene_bench_plugin_" + path.stem
            if name in sys.modules:
                continue
            spec = importlib.util.spec_from_file_location(name, path)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot import plugin file {plugin}")
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
        else:
            importlib.import_module(plugin)


def timed_out(result) -> bool:  # noqa: ANN001 - any planner's result object
    """Undetermined because the planner's time limit ran out."""
    return result.status.value == "undetermined" and bool(getattr(result, "timed_out", False))


def _error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}".strip()


def main(argv: list[str]) -> int:
    """A freshly started worker (``--worker-start spawn``): the job file and the work folder."""
    job_file, workdir = Path(argv[0]), Path(argv[1])
    job = json.loads(job_file.read_text(encoding="utf-8"))
    if job.get("sys_path"):  # the parent's working folder, as ``python -m`` there would have it
        sys.path.insert(1, job["sys_path"])
    return run_job(job, workdir, int(job["parent_pid"]))


def run_job(job: dict, workdir: Path, parent: int) -> int:
    """One planner call in this process (a fresh worker or a fork-server child): set up, solve under the
    limits, check; the phases are announced by files in ``workdir`` (module docstring)."""
    _watch_parent(parent, workdir)
    import warnings

    warnings.filterwarnings("ignore", message="pkg_resources is deprecated")
    try:
        import_plugins(job.get("plugins", ()))
        from hygiene_pddl.instances import load_instance
        from hygiene_pddl.planners import planner_info
        from hygiene_pddl.registries import load_registries

        info = planner_info(job["planner"])
        if info is None:
            raise LookupError(f"unknown planner {job['planner']!r} in the worker (missing --plugin?)")
        reg = load_registries()
        inst = load_instance(Path(job["path"]), reg)
        planner = info.factory()
        if isinstance(getattr(planner, "sample", None), int) and not isinstance(planner.sample, bool):
            planner.sample = int(job["run"])  # sampling planners (LLMs): run k is sample k
        if job.get("mode"):  # projection study: the same planner on the full or the projected state
            if not isinstance(getattr(planner, "project", None), bool):
                raise LookupError(f"planner {job['planner']} has no state-projection switch")
            planner.project = job["mode"] == "projected"
    except Exception as exc:  # noqa: BLE001 - reported as the run's error
        _write_json(workdir / "planner.json", {"status": "error", "error": "setup: " + _error_text(exc),
                                               "traceback": traceback.format_exc()})
        return 0

    limit = job.get("memory_limit")
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    (workdir / "solve_start").write_text(str(time.time()))
    t0 = time.perf_counter()
    try:
        if limit:
            resource.setrlimit(resource.RLIMIT_AS, (int(limit) * 1024 * 1024, hard))
        result = planner.solve(inst, float(job["time_limit"]), reg)
    except MemoryError:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        _write_json(workdir / "planner.json", {"status": "memout", "wall": time.perf_counter() - t0,
                                               "error": f"MemoryError: address space limit of {limit} MB"})
        return 0
    except Exception as exc:  # noqa: BLE001 - the planner's failure is the run's result
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        _write_json(workdir / "planner.json", {"status": "error", "wall": time.perf_counter() - t0,
                                               "error": _error_text(exc), "traceback": traceback.format_exc()})
        return 0
    wall = time.perf_counter() - t0
    resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    answer = {
        "status": "timeout" if timed_out(result) else result.status.value,
        "wall": wall,
        "plan_text": result.plan_text,
        "claimed_cost": result.cost.as_dict() if result.cost else None,
        "proved_optimal": bool(result.proved_optimal),
        "timings": {k: float(v) for k, v in result.timings},
        "notes": list(result.notes),
        "instance_id": inst.id,
        "family": inst.family,
        "usage": dict(result.usage or {}),
    }
    _write_json(workdir / "planner.json", answer)

    from hygiene_pddl.bench.checks import check_answer

    try:
        checked = check_answer(reg, inst, Path(job["path"]), answer, workdir)
    except Exception as exc:  # noqa: BLE001 - a validator failure must not lose the planner's answer
        checked = {"validation_error": _error_text(exc), "traceback": traceback.format_exc()}
    _write_json(workdir / "record.json", {**answer, **checked})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

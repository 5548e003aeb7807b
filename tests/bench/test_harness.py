"""The bench harness: instance resolution, isolated calls with time and memory limits, validated records,
resumable results, the Dask executor and the CLI's exit codes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hygiene_pddl import cli
from hygiene_pddl.bench import BenchConfig, ResultStore, read_results, resolve_instances, run_bench
from hygiene_pddl.errors import InputError
from hygiene_pddl.metrics import ResultRecord
from tests.bench.common import FIRST, PLUGIN, PROBLEMS, ROOT

SPOON = sorted(p for p in (PROBLEMS / "spoon_fruit").glob("*.json") if not p.name.endswith(".reference.json"))
VOLATILE = ("wall", "timings", "notes", "harness")  # measured times, and notes that may quote them


def _records(out: Path) -> list[dict]:
    return read_results(out / "results.jsonl")[0]


def _stable(record: dict) -> dict:
    return {k: v for k, v in record.items() if k not in VOLATILE}


# ------------------------------------------------------------------------------------------- instances


def test_instances_from_files_folders_and_globs():
    every = resolve_instances([PROBLEMS])
    assert len(every) == 624 and all(p.name != "MANIFEST.json" for p in every)
    every = resolve_instances(FIRST)
    assert len(every) == 8 and all(not p.name.endswith(".reference.json") for p in every)
    assert resolve_instances([PROBLEMS / "spoon_fruit"]) == resolve_instances([str(PROBLEMS / "spoon_fruit/*.json")])
    one = PROBLEMS / "hot_cocoa" / "hot_cocoa-time_first.json"
    assert resolve_instances([one, PROBLEMS / "hot_cocoa"]) == sorted(
        [one.resolve(), (PROBLEMS / "hot_cocoa" / "hot_cocoa-energy_first.json").resolve()], key=lambda p: p.stem)
    with pytest.raises(InputError, match="no instance files match"):
        resolve_instances([str(PROBLEMS / "*/nothing-*.json")])
    with pytest.raises(InputError, match="no such instance"):
        resolve_instances([PROBLEMS / "missing.json"])


@pytest.mark.parametrize("argv, message", [
    (["--planners", "no-such-planner", "--instances", str(PROBLEMS)], "unknown planner"),
    (["--planners", "hygiene-nsp", "--instances", str(PROBLEMS / "*/zzz*.json")], "no instance files match"),
    (["--planners", "fake-unavailable", "--instances", str(PROBLEMS), "--plugin", PLUGIN], "none of the requested"),
    (["--planners", "hygiene-nsp", "--instances", str(PROBLEMS), "--plugin", "no_such_module_xyz"], "cannot import"),
])
def test_bad_bench_input_exits_2(tmp_path, capsys, argv, message):
    assert cli.main(["bench", *argv, "--out", str(tmp_path / "out"), "--quiet"]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out" / "results.jsonl").exists()


# ------------------------------------------------------------------------------------------- real planner


def test_every_plan_is_saved_and_checked_at_both_levels(nsp_bench):
    out, summary = nsp_bench
    assert (summary.total, summary.ran, summary.failures) == (8, 8, 0)
    records = _records(out)
    assert sorted(r["instance"] for r in records) == sorted(p.stem for p in resolve_instances(FIRST))
    for r in records:
        ResultRecord.from_dict(r)  # the metrics' contract
        assert (r["status"], r["valid"], r["pddl_valid"], r["optimal"], r["run"]) == ("plan", True, True, True, 1)
        assert r["plan_file"] == f"plans/hygiene-nsp/{r['instance']}.plan"
        assert (out / r["plan_file"]).read_text().startswith("; planner: hygiene-nsp")
        assert set(r["timings"]) == {"build", "solve", "total"} and r["wall"] > 0
        assert r["projection"] is None and r["error"] is None
    meta = json.loads((out / "bench.json").read_text())
    assert [Path(p).resolve() for p in meta["problems"]] == [PROBLEMS.resolve()]
    assert meta["invocations"][0]["planners"] == ["hygiene-nsp"]


def test_a_finished_bench_reruns_nothing(nsp_bench):
    out, _ = nsp_bench
    before = (out / "results.jsonl").read_bytes()
    summary = run_bench(BenchConfig(["hygiene-nsp"], FIRST, out, jobs=2, time_limit=30, progress=False))
    assert (summary.total, summary.skipped, summary.ran) == (8, 8, 0)
    assert (out / "results.jsonl").read_bytes() == before


def test_dask_executor_gives_the_same_records_as_local(nsp_bench, tmp_path):
    # no --scheduler: a local Dask cluster of --jobs worker processes, started and closed by the bench
    local = {r["instance"]: r for r in _records(nsp_bench[0])}
    run_bench(BenchConfig(["hygiene-nsp"], [PROBLEMS / "spoon_fruit"], tmp_path, jobs=2, time_limit=30,
                          progress=False, executor="dask"))
    remote = _records(tmp_path)
    assert len(remote) == 4
    for r in remote:
        assert _stable(r) == _stable(local[r["instance"]])
        assert (tmp_path / r["plan_file"]).read_text() == (nsp_bench[0] / r["plan_file"]).read_text()
    assert json.loads((tmp_path / "bench.json").read_text())["invocations"][0]["executor"] == "dask"


def test_dask_with_an_unreachable_scheduler_is_bad_input(tmp_path, capsys, monkeypatch):
    from hygiene_pddl.bench import runner

    monkeypatch.setattr(runner, "DASK_CONNECT_TIMEOUT", 1.0)
    code = cli.main(["bench", "--planners", "hygiene-nsp", "--instances", str(SPOON[0]), "--out", str(tmp_path),
                     "--executor", "dask", "--scheduler", "tcp://127.0.0.1:1", "--quiet"])
    assert code == 2 and "cannot reach the Dask scheduler" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------- worker start


def test_forked_calls_are_isolated_and_start_fast(tmp_path):
    run_bench(BenchConfig(["fake-state"], [PROBLEMS / "spoon_fruit"], tmp_path, plugins=[PLUGIN], progress=False))
    records = _records(tmp_path)
    assert len(records) == 4
    # every call starts from the preloaded state, in a process of its own: no call sees another's module state
    assert [r["usage"]["calls"] for r in records] == [1, 1, 1, 1]
    assert len({r["usage"]["pid"] for r in records}) == 4
    assert {r["harness"]["process"] for r in records} == {"fork"}
    # the first call started the fork server (the preload), which is told apart; no later call pays it
    assert records[0]["harness"]["server_start"] > 0.5 > max(r["harness"]["server_start"] for r in records[1:])
    starts = sorted(r["harness"]["start"] - r["harness"]["server_start"] for r in records)
    assert starts[1] < 1.0, starts
    for r in records:
        h = r["harness"]
        assert h["call"] >= h["start"] + r["wall"] - 0.05 and h["check"] >= 0


def test_a_spawned_worker_gives_the_same_record_as_a_forked_one(nsp_bench, tmp_path):
    forked = {r["instance"]: r for r in _records(nsp_bench[0])}
    run_bench(BenchConfig(["hygiene-nsp"], [SPOON[0]], tmp_path, time_limit=30, progress=False, start="spawn"))
    (spawned,) = _records(tmp_path)
    assert spawned["harness"]["process"] == "spawn" and forked[SPOON[0].stem]["harness"]["process"] == "fork"
    assert _stable(spawned) == _stable(forked[SPOON[0].stem])


# ------------------------------------------------------------------------------------------- limits


def test_timeout_memout_and_error_statuses(tmp_path):
    t0 = time.monotonic()
    summary = run_bench(BenchConfig(["fake-sleep", "fake-hog", "fake-crash", "fake-timeout"], [SPOON[0]], tmp_path,
                                    jobs=3, time_limit=1, grace=0.5, memory_limit=1024, plugins=[PLUGIN],
                                    progress=False))
    assert time.monotonic() - t0 < 30
    by = {r["planner"]: r for r in _records(tmp_path)}
    assert summary.failures == 4 and summary.statuses == {"timeout": 2, "memout": 1, "error": 1}
    # a planner that says its time ran out is a timeout too, with its own notes
    assert by["fake-timeout"]["status"] == "timeout" and by["fake-timeout"]["notes"] == [
        "search stopped at the time limit"]
    assert by["fake-sleep"]["status"] == "timeout" and 1.4 < by["fake-sleep"]["wall"] < 10
    assert "killed after" in by["fake-sleep"]["notes"][0]
    assert by["fake-hog"]["status"] == "memout" and "1024 MB" in by["fake-hog"]["error"]
    assert by["fake-crash"]["status"] == "error"
    assert by["fake-crash"]["error"] == "ValueError: fake planner crashed on purpose"
    for r in by.values():
        assert r["plan_file"] is None and r["valid"] is None and r["cost"] is None
    assert not (tmp_path / "plans").exists()


def test_a_worker_that_does_not_exit_after_its_record_is_killed_and_the_record_says_so(tmp_path):
    t0 = time.monotonic()
    run_bench(BenchConfig(["fake-linger"], [SPOON[0]], tmp_path, time_limit=60, plugins=[PLUGIN], progress=False,
                          start="spawn"))
    (record,) = _records(tmp_path)
    assert time.monotonic() - t0 < 30  # not the check limit (300 s), nor the time limit
    assert record["status"] == "undetermined" and record["error"] is None
    assert any("did not exit" in n and "killed" in n for n in record["notes"]), record["notes"]
    assert record["harness"]["check"] < 5


def test_a_fork_child_that_exits_before_spawn_returns_is_not_lost():
    # the reader sees the child's pid and, right after it, its exit, before the spawning thread runs again
    import io
    import threading

    from hygiene_pddl.bench.forkserver import ForkServer

    server = ForkServer.__new__(ForkServer)
    server._lock, server._children, server.alive = threading.Lock(), {}, True
    slot = [threading.Event(), None]
    server._waiting = {7: slot}
    server.proc = type("P", (), {"stdout": io.BytesIO(b'{"id": 7, "pid": 4242}\n{"id": 7, "exit": 3}\n')})()
    server._read_loop()
    child = slot[1]
    assert slot[0].is_set() and child.pid == 4242
    assert child.poll() == 3 and child.wait(0) == 3


# ------------------------------------------------------------------------------------------- resume


def _counted(path: Path) -> list[str]:
    return path.read_text().split() if path.exists() else []


def _bench_cmd(out: Path, jobs: int) -> list[str]:
    return [sys.executable, "-m", "hygiene_pddl", "bench", "--planners", "fake-count", "--plugin", PLUGIN,
            "--instances", str(PROBLEMS / "spoon_fruit"), "--out", str(out),
            "--jobs", str(jobs), "--time-limit", "20", "--quiet"]


def _wait_for_lines(path: Path, n: int, proc: subprocess.Popen, limit: float = 60) -> None:
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit:
        if path.exists() and path.read_text().count("\n") >= n:
            return
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    raise AssertionError(f"{path} did not reach {n} lines")


@pytest.mark.parametrize("how", ["sigint", "sigkill"])
def test_an_interrupted_bench_resumes_without_recomputing(tmp_path, monkeypatch, how):
    counter, out = tmp_path / "calls.txt", tmp_path / "out"
    monkeypatch.setenv("HYGIENE_BENCH_TEST_COUNTER", str(counter))
    monkeypatch.setenv("HYGIENE_BENCH_TEST_DELAY", "0.3")
    # Ctrl-C as a user's terminal delivers it: a shell's background job (how CI may start the suite) inherits
    # SIGINT ignored, and then the bench would never see it
    proc = subprocess.Popen(_bench_cmd(out, 1), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    _wait_for_lines(out / "results.jsonl", 1, proc)
    proc.send_signal(signal.SIGINT if how == "sigint" else signal.SIGKILL)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == (130 if how == "sigint" else -signal.SIGKILL), err
    if how == "sigkill":  # a write cut short by the kill
        with open(out / "results.jsonl", "a") as fh:
            fh.write('{"planner": "fake-count", "instance": "spoon_fr')
    time.sleep(1.0)  # an orphaned worker (sigkill) notices its parent is gone within 0.5 s
    finished = {r["instance"] for r in _records(out)} if how == "sigint" else {
        json.loads(line)["instance"] for line in (out / "results.jsonl").read_text().splitlines()[:-1]}
    assert 1 <= len(finished) < 4
    first_calls = _counted(counter)
    assert set(first_calls) >= finished and len(first_calls) <= len(finished) + 1  # at most one run in flight

    again = subprocess.run(_bench_cmd(out, 2), cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    if how == "sigkill":
        assert "ignoring a half-written last line" in again.stderr
    second_calls = _counted(counter)[len(first_calls):]
    assert not finished & set(second_calls), "a finished run was recomputed"
    records = _records(out)
    assert sorted(r["instance"] for r in records) == sorted({r["instance"] for r in records})  # one record each
    assert len(records) == 4 and len(second_calls) == 4 - len(finished)
    assert all(r["status"] == "plan" and r["valid"] for r in records)


# ------------------------------------------------------------------------------------------- the store


def test_a_torn_last_line_is_ignored_with_a_warning_and_cut(tmp_path):
    good = {"planner": "p", "instance": "i", "run": 1, "status": "timeout"}
    path = tmp_path / "results.jsonl"
    path.write_text(json.dumps(good) + "\n" + '{"planner": "p", "inst')
    warnings: list[str] = []
    with ResultStore(tmp_path, warnings.append) as store:
        assert store.records == [good] and store.done() == {("p", "i", 1, None)}
        store.append({**good, "run": 2})
    assert len(warnings) == 1 and "results.jsonl:2" in warnings[0]
    assert [r["run"] for r in read_results(path)[0]] == [1, 2]


def test_a_damaged_line_inside_the_results_is_bad_input_with_its_line(tmp_path, capsys):
    good = json.dumps({"planner": "hygiene-nsp", "instance": SPOON[0].stem, "run": 1, "status": "timeout"})
    (tmp_path / "results.jsonl").write_text(good + "\n{oops\n" + good + "\n")
    assert cli.main(["bench", "--planners", "hygiene-nsp", "--instances", str(SPOON[0]), "--out", str(tmp_path),
                     "--quiet"]) == 2
    assert "results.jsonl:2" in capsys.readouterr().err
    (tmp_path / "results.jsonl").write_text(good.replace("timeout", "finished") + "\n")
    assert cli.main(["bench", "--planners", "hygiene-nsp", "--instances", str(SPOON[0]), "--out", str(tmp_path),
                     "--quiet"]) == 2
    assert "results.jsonl:1: unknown status 'finished'" in capsys.readouterr().err


def test_plan_paths_distinguish_runs_and_projection_modes(tmp_path):
    store = ResultStore(tmp_path)
    assert store.plan_path("hygiene-nsp", "a", 1) == "plans/hygiene-nsp/a.plan"
    assert store.plan_path("hygiene-nsp", "a", 3) == "plans/hygiene-nsp/a.run3.plan"
    assert store.plan_path("hygiene-nsp", "a", 1, "full") == "plans/hygiene-nsp/a.full.plan"
    assert store.plan_path("lpg/x y", "a", 2, "projected") == "plans/lpg_x_y/a.projected.run2.plan"


def test_projection_study_runs_are_separate_resumable_runs(tmp_path):
    run_bench(BenchConfig(["hygiene-nsp"], [SPOON[0]], tmp_path, time_limit=30, progress=False,
                          projection_study=True, runs=2, jobs=3))
    records = _records(tmp_path)
    keys = sorted((r["run"], (r["projection"] or {}).get("mode") or "") for r in records)
    assert keys == [(1, ""), (1, "full"), (1, "projected"), (2, ""), (2, "full"), (2, "projected")]
    assert all(r["status"] == "plan" and r["valid"] for r in records)
    assert {r["plan_file"] for r in records} == {f"plans/hygiene-nsp/{SPOON[0].stem}{m}{k}.plan"
                                                 for m in ("", ".full", ".projected") for k in ("", ".run2")}
    assert os.path.exists(tmp_path / "plans/hygiene-nsp" / f"{SPOON[0].stem}.full.run2.plan")

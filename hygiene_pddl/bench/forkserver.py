"""A fork server for the bench workers: start-up paid once, isolation kept per call.

The server (``python -m hygiene_pddl.bench.forkserver``) imports the package, the planners, the validators
and the plugins, parses the registries and builds the plan and PDDL parsers once, then forks one child per
planner call. Each child leads its own session (so the harness can kill its whole process group), writes
its output to the call's log, works in the call's folder and runs :func:`hygiene_pddl.bench.worker.run_job`,
the same code a freshly started worker runs; the address-space limit is set in the child, as before. The
server itself stays single-threaded (BLAS threads off), so forking it is safe.

Protocol on the server's stdin/stdout, one JSON object a line: the server first says ``{"ready": true}``
(or ``{"error": ...}``); a request ``{"id", "job", "workdir"}`` is answered ``{"id", "pid"}`` once the child
leads its session, and ``{"id", "exit"}`` (exit code, negative for a signal) when the child has ended.
The server ends, killing the children it still has, when its stdin closes (the harness is gone).
"""

from __future__ import annotations

import atexit
import json
import os
import select
import signal
import subprocess
import sys
import threading
from pathlib import Path

#: Seconds the server may take to preload before the harness gives up on it.
READY_LIMIT = 180.0
#: Modules imported before the first fork (a missing optional one is skipped).
PRELOAD = ("hygiene_pddl.bench.worker", "hygiene_pddl.bench.checks", "hygiene_pddl.instances",
           "hygiene_pddl.planners", "hygiene_pddl.validation.instance_level", "hygiene_pddl.validation.pddl_level",
           "hygiene_pddl.plans.parser", "unified_planning.shortcuts")


# ------------------------------------------------------------------------------------------------ server


def _preload(plugins: list[str]) -> None:
    import importlib
    import warnings

    warnings.filterwarnings("ignore", message="pkg_resources is deprecated")
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError:
            if name.startswith("hygiene_pddl"):
                raise
    from hygiene_pddl.bench.worker import import_plugins
    from hygiene_pddl.pddl.parser import parse_domain
    from hygiene_pddl.planners import catalogue
    from hygiene_pddl.plans.parser import parse_plan
    from hygiene_pddl.registries import load_registries

    import_plugins(plugins)
    catalogue()
    load_registries()
    parse_plan("; status: undetermined\n")  # builds (and caches) the Lark parsers
    parse_domain("(define (domain d) (:requirements :strips) (:predicates (p)))")


def _child(request: dict, ready_w: int) -> None:
    """In the forked child: own session, output to the call's log, run the job; never returns."""
    code = 1
    try:
        os.setsid()
        os.write(ready_w, b"x")
        os.close(ready_w)
        workdir = Path(request["workdir"])
        log = os.open(workdir / "worker.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        null = os.open(os.devnull, os.O_RDONLY)
        for source, target in ((null, 0), (log, 1), (log, 2)):  # also drops the server's pipes (fds 0 and 1)
            os.dup2(source, target)
        os.close(log)
        os.close(null)
        os.chdir(workdir)
        from hygiene_pddl.bench.worker import run_job

        job = json.loads(Path(request["job"]).read_text(encoding="utf-8"))
        code = run_job(job, workdir, os.getppid())
    except BaseException:  # noqa: BLE001 - whatever happens, the child must not return into the server loop
        import traceback

        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def serve(plugins: list[str]) -> int:
    """The server loop (see the module docstring)."""
    inp, out = 0, 1  # stdin: requests, stdout: replies

    def reply(data: dict) -> None:
        os.write(out, (json.dumps(data) + "\n").encode())

    try:
        _preload(plugins)
    except Exception as exc:  # noqa: BLE001 - told to the harness, which reports it
        reply({"error": f"{type(exc).__name__}: {exc}"})
        return 1
    tasks = len(os.listdir("/proc/self/task")) if os.path.isdir("/proc/self/task") else 1
    reply({"ready": True, "threads": max(threading.active_count(), tasks)})
    children: dict[int, object] = {}
    buffer = b""
    open_input = True
    while open_input or children:
        ready, _, _ = select.select([inp] if open_input else [], [], [], 0.02)
        if ready:
            chunk = os.read(inp, 65536)
            if not chunk:
                open_input = False
                for pid in children:  # the harness is gone: so are its calls
                    try:
                        os.killpg(pid, signal.SIGKILL)
                    except (ProcessLookupError, PermissionError):
                        pass
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                request = json.loads(line)
                ready_r, ready_w = os.pipe()
                pid = os.fork()
                if pid == 0:
                    os.close(ready_r)
                    _child(request, ready_w)
                os.close(ready_w)
                os.read(ready_r, 1)  # the child leads its session now: its group can be killed
                os.close(ready_r)
                children[pid] = request["id"]
                reply({"id": request["id"], "pid": pid})
        while children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            ident = children.pop(pid, None)
            if ident is not None and open_input:
                reply({"id": ident, "exit": os.waitstatus_to_exitcode(status)})
    return 0


# ------------------------------------------------------------------------------------------------ client


class ServerGone(RuntimeError):
    """The fork server could not start or has died."""


class Child:
    """A forked planner call, with the part of :class:`subprocess.Popen` the harness uses."""

    def __init__(self, pid: int):
        self.pid = pid
        self.returncode: int | None = None
        self._done = threading.Event()

    def _exited(self, code: int) -> None:
        self.returncode = code
        self._done.set()

    def poll(self) -> int | None:
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if not self._done.wait(timeout):
            raise subprocess.TimeoutExpired("fork-server child", timeout)
        return self.returncode  # type: ignore[return-value]


class ForkServer:
    """The harness's handle on one server process; thread-safe."""

    def __init__(self, plugins: tuple[str, ...], env: dict[str, str], cwd: str):
        env = {**env, "OPENBLAS_NUM_THREADS": env.get("OPENBLAS_NUM_THREADS", "1")}
        self.proc = subprocess.Popen([sys.executable, "-m", "hygiene_pddl.bench.forkserver", json.dumps(plugins)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     env=env, cwd=cwd, start_new_session=True)
        self._lock = threading.Lock()
        self._next = 0
        self._waiting: dict[int, list] = {}  # id -> [event, Child or None]
        self._children: dict[int, Child] = {}
        self.alive = True
        first = self._read_line(READY_LIMIT)
        if not first or "ready" not in first:
            self.close()
            raise ServerGone((first or {}).get("error") or "the fork server did not start")
        self.threads = int(first.get("threads", 1))
        self._reader = threading.Thread(target=self._read_loop, name="forkserver-reader", daemon=True)
        self._reader.start()

    def _read_line(self, timeout: float) -> dict | None:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        ready, _, _ = select.select([fd], [], [], timeout)
        if not ready:
            return None
        line = self.proc.stdout.readline()
        return json.loads(line) if line else None

    def _read_loop(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            msg = json.loads(line)
            with self._lock:
                if "pid" in msg:  # registered here, before the next line (its exit) can be read
                    slot = self._waiting.get(msg["id"])
                    if slot is not None:
                        slot[1] = self._children[msg["id"]] = Child(msg["pid"])
                        slot[0].set()
                elif "exit" in msg:
                    child = self._children.pop(msg["id"], None)
                    if child is not None:
                        child._exited(int(msg["exit"]))
        with self._lock:  # the server died: its children kill themselves when they see their parent gone
            self.alive = False
            for slot in self._waiting.values():
                slot[0].set()
            for child in self._children.values():
                child._exited(-signal.SIGKILL)
            self._children.clear()

    def spawn(self, job_file: Path, workdir: Path) -> Child:
        """Fork one call; raises :class:`ServerGone` when the server is not there any more."""
        with self._lock:
            if not self.alive:
                raise ServerGone("the fork server has died")
            self._next += 1
            ident = self._next
            slot = self._waiting[ident] = [threading.Event(), None]
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.write((json.dumps({"id": ident, "job": str(job_file), "workdir": str(workdir)})
                                       + "\n").encode())
                self.proc.stdin.flush()
            except (BrokenPipeError, OSError) as exc:
                self._waiting.pop(ident, None)
                raise ServerGone(f"the fork server has died ({exc})") from None
        slot[0].wait(READY_LIMIT)
        with self._lock:
            self._waiting.pop(ident, None)
            if slot[1] is None:
                raise ServerGone("the fork server did not fork the call")
        return slot[1]

    def close(self) -> None:
        """Stop the server (it kills the calls it still has)."""
        self.alive = False
        try:
            if self.proc.stdin:
                self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


_SERVERS: dict[tuple, ForkServer] = {}
_SERVERS_LOCK = threading.Lock()


def server_for(plugins: tuple[str, ...], env: dict[str, str]) -> ForkServer:
    """The running server for these plugins and environment in this process (started on first use; callers
    meanwhile wait for it)."""
    key = (plugins, tuple(sorted(env.items())), os.getcwd())
    with _SERVERS_LOCK:
        server = _SERVERS.get(key)
        if server is None or not server.alive:
            server = _SERVERS[key] = ForkServer(plugins, env, os.getcwd())
        return server


def close_servers() -> None:
    """Stop every server this process started."""
    with _SERVERS_LOCK:
        servers = list(_SERVERS.values())
        _SERVERS.clear()
    for server in servers:
        server.close()


atexit.register(close_servers)


if __name__ == "__main__":
    sys.exit(serve(json.loads(sys.argv[1]) if len(sys.argv) > 1 else []))

"""External planners on the generated PDDL through unified-planning (SPEC §10 "external").

Each engine gets the flavour it can read, with the adaptations it needs (docs/planners-compared.md):

========================  ==========================  =============================================================
planner                   flavour                     adaptations
========================  ==========================  =============================================================
``external:kairos``       temporal                    none; anytime on the metric (without the makespan term)
``external:tamer``        temporal (lowered)          the ``compile --for tamer`` files: conditional effects split
                                                      into action variants (planners/lowering.py); no metric
``external:aries``        temporal (lowered)          the ``compile --for aries`` files: the same, negation normal
                                                      form, stocks as level objects; no metric
``external:lpg``          temporal (lowered)          the LPG-td binary run directly on the ``compile --for lpg``
                                                      files (planners/command.py); its ``[d])`` lines read as is
``external:enhsp``        classical-numeric (on the   none (satisficing search)
``external:enhsp-opt``    fly: instantaneous actions  none (optimal search on the action-cost metric)
                          with numeric stocks)
``external:fast-downward``  classical                 none (LAMA, satisficing)
``external:symk-opt``     classical                   none (optimal on the action costs)
========================  ==========================  =============================================================

The temporal flavour is the family domain as committed (``render_domain``) and the instance's problem
rendered with ``metric_total_time=False`` (unified-planning cannot read ``(total-time)`` in a sum); the lowered
engines read the files of their ``compile --for`` target (planners/targets.py), mapped back by its variants. The
classical flavour is ``render_classical``. The classical-numeric flavour is rendered here, from the
compiler's classical views: stock levels become numeric fluents ``(stock-s)`` with ``>=`` conditions and
``decrease`` effects; nothing committed changes.

Every engine call runs in a child process (forked from the caller, or ``python -m
hygiene_pddl.planners.external`` with ``HYGIENE_ENGINE_START=spawn``) in its own session, killed with its whole
process group at the time limit: some engines ignore their timeout
(TAMER) or run helper processes (Aries, LPG, ENHSP, Fast Downward), and a crash must not take the caller
down. An engine that fails or crashes gives *undetermined* with the reason in the notes; one that runs out of
time (its own timeout, or killed at the limit) gives *undetermined* marked ``timed_out`` (the bench records a
timeout); a proof of unsolvability gives *infeasible*.

Plans come back in registry terms (``StepMapper.from_pddl``). Temporal plans keep the engine's order and
are put on the integer TU grid (each start rounded to the nearest TU; ``plan_text`` adds the epsilon
separation); if the instance-level evaluator rejects the rounded plan but accepts the engine's own times,
the engine's times are kept (the evaluator only chooses between two timings of the same plan, it never
filters plans). Sequential plans (classical, numeric) have the stock-level arguments dropped and the
``-start``/``-end`` halves of split processes merged; every action is then started as early as possible
on the integer grid while keeping the engine's order between interfering happenings (a deterministic
list scheduler, no optimisation). No external plan claims lexicographic optimality: no flavour's metric
carries the makespan, and the classical costs leave out active robot time.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from compiler.render import render_classical, render_instance_domain, render_problem
from compiler.steps import StepMapper
from hygiene_pddl.costs import SUMMED, CostVector
from hygiene_pddl.errors import InputError
from hygiene_pddl.instances.model import Instance
from hygiene_pddl.planners.base import (
    ChosenStep,
    PlannerInfo,
    PlannerResult,
    PlanStatus,
    no_plan_result,
    plan_text,
    register,
    timings_since,
)
from hygiene_pddl.plans.model import Plan, PlanStep
from hygiene_pddl.plans.parser import parse_plan
from hygiene_pddl.plans.writer import write_plan
from hygiene_pddl.registries import Registries, load_registries
from hygiene_pddl.replay import World, happening_fluents, replay
from hygiene_pddl.validation.instance_level import evaluate_plan

#: Seconds kept back from the engine's own timeout for reading its plan back (the child starts, reads and
#: compiles the problem first; the engine gets what is left of the time limit after that, at least MIN_ENGINE).
MARGIN = 0.5
MIN_ENGINE = 1.0
#: Seconds past the time limit before the child's process group is killed.
GRACE = 3.0


@dataclass(frozen=True)
class EngineSpec:
    key: str
    up_name: str
    flavour: str  # temporal | numeric | classical
    keep_metric: bool = True
    params: tuple[tuple[str, object], ...] = ()
    modules: tuple[str, ...] = ()
    adaptations: str = "none"
    extra_notes: tuple[str, ...] = field(default=())
    target: str | None = None  # the `compile --for` target whose files the engine reads (planners/targets.py)


#: How each flavour is called in notes and descriptions.
FLAVOUR_LABEL = {"temporal": "temporal", "numeric": "classical-numeric", "classical": "classical"}

ENGINES: dict[str, EngineSpec] = {s.key: s for s in (
    EngineSpec("kairos", "kairos", "temporal", params=(("threads", 1), ("seed", 0)),
               modules=("up_kairos", "kairos"),
               adaptations="none; anytime on the problem's metric (makespan term left out for unified-planning)"),
    EngineSpec("tamer", "tamer", "temporal", keep_metric=False, modules=("up_tamer", "pytamer"), target="tamer",
               adaptations="the `compile --for tamer` files (hygiene-pddl's lowering: conditional effects split into "
                           "action variants, quantifiers expanded, no metric: satisficing)"),
    EngineSpec("aries", "aries", "temporal", keep_metric=False, modules=("up_aries",), target="aries",
               adaptations="the `compile --for aries` files (hygiene-pddl's lowering: conditional effects split "
                           "into action variants, conditions in negation normal form, stocks as level objects, no "
                           "metric: satisficing)"),
    EngineSpec("lpg", "lpg", "temporal", keep_metric=False, params=(("-seed", "0"),), modules=("up_lpg",),
               target="tamer",
               adaptations="external:lpg runs the binary up-lpg ships directly on the `compile --for lpg` files "
                           "(hygiene-pddl's lowering: conditional effects split into action variants, binary metric "
                           "sums; one solution, seed 0) and reads its plan with the tolerant reader; up:lpg reads "
                           "the metric-less `compile --for tamer` files through unified-planning's LPG engine "
                           "(its reader takes no (total-time) in a sum)"),
    EngineSpec("enhsp", "enhsp", "numeric", modules=("up_enhsp",),
               adaptations="classical-numeric flavour rendered on the fly (instantaneous actions, split processes, "
                           "numeric stocks); satisficing"),
    EngineSpec("enhsp-opt", "enhsp-opt", "numeric", modules=("up_enhsp",),
               adaptations="classical-numeric flavour rendered on the fly; optimal on the action-cost metric"),
    EngineSpec("fast-downward", "fast-downward", "classical", modules=("up_fast_downward",),
               adaptations="classical flavour; LAMA (satisficing); stock-level arguments dropped, split processes "
                           "merged, list-scheduled on the TU grid"),
    EngineSpec("symk-opt", "symk-opt", "classical", modules=("up_symk",),
               adaptations="classical flavour; SymK optimal on the action costs; list-scheduled on the TU grid"),
)}


# --- availability ------------------------------------------------------------------------------------

def _package_dir(module: str) -> Path | None:
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent


def up_environment():  # noqa: ANN201 - unified-planning's Environment
    """unified-planning's global environment with the engines that register themselves by call (Kairos,
    and hygiene-pddl's own: hygiene_pddl.up_engines) added to its factory."""
    from unified_planning.shortcuts import get_environment

    env = get_environment()
    env.credits_stream = None
    try:
        import up_kairos

        up_kairos.register(env)
    except ImportError:  # pragma: no cover - kairos is a dependency
        pass
    from hygiene_pddl.up_engines import register

    register(env)
    return env


def generic_engine(name: str) -> EngineSpec:
    """A spec for any engine of unified-planning's factory: the flavour its declared kind supports, no
    adaptation (KeyError when the factory has no such engine)."""
    import warnings

    warnings.simplefilter("ignore")
    env = up_environment()
    if name not in env.factory.engines:
        planners = (n for n in env.factory.engines if "[" not in n and env.factory.engine(n).is_oneshot_planner())
        raise KeyError(f"its one-shot planners here: {', '.join(sorted(planners))}")
    kind = env.factory.engine(name).supported_kind()
    flavour = ("temporal" if kind.has_continuous_time() else
               "numeric" if kind.has_simple_numeric_planning() or kind.has_general_numeric_planning() else "classical")
    return EngineSpec(name, name, flavour, adaptations="none (a unified-planning engine by name; flavour from "
                                                         "the problem kind it declares)")


def spec_of(key: str) -> EngineSpec:
    """The engine's spec: ENGINES' entry, else a generic one from unified-planning's factory."""
    return ENGINES[key] if key in ENGINES else generic_engine(key)


def engine_available(key: str) -> tuple[bool, str]:
    """Whether the engine can run here, without starting it (and why not)."""
    if key not in ENGINES:
        try:
            generic_engine(key)
        except (KeyError, ImportError) as exc:
            return False, f"unified-planning has no engine {key!r} ({exc})"
        return True, ""
    spec = ENGINES[key]
    for module in spec.modules:
        try:
            if importlib.util.find_spec(module) is None:
                return False, f"Python module {module} is not installed"
        except (ImportError, ValueError) as exc:  # pragma: no cover - broken installations
            return False, f"Python module {module} cannot be found ({exc})"
    if key == "lpg":
        if sys.platform != "linux":
            return False, f"up-lpg ships an LPG-td binary for Linux only (this is {sys.platform})"
        binary = lpg_binary()
        if binary is None or not os.access(binary, os.X_OK):
            return False, f"LPG-td binary missing or not executable: {binary}"
    if key == "aries":
        import platform

        arch = {"x86_64": "amd64", "AMD64": "amd64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine())
        system = {"Linux": "linux", "Darwin": "macos", "Windows": "windows"}.get(platform.system())
        binary = _package_dir("up_aries") / "bin" / f"up-aries_{system}_{arch}{'.exe' if system == 'windows' else ''}"
        if not os.access(binary, os.X_OK):
            return False, f"no Aries server binary for {platform.system()}/{platform.machine()} ({binary})"
    if key.startswith("enhsp"):
        if shutil.which("java") is None:
            return False, "ENHSP needs a Java runtime and `java` is not on PATH"
        if not (_package_dir("up_enhsp") / "ENHSP").is_dir():
            return False, "the ENHSP jar directory of up-enhsp is missing"
    if key == "fast-downward" and not (_package_dir("up_fast_downward") / "downward").is_dir():
        return False, "the Fast Downward build of up-fast-downward is missing"
    if key == "symk-opt" and not (_package_dir("up_symk") / "symk").is_dir():
        return False, "the SymK build of up-symk is missing"
    return True, ""


# --- flavours ----------------------------------------------------------------------------------------

def render_numeric(reg: Registries, inst: Instance) -> tuple[str, str]:
    """The classical-numeric flavour for ENHSP: the classical projection (instantaneous actions, split
    processes, lexicographic action costs) with stocks and loads as numeric fluents (compiler.render)."""
    domain, problem, _ = render_classical(reg, inst, "numeric")
    return domain, problem


def render_for(spec: EngineSpec, reg: Registries, inst: Instance) -> tuple[str, str]:
    if spec.flavour == "temporal":
        return render_instance_domain(reg, inst), render_problem(reg, inst, metric_total_time=False)[0]
    if spec.flavour == "numeric":
        return render_numeric(reg, inst)
    domain, problem, _ = render_classical(reg, inst)
    return domain, problem


# --- the child process: one engine call ----------------------------------------------------------------

def _lpg_engine(params: dict):  # noqa: ANN202
    from up_lpg.lpg_planner import LPGEngine

    class RepairedLPG(LPGEngine):
        """LPG-td prints ``[2.0000])`` when the problem has timed initial literals; up-lpg expects ``]``."""

        def _plan_from_file(self, problem, plan_filename, get_item_named):  # noqa: ANN001, ANN202
            path = Path(plan_filename)
            path.write_text(re.sub(r"\]\)[ \t]*$", "]", path.read_text(), flags=re.M))
            return super()._plan_from_file(problem, plan_filename, get_item_named)

    engine = RepairedLPG(**params)
    engine.error_on_failed_checks = False  # LPG-td reads timed initial literals; up-lpg's kind omits them
    return engine


def drop_metric(q, keep_metric: bool = True):  # noqa: ANN001, ANN201 - unified-planning objects
    """The problem without its metric unless ``keep_metric`` (satisficing engines), and what was done. The engines'
    other adaptations are in the files they read (planners/lowering.py), not unified-planning compilers."""
    if keep_metric or not q.quality_metrics:
        return q, []
    q = q.clone()
    q.clear_quality_metrics()
    return q, ["metric dropped"]


def run_engine(key: str, domain: str, problem: str, deadline: float) -> dict:
    """Parse, adapt, solve, map back; a JSON-ready dict (runs inside the child process). ``deadline`` is a
    ``time.time()`` value: the engine's timeout is what is left of it once the problem is ready."""
    import warnings

    warnings.simplefilter("ignore")
    from unified_planning.io import PDDLReader
    from unified_planning.plans import TimeTriggeredPlan
    from unified_planning.shortcuts import OneshotPlanner

    spec = spec_of(key)
    env = up_environment()
    out: dict = {"status": None, "kind": None, "steps": [], "logs": [], "adaptations": [], "engine_metrics": {}}
    q = PDDLReader(env).parse_problem_string(domain, problem)
    q, out["adaptations"] = drop_metric(q, spec.keep_metric)
    params = dict(spec.params)
    if key == "lpg":
        engine = _lpg_engine(params)
    else:
        engine = OneshotPlanner(name=spec.up_name, params=params or None)
    timeout = max(MIN_ENGINE, deadline - time.time() - MARGIN)
    out["engine_timeout"] = round(timeout, 2)
    with engine as planner:
        result = planner.solve(q, timeout=timeout)
    out["status"] = result.status.name
    out["logs"] = [" ".join(str(m).split())[:300] for m in (result.log_messages or [])][:5]
    out["engine_metrics"] = {k: str(v) for k, v in (result.metrics or {}).items()}
    plan = result.plan
    if plan is None:
        return out

    def args(ai) -> list[str]:  # noqa: ANN001
        return [p.object().name if p.is_object_exp() else str(p) for p in ai.actual_parameters]

    if isinstance(plan, TimeTriggeredPlan):
        out["kind"] = "temporal"
        out["steps"] = [[ai.action.name, args(ai), str(Fraction(start)), None if d is None else str(Fraction(d))]
                        for start, ai, d in plan.timed_actions]
    else:
        out["kind"] = "sequential"
        out["steps"] = [[ai.action.name, args(ai), None, None] for ai in plan.actions]
    return out


def _child_main(argv: list[str]) -> int:
    request = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    try:
        out = run_engine(request["engine"], request["domain"], request["problem"], request["deadline"])
    except Exception as exc:  # noqa: BLE001 - every engine failure is reported, never raised
        out = {"status": "CRASH", "error": f"{type(exc).__name__}: {exc}"[:2000]}
    Path(argv[1]).write_text(json.dumps(out), encoding="utf-8")
    return 0


def _fork_engine(req: Path, res: Path, tmp: str) -> int:
    """The engine child forked from this process, which has the package (and, in a bench worker,
    unified-planning) loaded already: no interpreter start-up comes off the engine's time. It leads its own
    session; its stderr goes to ``tmp/stderr.txt``."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child (coverage does not follow forks)
        code = 1
        try:
            os.setsid()
            err = os.open(Path(tmp) / "stderr.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            null = os.open(os.devnull, os.O_RDWR)
            for source, target in ((null, 0), (null, 1), (err, 2)):
                os.dup2(source, target)
            os.chdir(tmp)
            code = _child_main([str(req), str(res)])
        except BaseException:  # noqa: BLE001 - the child must never return into the caller
            import traceback

            traceback.print_exc()
        finally:
            os._exit(code)
    return pid


def _kill(pid: int) -> None:
    try:  # the group: the engine's helper processes too
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        try:  # killed before it led its own session
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _call_forked(req: Path, res: Path, tmp: str, hard_limit: float) -> dict:
    pid = _fork_engine(req, res, tmp)
    deadline = time.monotonic() + hard_limit
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            _kill(pid)
            os.waitpid(pid, 0)
            return {"status": "KILLED", "error": f"no answer within {hard_limit:.0f} s: engine killed"}
        time.sleep(0.02)
    try:  # helpers the engine left behind
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    if not res.exists():
        code = os.waitstatus_to_exitcode(status)
        err = (Path(tmp) / "stderr.txt").read_text(encoding="utf-8", errors="replace") if (
            Path(tmp) / "stderr.txt").exists() else ""
        how = f"signal {-code}" if code < 0 else f"exit code {code}"
        return {"status": "CRASH", "error": f"engine process ended with {how}: "
                                            f"{' | '.join(err.strip().splitlines()[-3:])}"[:2000]}
    return json.loads(res.read_text(encoding="utf-8"))


#: How the engine child starts: forked from this process (default where fork() exists), or a fresh
#: interpreter (``HYGIENE_ENGINE_START=spawn``), which costs seconds of the engine's time.
ENGINE_START = "fork" if hasattr(os, "fork") and os.environ.get("HYGIENE_ENGINE_START") != "spawn" else "spawn"


def call_engine(key: str, domain: str, problem: str, time_limit: float, grace: float = GRACE) -> dict:
    """Run one engine call in a child process group: the engine gets what is left of ``time_limit`` seconds
    once the child is ready; the group is killed ``grace`` seconds after the limit."""
    hard_limit = max(time_limit, MIN_ENGINE) + grace
    with tempfile.TemporaryDirectory(prefix="hygiene-external-") as tmp:
        req, res = Path(tmp) / "request.json", Path(tmp) / "result.json"
        req.write_text(json.dumps({"engine": key, "domain": domain, "problem": problem,
                                   "deadline": time.time() + time_limit}), encoding="utf-8")
        if ENGINE_START == "fork":
            return _call_forked(req, res, tmp, hard_limit)
        env = dict(os.environ)  # the child imports this package from where the parent did
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path(__file__).resolve().parents[2]),
                                                          env.get("PYTHONPATH")]))
        proc = subprocess.Popen([sys.executable, "-m", "hygiene_pddl.planners.external", str(req), str(res)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True, cwd=tmp,
                                env=env)
        try:
            _, err = proc.communicate(timeout=hard_limit)
        except subprocess.TimeoutExpired:
            try:  # the child is not reaped yet, so its process group (its helpers too) is still ours
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:  # pragma: no cover - it ended in between
                pass
            proc.communicate()
            return {"status": "KILLED", "error": f"no answer within {hard_limit:.0f} s: engine killed"}
        if not res.exists():
            tail = err.decode("utf-8", "replace").strip().splitlines()[-3:]
            how = f"signal {-proc.returncode}" if proc.returncode < 0 else f"exit code {proc.returncode}"
            return {"status": "CRASH", "error": f"engine process ended with {how}: {' | '.join(tail)}"[:2000]}
        return json.loads(res.read_text(encoding="utf-8"))


# --- plans back in registry terms ------------------------------------------------------------------------

def grid(t: Fraction) -> int:
    """The nearest TU (halves round up), as the evaluator rounds."""
    return math.floor(Fraction(t) + Fraction(1, 2))


def drop_level_args(args, consumed: int) -> tuple:  # noqa: ANN001
    """An action's arguments without the (before, after) level pair of each of its ``consumed`` stocks
    (the discrete-level flavours append them after the compiler's parameters)."""
    return tuple(args[: len(args) - 2 * consumed]) if consumed else tuple(args)


def sequential_to_happenings(reg: Registries, inst: Instance, steps: list, drop_levels: bool):
    """Engine steps → (registry actions [(name, args)], happenings [(action index, phase)]) in plan order."""
    mapper = StepMapper(reg, inst)
    actions: list[tuple[str, tuple[str, ...]]] = []
    happenings: list[tuple[int, str]] = []
    open_split: dict[tuple, int] = {}
    for name, args, _, _ in steps:
        base, phase = name.lower(), "whole"
        for suffix in ("-start", "-end"):
            if base.endswith(suffix) and base[: -len(suffix)] in reg.actions:
                base, phase = base[: -len(suffix)], suffix[1:]
        if base not in reg.actions:
            raise InputError(f"the engine's step {name} is no action of this instance")
        schema = reg.actions[base]
        if drop_levels and phase != "end":
            args = drop_level_args(args, len(schema.consumes))
        key = mapper.from_pddl(base, tuple(args))
        if phase == "end":
            if key not in open_split:
                raise InputError(f"{name} ends a process the plan never started")
            happenings.append((open_split.pop(key), "end"))
            continue
        actions.append(key)
        if phase == "start":
            open_split[key] = len(actions) - 1
        happenings.append((len(actions) - 1, phase))
    if open_split:
        raise InputError(f"the plan never ends {', '.join(n for n, _ in open_split)}")
    return actions, happenings


def list_schedule(reg: Registries, inst: Instance, actions, happenings) -> list[ChosenStep] | None:
    """Earliest integer starts that keep the plan's order between interfering happenings (and wait for
    resources still busy with ongoing history actions); None when the order cannot be kept."""
    state = replay(inst, reg)
    world = World.initial(reg, inst)
    dur = [reg.actions[n].duration for n, _ in actions]

    def rw(h: tuple[int, str]):
        name, args = actions[h[0]]
        reads, writes = set(), set()
        for p in (("start", "end") if h[1] == "whole" else (h[1],)):
            r, w = happening_fluents(reg.actions[name], args, world, p)
            reads |= r
            writes |= w
        return reads, writes

    def offsets(h: tuple[int, str]) -> tuple[int, int]:  # (first, last) time of a happening after the start
        d = dur[h[0]]
        return {"whole": (0, d), "start": (0, 0), "end": (d, d)}[h[1]]

    sets = [rw(h) for h in happenings]
    edges = []  # start[j] >= start[i] + w
    for j, hj in enumerate(happenings):
        for i in range(j):
            hi = happenings[i]
            (ri, wi), (rj, wj) = sets[i], sets[j]
            if hi[0] != hj[0] and (wi & (rj | wj) or wj & ri):
                edges.append((hi[0], hj[0], offsets(hi)[1] - offsets(hj)[0]))
    busy = dict(state.busy_until)
    start = []
    for name, args in actions:
        schema = reg.actions[name]
        res = world.resources_of(schema, dict(zip(schema.param_names, args, strict=True)))
        start.append(max([0] + [busy[r] - inst.decision_time for r in res if r in busy]))
    for _ in range(len(actions) + 1):
        changed = False
        for i, j, w in edges:
            if start[j] < start[i] + w:
                start[j] = start[i] + w
                changed = True
        if not changed:
            first = {}
            for k, (a, _) in enumerate(happenings):
                first.setdefault(a, k)
            return sorted((ChosenStep(start[i], n, a, dur[i], first[i]) for i, (n, a) in enumerate(actions)),
                          key=lambda s: (s.start, s.order))
    return None


def steps_cost(reg: Registries, steps: list[ChosenStep]) -> CostVector:
    """The cost vector of a continuation on the TU grid (the registry's amounts, durations, last end)."""
    amounts = {d: sum(dict(reg.actions[s.name].costs).get(d, 0) for s in steps) for d in SUMMED}
    amounts["active_robot_time"] = sum(s.duration for s in steps if reg.actions[s.name].occupies)
    amounts["makespan"] = max((s.start + s.duration for s in steps), default=0)
    return CostVector.from_mapping(amounts)


def _own_times_text(reg: Registries, inst: Instance, planner: str, raw: list, cost: CostVector) -> str:
    steps = tuple(PlanStep(n.lower(), tuple(a.lower() for a in args), Fraction(s), None if d is None else Fraction(d))
                  for n, args, s, d in sorted(raw, key=lambda r: Fraction(r[2])))
    header = [f"; planner: {planner}",
              f"; instance: {inst.id} (times relative to decision time t={inst.decision_time}; the engine's own times)"]
    costs = tuple((d, Fraction(v)) for d, v in cost.as_dict().items())
    return "\n".join(header) + "\n" + write_plan(Plan(steps=steps, cost=costs))


_STATUS_TEXT = {
    "SOLVED_SATISFICING": "plan found (satisficing)",
    "SOLVED_OPTIMALLY": "plan found, optimal for the engine's metric on its flavour",
    "UNSOLVABLE_PROVEN": "the engine proved that its flavour of the problem has no plan",
    "UNSOLVABLE_INCOMPLETELY": "the engine found no plan (incomplete search: no proof)",
    "TIMEOUT": "the engine ran out of time",
    "MEMOUT": "the engine ran out of memory",
    "INTERNAL_ERROR": "the engine failed",
    "UNSUPPORTED_PROBLEM": "the engine does not support the problem",
    "INTERMEDIATE": "the engine stopped with an intermediate plan",
}


@dataclass
class ExternalPlanner:
    """One unified-planning engine on the generated PDDL (see the module docstring)."""

    engine: str
    name: str = ""

    def __post_init__(self) -> None:
        self.name = self.name or f"external:{self.engine}"

    def solve(self, inst: Instance, time_limit: float = 30.0, reg: Registries | None = None) -> PlannerResult:
        reg = reg or load_registries()
        t0 = time.perf_counter()
        ok, why = engine_available(self.engine)
        spec = spec_of(self.engine) if ok or self.engine in ENGINES else None
        notes = [f"{FLAVOUR_LABEL[spec.flavour]} flavour; adaptations: {spec.adaptations}"] if spec else []
        if not ok:
            return no_plan_result(self.name, reg, inst, PlanStatus.UNDETERMINED,
                                  (("build", 0.0), ("solve", 0.0), ("total", 0.0)),
                                  [*notes, f"{self.engine} cannot run here: {why}"])
        back = None
        if spec.target:
            from hygiene_pddl.planners.targets import export

            try:
                exp = export(spec.target, reg, inst)
            except InputError as exc:  # the lowering's documented caps (variants per action)
                return no_plan_result(self.name, reg, inst, PlanStatus.UNDETERMINED,
                                      timings_since(t0, time.perf_counter() - t0),
                                      [*notes, f"the {spec.target} files cannot be written: {exc}"])
            domain, problem, back = exp.domain, exp.problem, exp.map_back
        else:
            domain, problem = render_for(spec, reg, inst)
        t_build = time.perf_counter() - t0
        left = max(0.0, time_limit - t_build)
        out = call_engine(self.engine, domain, problem, left)
        timings = timings_since(t0, t_build)
        status = out.get("status")
        if out.get("adaptations"):
            notes.append("applied: " + ", ".join(out["adaptations"]))
        notes.append(f"engine status {status}: " + _STATUS_TEXT.get(status, out.get("error", "")))
        if not out.get("steps"):  # the engine's own words, when it gave no plan
            notes += [f"engine log: {m}" for m in out.get("logs", []) if m.split("]", 1)[-1].strip()][:2]
        if status == "UNSOLVABLE_PROVEN":
            return no_plan_result(self.name, reg, inst, PlanStatus.INFEASIBLE, timings, notes)
        if not out.get("steps"):  # killed at the limit, or the engine's own timeout: a timeout, not an answer
            return no_plan_result(self.name, reg, inst, PlanStatus.UNDETERMINED, timings, notes,
                                  timed_out=status in ("KILLED", "TIMEOUT"))
        try:
            raw = out["steps"] if back is None else [[*back(n, tuple(a)), t, d] for n, a, t, d in out["steps"]]
            if out["kind"] == "temporal":
                steps, text, more = self._temporal(reg, inst, raw)
            else:
                steps, text, more = self._sequential(reg, inst, raw, drop_levels=spec.flavour == "classical")
        except (InputError, ValueError, KeyError) as exc:
            notes.append(f"the engine's plan does not map back to this instance's actions: {exc}")
            return no_plan_result(self.name, reg, inst, PlanStatus.UNDETERMINED, timings, notes)
        notes += more
        if steps is None:
            return no_plan_result(self.name, reg, inst, PlanStatus.UNDETERMINED, timings, notes)
        timings = timings_since(t0, t_build)
        return PlannerResult(self.name, inst.id, PlanStatus.PLAN, False, tuple(steps), text, steps_cost(reg, steps),
                             timings, tuple(notes))

    def _temporal(self, reg: Registries, inst: Instance, raw: list):
        mapper = StepMapper(reg, inst)
        ordered = sorted(([n, a, t, None if mapper.finish_makespan(n, tuple(a)) is not None else d]
                          for n, a, t, d in raw), key=lambda r: Fraction(r[2]))  # finish: no duration (LPG's 0)
        steps, notes = [], []
        for rank, (name, args, start, duration) in enumerate(ordered):
            if mapper.finish_makespan(name, tuple(args)) is not None:
                continue  # the engine's makespan declaration: plan_text writes its own for the rounded schedule
            rname, rargs = mapper.from_pddl(name, tuple(args))
            d = reg.actions[rname].duration
            if duration is not None and Fraction(duration) != d:  # kept as the engine gave it: the evaluator judges
                notes.append(f"the engine gave {name} duration {duration} where the registry says {d}")
                d = grid(Fraction(duration))
            steps.append(ChosenStep(grid(Fraction(start)), rname, rargs, d, rank))
        cost = steps_cost(reg, steps)
        try:
            rounded = plan_text(reg, inst, steps, self.name, cost)
            rounded_report = evaluate_plan(reg, inst, parse_plan(rounded))
        except ValueError as exc:
            rounded, rounded_report = None, None
            notes.append(f"the engine's schedule cannot be put on the TU grid: {exc}")
        if rounded_report is not None and rounded_report.valid:
            return steps, rounded, notes
        own = _own_times_text(reg, inst, self.name, ordered, cost)
        own_report = evaluate_plan(reg, inst, parse_plan(own))
        if own_report.valid or rounded is None:
            notes.append("the engine's own times are kept (rounding them to the TU grid changed the plan's meaning)"
                         if own_report.valid else "the engine's own times are kept")
            return steps, own, notes
        return steps, rounded, notes

    def _sequential(self, reg: Registries, inst: Instance, raw: list, drop_levels: bool):
        actions, happenings = sequential_to_happenings(reg, inst, raw, drop_levels)
        steps = list_schedule(reg, inst, actions, happenings)
        if steps is None:
            return None, "", ["the engine's order of happenings cannot be scheduled with the registry's durations"]
        return steps, plan_text(reg, inst, steps, self.name, steps_cost(reg, steps)), []


def lpg_binary() -> Path | None:
    """The LPG-td binary that up-lpg ships, if installed."""
    where = _package_dir("up_lpg")
    return where / "lpg" if where is not None else None


def _lpg_planner():  # noqa: ANN202 - a CommandPlanner (planners/command.py imports this module)
    """LPG-td run directly on the lpg target's files: unified-planning's reader takes no (total-time) in a sum,
    and its LPG engine would rewrite the files."""
    from hygiene_pddl.planners.command import CommandPlanner

    return CommandPlanner(f"{lpg_binary()} -o {{domain}} -f {{problem}} -n 1 -out {{plan}} -seed 0", "lpg",
                          "external:lpg")


def _register() -> None:
    for key, spec in ENGINES.items():
        how = "run directly" if key == "lpg" else "via unified-planning"
        factory = _lpg_planner if key == "lpg" else (lambda key=key: ExternalPlanner(key))
        register(PlannerInfo(f"external:{key}", f"{spec.up_name} {how} on the "
                             f"{FLAVOUR_LABEL[spec.flavour]} PDDL flavour; adaptations: {spec.adaptations}",
                             factory, lambda key=key: engine_available(key)))


_register()


if __name__ == "__main__":
    sys.exit(_child_main(sys.argv[1:]))

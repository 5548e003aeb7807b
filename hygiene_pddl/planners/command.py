"""Planners that are not a fixed list: any command-line PDDL planner, any unified-planning engine.

``cmd:TEMPLATE`` runs a planner's command line, planutils-style, on the PDDL written for a target
(:mod:`hygiene_pddl.planners.targets`): ``{domain}``, ``{problem}`` and ``{plan}`` are replaced by the
files' paths, e.g. ``cmd:optic {domain} {problem}`` or ``cmd:lpg -o {domain} -f {problem} -n 1 -out {plan}``.
The target is the one named ``cmd[TARGET]:...``, else the program's name when it names a target (``optic``,
``lpg``, ``kairos``, ``enhsp``, ``fast-downward``...), else ``val`` (the committed temporal files). The plan is
read with the tolerant reader (:func:`hygiene_pddl.plans.extract.extract_plan`) from ``{plan}`` (or the
numbered files planners write beside it: LPG-td's ``{plan}_1.SOL``, anytime ``{plan}.1``, ``{plan}.2``: the
last), else Fast Downward's ``sas_plan``, else the command's standard output. The command runs in its own
process group in a scratch folder and is killed with its helpers at the time limit. A command that prints no
plan gives *undetermined*: its word that no plan exists is not a proof we can check.

``up:NAME`` is any engine of unified-planning's factory (``OneshotPlanner(name=NAME)``), run in a child
process like the ``external:`` engines; an engine of :data:`~hygiene_pddl.planners.external.ENGINES` keeps its
adaptations, any other gets the flavour its declared problem kind supports (temporal, else
classical-numeric, else classical) and no adaptation.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from hygiene_pddl.errors import InputError
from hygiene_pddl.instances.model import Instance
from hygiene_pddl.planners.base import PlannerInfo, PlannerResult, PlanStatus, no_plan_result, timings_since
from hygiene_pddl.planners.external import GRACE, ExternalPlanner
from hygiene_pddl.plans.extract import extract_plan
from hygiene_pddl.registries import Registries, load_registries

_CMD = re.compile(r"^cmd(?:\[([\w-]+)\])?:(.+)$", re.S)


def parse_command(name: str) -> tuple[str, str]:
    """``cmd[TARGET]:TEMPLATE`` → (target, template)."""
    from hygiene_pddl.planners.targets import ALIASES, TARGETS, target

    m = _CMD.match(name)
    if not m or not m.group(2).strip():
        raise InputError(f"a command planner reads cmd:TEMPLATE or cmd[TARGET]:TEMPLATE, got {name!r}")
    template = m.group(2).strip()
    words = shlex.split(template)
    if not any(p in template for p in ("{domain}", "{problem}")):
        raise InputError(f"the command template names neither {{domain}} nor {{problem}}: {template!r}")
    if m.group(1):
        return target(m.group(1)).key, template
    program = Path(words[0]).name.lower().removesuffix(".py")
    if program in TARGETS or program in ALIASES:
        return target(program).key, template
    return "val", template


def _plan_text(work: Path, plan: Path, stdout: str) -> tuple[str, str]:
    """(text, where it came from): ``plan``, its numbered siblings (the last), ``sas_plan``, else stdout."""
    def number(p: Path) -> int:
        digits = re.findall(r"\d+", p.name[len(plan.name):])
        return int(digits[0]) if digits else 0

    for base in (plan, work / "sas_plan"):
        numbered = sorted((p for p in work.glob(base.name + "*") if p != base and p.is_file()), key=number)
        if numbered:
            return numbered[-1].read_text(encoding="utf-8", errors="replace"), numbered[-1].name
        if base.is_file():
            return base.read_text(encoding="utf-8", errors="replace"), base.name
    return stdout, "standard output"


def run_group(argv: list[str], cwd: Path, time_limit: float, grace: float = GRACE) -> tuple[int | None, str, str]:
    """Run ``argv`` in its own process group; (exit code or None when killed at the limit, stdout, stderr)."""
    try:
        proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True)
    except OSError as exc:
        raise InputError(f"cannot start the planner command {argv[0]!r}: {exc.strerror}") from None
    try:
        out, err = proc.communicate(timeout=time_limit + grace)
        code: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:  # pragma: no cover - it ended in between
            pass
        out, err = proc.communicate()
        code = None
    return code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


@dataclass
class CommandPlanner:
    """A command-line PDDL planner on one target's files (see the module docstring)."""

    template: str
    target: str = "val"
    name: str = ""

    def __post_init__(self) -> None:
        self.name = self.name or (f"cmd[{self.target}]:{self.template}")

    def argv(self, paths: dict[str, Path]) -> list[str]:
        """The command line for these files; a relative program path is taken from the current directory
        (the command itself runs in a scratch folder)."""
        words = [w.format(**{k: str(v) for k, v in paths.items()}) for w in shlex.split(self.template)]
        if "/" in words[0] and not Path(words[0]).is_absolute():
            words[0] = str(Path(words[0]).resolve())
        return words

    def solve(self, inst: Instance, time_limit: float = 30.0, reg: Registries | None = None) -> PlannerResult:
        from hygiene_pddl.planners.targets import export

        reg = reg or load_registries()
        t0 = time.perf_counter()
        exp = export(self.target, reg, inst)
        t_build = time.perf_counter() - t0
        notes = [f"PDDL for {self.target}: " + "; ".join(exp.adaptations)]
        with tempfile.TemporaryDirectory(prefix="hygiene-cmd-") as tmp:
            work = Path(tmp)
            domain, problem = exp.write(work)
            plan = work / "plan.txt"
            paths = {"domain": domain, "problem": problem, "plan": plan}
            code, out, err = run_group(self.argv(paths), work, max(0.0, time_limit - t_build))
            text, source = _plan_text(work, plan, out)
        timings = timings_since(t0, t_build)
        notes.append("killed at the time limit" if code is None else f"exit code {code}")
        try:
            found = extract_plan(text, source)
        except InputError as exc:
            return no_plan_result(self.name, reg, inst, PlanStatus.UNDETERMINED, timings,
                                  [*notes, f"the plan in {source} does not read: {exc}"])
        if not found.steps:
            tail = [line for line in err.strip().splitlines()[-2:] if line.strip()]
            return no_plan_result(self.name, reg, inst, PlanStatus.UNDETERMINED, timings,
                                  [*notes, f"no plan in {source}", *(f"stderr: {line}" for line in tail)])
        raw = []
        for s in found.steps:
            name, args = exp.map_back(s.action, s.args)
            raw.append([name, list(args), None if s.time is None else str(s.time),
                        None if s.duration is None else str(s.duration)])
        return _result_from_steps(self.name, reg, inst, exp.target.plan_kind, exp.target.flavour, raw, timings,
                                  [*notes, f"plan read from {source} ({len(raw)} steps)"])


def _result_from_steps(name: str, reg: Registries, inst: Instance, kind: str, flavour: str, raw: list,
                       timings, notes: list[str]) -> PlannerResult:  # noqa: ANN001
    """Map a planner's steps back to registry actions and put them on the TU grid (as ``external:``)."""
    mapper = ExternalPlanner("fast-downward", name=name)  # the mapping code; it never calls its engine here
    try:
        if kind == "temporal":
            steps, text, more = mapper._temporal(reg, inst, raw)
        else:
            steps, text, more = mapper._sequential(reg, inst, raw, drop_levels=flavour == "classical")
    except (InputError, ValueError, KeyError) as exc:
        return no_plan_result(name, reg, inst, PlanStatus.UNDETERMINED, timings,
                              [*notes, f"the plan does not map back to this instance's actions: {exc}"])
    if steps is None:
        return no_plan_result(name, reg, inst, PlanStatus.UNDETERMINED, timings, [*notes, *more])
    from hygiene_pddl.planners.external import steps_cost

    return PlannerResult(name, inst.id, PlanStatus.PLAN, False, tuple(steps), text, steps_cost(reg, steps),
                         timings, tuple([*notes, *more]))


def command_info(name: str) -> PlannerInfo:
    """The catalogue entry for a ``cmd:`` planner name (exit 2 for a malformed one)."""
    target_key, template = parse_command(name)
    program = shlex.split(template)[0]

    def available() -> tuple[bool, str]:
        import shutil

        found = shutil.which(program) or (os.access(program, os.X_OK) and Path(program).is_file())
        return (True, "") if found else (False, f"the command {program!r} is not on PATH")

    return PlannerInfo(name, f"the command `{template}` on the PDDL for {target_key}",
                       lambda: CommandPlanner(template, target_key, name), available)


def up_info(name: str) -> PlannerInfo:
    """The catalogue entry for ``up:ENGINE``: any engine unified-planning's factory knows."""
    from hygiene_pddl.planners.external import ENGINES, engine_available, generic_engine

    engine = name.split(":", 1)[1].strip()
    if not engine:
        raise InputError("up:NAME needs an engine name, e.g. up:tamer")
    if engine in ENGINES:
        return PlannerInfo(name, f"unified-planning engine {engine} (adaptations as external:{engine})",
                           lambda: ExternalPlanner(engine, name=name), lambda: engine_available(engine))

    def available() -> tuple[bool, str]:
        try:
            generic_engine(engine)
        except (KeyError, ImportError, ValueError) as exc:
            return False, f"unified-planning has no engine {engine!r} here ({exc})"
        return True, ""

    return PlannerInfo(name, f"unified-planning engine {engine} (flavour from its declared problem kind)",
                       lambda: ExternalPlanner(engine, name=name), available)

"""Fuzz cases: a command line over seed files of which one is mutated.

Seeds are the committed benchmark (``problems/``, ``domains/``, each instance's reference plan written as
a VAL-style plan file), the IPC conformance corpus (``../shared/conformance`` with the plans recorded in
``tests/fixtures/val_corpus``) and the five registries. Case ``i`` of seed ``S`` depends on ``S:i`` only.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from hygiene_pddl.fuzz.mutations import mutate

ROOT = Path(__file__).resolve().parents[2]
REGISTRY_DATA = ROOT / "hygiene_pddl" / "registries" / "data"
VAL_CORPUS = ROOT / "tests" / "fixtures" / "val_corpus"
#: Planners fast enough to fuzz (1 s time limit); external engines start a JVM or a subprocess each.
FUZZ_PLANNERS = ("hygiene-nsp", "history-blind", "treat-always", "rule-sat")
TARGETS = ("plan", "plan-instance", "domain", "problem", "ipc", "instance", "reference", "registry", "output")


@dataclass(frozen=True)
class Case:
    """One run: ``argv`` for ``hygiene-pddl`` in a fresh folder holding ``files``; outputs go under ``out/``."""

    key: str  # "SEED:INDEX"
    target: str
    argv: tuple[str, ...]
    files: tuple[tuple[str, str], ...]
    mutations: tuple[str, ...]
    bound: float  # seconds of CPU time a run may take


def conformance_dir() -> Path | None:
    """The IPC conformance corpus beside the project (``../shared/conformance``), if present."""
    for base in (ROOT.parent, ROOT.parent.parent):
        if (base / "shared" / "conformance").is_dir():
            return base / "shared"
    return None


@dataclass(frozen=True)
class BenchmarkSeed:
    instance: Path

    @property
    def problem(self) -> Path:
        return self.instance.with_suffix(".pddl")

    @property
    def reference(self) -> Path:
        return self.instance.with_name(self.instance.stem + ".reference.json")

    @property
    def domain(self) -> Path:
        return ROOT / "domains" / f"{self.instance.parent.name}.pddl"


@cache
def benchmark_seeds() -> tuple[BenchmarkSeed, ...]:
    files = sorted(p for p in (ROOT / "problems").glob("*/*.json") if not p.name.endswith(".reference.json"))
    return tuple(BenchmarkSeed(p) for p in files)


@cache
def ipc_seeds() -> tuple[tuple[Path, Path, Path], ...]:
    """(domain, problem, plan) triples of the IPC corpus with a recorded plan."""
    shared = conformance_dir()
    if shared is None or not (VAL_CORPUS / "plans.json").is_file():
        return ()
    out = []
    for e in json.loads((VAL_CORPUS / "plans.json").read_text(encoding="utf-8")):
        d, p, plan = shared / e["domain"], shared / e["problem"], VAL_CORPUS / e["plan"]
        if d.is_file() and p.is_file() and plan.is_file():
            out.append((d, p, plan))
    return tuple(sorted(set(out)))


@cache
def reference_plan(seed: BenchmarkSeed) -> str:
    """The instance's reference plan (or status) as the plan file a planner would write."""
    from hygiene_pddl.episodes.reference import chosen_steps
    from hygiene_pddl.instances import load_instance, load_reference
    from hygiene_pddl.planners.base import PlanStatus, plan_text
    from hygiene_pddl.registries import load_registries

    reg = load_registries()
    inst, ref = load_instance(seed.instance, reg), load_reference(seed.reference)
    if not ref.feasible:
        return plan_text(reg, inst, [], "reference", None, PlanStatus.INFEASIBLE)
    steps = chosen_steps(ref.plan)
    return plan_text(reg, inst, steps, "reference", ref.optimal_cost)


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _validate_options(rng: random.Random) -> list[str]:
    return rng.choice(([], [], ["--json"], ["-t", "0.001"], ["--exact"], ["-v"], ["--json", "--exact"]))


def build_case(seed: str, index: int, targets: tuple[str, ...] = TARGETS) -> Case:
    """Case ``index`` of ``seed``: targets in turn, a seed file and mutations drawn from ``seed:index``."""
    key = f"{seed}:{index}"
    rng = random.Random(key)
    target = targets[index % len(targets)]
    if target == "ipc" and not ipc_seeds():
        target = "domain"
    bench = rng.choice(benchmark_seeds())
    builder = _BUILDERS[target]
    argv, files, mutations, bound = builder(rng, bench)
    return Case(key, target, tuple(map(str, argv)), tuple(files), tuple(mutations), bound)


def _plan(rng, s: BenchmarkSeed):
    text, names = mutate(rng, reference_plan(s), "plan")
    return ["validate", s.domain, s.problem, "plan.txt", *_validate_options(rng)], [("plan.txt", text)], names, 30


def _plan_instance(rng, s: BenchmarkSeed):
    text, names = mutate(rng, reference_plan(s), "plan")
    extra = rng.choice((["--json"], [], ["--gantt", "out/gantt.png"], ["--exact"]))
    argv = ["validate", s.domain, s.problem, "plan.txt", "--instance", s.instance, "--reference", s.reference]
    return [*argv, *extra], [("plan.txt", text)], names, 30


def _domain(rng, s: BenchmarkSeed):
    text, names = mutate(rng, _text(s.domain), "pddl")
    files = [("domain.pddl", text), ("plan.txt", reference_plan(s))]
    return ["validate", "domain.pddl", s.problem, "plan.txt", *_validate_options(rng)], files, names, 30


def _problem(rng, s: BenchmarkSeed):
    text, names = mutate(rng, _text(s.problem), "pddl")
    files = [("problem.pddl", text), ("plan.txt", reference_plan(s))]
    return ["validate", s.domain, "problem.pddl", "plan.txt", *_validate_options(rng)], files, names, 30


def _ipc(rng, _s: BenchmarkSeed):
    domain, problem, plan = rng.choice(ipc_seeds())
    which = rng.randrange(3)
    paths: list = [domain, problem, plan]
    text, names = mutate(rng, _text(paths[which]), "plan" if which == 2 else "pddl")
    paths[which] = ("domain.pddl", "problem.pddl", "plan.txt")[which]
    return ["validate", *paths, *_validate_options(rng)], [(paths[which], text)], names, 30


def _instance(rng, s: BenchmarkSeed):
    text, names = mutate(rng, _text(s.instance), "instance")
    command = rng.choice((
        ["replay", "instance.json"], ["replay", "instance.json", "--json"],
        ["compile", "instance.json", "-o", "out"], ["compile", "instance.json", "-o", "out", "--no-total-time"],
        ["compile", "instance.json", "-o", "out", "--flavor", "classical"],
        ["plan", "instance.json", "--planner", rng.choice(FUZZ_PLANNERS), "--time-limit", "1", "--json"],
        ["plan", "instance.json", "--planner", "hygiene-nsp", "--time-limit", "1", "-o", "out/plan.txt"],
        ["scale", "instance.json", "--copies", str(rng.choice((1, 2, 3))), "-o", "out/scaled.json"],
        ["validate", s.domain, s.problem, "plan.txt", "--instance", "instance.json"]))
    files = [("instance.json", text), ("plan.txt", reference_plan(s))]
    return command, files, names, 60 if command[0] == "plan" else 30


def _reference(rng, s: BenchmarkSeed):
    text, names = mutate(rng, _text(s.reference), "json")
    argv = ["validate", s.domain, s.problem, "plan.txt", "--instance", s.instance, "--reference", "reference.json"]
    return argv, [("reference.json", text), ("plan.txt", reference_plan(s))], names, 30


def _registry(rng, s: BenchmarkSeed):
    originals = {p.name: _text(p) for p in sorted(REGISTRY_DATA.glob("*.yaml"))}
    name = rng.choice(sorted(originals))
    text, names = mutate(rng, originals[name], "yaml")
    files = [(f"data/{n}", text if n == name else t) for n, t in originals.items()]
    argv = rng.choice((["registries", "check", "--data", "data"], ["@registry-pipeline", "data", s.instance]))
    return argv, files, [f"{name}:{m}" for m in names], 30


def _output(rng, s: BenchmarkSeed):
    target = rng.choice(("out/a/b/c", "file", "file/x", "/dev/null", "/proc/hygiene-fuzz/x", ".", "out/"))
    command = rng.choice((
        ["compile", s.instance, "-o", target],
        ["plan", s.instance, "--planner", "history-blind", "--time-limit", "1", "-o", target],
        ["scale", s.instance, "--copies", "2", "-o", target],
        ["validate", s.domain, s.problem, "plan.txt", "--instance", s.instance, "--gantt", target]))
    return command, [("file", "a file, not a folder\n"), ("plan.txt", reference_plan(s))], [f"target {target}"], 60


_BUILDERS = {"plan": _plan, "plan-instance": _plan_instance, "domain": _domain, "problem": _problem, "ipc": _ipc,
             "instance": _instance, "reference": _reference, "registry": _registry, "output": _output}

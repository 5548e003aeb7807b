"""The small library API for the three jobs (docs/api.md); ``import hygiene_pddl`` exposes these names.

::

    import hygiene_pddl as hp

    inst = hp.load_instance("problems/spoon_fruit/spoon_fruit-wash_then_touch-water_first.json")
    hp.compile(inst, "out/lpg", target="lpg")          # Job 1: the PDDL LPG-td reads as shipped
    result = hp.plan(inst, "hygiene-nsp", time_limit=30)
    check = hp.validate(inst, result.plan_text)        # Job 2: both levels; check.valid, check.optimal
    summary = hp.run_bench(["hygiene-nsp", "fd-cpsat"], ["problems/spoon_fruit"], "results/mine")  # Job 3
    hp.report("results/mine", "results/mine/report")

Every function takes the registries as an optional keyword (``reg=``); by default the packaged ones,
loaded once. Bad input raises :class:`~hygiene_pddl.errors.InputError` (the CLI's exit 2) with file,
line and column.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from hygiene_pddl.errors import InputError
from hygiene_pddl.instances.model import Instance
from hygiene_pddl.registries import Registries, load_registries


def _reg(reg: Registries | None) -> Registries:
    return reg if reg is not None else load_registries()


def load_instance(path: Path | str, *, reg: Registries | None = None) -> Instance:
    """A public instance JSON, checked against its schema and resolved against the registries."""
    from hygiene_pddl.instances import load_instance as _load

    return _load(path, _reg(reg))


def list_instances(problems: Path | str | None = None) -> list[Path]:
    """The committed benchmark's instance files (the checkout's ``problems/`` by default), sorted."""
    from hygiene_pddl.episodes.index import load_index
    from hygiene_pddl.paths import problems_dir

    return sorted(info.path for info in load_index(problems_dir(problems)).instances.values())


def compile(inst: Instance | Path | str, out: Path | str, target: str = "val", *,  # noqa: A001 - the job's name
            reg: Registries | None = None):  # noqa: ANN201 - targets.Export
    """Write ``out/domain.pddl`` and ``out/problem.pddl`` for ``target`` (``val``: the committed temporal
    files; ``lpg``, ``optic``, ``tamer``, ``aries``, ``kairos``, ``up``, ``enhsp``, ``fast-downward``: what
    that planner reads as shipped). Returns the :class:`~hygiene_pddl.planners.targets.Export` (its
    ``adaptations``, ``domain`` and ``problem`` text, and ``map_back`` for plan steps on these files)."""
    from hygiene_pddl.planners.targets import export

    reg = _reg(reg)
    inst = inst if isinstance(inst, Instance) else load_instance(inst, reg=reg)
    exp = export(target, reg, inst)
    exp.write(Path(out))
    return exp


def list_planners() -> dict[str, tuple[bool, str]]:
    """Every registered planner: (whether it can run here, why not). ``cmd:...`` and ``up:...`` names
    are accepted by :func:`plan` and :func:`bench` too (docs/external-planners.md)."""
    from hygiene_pddl.planners import catalogue

    return {name: info.available() for name, info in sorted(catalogue().items())}


def plan(inst: Instance | Path | str, planner: str = "hygiene-nsp", time_limit: float = 30.0, *,
         reg: Registries | None = None):  # noqa: ANN201 - base.PlannerResult
    """Plan the continuation; a :class:`~hygiene_pddl.planners.base.PlannerResult` (``status``: plan,
    infeasible or undetermined; ``plan_text``: the VAL-style plan file; ``cost``; ``notes``). An unknown
    planner is an InputError; one that cannot run here raises RuntimeError with the reason."""
    from hygiene_pddl.planners import catalogue

    reg = _reg(reg)
    inst = inst if isinstance(inst, Instance) else load_instance(inst, reg=reg)
    known = catalogue()
    if planner not in known:
        raise InputError(f"unknown planner {planner!r}; available: {', '.join(sorted(known))}")
    ok, why = known[planner].available()
    if not ok:
        raise RuntimeError(f"planner {planner} cannot run here: {why}")
    return known[planner].factory().solve(inst, time_limit, reg)


@dataclass(frozen=True)
class Validation:
    """Both levels' verdicts on one plan for one instance."""

    pddl: object  # validation.pddl_level.ValidationResult (VAL's semantics on the compiled files)
    instance: object  # validation.instance_level.InstanceReport (replay, hygiene, costs, optimality)

    @property
    def valid(self) -> bool:
        return bool(self.pddl.valid and self.instance.valid)

    @property
    def optimal(self) -> bool | None:
        """Whether the plan's cost equals the certified optimum (None without a reference)."""
        return self.instance.optimal


def validate(inst: Instance | Path | str, plan_text: str, *, reference: Path | str | None = None,
             tolerance: Fraction | str = "0.01", reg: Registries | None = None) -> Validation:
    """Validate a VAL-style plan (text) at both levels: the PDDL level on the instance's compiled temporal
    files (as ``hygiene-pddl validate D P PLAN``), the instance level by replay (as ``--instance``), with the
    certified reference (``X.reference.json`` beside a committed instance by default) for optimality."""
    from compiler.render import render_instance_domain, render_problem
    from hygiene_pddl.instances import load_reference
    from hygiene_pddl.pddl import parse_domain, parse_problem
    from hygiene_pddl.plans import parse_plan
    from hygiene_pddl.validation.instance_level import evaluate_plan
    from hygiene_pddl.validation.pddl_level import PddlValidator

    reg = _reg(reg)
    path = None if isinstance(inst, Instance) else Path(inst)
    inst = inst if isinstance(inst, Instance) else load_instance(inst, reg=reg)
    if reference is None and path is not None and path.with_name(path.stem + ".reference.json").is_file():
        reference = path.with_name(path.stem + ".reference.json")
    ref = load_reference(reference) if reference is not None else None
    parsed = parse_plan(plan_text)
    domain, problem = render_instance_domain(reg, inst), render_problem(reg, inst)[0]
    validator = PddlValidator(parse_domain(domain), parse_problem(problem), tolerance=tolerance)
    pddl = validator.validate(parsed)
    return Validation(pddl, evaluate_plan(reg, inst, parsed, ref, Fraction(tolerance)))


def run_bench(planners: Sequence[str], instances: Sequence[Path | str], out: Path | str, *, jobs: int = 1,
          time_limit: float = 60.0, runs: int = 1, progress: bool = False):  # noqa: ANN201 - runner.BenchSummary
    """Run ``planners`` on ``instances`` (files, family folders, a problems folder) into the resumable
    results folder ``out`` (``results.jsonl``, ``plans/``), each call isolated with time and memory limits."""
    from hygiene_pddl.bench.runner import BenchConfig, run_bench

    return run_bench(BenchConfig(list(planners), list(instances), Path(out), jobs=jobs, time_limit=time_limit,
                                 runs=runs, progress=progress))


def report(results: Path | str, out: Path | str, *, problems: Path | str | None = None):  # noqa: ANN201
    """The paper's tables (Markdown, CSV, JSON) and plots (PNG) from a bench results folder."""
    from hygiene_pddl.bench.report import write_report

    return write_report(Path(results), Path(out), problems=Path(problems) if problems else None)

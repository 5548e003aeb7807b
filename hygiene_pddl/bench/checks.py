"""Check one planner answer with both of our validators: instance level (full-history replay, hygiene,
cost, distance to the certified optimum) and PDDL level (VAL semantics on the committed PDDL files)."""

from __future__ import annotations

from pathlib import Path

from hygiene_pddl.instances.model import Instance
from hygiene_pddl.registries import Registries


def benchmark_files(instance_path: Path, family: str, domain_stem: str | None = None) -> tuple[Path, Path, Path]:
    """(reference, domain, problem) beside a committed instance ``problems/<family>/<id>.json``; the domain is
    ``domains/<domain_stem>.pddl`` (its K's file: the family's, or ``<family>-k<hash>`` for other entries)."""
    instance_path = Path(instance_path)
    root = instance_path.resolve().parent.parent.parent
    return (instance_path.with_name(instance_path.stem + ".reference.json"),
            root / "domains" / f"{domain_stem or family}.pddl",
            instance_path.with_name(instance_path.stem + ".pddl"))


def check_answer(reg: Registries, inst: Instance, instance_path: Path, answer: dict, workdir: Path) -> dict:
    """Fields of a result record from a planner answer (``status``, ``plan_text``, ``claimed_cost``)."""
    from compiler.kset import FamilyDomain
    from hygiene_pddl.instances import load_reference
    from hygiene_pddl.plans.parser import parse_plan
    from hygiene_pddl.validation.instance_level import evaluate_plan
    from hygiene_pddl.validation.pddl_level import validate_files

    ref_path, domain, problem = benchmark_files(instance_path, inst.family,
                                                FamilyDomain.of_instance(reg, inst).file_stem)
    reference = load_reference(ref_path) if ref_path.exists() else None
    notes: list[str] = []
    if reference is None:
        notes.append("no reference file: optimality not assessed")
    plan_file = workdir / "plan.txt"
    plan_file.write_text(answer["plan_text"], encoding="utf-8")
    plan = parse_plan(answer["plan_text"], str(plan_file))
    report = evaluate_plan(reg, inst, plan, reference, plan_file=str(plan_file))
    out: dict = {
        "valid": bool(report.valid),
        "optimal": report.optimal,
        "first_worse": list(report.first_worse) if report.first_worse else None,
        "cost": report.cost.as_dict() if report.cost else answer.get("claimed_cost"),
        "findings": [f"{f.problem.value}: {f.message}" for f in report.findings],
        "pddl_valid": None,
        "reference_feasible": None if reference is None else bool(reference.feasible),
    }
    claimed = answer.get("claimed_cost")
    if report.cost is not None and claimed is not None and claimed != report.cost.as_dict():
        notes.append("the planner's claimed cost differs from the evaluated cost")
    if answer["status"] == "plan":
        if domain.exists() and problem.exists():
            pddl = validate_files(domain, problem, plan_file, trace=False, hints=False)
            out["pddl_valid"] = bool(pddl.valid)
            if not pddl.valid:
                out["pddl_failure"] = pddl.summary()
        else:
            notes.append(f"PDDL files not found ({domain.name}, {problem.name}): PDDL level not checked")
    out["check_notes"] = notes
    return out

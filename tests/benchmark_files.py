"""Which committed benchmark files a test runs over.

The hand-checked first families are covered in full everywhere; tests that are expensive per instance (real
planners, unified-planning round trips) take the first instance of every FAMILY_STEP-th family (by name) of the
full benchmark, so the suite stays within its time budget on two cores; ``HYGIENE_TEST_ALL_FAMILIES=1`` (``make
test-full``) takes one instance of every family.
"""

import os
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROBLEMS = ROOT / "problems"
FIRST_FAMILIES = ("bowl_to_sink", "hot_cocoa", "spoon_fruit")
FAMILY_STEP = 1 if os.environ.get("HYGIENE_TEST_ALL_FAMILIES") else 20


def instances(families=FIRST_FAMILIES) -> list[Path]:
    """Public instance files of the given families (default: the first families)."""
    return sorted(p for f in families for p in (PROBLEMS / f).glob("*.json")
                  if not p.name.endswith(".reference.json"))


def one_per_family() -> list[Path]:
    """The first instance (by name) of every FAMILY_STEP-th family, plus every first-family instance."""
    out = set(instances())
    for folder in sorted(p for p in PROBLEMS.iterdir() if p.is_dir())[::FAMILY_STEP]:
        found = sorted(p for p in folder.glob("*.json") if not p.name.endswith(".reference.json"))
        if found:
            out.add(found[0])
    return sorted(out)


def short_references(paths: list[Path], limit: int = 8) -> list[Path]:
    """Those of ``paths`` whose certified reference has at most ``limit`` actions (or none: infeasible): the
    planner tests that solve each instance twice, once without the relaxation, stay within the suite's budget
    (the joint model alone takes tens of seconds on longer v2 drafts)."""
    import json

    return [p for p in paths
            if len(json.loads(p.with_name(p.stem + ".reference.json").read_text())["plan"]) <= limit]


@cache
def _full_benchmark() -> list[tuple[Path, dict]]:
    """(public instance path, reference JSON) of every committed instance outside the first families, by name
    (read once per process: several test modules pick their instances from it at import)."""
    import json

    out = []
    for folder in sorted(p for p in PROBLEMS.iterdir() if p.is_dir() and p.name not in FIRST_FAMILIES):
        for p in sorted(folder.glob("*.json")):
            if not p.name.endswith(".reference.json"):
                out.append((p, json.loads(p.with_name(p.stem + ".reference.json").read_text())))
    return out


@cache
def an_infeasible_instance() -> Path:
    """The committed benchmark's infeasible instance with the shortest history (by name on ties): the instance
    the exit-code, validator and LLM tests ask to prove infeasible."""
    import json

    found = [(len(json.loads(p.read_text()).get("history", [])), p) for p, r in _full_benchmark() if not r["feasible"]]
    return min(found)[1]


@cache
def a_ticks_instance() -> Path:
    """The committed instance whose problem declares its makespan with ticks (compiler.ticks) with the smallest K
    (registry actions, then objects; by name on ties): the one the lowering tests export to OPTIC (a large K can
    be more than the lowering's variant limit, which the export refuses with an error)."""
    from compiler.problem import instance_uses_ticks
    from hygiene_pddl.instances import load_instance
    from hygiene_pddl.registries import load_registries

    reg = load_registries()
    found = []
    for p, _ in _full_benchmark():
        inst = load_instance(p, reg)
        if instance_uses_ticks(reg, inst):
            found.append((len(inst.actions), len(inst.objects), p))
    return min(found)[2]

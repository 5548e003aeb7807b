"""Regenerate the committed benchmark (instances and PDDL) in memory; write it or check it is current."""

from __future__ import annotations

import json
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from compiler.kset import FamilyDomain
from compiler.render import render_classical, render_domain, render_problem
from hygiene_pddl.episodes.first_families import first_families
from hygiene_pddl.episodes.writer import Episode, episode_files
from hygiene_pddl.instances.model import Instance
from hygiene_pddl.registries import Registries
from hygiene_pddl.replay import replay

#: File names beside each instance JSON.
TEMPORAL = "{id}.pddl"
NO_TOTAL_TIME = "{id}.no-total-time.pddl"
CLASSICAL_DOMAIN = "{id}.classical-domain.pddl"
CLASSICAL_PROBLEM = "{id}.classical.pddl"


def compile_instance_files(reg: Registries, inst: Instance) -> dict[str, str]:
    """The PDDL problem files of one instance (relative names → text)."""
    state = replay(inst, reg)
    out = {TEMPORAL.format(id=inst.id): render_problem(reg, inst, state=state)[0],
           NO_TOTAL_TIME.format(id=inst.id): render_problem(reg, inst, metric_total_time=False, state=state)[0]}
    cdom, cprob, _ = render_classical(reg, inst, state=state)
    out[CLASSICAL_DOMAIN.format(id=inst.id)] = cdom
    out[CLASSICAL_PROBLEM.format(id=inst.id)] = cprob
    return out


def _design_episodes(reg: Registries, manifest: dict, family: str, archetype: str) -> list[Episode]:
    """One recorded design's episodes with their certified references."""
    from hygiene_pddl.episodes.builder import design_of, realise

    episodes = realise(reg, family, archetype, design_of(reg, family, archetype))
    for ep in episodes:
        ref = manifest["references"][ep.id]
        ep.reference = {"feasible": ref["feasible"], "optimal_cost": ref["optimal_cost"], "plan": ref["plan"],
                        "certified_by": ref["certified_by"], **ep.reference}
    return episodes


def manifest_episodes(reg: Registries, manifest: dict) -> list[Episode]:
    """The first families plus every design the manifest records, with its certified reference."""
    episodes = first_families()
    for family, archetype in sorted(manifest["designs"].items()):
        episodes += _design_episodes(reg, manifest, family, archetype)
    return episodes


Unit = tuple[dict[Path, str], list[FamilyDomain]]


def _episodes_unit(reg: Registries, episodes: list[Episode]) -> Unit:
    """The instance and problem files of some episodes, and the domains they need."""
    files: dict[Path, str] = {}
    domains = []
    for ep in episodes:
        folder = Path("problems") / ep.family
        public, ref = episode_files(ep, reg)
        inst = ep.materialise(reg).instance
        domains.append(FamilyDomain.of_instance(reg, inst))
        files[folder / f"{ep.id}.json"] = public
        files[folder / f"{ep.id}.reference.json"] = ref
        for name, text in compile_instance_files(reg, inst).items():
            files[folder / name] = text
    return files, domains


#: What forked workers read (set before the pool starts, inherited by fork, never pickled).
_WORK: dict = {}


def _work(i: int) -> Unit:
    reg, manifest, units = _WORK["reg"], _WORK["manifest"], _WORK["units"]
    unit = units[i]
    episodes = unit if isinstance(unit, list) else _design_episodes(reg, manifest, *unit)
    return _episodes_unit(reg, episodes)


def benchmark_files(reg: Registries, episodes: list[Episode] | None = None, root: Path = Path("."),
                    jobs: int = 1) -> dict[Path, str]:
    """Every committed benchmark file (path relative to the repository root → text): the first families, and
    the full benchmark when ``problems/MANIFEST.json`` records one (``hygiene-pddl build --full``). ``jobs`` > 1
    spreads the designs over forked processes; the files are the same."""
    manifest_path = root / "problems" / "MANIFEST.json"
    manifest = None
    units: list  # episode lists, or (family, archetype) designs of the manifest
    if episodes is not None:
        units = [episodes]
    elif manifest_path.exists():
        manifest = json.loads(manifest_path.read_text())
        units = [first_families(), *sorted(manifest["designs"].items())]
    else:
        units = [first_families()]
    files: dict[Path, str] = {}
    if manifest is not None:
        files[Path("problems") / "MANIFEST.json"] = manifest_path.read_text()
    _WORK.update(reg=reg, manifest=manifest, units=units)
    try:
        if jobs > 1 and len(units) > 1 and "fork" in multiprocessing.get_all_start_methods():
            with ProcessPoolExecutor(min(jobs, len(units)), mp_context=multiprocessing.get_context("fork")) as pool:
                results = list(pool.map(_work, range(len(units)), chunksize=4))
        else:
            results = [_work(i) for i in range(len(units))]
    finally:
        _WORK.clear()
    domains: dict[str, FamilyDomain] = {}
    for unit_files, unit_domains in results:  # in unit order: the same files whatever the number of jobs
        files.update(unit_files)
        for fd in unit_domains:
            domains.setdefault(fd.file_stem, fd)
    for stem, fd in sorted(domains.items()):  # the family's own entries, or an instance's K (<family>-k<hash>)
        files[Path("domains") / f"{stem}.pddl"] = render_domain(reg, fd)
    return files


def stale_files(root: Path, files: dict[Path, str]) -> list[str]:
    """Committed files that differ from (or are missing versus, or are extra to) a fresh build."""
    problems = []
    for rel, text in sorted(files.items()):
        path = root / rel
        if not path.exists():
            problems.append(f"{rel}: missing")
        elif path.read_text(encoding="utf-8") != text:
            problems.append(f"{rel}: stale (differs from a fresh build)")
    generated = {root / rel for rel in files}
    for folder in ("domains", "problems"):
        for path in sorted((root / folder).rglob("*")):
            if path.is_file() and path not in generated:
                problems.append(f"{path.relative_to(root)}: not produced by the build")
    return problems


def write_files(root: Path, files: dict[Path, str]) -> None:
    """Write all files (the text is complete before the first write: nothing partial on bad input)."""
    for rel, text in sorted(files.items()):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")

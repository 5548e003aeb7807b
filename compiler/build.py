"""Regenerate the committed benchmark (instances and PDDL) in memory; write it or check it is current."""

from __future__ import annotations

import json
from pathlib import Path

from compiler.kset import FamilyDomain
from compiler.render import render_classical, render_domain, render_problem
from hygiene_pddl.episodes.first_families import first_families
from hygiene_pddl.episodes.writer import Episode, episode_files
from hygiene_pddl.instances.loader import instance_from_data
from hygiene_pddl.registries import Registries

#: File names beside each instance JSON.
TEMPORAL = "{id}.pddl"
NO_TOTAL_TIME = "{id}.no-total-time.pddl"
CLASSICAL_DOMAIN = "{id}.classical-domain.pddl"
CLASSICAL_PROBLEM = "{id}.classical.pddl"


def compile_instance_files(reg: Registries, public: dict, stem: str) -> dict[str, str]:
    """The PDDL problem files of one instance (relative names → text)."""
    inst = instance_from_data(public, reg, stem)
    out = {TEMPORAL.format(id=inst.id): render_problem(reg, inst)[0],
           NO_TOTAL_TIME.format(id=inst.id): render_problem(reg, inst, metric_total_time=False)[0]}
    cdom, cprob, _ = render_classical(reg, inst)
    out[CLASSICAL_DOMAIN.format(id=inst.id)] = cdom
    out[CLASSICAL_PROBLEM.format(id=inst.id)] = cprob
    return out


def manifest_episodes(reg: Registries, manifest: dict) -> list[Episode]:
    """The first families plus every design the manifest records, with its certified reference."""
    from hygiene_pddl.episodes.builder import design_of, realise

    episodes = first_families()
    for family, archetype in sorted(manifest["designs"].items()):
        for ep in realise(reg, family, archetype, design_of(reg, family, archetype)):
            ref = manifest["references"][ep.id]
            ep.reference = {"feasible": ref["feasible"], "optimal_cost": ref["optimal_cost"], "plan": ref["plan"],
                            "certified_by": ref["certified_by"], **ep.reference}
            episodes.append(ep)
    return episodes


def benchmark_files(reg: Registries, episodes: list[Episode] | None = None, root: Path = Path(".")) -> dict[Path, str]:
    """Every committed benchmark file (path relative to the repository root → text): the first families, and
    the full benchmark when ``problems/MANIFEST.json`` records one (``hygiene-pddl build --full``)."""
    manifest_path = root / "problems" / "MANIFEST.json"
    if episodes is None:
        if manifest_path.exists():
            manifest = json.loads(manifest_path.read_text())
            episodes = manifest_episodes(reg, manifest)
        else:
            manifest, episodes = None, first_families()
    else:
        manifest = None
    files: dict[Path, str] = {}
    if manifest is not None:
        files[Path("problems") / "MANIFEST.json"] = manifest_path.read_text()
    domains: dict[str, FamilyDomain] = {}
    for ep in episodes:
        folder = Path("problems") / ep.family
        public, ref = episode_files(ep, reg)
        fd = FamilyDomain.of_instance(reg, instance_from_data(json.loads(public), reg, ep.id))
        domains.setdefault(fd.file_stem, fd)
        files[folder / f"{ep.id}.json"] = public
        files[folder / f"{ep.id}.reference.json"] = ref
        for name, text in compile_instance_files(reg, json.loads(public), ep.id).items():
            files[folder / name] = text
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

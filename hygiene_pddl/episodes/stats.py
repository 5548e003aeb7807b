"""The benchmark's composition (SPEC §9 rows), computed from the committed files."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from hygiene_pddl.episodes.builder import TARGETS
from hygiene_pddl.episodes.index import load_index


def composition(problems: Path | str) -> dict:
    idx = load_index(problems)
    infos = list(idx.instances.values())
    groups = Counter(i.activity_group for i in infos)
    crossed = sum(1 for i in infos if i.group)
    return {
        "instances": len(infos), "families": len({i.family for i in infos}),
        "groups": {g: groups.get(g, 0) for g in TARGETS["groups"]},
        "household_areas": len({i.household_area for i in infos}),
        "tiers": {t: sum(i.tier == t for i in infos) for t in TARGETS["tiers"]},
        "feasible": sum(i.feasible for i in infos), "infeasible": sum(not i.feasible for i in infos),
        "crossed": crossed,
        "prior_safe": sum(i.prior_violation and i.feasible for i in infos),
        "prior_unsafe": sum(i.prior_violation and not i.feasible for i in infos),
        "history_relevant": len(idx.pairs_of("history", "relevant")),
        "history_irrelevant": len(idx.pairs_of("history", "irrelevant")),
        "profile_general": len(idx.pairs_of("profile")),
        "profile_flip": len(idx.pairs_of("profile", "flip")),
        "profile_invariant": len(idx.pairs_of("profile", "invariant")),
        "event_relevant": sum(i.event == "relevant" and i.feasible and i.safe_prefix for i in infos),
        "event_irrelevant": sum(i.event == "irrelevant" and i.feasible and i.safe_prefix for i in infos),
        "event_families": len({i.family for i in infos if i.event != "none"}),
    }


def rows(comp: dict) -> list[tuple[str, object, object]]:
    out = []
    for key, want in TARGETS.items():
        if isinstance(want, dict):
            out += [(f"{key}: {k}", comp[key][k], v) for k, v in want.items()]
        else:
            out.append((key, comp[key], want))
    out.append(("household areas", comp["household_areas"], 7))
    return out

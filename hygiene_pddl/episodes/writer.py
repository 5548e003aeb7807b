"""Turn an episode description into the public instance and private assessment files."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from hygiene_pddl.instances.loader import instance_from_data
from hygiene_pddl.instances.model import Instance
from hygiene_pddl.literals import atom_text
from hygiene_pddl.registries import Registries
from hygiene_pddl.replay import replay


class Materialised(NamedTuple):
    """An episode's public instance: its canonical file text and the instance it resolves to."""

    text: str
    instance: Instance


@dataclass
class Episode:
    """Everything the builder decides for one instance; observations and R_t are derived by replay."""

    id: str
    family: str
    request: str
    goals: list[str]
    decision_time: int
    horizon: int
    objects: dict[str, str]
    facts: list[str]
    hazards: list[tuple[str, str, str]]  # (owner, part, hazard)
    stocks: dict[str, int]
    history: list[dict[str, Any]]
    profile: str
    known_events: list[int] = field(default_factory=list)
    reference: dict[str, Any] = field(default_factory=dict)
    _made: tuple[Registries, str, Materialised] | None = field(default=None, init=False, repr=False, compare=False)

    def all_goals(self, reg: Registries) -> list[str]:
        """The goals with the (safe x) goals that deliveries imply written out (format 2 states them)."""
        from hygiene_pddl.hygiene import HygieneRules
        from hygiene_pddl.literals import atom_from_text

        rules = HygieneRules(reg, self.objects, reg.families[self.family].hazards)
        implied = rules.implied_safe_goals([atom_from_text(g) for g in self.goals])
        return list(self.goals) + [atom_text(g) for g in implied]

    def public(self, reg: Registries) -> dict[str, Any]:
        """The public instance data (a fresh copy: the caller may change it)."""
        return json.loads(self.materialise(reg).text)

    def materialise(self, reg: Registries) -> Materialised:
        """The public file text and its resolved instance, computed once while the episode's fields (other
        than the reference, which the public file does not show) stay as they are."""
        key = repr([getattr(self, f.name) for f in dataclasses.fields(self) if f.name not in ("reference", "_made")])
        if self._made is None or self._made[0] is not reg or self._made[1] != key:
            self._made = (reg, key, self._materialise(reg))
        return self._made[2]

    def _materialise(self, reg: Registries) -> Materialised:
        fam = reg.families[self.family]
        data = {
            "format": "hygiene-pddl-instance/2", "id": self.id, "family": self.family, "request": self.request,
            "goals": self.all_goals(reg), "decision_time": self.decision_time, "horizon": self.horizon,
            "objects": dict(sorted(self.objects.items())),
            "initial": {"facts": sorted(self.facts),
                        "hazards": [{"carrier": [o, p], "hazard": h} for o, p, h in self.hazards],
                        "stocks": dict(sorted(self.stocks.items()))},
            "history": self.history, "observations": {"facts": []}, "resources": {},
            "known_events": self.known_events,
            "profile": {"name": self.profile, "order": list(reg.profiles[self.profile].order)},
            "registry": {"actions": sorted(fam.actions), "events": sorted(fam.events),
                         "hazards": sorted(fam.hazards),
                         "treatments": sorted({t for a in fam.actions
                                               for t in reg.actions[a].treatment_names})},
        }
        before = instance_from_data(data, reg, self.id)  # observations and R_t empty: the replay fills them
        state = replay(before, reg, check=False)
        data["observations"] = {"facts": sorted(atom_text(a) for a in state.facts)}
        data["resources"] = dict(state.stocks)
        inst = dataclasses.replace(before, observations=frozenset(state.facts),
                                   resources=tuple(sorted(dict(state.stocks).items())))
        return Materialised(dumps(data), inst)


def episode_files(ep: Episode, reg: Registries) -> tuple[str, str]:
    """The text of the public instance file and of the private assessment file."""
    fam = reg.families[ep.family]
    made = ep.materialise(reg)
    ref_data = {"format": "hygiene-pddl-reference/1", "instance": ep.id, "family": ep.family,
                "activity_group": fam.activity_group, "household_area": fam.household_area, **ep.reference}
    if "difficulty" not in ref_data:
        from hygiene_pddl.episodes.features import features, tier

        feats = features(reg, made.instance, replay(made.instance, reg))
        ref_data["difficulty"] = {"tier": tier(feats, fam.spec is not None), "features": feats}
    ref_data["design"] = {k: v for k, v in ref_data["design"].items() if k != "expect_infeasible"}
    return made.text, dumps(ref_data)


def write_episode(ep: Episode, reg: Registries, problems_dir: Path) -> list[Path]:
    """Write ``problems/<family>/<id>.json`` and ``<id>.reference.json``; return the paths."""
    folder = problems_dir / ep.family
    folder.mkdir(parents=True, exist_ok=True)
    public, ref = folder / f"{ep.id}.json", folder / f"{ep.id}.reference.json"
    public_text, ref_text = episode_files(ep, reg)
    public.write_text(public_text)
    ref.write_text(ref_text)
    return [public, ref]


def dumps(data: Any) -> str:
    """Canonical JSON text: sorted keys, two-space indent, trailing newline (byte-identical output)."""
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"

"""Small v2 instances for the exact search's tests, built as instance data and resolved by the loader."""

from __future__ import annotations

from hygiene_pddl.hygiene import HygieneRules
from hygiene_pddl.instances.loader import instance_from_data
from hygiene_pddl.instances.model import Instance
from hygiene_pddl.literals import atom_from_text, atom_text
from hygiene_pddl.registries import Registries
from hygiene_pddl.replay import replay

WATER_FIRST = "water_first"
TIME_FIRST = "time_first"


def instance(reg: Registries, name: str, *, objects: dict[str, str], facts: list[str], goals: list[str],
             actions: list[str], hazards: list[str], sources: list[tuple[str, str, str]] = (),
             stocks: dict[str, int] | None = None, time_left: int = 12, profile: str = WATER_FIRST,
             history: list[dict] = (), decision_time: int = 0, events: list[str] = (), fmt: int = 2) -> Instance:
    """An instance; observations and R_t are derived by replaying the history. Format 2 states the (safe x) goals
    that deliveries imply (they are added here); for format 1 the loader adds them and says so in its notes."""
    rules = HygieneRules(reg, objects, hazards)
    implied = rules.implied_safe_goals([atom_from_text(g) for g in goals]) if fmt >= 2 else []
    treatments = sorted({t for a in actions for t in reg.actions[a].treatment_names})
    data = {
        "format": f"hygiene-pddl-instance/{fmt}", "id": name, "family": "spoon_fruit", "request": f"test task {name}",
        "goals": list(goals) + [atom_text(g) for g in implied], "decision_time": decision_time,
        "horizon": decision_time + time_left, "objects": dict(sorted(objects.items())),
        "initial": {"facts": sorted(facts), "hazards": [{"carrier": [o, p], "hazard": h} for o, p, h in sources],
                    "stocks": dict(sorted((stocks or {}).items()))},
        "history": list(history), "observations": {"facts": []}, "resources": {}, "known_events": [],
        "profile": {"name": profile, "order": list(reg.profiles[profile].order)},
        "registry": {"actions": sorted(actions), "events": sorted(events), "hazards": sorted(hazards),
                     "treatments": treatments},
    }
    state = replay(instance_from_data(data, reg, name), reg, check=False)
    data["observations"] = {"facts": sorted(atom_text(a) for a in state.facts)}
    data["resources"] = dict(state.stocks)
    return instance_from_data(data, reg, name)


EMPTY = ["(empty left)", "(empty right)"]

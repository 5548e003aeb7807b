"""Longer tasks derived from committed instances, for measuring how planners scale with plan length.

The benchmark's tasks need at most 5 actions. :func:`scaled_instance_data` makes a longer task from one of
them: every delivered item (a goal ``(at X P)`` whose item starts somewhere) gets ``copies - 1`` look-alikes
``X2, X3, ...`` (names already taken are skipped) with the same type, the same initial facts and hazards, and
the same destination; the deadline grows by 4 TU per added delivery. History, profile, stocks and everything
else are kept, so the derived task has the same hygiene situation and roughly two more actions per copy.
Deterministic: same input, same output.
"""

from __future__ import annotations

import copy

from hygiene_pddl.literals import atom_from_text, atom_text


def delivered_items(data: dict) -> list[tuple[str, str]]:
    """(item, destination) of every goal ``(at X P)`` whose item has an initial ``(at X L)`` fact."""
    located = {a[1] for a in map(atom_from_text, data["initial"]["facts"]) if a[0] == "at"}
    out = []
    for goal in map(atom_from_text, data["goals"]):
        if goal[0] == "at" and len(goal) == 3 and goal[1] in located:
            out.append((goal[1], goal[2]))
    return out


def _fresh_names(item: str, count: int, taken: dict) -> list[str]:
    """``count`` names ``item2, item3, ...`` that are not object names yet (an existing ``item2`` is skipped)."""
    names, i = [], 2
    while len(names) < count:
        if f"{item}{i}" not in taken:
            names.append(f"{item}{i}")
        i += 1
    return names


def scaled_instance_data(data: dict, copies: int) -> dict:
    """Instance data with ``copies`` of every delivered item (``copies == 1`` returns an equal copy)."""
    if copies < 1:
        raise ValueError(f"copies must be at least 1, not {copies}")
    out = copy.deepcopy(data)
    items = delivered_items(data)
    if copies == 1 or not items:
        return out
    initial = [atom_from_text(f) for f in data["initial"]["facts"]]
    for item, place in items:
        about_item = [a for a in initial if item in a[1:]]
        for twin in _fresh_names(item, copies - 1, out["objects"]):
            out["objects"][twin] = out["objects"][item]
            twin_facts = [atom_text(tuple(twin if x == item else x for x in a)) for a in about_item]
            for key in ("initial", "observations"):
                out[key]["facts"] += twin_facts
            out["initial"]["hazards"] += [{**h, "carrier": [twin, h["carrier"][1]]}
                                          for h in data["initial"]["hazards"] if h["carrier"][0] == item]
            out["goals"].append(atom_text(("at", twin, place)))
            if atom_text(("safe", item)) in data["goals"]:  # format 2 states the safe delivery of each copy too
                out["goals"].append(atom_text(("safe", twin)))
    for key in ("initial", "observations"):
        out[key]["facts"] = sorted(set(out[key]["facts"]))
    out["objects"] = dict(sorted(out["objects"].items()))
    out["horizon"] = data["horizon"] + 4 * (copies - 1) * len(items)
    out["id"] = f"{data['id']}-x{copies}"
    return out

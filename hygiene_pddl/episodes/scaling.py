"""Longer tasks derived from committed instances, for measuring how planners scale with plan length.

The benchmark's tasks need at most 5 actions. :func:`scaled_instance_data` makes a longer task from one of
them: every delivered item (a goal ``(at X P)`` whose item starts somewhere) gets ``copies - 1`` look-alikes
``X2, X3, ...`` with the same type, the same initial facts and hazards, and the same destination; the deadline
grows by 4 TU per added delivery. History, profile, stocks and everything else are kept, so the derived task
has the same hygiene situation and roughly two more actions per copy. Deterministic: same input, same output.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable


def _atom(text: str) -> list[str]:
    return text.strip().strip("()").split()


def _render(parts: Iterable[str]) -> str:
    return "(" + " ".join(parts) + ")"


def delivered_items(data: dict) -> list[tuple[str, str]]:
    """(item, destination) of every goal ``(at X P)`` whose item has an initial ``(at X L)`` fact."""
    located = {_atom(f)[1] for f in data["initial"]["facts"] if _atom(f)[0] == "at"}
    out = []
    for goal in data["goals"]:
        parts = _atom(goal)
        if parts[0] == "at" and len(parts) == 3 and parts[1] in located:
            out.append((parts[1], parts[2]))
    return out


def scaled_instance_data(data: dict, copies: int) -> dict:
    """Instance data with ``copies`` of every delivered item (``copies == 1`` returns an equal copy)."""
    if copies < 1:
        raise ValueError(f"copies must be at least 1, not {copies}")
    out = copy.deepcopy(data)
    items = delivered_items(data)
    if copies == 1 or not items:
        return out
    for item, place in items:
        for i in range(2, copies + 1):
            twin = f"{item}{i}"
            if twin in out["objects"]:
                raise ValueError(f"cannot scale {data['id']}: object {twin!r} exists")
            out["objects"][twin] = out["objects"][item]
            for key in ("initial", "observations"):
                facts = out[key]["facts"]
                facts += [_render(twin if a == item else a for a in _atom(f)) for f in data["initial"]["facts"]
                          if item in _atom(f)[1:]]
            out["initial"]["hazards"] += [{**h, "carrier": [twin, h["carrier"][1]]}
                                          for h in data["initial"]["hazards"] if h["carrier"][0] == item]
            out["goals"].append(_render(("at", twin, place)))
    for key in ("initial", "observations"):
        out[key]["facts"] = sorted(set(out[key]["facts"]))
    out["objects"] = dict(sorted(out["objects"].items()))
    out["horizon"] = data["horizon"] + 4 * (copies - 1) * len(items)
    out["id"] = f"{data['id']}-x{copies}"
    return out

"""PDDL-legal names for registry things, with the reverse map that turns plans back into registry terms."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_LEGAL = re.compile(r"^[a-z][a-z0-9_-]*$")
#: Words a name must not collide with: PDDL keywords used as names and our own type names.
RESERVED = frozenset({"object", "gripper", "thing", "carrier", "hazard", "treatment", "either", "number",
                      "at", "over", "all", "start", "end", "and", "or", "not", "when", "forall", "exists",
                      "imply", "total-time", "total-cost"})


def legal(name: str) -> str:
    """Lower-case ``name`` and replace anything PDDL does not allow; must start with a letter."""
    out = re.sub(r"[^a-z0-9_-]", "-", name.lower())
    if not out or not out[0].isalpha():
        out = "n" + out
    return out


def carrier_name(owner: str, part: str) -> str:
    return f"{legal(owner)}-{legal(part)}"


@dataclass
class NameMap:
    """Registry term → PDDL name, and the reverse."""

    forward: dict[tuple[str, ...], str] = field(default_factory=dict)
    reverse: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def add(self, key: tuple[str, ...], preferred: str) -> str:
        if key in self.forward:
            return self.forward[key]
        name = preferred
        i = 2
        while name in self.reverse or name in RESERVED:
            name = f"{preferred}-{i}"
            i += 1
        if not _LEGAL.match(name):
            raise ValueError(f"cannot make a PDDL name from {key}")
        self.forward[key] = name
        self.reverse[name] = key
        return name

    def __getitem__(self, key: tuple[str, ...]) -> str:
        return self.forward[key]

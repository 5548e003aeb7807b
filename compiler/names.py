"""PDDL-legal names for registry things, with the reverse map that turns plans back into registry terms."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from hygiene_pddl.lexical import TEMPORAL_WORDS, VAL_KEYWORDS

_UNSAFE = ("Cc", "Zl", "Zp")  # control characters, line and paragraph separators
_LEGAL = re.compile(r"[a-z][a-z0-9_-]*")
#: Words a name must not collide with: VAL's keywords, the words of `at start` / `over all`, our own types.
RESERVED = VAL_KEYWORDS | TEMPORAL_WORDS | frozenset({"object", "gripper", "thing", "carrier", "hazard",
                                                      "treatment", "level", "total-cost"})


def legal(name: str) -> str:
    """Lower-case ``name`` and replace anything PDDL does not allow; must start with a letter."""
    out = re.sub(r"[^a-z0-9_-]", "-", name.lower())
    if not out or not ("a" <= out[0] <= "z"):
        out = "n" + out
    return out


def whole_name(name: str) -> str:
    """:func:`legal`, and a name of its own: a reserved word gets the suffix ``-name``."""
    out = legal(name)
    return f"{out}-name" if out in RESERVED else out


def comment_text(text: str) -> str:
    """``text`` as one line for a ``;`` comment: line breaks and other control characters escaped.

    A comment runs to the end of its line, so a newline in a request would end it and let the rest be read
    as PDDL; escaped, it stays text (``\\n``).
    """
    text = str(text)
    if text.isprintable():  # every unsafe character is unprintable: the common case needs no escaping
        return text
    return "".join(c.encode("unicode_escape").decode("ascii") if unicodedata.category(c) in _UNSAFE else c
                   for c in text)


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
        if not _LEGAL.fullmatch(name):
            raise ValueError(f"cannot make a PDDL name from {key}")
        self.forward[key] = name
        self.reverse[name] = key
        return name

    def __getitem__(self, key: tuple[str, ...]) -> str:
        return self.forward[key]

"""Task kinds: how a family's base task and its controlled variants are built (paper §III-B).

A family (a task-source registry entry) names its kind and binds the kind's roles to object types (object
names are the type names). For one *archetype* (a construction design) a kind returns the instances and
the controlled pairs among them: crossed-history 2x2 groups, relevant / irrelevant history pairs, profile
pairs, event contrasts, prior violations, infeasible stocks. The builder picks one archetype per family so
that the benchmark meets SPEC §9, then certifies and admits every instance.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from hygiene_pddl.registries.model import Family, Registries

STOCKS = {"water": 10, "cleaning_agent": 4, "spare_pads": 2, "disinfectant": 2}
P_SPARE, P_WATER, P_TIME, P_ENERGY = "spare_parts_first", "water_first", "time_first", "energy_first"


def act(name: str, args: list[str], start: int, duration: int) -> dict:
    return {"kind": "action", "name": name, "args": args, "start": start, "duration": duration}


def ev(name: str, args: list[str], time: int, note: str = "") -> dict:
    out = {"kind": "event", "name": name, "args": args, "start": time}
    return {**out, "note": note} if note else out


@dataclass(frozen=True)
class Draft:
    """One instance of an archetype, before the builder turns it into an Episode."""

    key: str
    history: list[dict]
    profile: str
    stocks: dict[str, int]
    goals: list[str]
    facts: list[str]
    hazards: list[tuple[str, str, str]]
    decision_time: int
    horizon: int
    event: str = "none"
    prior_violation: bool = False

    @property
    def known_events(self) -> list[int]:
        return [i for i, rec in enumerate(self.history) if rec["kind"] == "event"]


@dataclass(frozen=True)
class Design:
    """An archetype's instances and its controlled pairs (kind, label, key a, key b)."""

    drafts: list[Draft]
    pairs: list[tuple[str, str, str, str]] = field(default_factory=list)
    crossed: bool = False


@dataclass(frozen=True)
class Roles:
    reg: Registries
    family: Family

    @property
    def types(self) -> dict[str, str]:
        return dict(self.family.object_roles)

    def name(self, role: str) -> str:
        return self.types[role]

    def grasp(self, role: str) -> str:
        return self.reg.object_types[self.types[role]].grasp[0]

    @property
    def objects(self) -> dict[str, str]:
        return {otype: otype for otype in self.types.values()}


# --- guarded delivery ---------------------------------------------------------------------------


def _guarded(
    r: Roles, key: str, touch: str, brush: str | None, profile: str, stocks: dict | None = None, event: str = "none"
) -> Draft:
    """touch: 'late' (the free right pad touches the held tool after both washes: it needs a treatment) or
    'early' (before them: washed off). brush: gripper whose side pad brushes the source at t, or None."""
    item, tool, source, surface = (r.name(x) for x in ("item", "tool", "source", "surface"))
    hist = [
        act("pick", ["left", source, r.grasp("source"), surface], 0, 1),
        act("place", ["left", source, surface], 1, 1),
        act("pick", ["left", tool, r.grasp("tool"), surface], 2, 1),
        act("place", ["left", tool, surface], 3, 1),
    ]
    touch_ev = ev("pad-touch", ["right", tool, r.grasp("tool")], 0, f"the right pad touches the {tool}")
    if touch == "early":
        hist.append({**touch_ev, "start": 4})
    hist += [
        act("wash-pad", ["left"], 4, 3),
        act("wash-pad", ["right"], 7, 3),
        act("pick", ["left", tool, r.grasp("tool"), surface], 10, 1),
    ]
    if touch == "late":
        hist.append({**touch_ev, "start": 11})
    if brush:
        hist.append(
            ev("side-brush", [brush, source, r.grasp("source")], 11, f"the {brush} side pad brushes the {source}")
        )
    facts = [f"(at {o} {surface})" for o in (item, tool, source, r.name("receptacle"))] + [
        "(empty left)",
        "(empty right)",
    ]
    return Draft(
        key,
        hist,
        profile,
        stocks or STOCKS,
        [f"(at {item} {r.name('receptacle')})"],
        facts,
        [(source, r.grasp("source"), r.family.hazards[0])],
        11,
        16,
        event,
    )


def guarded(r: Roles, archetype: str) -> Design | None:
    g = _guarded
    if archetype == "crossed":
        d = [g(r, f"{t}-{b}", t, b, P_SPARE) for t in ("late", "early") for b in ("left", "right")]
        pairs = [("history", "relevant", f"late-{b}", f"early-{b}") for b in ("left", "right")]
        pairs += [("history", "irrelevant", f"{t}-left", f"{t}-right") for t in ("late", "early")]
        return Design(d, pairs, crossed=True)
    if archetype == "hist_rel":
        return Design(
            [g(r, "late", "late", None, P_WATER), g(r, "early", "early", None, P_WATER)],
            [("history", "relevant", "late", "early")],
        )
    if archetype == "hist_irr":
        return Design(
            [g(r, "brush-left", "late", "left", P_SPARE), g(r, "brush-right", "late", "right", P_SPARE)],
            [("history", "irrelevant", "brush-left", "brush-right")],
        )
    if archetype == "hist_profile":
        d = [g(r, f"{t}-{p.split('_')[0]}", t, None, p) for t in ("late", "early") for p in (P_SPARE, P_WATER)]
        pairs = [("history", "relevant", f"late-{p}", f"early-{p}") for p in ("spare", "water")]
        pairs += [("profile", "general", f"{t}-spare", f"{t}-water") for t in ("late", "early")]
        return Design(d, pairs)
    if archetype == "profile_flip":
        return Design(
            [g(r, "spare", "late", None, P_SPARE), g(r, "water", "late", None, P_WATER)],
            [("profile", "flip", "spare", "water")],
        )
    if archetype == "profile_invariant":
        no_spares = {**STOCKS, "spare_pads": 0}
        return Design(
            [g(r, "spare", "late", None, P_SPARE, no_spares), g(r, "water", "late", None, P_WATER, no_spares)],
            [("profile", "invariant", "spare", "water")],
        )
    if archetype == "events":
        d = [g(r, f"rel-{p.split('_')[0]}", "late", None, p, event="relevant") for p in (P_SPARE, P_WATER)]
        d += [g(r, f"irr-{p.split('_')[0]}", "early", "left", p, event="irrelevant") for p in (P_SPARE, P_WATER)]
        pairs = [("profile", "general", f"{e}-spare", f"{e}-water") for e in ("rel", "irr")]
        return Design(d, pairs)
    if archetype == "infeasible_stock":
        return Design([g(r, "no-stock", "late", None, P_SPARE, {"water": 4, "cleaning_agent": 2, "spare_pads": 0})])
    return None


# --- process coupling (hot-cocoa-like) ------------------------------------------------------------


def _process(r: Roles, key: str, profile: str, brush: str | None) -> Draft:
    vessel, appliance, topping, target, heater, surface = (
        r.name(x) for x in ("vessel", "appliance", "topping", "target", "heater", "surface")
    )
    hist = [
        act("pick", ["right", vessel, r.grasp("vessel"), surface], 0, 1),
        act("place", ["right", vessel, appliance], 1, 1),
    ]
    if brush:
        hist.append(
            ev("side-brush", [brush, vessel, r.grasp("vessel")], 2, f"the {brush} side pad brushes the {vessel}")
        )
    facts = [
        f"(at {vessel} {surface})",
        f"(filled {vessel})",
        f"(at {target} {surface})",
        f"(at {topping} {surface})",
        "(empty left)",
        "(empty right)",
    ]
    goals = [f"(has-cocoa {target})", f"(melted {topping})"]
    return Draft(key, hist, profile, STOCKS, goals, facts, [(vessel, r.grasp("vessel"), r.family.hazards[0])], 2, 27)


def process(r: Roles, archetype: str) -> Design | None:
    if archetype == "profile_invariant":
        return Design(
            [_process(r, "time", P_TIME, None), _process(r, "energy", P_ENERGY, None)],
            [("profile", "invariant", "time", "energy")],
        )
    if archetype == "profile_general":
        return Design(
            [_process(r, "time", P_TIME, None), _process(r, "water", P_WATER, None)],
            [("profile", "general", "time", "water")],
        )
    if archetype == "hist_irr_profile":
        d = [_process(r, f"{b}-{p.split('_')[0]}", p, b) for b in ("left", "right") for p in (P_TIME, P_ENERGY)]
        pairs = [("history", "irrelevant", f"left-{p}", f"right-{p}") for p in ("time", "energy")]
        pairs += [("profile", "general", f"{b}-time", f"{b}-energy") for b in ("left", "right")]
        return Design(d, pairs)
    return None


# --- rescue item (prior violation) ------------------------------------------------------------------


def _rescue(r: Roles, key: str, profile: str) -> Draft:
    item, source, surface, receptacle = (r.name(x) for x in ("item", "source", "surface", "receptacle"))
    hist = [
        act("pick", ["left", source, r.grasp("source"), surface], 0, 1),
        act("place", ["left", source, surface], 1, 1),
        act("pick", ["left", item, r.grasp("item"), surface], 2, 1),
        act("place", ["left", item, surface], 3, 1),
        act("wash-pad", ["left"], 4, 3),
    ]
    facts = [f"(at {o} {surface})" for o in (item, source, receptacle)] + ["(empty left)", "(empty right)"]
    return Draft(
        key,
        hist,
        profile,
        STOCKS,
        [f"(at {item} {receptacle})", f"(safe {item})"],
        facts,
        [(source, r.grasp("source"), r.family.hazards[0])],
        7,
        15,
        prior_violation=True,
    )


def rescue(r: Roles, archetype: str) -> Design | None:
    if archetype == "prior_single":
        return Design([_rescue(r, "one", P_WATER)])
    if archetype == "prior_profiles":
        return Design(
            [_rescue(r, "spare", P_SPARE), _rescue(r, "water", P_WATER)], [("profile", "general", "spare", "water")]
        )
    return None


KINDS: dict[str, tuple[tuple[str, ...], Callable[[Roles, str], Design | None]]] = {
    "guarded_delivery": (
        (
            "crossed",
            "hist_rel",
            "hist_irr",
            "hist_profile",
            "profile_flip",
            "profile_invariant",
            "events",
            "infeasible_stock",
        ),
        guarded,
    ),
    "process_coupling": (("profile_invariant", "profile_general", "hist_irr_profile"), process),
    "rescue_item": (("prior_single", "prior_profiles"), rescue),
}

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


def touch_and_put_back(r: Roles, roles: tuple[str, ...], surface: str, start: int = 0) -> list[dict]:
    """The left gripper picks each role's object from ``surface`` and puts it back, one TU each step."""
    out = []
    for k, role in enumerate(roles):
        obj, t = r.name(role), start + 2 * k
        out += [act("pick", ["left", obj, r.grasp(role), surface], t, 1),
                act("place", ["left", obj, surface], t + 1, 1)]
    return out


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
    #: a data family's draft designed to have no safe continuation (its ``infeasible`` or ``prior_infeasible``)
    expect_infeasible: bool = False

    @property
    def known_events(self) -> list[int]:
        return [i for i, rec in enumerate(self.history) if rec["kind"] == "event"]


@dataclass(frozen=True)
class Design:
    """An archetype's instances and its controlled pairs (kind, label, key a, key b)."""

    drafts: list[Draft]
    pairs: list[tuple[str, str, str, str]] = field(default_factory=list)
    crossed: bool = False  # the first four drafts form a crossed-history 2x2 group

    @property
    def group_keys(self) -> set[str]:
        return {d.key for d in self.drafts[:4]} if self.crossed else set()


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
        """Object name -> type: a data family names its objects; a v1 family's objects are named after types."""
        if self.family.spec is not None:
            return dict(self.family.spec.objects)
        return {otype: otype for otype in self.types.values()}


# --- guarded delivery ---------------------------------------------------------------------------


def _guarded(
    r: Roles, key: str, touch: str, brush: str | None, profile: str, stocks: dict | None = None, event: str = "none"
) -> Draft:
    """touch: 'late' (the free right pad touches the held tool after both washes: it needs a treatment) or
    'early' (before them: washed off). brush: gripper whose side pad brushes the source at t, or None."""
    item, tool, source, surface = (r.name(x) for x in ("item", "tool", "source", "surface"))
    hist = touch_and_put_back(r, ("source", "tool"), surface)
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


P_WASTE, P_CHEM = "waste_first", "chemicals_first"


def guarded(r: Roles, archetype: str) -> Design | None:
    g = _guarded
    short = {P_SPARE: "spare", P_WATER: "water", P_TIME: "time", P_WASTE: "waste", P_CHEM: "chem", P_ENERGY: "energy"}
    if archetype in ("crossed", "crossed_prior", "crossed_plus2", "crossed_plus4", "crossed_prof_f", "crossed_inf"):
        d = [g(r, f"{t}-{b}", t, b, P_SPARE) for t in ("late", "early") for b in ("left", "right")]
        pairs = [("history", "relevant", f"late-{b}", f"early-{b}") for b in ("left", "right")]
        pairs += [("history", "irrelevant", f"{t}-left", f"{t}-right") for t in ("late", "early")]
        if archetype == "crossed_prior":
            late_right = d[1]
            hist = list(late_right.history)
            hist.insert(
                4,
                ev(
                    "pad-touch",
                    ["left", r.name("item"), r.grasp("item")],
                    4,
                    "the dirty left pad brushes the item: a violation on record",
                ),
            )
            d[1] = Draft(
                late_right.key,
                hist,
                late_right.profile,
                late_right.stocks,
                late_right.goals,
                late_right.facts,
                late_right.hazards,
                late_right.decision_time,
                late_right.horizon,
                prior_violation=True,
            )
        extra = []
        if archetype == "crossed_inf":
            extra = [g(r, "no-stock", "late", None, P_TIME, {"water": 4, "cleaning_agent": 2, "spare_pads": 0})]
        if archetype == "crossed_plus2":
            extra = [g(r, "late-water", "late", None, P_WATER), g(r, "early-water", "early", None, P_WATER)]
            pairs.append(("history", "relevant", "late-water", "early-water"))
        if archetype == "crossed_plus4":
            extra = [g(r, f"{t}-{short[p]}", t, None, p) for t in ("late", "early") for p in (P_WATER, P_TIME)]
            pairs += [("history", "relevant", f"late-{short[p]}", f"early-{short[p]}") for p in (P_WATER, P_TIME)]
            pairs += [("profile", "general", f"{t}-water", f"{t}-time") for t in ("late", "early")]
        if archetype == "crossed_prof_f":
            extra = [
                g(r, "late-left-water", "late", "left", P_WATER),
                g(r, "early-left-water", "early", "left", P_WATER),
            ]
            pairs += [
                ("profile", "flip", "late-left", "late-left-water"),
                ("profile", "general", "early-left", "early-left-water"),
                ("history", "relevant", "late-left-water", "early-left-water"),
            ]
        return Design(d + extra, pairs, crossed=True)
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
    if archetype in ("hp", "hp_f", "hp_infeasible"):
        p2 = P_WATER if archetype == "hp_f" else P_WASTE
        d = [g(r, f"{t}-{short[p]}", t, None, p) for t in ("late", "early") for p in (P_SPARE, p2)]
        pairs = [("history", "relevant", f"late-{short[p]}", f"early-{short[p]}") for p in (P_SPARE, p2)]
        pairs += [
            (
                "profile",
                "flip" if (t == "late" and archetype == "hp_f") else "general",
                f"{t}-spare",
                f"{t}-{short[p2]}",
            )
            for t in ("late", "early")
        ]
        if archetype == "hp_infeasible":
            d.append(g(r, "no-stock", "late", None, P_TIME, {"water": 4, "cleaning_agent": 2, "spare_pads": 0}))
        return Design(d, pairs)
    if archetype in ("hp4_plus1", "hp4_plus1_f"):
        profiles = (
            (P_SPARE, P_WATER, P_TIME, P_CHEM) if archetype.endswith("_f") else (P_SPARE, P_WASTE, P_TIME, P_CHEM)
        )
        d = [g(r, f"{t}-{short[p]}", t, None, p) for t in ("late", "early") for p in profiles]
        pairs = [("history", "relevant", f"late-{short[p]}", f"early-{short[p]}") for p in profiles]
        for t in ("late", "early"):
            for i, p in enumerate(profiles):
                for q in profiles[i + 1 :]:
                    flip = archetype.endswith("_f") and t == "late" and {p, q} == {P_SPARE, P_WATER}
                    pairs.append(("profile", "flip" if flip else "general", f"{t}-{short[p]}", f"{t}-{short[q]}"))
        d.append(g(r, "late-left-energy", "late", "left", P_ENERGY))
        return Design(d, pairs)
    if archetype in ("profile4", "profile5"):
        profiles = (P_SPARE, P_WASTE, P_TIME, P_CHEM, P_ENERGY)[: int(archetype[-1])]
        d = [g(r, short[p], "late", None, p) for p in profiles]
        pairs = [("profile", "general", short[p], short[q]) for i, p in enumerate(profiles) for q in profiles[i + 1 :]]
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
    if archetype == "events_f":
        d = [g(r, f"rel-{short[p]}", "late", None, p, event="relevant") for p in (P_SPARE, P_WATER)]
        d += [g(r, f"irr-{short[p]}", "early", "left", p, event="irrelevant") for p in (P_SPARE, P_WATER)]
        return Design(
            d, [("profile", "flip", "rel-spare", "rel-water"), ("profile", "general", "irr-spare", "irr-water")]
        )
    if archetype in ("events", "events3", "events1", "events4"):
        profiles = {
            "events": (P_SPARE, P_WASTE),
            "events3": (P_SPARE, P_WASTE, P_TIME),
            "events1": (P_SPARE,),
            "events4": (P_SPARE, P_WASTE, P_TIME, P_CHEM),
        }[archetype]
        d = [g(r, f"rel-{short[p]}", "late", None, p, event="relevant") for p in profiles]
        d += [g(r, f"irr-{short[p]}", "early", "left", p, event="irrelevant") for p in profiles]
        pairs = [
            ("profile", "general", f"{e}-{short[p]}", f"{e}-{short[q]}")
            for e in ("rel", "irr")
            for i, p in enumerate(profiles)
            for q in profiles[i + 1 :]
        ]
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
    if archetype in ("p_profile3", "p_profile4", "p_profile5"):
        profiles = (P_TIME, P_ENERGY, P_WATER, P_SPARE, P_WASTE)[: int(archetype[-1])]
        d = [_process(r, p.split("_")[0], p, None) for p in profiles]
        pairs = [
            ("profile", "invariant" if {p, q} == {P_TIME, P_ENERGY} else "general", p.split("_")[0], q.split("_")[0])
            for i, p in enumerate(profiles)
            for q in profiles[i + 1 :]
        ]
        return Design(d, pairs)
    if archetype == "p_single":
        return Design([_process(r, "time", P_TIME, None)])
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
    hist = [*touch_and_put_back(r, ("source", "item"), surface), act("wash-pad", ["left"], 4, 3)]
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


def _clean(d: Draft) -> Draft:
    """The same story without the violating touch: the item stays clean (no prior violation)."""
    hist = [
        h
        for h in d.history
        if not (
            h["kind"] == "action" and h["name"] in ("pick", "place") and h["args"][1] == d.goals[1][len("(safe ") : -1]
        )
    ]
    return Draft(d.key, hist, d.profile, d.stocks, d.goals, d.facts, d.hazards, d.decision_time, d.horizon)


def rescue(r: Roles, archetype: str) -> Design | None:
    if archetype in ("clean_profiles3", "clean_profiles4"):
        profiles = (P_SPARE, P_WATER, P_TIME, P_WASTE)[: int(archetype[-1])]
        keys = {p: f"clean-{p.split('_')[0]}" for p in profiles}
        d = [_clean(_rescue(r, keys[p], p)) for p in profiles]
        pairs = [("profile", "general", keys[p], keys[q]) for i, p in enumerate(profiles) for q in profiles[i + 1:]]
        return Design(d, pairs)
    if archetype == "clean_pair":
        return Design(
            [_clean(_rescue(r, "clean-spare", P_SPARE)), _clean(_rescue(r, "clean-water", P_WATER))],
            [("profile", "general", "clean-spare", "clean-water")],
        )
    if archetype == "clean_single":
        return Design([_clean(_rescue(r, "clean", P_WATER))])
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
            "crossed_plus2",
            "crossed_prior",
            "crossed_prof_f",
            "crossed_inf",
            "crossed_plus4",
            "hp",
            "hp_f",
            "hp4_plus1",
            "hp4_plus1_f",
            "events",
            "events3",
            "events1",
            "events4",
            "events_f",
            "profile4",
            "profile5",
            "profile_flip",
            "profile_invariant",
            "hp_infeasible",
            "hist_rel",
            "hist_irr",
            "infeasible_stock",
        ),
        guarded,
    ),
    "process_coupling": (
        (
            "p_profile3",
            "p_profile4",
            "p_profile5",
            "profile_general",
            "profile_invariant",
            "hist_irr_profile",
            "p_single",
        ),
        process,
    ),
    "rescue_item": (
        ("prior_single", "prior_profiles", "clean_pair", "clean_single", "clean_profiles3", "clean_profiles4"),
        rescue,
    ),
}

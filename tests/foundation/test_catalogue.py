"""The task-source registry at full size (issue 6, SPEC §9): 134 families adapted from BEHAVIOR-1K activities,
spread over the five activity groups and seven household areas, each a well-formed instance of its kind."""

from __future__ import annotations

import re
from collections import Counter

from hygiene_pddl.hygiene import HygieneRules

#: families per activity group, proportional to the paper's instance counts (126/138/130/112/118 of 624)
GROUP_TARGETS = {"food_preparation": 27, "dishware_and_dining": 30, "cleaning_and_laundry": 28,
                 "bedroom_and_storage": 24, "pet_and_household_care": 25}
LEGACY = {"spoon_fruit", "bowl_to_sink", "hot_cocoa"}  # the hand-written first families (issue 2), kept as they are
ROLES = {
    "guarded_delivery": {"item", "receptacle", "tool", "source", "surface"},
    "process_coupling": {"vessel", "appliance", "topping", "target", "heater", "surface"},
    "rescue_item": {"item", "receptacle", "source", "surface"},
}
ACTIONS = {
    "guarded_delivery": ("pick", "place", "wash-pad", "replace-pad"),
    "process_coupling": ("pick", "place", "pour", "cook", "add-while-cooking", "add-into", "microwave-heat",
                         "wash-pad", "replace-pad"),
    "rescue_item": ("pick", "place", "wash-item", "wash-pad", "replace-pad"),
}
EVENTS = {"guarded_delivery": ("pad-touch", "side-brush"), "process_coupling": ("side-brush",),
          "rescue_item": ("pad-touch",)}
PAD = "silicone"


def _benchmark(reg):
    """The v1 benchmark's families: not the hand-checked mechanics examples (mech_*) nor the v2 data families."""
    return {n: f for n, f in reg.families.items() if f.kind != "data" and not n.startswith("mech_")}


def _kinded(reg):
    return {n: f for n, f in _benchmark(reg).items() if f.kind != "first_family"}


def _roles(fam) -> dict[str, str]:
    return dict(fam.object_roles)


def _rules(reg, fam) -> HygieneRules:
    # objects are named after their roles here; names never matter to the rules, only types do
    return HygieneRules(reg, _roles(fam))


def _grasp(reg, fam, role) -> str:
    return reg.object_types[_roles(fam)[role]].grasp[0]


def _material(reg, fam, role, region) -> str:
    return reg.object_types[_roles(fam)[role]].region(region).material


# ------------------------------------------------------------------------------------------ composition

def test_134_families(reg):
    assert len(_benchmark(reg)) == 134


def test_legacy_families_kept(reg):
    assert LEGACY <= set(_benchmark(reg))
    assert {n for n, f in _benchmark(reg).items() if f.kind == "first_family"} == LEGACY


def test_families_per_activity_group(reg):
    counts = Counter(f.activity_group for f in _benchmark(reg).values())
    assert set(counts) == set(GROUP_TARGETS)
    for group, target in GROUP_TARGETS.items():
        assert abs(counts[group] - target) <= 3, (group, counts[group], target)


def test_every_household_area_used_at_least_eight_times(reg):
    counts = Counter(f.household_area for f in _benchmark(reg).values())
    assert set(counts) == set(reg.household_areas) and len(counts) == 7
    assert min(counts.values()) >= 8, counts


def test_kinds_spread(reg):
    kinds = Counter(f.kind for f in _kinded(reg).values())
    assert 90 <= kinds["guarded_delivery"] <= 105
    assert 10 <= kinds["process_coupling"] <= 14
    assert 18 <= kinds["rescue_item"] <= 26
    for kind in ROLES:  # every kind appears in at least two groups
        groups = {f.activity_group for f in _kinded(reg).values() if f.kind == kind}
        assert len(groups) >= 2, (kind, groups)
    pc = Counter(f.activity_group for f in _kinded(reg).values() if f.kind == "process_coupling")
    assert pc["food_preparation"] + pc["dishware_and_dining"] > sum(pc.values()) / 2


def test_source_activities_vary(reg):
    acts = [f.source_activity for f in _benchmark(reg).values()]
    assert len(set(acts)) >= 100
    assert max(Counter(acts).values()) <= 2


def test_each_group_has_its_own_protected_items(reg):
    owner: dict[str, set[str]] = {}
    for f in _kinded(reg).values():
        r = _roles(f)
        for role in ("item", "target"):
            if role in r:
                owner.setdefault(r[role], set()).add(f.activity_group)
    shared = {t: g for t, g in owner.items() if len(g) > 1}
    assert not shared, shared


# ------------------------------------------------------------------------------------------ every family

def test_roles_actions_events_hazard_match_the_kind(reg):
    for name, f in _kinded(reg).items():
        assert f.kind in ROLES, name
        assert set(_roles(f)) == ROLES[f.kind], name
        assert f.actions == ACTIONS[f.kind], name
        assert f.events == EVENTS[f.kind], name
        assert len(f.hazards) == 1, name


def test_distinct_object_types_per_family(reg):
    for name, f in _benchmark(reg).items():
        types = [t for _, t in f.object_roles]
        assert len(types) == len(set(types)), (name, types)


def test_requests(reg):
    for name, f in _kinded(reg).items():
        assert 3 <= len(f.requests) <= 5, name
        norm = [" ".join(r.lower().split()) for r in f.requests]
        assert len(set(norm)) == len(norm), name
        words = {w for _, t in f.object_roles for w in t.split("_") if len(w) >= 3}
        for req in f.requests:
            assert req[0].isupper() and req.rstrip()[-1] in ".?!", (name, req)
            found = set(re.findall(r"[a-z]+", req.lower()))
            assert words & found, (name, req, "names none of the family's objects")


def test_service_goals_are_one_sentence(reg):
    for name, f in _kinded(reg).items():
        goal = f.service_goal.strip()
        assert goal.endswith(".") and goal.count(". ") == 0, (name, goal)


# ------------------------------------------------------------------------------------------ guarded delivery

def _check_place_unprotected(reg, f, role, hazard):
    otype = reg.object_types[_roles(f)[role]]
    assert otype.is_place and otype.surface, (f.name, role)
    assert hazard not in _rules(reg, f).protected((role, otype.surface)), (f.name, role)


def test_guarded_delivery_families(reg):
    fams = [f for f in _kinded(reg).values() if f.kind == "guarded_delivery"]
    assert fams
    for f in fams:
        (h,) = f.hazards
        rules, types = _rules(reg, f), {role: reg.object_types[t] for role, t in f.object_roles}
        hz = reg.hazards[h]
        # the item is protected against the hazard on every region (object-level tag) and the pad can reach it
        item = types["item"]
        assert item.is_item and item.tags, f.name
        for region in item.regions:
            assert h in rules.protected(("item", region.name)), (f.name, region.name)
        assert hz.transfers_between(PAD, _material(reg, f, "item", _grasp(reg, f, "item"))), f.name
        # the tool takes the hazard from the pad and gives it back, and is not itself protected against it
        tool_grasp = _grasp(reg, f, "tool")
        tm = _material(reg, f, "tool", tool_grasp)
        assert types["tool"].is_item, f.name
        assert hz.transfers_between(PAD, tm) and hz.transfers_between(tm, PAD), (f.name, tm)
        assert h not in rules.protected(("tool", tool_grasp)), f.name
        # the source's first grasp region carries the hazard: it reaches the pad; it is not a protected region
        src_grasp = _grasp(reg, f, "source")
        assert types["source"].is_item, f.name
        assert hz.transfers_between(_material(reg, f, "source", src_grasp), PAD), f.name
        assert h not in rules.protected(("source", src_grasp)), f.name
        # placing a contaminated tool or source never puts its grasp region on the surface
        assert types["tool"].base != tool_grasp and types["source"].base != src_grasp, f.name
        # the receptacle rests on the surface with the others (an (at receptacle surface) fact): kind both
        assert types["receptacle"].kind == "both", f.name
        _check_place_unprotected(reg, f, "receptacle", h)
        _check_place_unprotected(reg, f, "surface", h)
        assert types["surface"].kind == "place", f.name


# ------------------------------------------------------------------------------------------ process coupling

def test_process_coupling_families(reg):
    fams = [f for f in _kinded(reg).values() if f.kind == "process_coupling"]
    assert fams
    for f in fams:
        (h,) = f.hazards
        rules, types = _rules(reg, f), {role: reg.object_types[t] for role, t in f.object_roles}
        vessel, topping, target = types["vessel"], types["topping"], types["target"]
        assert vessel.is_item and vessel.grasp[0] == "handle" and vessel.surface, f.name
        assert "food_contact" in vessel.region(vessel.surface).tags, f.name
        assert "cooktop" in types["appliance"].static and types["appliance"].kind == "place", f.name
        assert "heater" in types["heater"].static and types["heater"].kind == "place", f.name
        assert topping.is_item and topping.surface == "contents", f.name
        assert "ready_to_eat" in topping.region("contents").tags, f.name
        assert h in rules.protected(("topping", "contents")), f.name
        assert target.kind == "both" and "food_contact" in target.region(target.surface).tags, f.name
        assert h in rules.protected(("target", target.surface)), f.name
        assert types["surface"].kind == "place", f.name


# ------------------------------------------------------------------------------------------ rescue item

def test_rescue_item_families(reg):
    fams = [f for f in _kinded(reg).values() if f.kind == "rescue_item"]
    assert fams
    unsafe = 0
    for f in fams:
        (h,) = f.hazards
        rules, types = _rules(reg, f), {role: reg.object_types[t] for role, t in f.object_roles}
        grasp = _grasp(reg, f, "item")
        material = _material(reg, f, "item", grasp)
        assert types["item"].is_item and h in rules.protected(("item", grasp)), f.name
        assert reg.hazards[h].transfers_between(PAD, material), f.name  # the earlier pad touch reached the item
        src_grasp = _grasp(reg, f, "source")
        assert reg.hazards[h].transfers_between(_material(reg, f, "source", src_grasp), PAD), f.name
        assert h not in rules.protected(("source", src_grasp)), f.name
        assert types["receptacle"].kind == "both", f.name
        _check_place_unprotected(reg, f, "receptacle", h)
        _check_place_unprotected(reg, f, "surface", h)
        unsafe += not reg.treatments["wash"].removes_from(h, material)
    # about 40% have no safe continuation: washing does not take the hazard off the item's material
    assert 0.3 <= unsafe / len(fams) <= 0.5, (unsafe, len(fams))
    assert 0 < unsafe < len(fams)


# ------------------------------------------------------------------------------------------ hygiene rules

def test_every_hazard_and_tag_used_is_cited_and_washable_off_a_pad(reg):
    sources = dict(reg.sources)
    used = {h for f in _kinded(reg).values() for h in f.hazards}
    for h in used:
        assert reg.hazards[h].source in sources, h
        # guarded histories wash both pads before the decision: every hazard a family uses must come off silicone
        assert reg.treatments["wash"].removes_from(h, PAD), h
    for tag, p in reg.protection.items():
        assert p.source in sources, tag

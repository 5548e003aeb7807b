"""Property-based tests (hypothesis): determinism, monotone contamination, treatment soundness.

The oracles read the registry YAML files directly, not through the library's model.
"""

from __future__ import annotations

import json
import random

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hygiene_pddl.hygiene import HygieneRules
from hygiene_pddl.instances import load_instance
from hygiene_pddl.instances.loader import instance_from_data
from hygiene_pddl.replay import replay
from hygiene_pddl.replay_view import replay_json, replay_text
from tests.benchmark_files import instances as first_family_instances

from .helpers import DATA_DIR, PROBLEMS, make_world, read_json, state

RAW = {
    n: yaml.safe_load((DATA_DIR / f"{n}.yaml").read_text())
    for n in ("task_sources", "hygiene_rules", "actions")
}
HAZARDS = sorted(RAW["hygiene_rules"]["hazards"])
TREATMENTS = sorted(RAW["hygiene_rules"]["treatments"])
OBJECTS = {
    "apple": "apple",
    "spoon": "spoon",
    "tray": "tray",
    "counter": "counter",
    "plate": "plate",
    "pot": "pot",
    "microwave": "microwave",
    "table": "table",
    "snack": "snack_bag",
    "bin": "bin",
}
GRIPPERS = RAW["actions"]["robot"]["grippers"]
PARTS = RAW["actions"]["robot"]["parts"]
CARRIERS = sorted(
    [(g, p) for g in GRIPPERS for p in PARTS]
    + [
        (o, r)
        for o, t in OBJECTS.items()
        for r in RAW["task_sources"]["object_types"][t]["regions"]
    ]
)
INSTANCES = first_family_instances()
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def oracle_material(c):
    owner, part = c
    if owner in GRIPPERS:
        return PARTS[part]["material"]
    return RAW["task_sources"]["object_types"][OBJECTS[owner]]["regions"][part]["material"]


def oracle_protected(c):
    owner, part = c
    if owner in GRIPPERS:
        return set()
    otype = RAW["task_sources"]["object_types"][OBJECTS[owner]]
    tags = set(otype.get("tags", [])) | set(otype["regions"][part].get("tags", []))
    prot = RAW["hygiene_rules"]["protection"]
    return {h for t in tags for h in prot[t]["against"]}


def oracle_crosses(hazard, src, dst):
    pairs = RAW["hygiene_rules"]["hazards"][hazard]["transfers"]
    ms, md = oracle_material(src), oracle_material(dst)
    return any(x in ("*", ms) and y in ("*", md) for x, y in pairs)


def oracle_removes(treatment, c, hazard):
    t = RAW["hygiene_rules"]["treatments"][treatment]
    if t.get("removes_all"):
        return True
    mats = t.get("removes", {}).get(hazard)
    return mats is not None and ("*" in mats or oracle_material(c) in mats)


carriers = st.sampled_from(CARRIERS)
hazard_sets = st.frozensets(st.sampled_from(HAZARDS), max_size=len(HAZARDS))
initial = st.dictionaries(carriers, hazard_sets.filter(bool), max_size=6)


# --- determinism ---------------------------------------------------------------------------------


def _shuffled(value, rnd: random.Random):
    """The same JSON value with every object's keys in a random insertion order."""
    if isinstance(value, dict):
        keys = list(value)
        rnd.shuffle(keys)
        return {k: _shuffled(value[k], rnd) for k in keys}
    if isinstance(value, list):
        return [_shuffled(v, rnd) for v in value]
    return value


@pytest.mark.parametrize("path", INSTANCES, ids=lambda p: p.stem)
def test_replay_twice_gives_equal_results(reg, path):
    a = replay(load_instance(path), reg)
    b = replay(load_instance(path), reg)
    assert a == b
    assert json.dumps(replay_json(a), sort_keys=True) == json.dumps(replay_json(b), sort_keys=True)
    assert replay_text(a) == replay_text(b)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path=st.sampled_from(INSTANCES), rnd=st.randoms(use_true_random=False))
def test_replay_ignores_the_key_order_of_the_input_json(reg, path, rnd):
    base = replay(load_instance(path), reg)
    shuffled = _shuffled(read_json(path), rnd)
    res = replay(instance_from_data(shuffled, reg, path.stem), reg)
    assert res == base
    assert replay_json(res) == replay_json(base)
    assert replay_text(res) == replay_text(base)


# --- without treatments contamination only grows -------------------------------------------------


@FAST
@given(
    start=initial,
    contacts=st.lists(st.tuples(carriers, carriers).filter(lambda p: p[0] != p[1]), max_size=25),
)
def test_contacts_only_add_contamination(reg, start, contacts):
    w = make_world(reg, OBJECTS, [(c, h) for c, hs in start.items() for h in sorted(hs)])
    for i, (a, b) in enumerate(contacts):
        before = {c: dict(v) for c, v in w.contamination.items()}
        n_viol = len(w.violations)
        w.contact(a, b, i, i, f"contact {i}")
        after = w.contamination
        # nothing removed, no existing provenance rewritten
        for c, hz in before.items():
            for h, prov in hz.items():
                assert after[c][h] == prov
        new = {(c, h) for c, hz in after.items() for h in hz if h not in before.get(c, {})}
        # only the two touching carriers can gain, and only what the other side carried
        for c, h in new:
            other = b if c == a else a
            assert c in (a, b) and h in before.get(other, {})
            assert after[c][h][:-1] == before[other][h]
            assert after[c][h][-1].carrier == c and after[c][h][-1].time == i
        # a violation is exactly a new arrival on a carrier protected against it
        got = {(v.carrier, v.hazard) for v in w.violations[n_viol:]}
        assert got == {(c, h) for c, h in new if h in oracle_protected(c)}


@FAST
@given(
    start=initial,
    contacts=st.lists(st.tuples(carriers, carriers).filter(lambda p: p[0] != p[1]), max_size=12),
)
def test_transfer_follows_the_registry_pairs(reg, start, contacts):
    """A hazard crosses from A onto B exactly when an ordered [from, to] pair of the YAML matches."""
    w = make_world(reg, OBJECTS, [(c, h) for c, hs in start.items() for h in sorted(hs)])
    for i, (a, b) in enumerate(contacts):
        before = {c: set(v) for c, v in w.contamination.items()}
        w.contact(a, b, i, i, f"contact {i}")
        for src, dst in ((a, b), (b, a)):
            for h in before.get(src, set()) - before.get(dst, set()):
                assert (h in w.contamination.get(dst, {})) == oracle_crosses(h, src, dst), (h, src, dst)


def _event(draw_carrier_pair):
    (o, r), (q, s) = draw_carrier_pair
    if o in GRIPPERS and q in GRIPPERS:
        return None
    if q in GRIPPERS:
        (o, r), (q, s) = (q, s), (o, r)
    if o in GRIPPERS:
        name = "pad-touch" if r == "pad" else "side-brush"
        return {"kind": "event", "name": name, "args": [o, q, s]}
    return {"kind": "event", "name": "object-touch", "args": [o, r, q, s]}


SPOON = PROBLEMS / "spoon_fruit" / "spoon_fruit-wash_then_touch-water_first.json"
SPOON_CARRIERS = sorted(
    [(g, p) for g in GRIPPERS for p in PARTS]
    + [
        (o, r)
        for o, t in read_json(SPOON)["objects"].items()
        if RAW["task_sources"]["object_types"][t]["kind"] != "place"
        for r in RAW["task_sources"]["object_types"][t]["regions"]
    ]
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pairs=st.lists(
        st.tuples(st.sampled_from(SPOON_CARRIERS), st.sampled_from(SPOON_CARRIERS)),
        min_size=1,
        max_size=10,
    ),
    gaps=st.lists(st.integers(0, 2), min_size=10, max_size=10),
    sources=st.dictionaries(st.sampled_from(SPOON_CARRIERS), st.sampled_from(HAZARDS), max_size=3),
)
def test_event_only_histories_only_grow_contamination(reg, pairs, gaps, sources):
    """Replay of growing prefixes of a random contact-event history: S_t only grows."""
    data = read_json(SPOON)
    events = [e for e in map(_event, [p for p in pairs if p[0] != p[1]]) if e is not None]
    t = 0
    for e, gap in zip(events, gaps, strict=False):
        t += gap
        e["start"] = t
    data["initial"]["hazards"] = [
        {"carrier": list(c), "hazard": h} for c, h in sorted(sources.items())
    ]
    data["registry"]["events"] = ["object-touch", "pad-touch", "side-brush"]
    data["registry"]["hazards"] = HAZARDS
    data["known_events"] = []
    data["decision_time"] = data["horizon"] = t
    previous: set = set()
    for k in range(len(events) + 1):
        data["history"] = events[:k]
        res = replay(instance_from_data(data, reg, "prop"), reg, check=False)
        facts = {(f.carrier, f.hazard) for f in res.contamination}
        assert previous <= facts
        previous = facts


# --- treatments never remove what the registry says they do not -----------------------------------


@FAST
@given(start=initial, target=carriers, hazards=hazard_sets, treatment=st.sampled_from(TREATMENTS))
def test_treatment_removes_exactly_what_the_registry_lists(reg, start, target, hazards, treatment):
    start = {**start, target: hazards} if hazards else start
    w = make_world(reg, OBJECTS, [(c, h) for c, hs in start.items() for h in sorted(hs)])
    before = {c: dict(v) for c, v in w.contamination.items()}
    removed = w.treat(treatment, target)
    on_target = set(before.get(target, {}))
    assert set(removed) == {h for h in on_target if oracle_removes(treatment, target, h)}
    for h in on_target - set(removed):
        assert w.contamination[target][h] == before[target][h]  # kept, provenance unchanged
    for c in before:
        if c != target:
            assert w.contamination[c] == before[c]


@FAST
@given(
    g=st.sampled_from(GRIPPERS),
    pad=hazard_sets,
    side=hazard_sets,
    action=st.sampled_from(["wash-pad", "replace-pad", "disinfect-pad"]),
)
def test_pad_treatment_actions_follow_the_registry(reg, g, pad, side, action):
    w = make_world(
        reg,
        OBJECTS,
        [((g, "pad"), h) for h in sorted(pad)] + [((g, "side"), h) for h in sorted(side)],
        facts=[("empty", g)],
        stocks={"water": 2, "cleaning_agent": 1, "spare_pads": 1, "disinfectant": 1},
    )
    treatment = RAW["actions"]["actions"][action]["treats"]["treatment"]
    schema = reg.actions[action]
    w.start_action(schema, (g,), 0, 0, action, schema.duration)
    w.end_action(schema, (g,), schema.duration, 0, action)
    got = state(w)
    assert got.get((g, "pad"), frozenset()) == {
        h for h in pad if not oracle_removes(treatment, (g, "pad"), h)
    }
    assert got.get((g, "side"), frozenset()) == side


@FAST
@given(target=carriers, treatment=st.sampled_from(TREATMENTS))
def test_rules_removes_agrees_with_the_yaml(reg, target, treatment):
    rules = HygieneRules(reg, OBJECTS)
    for h in HAZARDS:
        assert rules.removes(treatment, target, h) == oracle_removes(treatment, target, h)

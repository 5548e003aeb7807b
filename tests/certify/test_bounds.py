"""The exact search's lower bounds are admissible along valid plans it did not choose: the hand-worked witness plans
of examples/mechanics (each also tried on its sibling instances, where some are valid but not optimal), and the plain
search's optimal plans on random small tasks. Every node's key is at most the plan's final key and no node of a
valid plan is judged a dead end (docs/certification.md, "Lower bounds")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from hygiene_pddl.certify import SearchStatus, exact_search
from hygiene_pddl.certify.bounds import decode
from hygiene_pddl.certify.search import prepare
from hygiene_pddl.instances import load_instance
from hygiene_pddl.registries import load_registries
from hygiene_pddl.replay import PhysicalInconsistency
from tests.certify.bounds_along import bounds_along
from tests.certify.brute import replay_steps
from tests.certify.random_tasks import small_tasks
from tests.foundation.helpers import Step, run_continuation

REG = load_registries()
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "mechanics"
KEYS = sorted(p.name[: -len(".hand.json")] for p in EXAMPLES.glob("*.hand.json"))
FAMILIES = sorted({k.split("-")[0] for k in KEYS})


def _assert_admissible(inst, steps) -> int:
    """Checks the bounds along a valid plan; the number of nodes checked."""
    along = bounds_along(REG, inst, steps)
    assert along is not None, "a step of a valid plan was dropped by the relevance filter"
    keys, final = along
    worse = [k for k in keys if k > final]
    assert not worse, f"bounds {worse} exceed the plan's final key {final}"
    return len(keys)


@pytest.mark.parametrize("family", FAMILIES)
def test_bounds_never_exceed_a_hand_witness_plan(family):
    checked = 0
    for key in (k for k in KEYS if k.split("-")[0] == family):
        inst = load_instance(EXAMPLES / f"{key}.json")
        for other in (k for k in KEYS if k.split("-")[0] == family):
            hand = json.loads((EXAMPLES / f"{other}.hand.json").read_text())
            steps = [(s["start"], s["name"], tuple(s["args"])) for s in hand["plan"]]
            if not hand["feasible"]:
                continue
            try:
                out = run_continuation(REG, inst, [Step(*s) for s in steps])
            except PhysicalInconsistency:
                continue  # not executable here (a sibling's plan using a stock this instance lacks)
            if not out.goals_met or out.new_violations:
                continue  # not a valid plan of this instance
            checked += _assert_admissible(inst, steps)
    assert checked > 0


@settings(max_examples=10, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(inst=small_tasks(REG))
def test_bounds_never_exceed_the_plain_searchs_optimal_plan(inst):
    plain = exact_search(REG, inst, time_limit=60, reductions=False)
    assert plain.status is not SearchStatus.UNDETERMINED
    if plain.status is SearchStatus.OPTIMAL and plain.steps:
        assert replay_steps(REG, inst, list(plain.steps)) == plain.cost
        steps = list(plain.steps)  # with their happening order
        if bounds_along(REG, inst, steps) is not None:  # a plan with an irrelevant step has a cheaper twin
            _assert_admissible(inst, steps)


@pytest.mark.parametrize(("key", "paid"), [("wipe_two_surfaces-waste_first", {"water": 1, "cleaning_agent": 1}),
                                           ("wipe_two_surfaces-water_first", {"discarded_items": 1, "solid_waste": 1})])
def test_the_root_bound_pays_for_the_discard_before_a_spare(key, paid):
    """A legally soiled loaf made safe by discard + fetch-spare costs the discard too (docs/certification.md,
    "Reductions" 7: combined paid copies), so the root bound already has the hand optimum's first costs; a paid copy
    of fetch-spare alone (its first version) gave all zeros here."""
    inst = load_instance(EXAMPLES / f"{key}.json")
    search, root, _, _ = prepare(REG, inst)
    key_, _ = search.evaluate(root)
    order = inst.profile.order
    pre = dict(zip(order[: order.index("makespan")], decode(key_[0], len(search.pre_dims)), strict=True))
    assert {d: v for d, v in pre.items() if v and d != "active_robot_time"} == paid


@pytest.mark.parametrize(("key", "paid"), [("gloves-canonical", {"solid_waste": 1}),
                                           ("gloves-waste_first", {"disinfectant": 1})])
def test_a_guarded_pad_contact_keeps_its_protection(key, paid):
    """Once the left pad has taken the raw chicken, picking the loaf with it needs the pad clean unless a glove
    covers it (the pad's contact is guarded by "not gloved": docs/certification.md, "Reductions" 9), and the right pad
    carries bleach: the bound after that first pick has the hand optimum's glove (canonical) or disinfection
    (waste_first). Without the rule it was all zeros and the search exhausted 14,000 plans."""
    inst = load_instance(EXAMPLES / f"{key}.json")
    search, root, _, _ = prepare(REG, inst)
    chicken = next(a for a in search.steps if a.text() == "(pick left raw_chicken film board)")
    key_, _ = search.evaluate(search.start(root, chicken))
    order = inst.profile.order
    pre = dict(zip(order[: order.index("makespan")], decode(key_[0], len(search.pre_dims)), strict=True))
    assert {d: v for d, v in pre.items() if v and d != "active_robot_time"} == paid

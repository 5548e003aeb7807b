"""The exact search on the v2 mechanics (docs/world-model-v2.md): each small instance's optimum equals the plain
search's (no reductions) and, on the tiniest, brute force on replay.World; every returned plan replays on World in
the evaluator's order with the reported cost; the plans show the mechanism at work."""

import os

import pytest
from hypothesis import HealthCheck, given, settings

from hygiene_pddl.certify import SearchStatus, exact_search
from hygiene_pddl.planners.base import plan_text
from hygiene_pddl.plans.parser import parse_plan
from hygiene_pddl.registries import load_registries
from hygiene_pddl.validation.instance_level import evaluate_plan
from tests.certify import mechanics as m
from tests.certify.bounds_along import bounds_along
from tests.certify.brute import brute_force, replay_steps
from tests.certify.random_tasks import small_tasks, spare_tasks

REG = load_registries()
LONG = bool(os.environ.get("HYGIENE_CERTIFY_LONG"))


def _certified(inst, **kw):
    result = exact_search(REG, inst, time_limit=120, **kw)
    assert result.status is not SearchStatus.UNDETERMINED
    if result.steps:
        assert replay_steps(REG, inst, list(result.steps)) == result.cost
    return result


def _steps(result):
    return [(s.start, s.name, s.args) for s in result.steps]


@pytest.mark.parametrize("name", sorted(set(m.MECHANISMS) - {"washer_cycle"}))
def test_each_mechanism_agrees_with_the_plain_search(name):
    inst = m.MECHANISMS[name](REG)
    fast = _certified(inst)
    bound = len(fast.steps) + 1 if fast.steps else 3
    plain = exact_search(REG, inst, max_actions=bound, reductions=False, time_limit=120)
    assert (plain.status, plain.cost) == (fast.status, fast.cost)


@pytest.mark.parametrize("name", ["gloves", "rinse_or_wash", "shared_basket", "delivery_format1"])
def test_the_optimum_equals_brute_force_on_world(name):
    inst = m.MECHANISMS[name](REG)
    cost, plan = brute_force(REG, inst, 3)
    assert exact_search(REG, inst, max_actions=3).cost == cost
    assert replay_steps(REG, inst, plan) == cost


def test_quantified_contact_in_a_shared_basket():
    result = _certified(m.shared_basket(REG))
    names = _steps(result)
    sponge_out = next(s for s in names if s[1] == "pick" and s[2][1] == "sponge")
    put = next(s for s in names if s[1] == "put")
    assert sponge_out[0] < put[0] + 1 and sponge_out[2][0] != put[2][0]  # out before the apple's end; other pad


def test_rinsing_every_region_beats_washing_one():
    assert [s[1] for s in _steps(_certified(m.rinse_or_wash(REG)))] == ["pick", "rinse-item", "place"]


def test_a_soiled_cloth_is_rinsed_before_it_wipes():
    assert [s[1] for s in _steps(_certified(m.wipe_with_dirty_cloth(REG)))] == ["pick", "rinse-item", "wipe"]


def test_a_glove_covers_a_contaminated_pad():
    inst = m.gloves(REG)
    result = _certified(inst)
    assert [s[1] for s in _steps(result)] == ["don-glove", "pick", "place"] and result.cost["water"] == 0
    report = evaluate_plan(REG, inst, parse_plan(plan_text(REG, inst, list(result.steps), "exact", result.cost)))
    assert report.valid and report.cost == result.cost


def test_nothing_touches_a_dwelling_surface():
    result = _certified(m.spray_and_dwell(REG))
    dwell = next(s for s in result.steps if s.name == "dwell")
    put = next(s for s in result.steps if s.name == "put")
    # the put's contact is at its end: at the dwell's end or later (equal ends happen in start order, dwell first)
    assert put.start + put.duration >= dwell.start + dwell.duration and put.start > dwell.start


@pytest.mark.parametrize("profile, program, makespan", [("water_first", "run-eco", 15), ("time_first", "run-hot", 11)])
def test_the_washer_programme_follows_the_profile(profile, program, makespan):
    result = _certified(m.washer_cycle(REG, profile))
    assert [s.name for s in result.steps if s.name.startswith("run-")] == [program]
    assert result.cost["makespan"] == makespan
    names = [s[1] for s in _steps(result)]
    assert names.count("load") == 2 and "close" in names  # the door is shut again after loading


@pytest.mark.skipif(not LONG, reason="plain search on the washer cycle takes ~10 s CPU (HYGIENE_CERTIFY_LONG=1)")
def test_the_washer_cycle_agrees_with_the_plain_search():
    inst = m.washer_cycle(REG)
    fast = _certified(inst)
    plain = exact_search(REG, inst, max_actions=len(fast.steps), reductions=False, time_limit=600)
    assert (plain.status, plain.cost) == (fast.status, fast.cost)


def test_capacity_counts_what_is_inside():
    assert _certified(m.washer_capacity(REG, 3)).status is SearchStatus.INFEASIBLE
    assert _certified(m.washer_capacity(REG, 2)).status is SearchStatus.OPTIMAL


def test_a_running_cycle_keeps_the_door_shut():
    inst = m.cycle_running(REG)
    result = _certified(inst)
    opened = next(s for s in result.steps if s.name == "open")
    assert opened.start + opened.duration >= 5  # the door opens (at the end of open) once the cycle ended at 5


def test_a_format1_delivery_is_made_safe():
    inst = m.delivery_format1(REG)
    assert ("safe", "tomato") in inst.goals and inst.notes
    assert "rinse-item" in [s.name for s in _certified(inst).steps]


@settings(max_examples=120 if LONG else 12, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(inst=small_tasks(REG))
def test_the_reductions_lose_nothing_on_random_small_tasks(inst):
    """Relevance filter, commuting starts, tight plans, symmetry, dominance and the bounds against the plain search
    (also without an action bound); every plan replays with its cost."""
    _agrees_with_the_plain_search(inst)


def _agrees_with_the_plain_search(inst):
    """The reduced and the plain search give the same status and cost, with an action bound of 3 and without; every
    plan replays with its cost. Returns the plain search's result without an action bound."""
    for bound in (3, None):
        fast = exact_search(REG, inst, max_actions=bound, time_limit=60)
        plain = exact_search(REG, inst, max_actions=bound, time_limit=60, reductions=False)
        assert SearchStatus.UNDETERMINED not in (fast.status, plain.status)
        assert (fast.status, fast.cost) == (plain.status, plain.cost)
        if fast.steps:
            assert replay_steps(REG, inst, list(fast.steps)) == fast.cost
    return plain


@settings(max_examples=80 if LONG else 10, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(inst=spare_tasks(REG))
def test_the_reductions_lose_nothing_on_random_spare_glove_and_basket_tasks(inst):
    """As above on tasks built for Reductions 7-9 (discard and fetch-spare with spares in stock, a for-dirty sink or
    a shared basket, gloves, (safe x) goals on a soiled item); the bounds never exceed the plain search's optimum
    along its plan."""
    plain = _agrees_with_the_plain_search(inst)
    if plain.steps:
        along = bounds_along(REG, inst, list(plain.steps))
        if along is not None:  # None: a step the relevance filter drops (the plan has a cheaper twin)
            assert all(k <= along[1] for k in along[0])

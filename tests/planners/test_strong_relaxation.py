"""The strong relaxation (planners/relaxation_order.py, relaxation_chains.add_last_goal) is a lower bound: against
the exact certifier's plain search on random small tasks, and on hand-made tasks where each rule must not bite.
``HYGIENE_CERTIFY_LONG=1`` draws eight times as many tasks."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st

from hygiene_pddl.certify import SearchStatus, exact_search
from hygiene_pddl.instances import load_instance
from hygiene_pddl.planners.grounding import initial_fluents, ongoing_actions, reachable_actions
from hygiene_pddl.planners.lexsat import LexStatus
from hygiene_pddl.planners.relaxation import SETTINGS, nothing_below, relaxed_optimum
from hygiene_pddl.planners.relaxation_order import at_most_one_groups
from hygiene_pddl.registries import load_registries
from hygiene_pddl.replay import replay
from tests.certify.random_tasks import small_tasks, spare_tasks
from tests.certify.tasks import instance
from tests.examples.test_planners_meet_hand_optima import EXAMPLES

REG = load_registries()
N = 8 if os.environ.get("HYGIENE_CERTIFY_LONG") else 1
SETTLED = dict(deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck),
               phases=[Phase.generate])


FOODS = {"loaf": "loaf", "chicken": "raw_chicken", "grapes": "grapes", "potato": "potato", "apple": "apple"}
SPOTS = {"shelf": "shelf", "board": "board", "basket": "basket", "fridge": "fridge", "worktop": "worktop"}
EXTRAS = ["don-glove", "disinfect-pad", "wash-pad", "replace-pad", "rinse-item", "place"]


@st.composite
def order_tasks(draw: st.DrawFn, reg):  # noqa: ANN001, ANN201
    """Tasks where the strong rules bite (gloves, shared basket): two or three foods on shared places, hazards on
    foods and pads, deliveries onto places that hold another food, a few treatments and small stocks."""
    dirty, hazard, region = draw(st.sampled_from([("chicken", "raw_meat_bacteria", "film"),
                                                  ("potato", "soil", "skin")]))
    foods = [draw(st.sampled_from(["loaf", "grapes", "apple"])), dirty]
    spots = ["basket", *draw(st.lists(st.sampled_from(sorted(set(SPOTS) - {"basket"})), min_size=1, max_size=2,
                                      unique=True))]
    objects = {**{f: FOODS[f] for f in foods}, **{p: SPOTS[p] for p in spots}, "sink": "sink"}
    facts = [f"(at {f} {draw(st.sampled_from(spots))})" for f in foods] + ["(empty left)", "(empty right)"]
    hazards = sorted({hazard, "cleaning_chemical_residue"})
    # the dirty food carries its hazard, a pad chemical residue (gloves), and the clean food goes where the dirty
    # one is, or both into one place (the shared basket)
    pad = draw(st.sampled_from(["left", "right"]))
    sources = [((dirty, region), hazard), ((pad, "pad"), "cleaning_chemical_residue")][:draw(st.integers(1, 2))]
    where = next(f.split()[2][:-1] for f in facts if f.startswith(f"(at {foods[1]} "))
    target = draw(st.sampled_from(spots))
    goals = [f"(at {foods[0]} {where})"] if draw(st.booleans()) else [f"(at {foods[0]} {target})",
                                                                       f"(at {foods[1]} {target})"]
    if draw(st.booleans()):
        goals.append(f"(at {foods[1]} {draw(st.sampled_from([p for p in spots if p != where]))})")
    goals = list(dict.fromkeys(goals))
    actions = sorted({"pick", "put", *draw(st.lists(st.sampled_from(EXTRAS), min_size=1, max_size=3, unique=True))})
    stocks = {s: draw(st.integers(0, 2)) for s in ("water", "disinfectant", "spare_pads", "gloves")}
    return instance(reg, "order", objects=objects, facts=facts, goals=goals, actions=actions, hazards=hazards,
                    sources=[(c[0], c[1], h) for c, h in sources], stocks=stocks,
                    time_left=draw(st.integers(5, 8)), profile=draw(st.sampled_from(["water_first", "time_first"])))


def _check(inst) -> None:  # noqa: ANN001
    plain = exact_search(REG, inst, time_limit=30, reductions=False)
    assume(plain.status is not SearchStatus.UNDETERMINED)
    state = replay(inst, REG)
    every = reachable_actions(REG, inst, state)
    strong = relaxed_optimum(REG, inst, state, every, SETTINGS, 30, strong=True)
    assert strong.status in (LexStatus.OPTIMAL, LexStatus.INFEASIBLE)
    if plain.status is SearchStatus.INFEASIBLE:
        return
    assert strong.status is LexStatus.OPTIMAL, "the strong relaxation calls a feasible task infeasible"
    assert strong.bound.key(inst.profile) <= plain.cost.key(inst.profile), (strong.bound, plain.cost)


@settings(max_examples=15 * N, **SETTLED)
@given(inst=small_tasks(REG))
def test_the_strong_relaxation_never_exceeds_the_plain_optimum(inst):
    _check(inst)


@settings(max_examples=10 * N, **SETTLED)
@given(inst=order_tasks(REG))
def test_the_strong_relaxation_never_exceeds_the_plain_optimum_on_shared_places(inst):
    _check(inst)


@settings(max_examples=15 * N, **SETTLED)
@given(inst=spare_tasks(REG))
def test_the_strong_relaxation_never_exceeds_the_plain_optimum_with_baskets_gloves_and_spares(inst):
    _check(inst)


def _basket(potato_soiled: bool, grapes_first: bool = False):  # noqa: ANN202
    facts = ["(at basket worktop)", "(at grapes worktop)", "(at potato worktop)", "(empty left)", "(empty right)"]
    if grapes_first:
        facts[1] = "(at grapes basket)"
    return instance(REG, "basket", objects={"basket": "basket", "grapes": "grapes", "potato": "potato",
                                            "worktop": "worktop"},
                    facts=facts, goals=["(at grapes basket)", "(at potato basket)", "(safe grapes)"],
                    actions=["pick", "put", "rinse-item"], hazards=["soil"],
                    sources=[("potato", "skin", "soil")] if potato_soiled else [("left", "pad", "soil")],
                    stocks={"water": 2}, time_left=6)


@pytest.mark.parametrize("grapes_first", [False, True])
def test_the_later_goal_rule_makes_the_soiled_potato_rinsed_whichever_goes_in_last(grapes_first):
    inst = _basket(True, grapes_first)
    state = replay(inst, REG)
    every = reachable_actions(REG, inst, state)
    weak = relaxed_optimum(REG, inst, state, every, SETTINGS, 30)
    strong = relaxed_optimum(REG, inst, state, every, SETTINGS, 30, strong=True)
    plain = exact_search(REG, inst, time_limit=30)
    assert plain.status is SearchStatus.OPTIMAL and plain.cost["water"] == 1
    assert strong.bound["water"] == 1 and strong.bound.key(inst.profile) <= plain.cost.key(inst.profile)
    if not grapes_first:  # the weak relaxation lets both go in with the basket's guard false (both orders)
        assert weak.bound["water"] == 0


def test_the_later_goal_rule_does_not_bite_without_a_hazard_to_pass_on():
    # the left pad is soiled, not the potato: the right pad can carry both, so no rinse is needed
    inst = _basket(False)
    state = replay(inst, REG)
    plain = exact_search(REG, inst, time_limit=30)
    assert plain.status is SearchStatus.OPTIMAL and plain.cost["water"] == 0
    every = reachable_actions(REG, inst, state)
    strong = relaxed_optimum(REG, inst, state, every, SETTINGS, 30, strong=True)
    assert strong.bound["water"] == 0 and strong.bound.key(inst.profile) <= plain.cost.key(inst.profile)
    assert nothing_below(REG, inst, state, every, plain.cost, SETTINGS, 30, strong=True) is not None


def test_the_gripper_groups_are_found_and_a_held_item_keeps_them():
    inst = load_instance(EXAMPLES / "gloves-canonical.json", REG)
    state = replay(inst, REG)
    every = reachable_actions(REG, inst, state)
    groups = at_most_one_groups(every, ongoing_actions(REG, inst, state), initial_fluents(REG, inst, state))
    left = next(g for g in groups if ("empty", "left") in g)
    assert ("holding", "left", "loaf") in left and ("holding", "left", "raw_chicken") in left
    assert not any(("idle", "left") in g or ("gloved", "left") in g for g in groups)  # resources, not moved


def test_a_group_that_two_facts_of_now_break_is_not_kept():
    # the loaf is on the shelf and held at once (a state no action can reach): no group may contain both
    inst = instance(REG, "twice", objects={"loaf": "loaf", "shelf": "shelf", "board": "board"},
                    facts=["(at loaf shelf)", "(holding left loaf)", "(empty right)"], goals=["(at loaf board)"],
                    actions=["pick", "put"], hazards=["soil"], sources=[("left", "pad", "soil")], time_left=6)
    state = replay(inst, REG, check=False)
    every = reachable_actions(REG, inst, state)
    init = initial_fluents(REG, inst, state)
    groups = at_most_one_groups(every, ongoing_actions(REG, inst, state), init)
    assert not any(len(g & init) > 1 for g in groups)
    assert any(("holding", "left", "loaf") in g for g in groups)  # the gripper's group still holds


def test_a_goal_that_holds_now_and_is_undone_is_provided_again():
    # the bowl is filled now and must end scooped and filled: emptying it undoes (filled bowl), so it is filled
    # again (water 1); the ordinary relaxation takes the goal as held
    inst = instance(REG, "bowl", objects={"bowl": "pet_bowl", "drain": "utility_drain", "floor": "floor",
                                          "sink": "sink"},
                    facts=["(at bowl floor)", "(filled bowl)", "(empty left)", "(empty right)"],
                    goals=["(scooped bowl)", "(filled bowl)", "(at bowl floor)"],
                    actions=["pick", "place", "empty-into", "fill"], hazards=["soil"],
                    sources=[("left", "pad", "soil")], stocks={"water": 2}, time_left=8)
    state = replay(inst, REG)
    every = reachable_actions(REG, inst, state)
    plain = exact_search(REG, inst, time_limit=30)
    assert plain.status is SearchStatus.OPTIMAL and plain.cost["water"] == 1
    assert relaxed_optimum(REG, inst, state, every, SETTINGS, 30).bound["water"] == 0
    strong = relaxed_optimum(REG, inst, state, every, SETTINGS, 30, strong=True)
    assert strong.bound["water"] == 1 and strong.bound.key(inst.profile) <= plain.cost.key(inst.profile)


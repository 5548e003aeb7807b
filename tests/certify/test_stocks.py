"""The landmarks use up stock (docs/certification.md, "Reductions" 11): two muddy spinach bunches to put into the
bowl clean within 4 TU, by a rinse (water) or by discarding one and fetching a spare (one spare item each). With one
spare, a plan without water would need two: the root bound has water at least 1 (with two spares, 0; none, 2). The
optimum is a rinse of each either way (water 2, active time 6, makespan 4; the plain search agrees, slow test): a
spare is fetched into the pad that held the muddy bunch, so it needs a rinse too, and there is no time for more.
The bound must not exceed it, and the search proves it."""

import pytest

from hygiene_pddl.certify import SearchStatus, exact_search
from hygiene_pddl.certify.bounds import decode
from hygiene_pddl.certify.search import prepare
from hygiene_pddl.costs import CostVector
from hygiene_pddl.registries import load_registries
from tests.certify.brute import replay_steps
from tests.certify.tasks import instance

REG = load_registries()


def spinach(spares: int):
    objects = {"s1": "spinach", "s2": "spinach", "bowl": "soup_bowl_v2", "worktop": "worktop", "bin": "waste_bin"}
    return instance(REG, f"spinach-{spares}", objects=objects,
                    facts=["(empty left)", "(empty right)", "(at s1 worktop)", "(at s2 worktop)", "(at bowl worktop)"],
                    goals=["(at s1 bowl)", "(at s2 bowl)"], actions=["discard", "fetch-spare", "pick", "place",
                                                                      "rinse-item"],
                    hazards=["soil"], sources=[("s1", "leaves", "soil"), ("s2", "leaves", "soil")],
                    stocks={"water": 2, "spare_items": spares}, time_left=4)


@pytest.mark.parametrize(("spares", "water"), [(0, 2), (1, 1), (2, 0)])
def test_the_root_bound_counts_the_spares(spares, water):
    search, root, _, _ = prepare(REG, spinach(spares))
    key, _ = search.evaluate(root)
    assert decode(key[0], len(search.pre_dims))[0] == water  # water first


@pytest.mark.parametrize("spares", [2])  # one spare: in the slow test
def test_the_optimum_rinses_both(spares):
    inst = spinach(spares)
    result = exact_search(REG, inst, time_limit=30)
    want = CostVector.from_mapping({"water": 2, "active_robot_time": 6, "makespan": 4})
    assert result.status is SearchStatus.OPTIMAL and result.cost == want
    assert replay_steps(REG, inst, list(result.steps)) == want


@pytest.mark.slow
@pytest.mark.parametrize("spares", [1, 2])
def test_the_plain_search_agrees(spares):
    inst = spinach(spares)
    plain = exact_search(REG, inst, time_limit=300, reductions=False)
    assert plain.status is SearchStatus.OPTIMAL
    assert exact_search(REG, inst, time_limit=60).cost == plain.cost

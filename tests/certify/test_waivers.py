"""A protected carrier that already carries a hazard is not violated by it (issue 12): both proof methods must
see plans that first soil it through an exempt contact. Each task's optimum is worked out in its docstring
(tests/certify/waivers.py); brute force on replay.World, the exact search and hygiene-nsp must all meet it."""

import pytest

from hygiene_pddl.certify import SearchStatus, exact_search
from hygiene_pddl.certify.bounds import decode
from hygiene_pddl.certify.search import prepare
from hygiene_pddl.costs import CostVector
from hygiene_pddl.planners import catalogue
from hygiene_pddl.planners.base import PlanStatus
from hygiene_pddl.registries import load_registries
from tests.certify.brute import brute_force, replay_steps
from tests.certify.waivers import WAIVERS

REG = load_registries()
OPTIMA = {
    "sink_then_dirty_pick": {"active_robot_time": 2, "makespan": 2},
    "sink_then_dirty_pick_then_rinse": {"water": 1, "active_robot_time": 3, "makespan": 3},
    "sink_then_dirty_pick_unsafe": None,
    "load_then_dirty_unload": {"active_robot_time": 2, "makespan": 2},
    "tumble_then_dirty_unload": {"energy": 3, "active_robot_time": 2, "makespan": 7},
}


@pytest.mark.parametrize("name", sorted(WAIVERS))
def test_the_hand_optimum_is_met_by_brute_force_the_exact_search_and_hygiene_nsp(name):
    inst = WAIVERS[name](REG)
    want = OPTIMA[name]
    optimum = None if want is None else CostVector.from_mapping(want)
    assert brute_force(REG, inst, 3)[0] == optimum
    result = exact_search(REG, inst, time_limit=30)
    if optimum is None:
        assert result.status is SearchStatus.INFEASIBLE
    else:
        assert result.status is SearchStatus.OPTIMAL and result.cost == optimum
        assert replay_steps(REG, inst, list(result.steps)) == optimum
    nsp = catalogue()["hygiene-nsp"].factory().solve(inst, 30, REG)
    if optimum is None:
        assert nsp.status is not PlanStatus.PLAN
    else:
        assert nsp.status is PlanStatus.PLAN and nsp.cost == optimum
        assert nsp.proved_optimal


def test_the_root_bound_counts_the_treatment_that_a_legal_soiling_forces():
    """With (safe apple), the soil the sink gives the apple must be rinsed off later: the root bound has water 1
    (a copy of the rinse pays for the waiver), not 0."""
    search, root, _, _ = prepare(REG, WAIVERS["sink_then_dirty_pick_then_rinse"](REG))
    key, _ = search.evaluate(root)
    assert decode(key[0], len(search.pre_dims))[0] == 1  # water first

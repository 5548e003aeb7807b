"""The later of two goals is achieved while the other holds (docs/certification.md, "Reductions" 8): on the shared
basket tasks of tests/certify/orderings.py the exact search, the plain search (no reductions, no bounds) and the hand
optimum agree, whichever goal comes first in the compiled task and whichever item is put last."""

import pytest

from hygiene_pddl.certify import SearchStatus, exact_search
from hygiene_pddl.certify.bounds import decode
from hygiene_pddl.certify.search import prepare
from hygiene_pddl.costs import CostVector
from hygiene_pddl.registries import load_registries
from tests.certify.brute import replay_steps
from tests.certify.orderings import NAMINGS, OPTIMA, ORDERINGS

REG = load_registries()


@pytest.mark.parametrize("naming", sorted(NAMINGS))
@pytest.mark.parametrize("name", sorted(ORDERINGS))
def test_the_hand_optimum_is_met_by_the_plain_and_the_exact_search(name, naming):
    inst = ORDERINGS[name](REG, naming)
    want = OPTIMA[name]
    optimum = None if want is None else CostVector.from_mapping(want)
    plain = exact_search(REG, inst, max_actions=4, time_limit=60, reductions=False)
    assert plain.cost == optimum
    result = exact_search(REG, inst, time_limit=30)
    if optimum is None:
        assert plain.status is result.status is SearchStatus.INFEASIBLE
    else:
        assert result.status is SearchStatus.OPTIMAL and result.cost == optimum
        assert replay_steps(REG, inst, list(result.steps)) == optimum


def test_the_root_bound_of_the_basket_example_has_the_rinse():
    """shared_basket-canonical: whichever item goes in second touches the first, so the bound has water 1 at the root
    (it had 0, and the search exhausted every plan without water: 44,000 expansions)."""
    from hygiene_pddl.instances import load_instance
    from tests.certify.test_bounds import EXAMPLES

    search, root, _, _ = prepare(REG, load_instance(EXAMPLES / "shared_basket-canonical.json"))
    key, _ = search.evaluate(root)
    assert decode(key[0], len(search.pre_dims))[0] == 1  # water first

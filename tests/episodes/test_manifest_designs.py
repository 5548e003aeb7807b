"""A manifest names a design per family; `build` realises it again without solving. Data families (family files)
must realise from the manifest as v1 task kinds do (a v2 manifest once failed with KeyError 'data')."""

import pytest

from compiler.build import manifest_episodes
from hygiene_pddl.episodes.builder import design_of, realise
from hygiene_pddl.errors import InputError
from hygiene_pddl.registries import load_registries

REG = load_registries()
FAMILY = "wash_baby_bottles-nappy_bin_bottle"


def test_a_data_family_design_is_realised_from_the_manifest():
    eps = realise(REG, FAMILY, "profiles3", design_of(REG, FAMILY, "profiles3"))
    refs = {ep.id: {"feasible": True, "optimal_cost": {"water": len(ep.id)}, "plan": [], "certified_by": ["x"]}
            for ep in eps}
    got = [ep for ep in manifest_episodes(REG, {"designs": {FAMILY: "profiles3"}, "references": refs})
           if ep.family == FAMILY]
    assert [ep.id for ep in got] == [ep.id for ep in eps] and len(got) == 3
    assert all(ep.reference["optimal_cost"] == {"water": len(ep.id)} for ep in got)


def test_a_design_the_family_does_not_have_is_an_input_error():
    with pytest.raises(InputError, match="has no design 'profiles9'"):
        design_of(REG, FAMILY, "profiles9")

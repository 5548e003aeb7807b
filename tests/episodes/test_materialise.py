"""An episode's public file and the instance the build renders from it are one thing, computed once."""

import json

import pytest

from hygiene_pddl.episodes.first_families import first_families
from hygiene_pddl.errors import InputError
from hygiene_pddl.instances.loader import instance_from_data
from hygiene_pddl.registries import load_registries

REG = load_registries()


@pytest.mark.parametrize("ep", first_families(), ids=lambda ep: ep.id)
def test_the_cached_instance_is_what_the_file_loads_to(ep):
    """The instance kept beside the text (observations and R_t from the replay) equals the one the loader
    builds from the text: the rendered PDDL cannot differ from what a user gets by loading the file."""
    made = ep.materialise(REG)
    assert made.instance == instance_from_data(json.loads(made.text), REG, ep.id)
    assert ep.materialise(REG) is made  # cached while nothing changes


def test_a_changed_episode_is_materialised_again():
    ep = first_families()[0]
    before = ep.materialise(REG)
    ep.decision_time += 1  # a field the replay reads
    after = ep.materialise(REG)
    assert after is not before and after.instance.decision_time == before.instance.decision_time + 1
    ep.reference = {"design": {}}  # not part of the public file
    assert ep.materialise(REG) is after
    data = ep.public(REG)
    data["request"] = "changed"  # public() hands out a copy
    assert ep.materialise(REG).text == after.text


def test_data_errors_still_name_line_and_column():
    """Positions of in-memory data are computed only for an error, and are then those of the indented text."""
    data = first_families()[0].public(REG)
    data["history"][0]["name"] = "juggle"
    with pytest.raises(InputError) as err:
        instance_from_data(data, REG, "case")
    loc = err.value.location
    assert loc.file == "case.json" and loc.line > 1 and loc.column > 1 and "juggle" in str(err.value)
    data = first_families()[0].public(REG)
    data["initial"]["stocks"]["water"] = float("nan")
    with pytest.raises(InputError):
        instance_from_data(data, REG, "case")

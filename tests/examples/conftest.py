import pytest

from hygiene_pddl.registries import load_registries


@pytest.fixture(scope="session")
def reg():
    return load_registries()

import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def instance_paths() -> list[Path]:
    from tests.benchmark_files import instances

    return instances()


@pytest.fixture(autouse=True)
def _quiet_up():
    warnings.filterwarnings("ignore", message="pkg_resources")
    from unified_planning.shortcuts import get_environment

    get_environment().credits_stream = None
    yield

import pytest

from hygiene_pddl.bench import BenchConfig, run_bench
from tests.bench.common import FIRST


@pytest.fixture(scope="session")
def nsp_bench(tmp_path_factory):
    """hygiene-nsp over the committed benchmark, once per test session: (results folder, summary)."""
    out = tmp_path_factory.mktemp("nsp")
    summary = run_bench(BenchConfig(["hygiene-nsp"], FIRST, out, jobs=4, time_limit=30, progress=False))
    return out, summary

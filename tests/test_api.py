"""`import hygiene_pddl`: the documented API (docs/api.md) does the three jobs in a few lines."""

import re
from pathlib import Path

import pytest

import hygiene_pddl as hp
from hygiene_pddl.errors import InputError
from hygiene_pddl.planners.base import PlanStatus

ROOT = Path(__file__).resolve().parents[1]
SPOON = ROOT / "problems/spoon_fruit/spoon_fruit-wash_then_touch-water_first.json"
DOC = (ROOT / "docs/api.md").read_text()


def test_docs_example_runs_as_written(tmp_path, monkeypatch, capsys):
    block = re.findall(r"```python\n(.*?)```", DOC, re.S)[0]
    monkeypatch.chdir(ROOT)
    exec(block.replace('"out/lpg"', repr(str(tmp_path / "lpg"))), {})  # noqa: S102 - the documented example
    out = capsys.readouterr().out.splitlines()
    assert out[1] == "plan True 4" and out[2] == "True True"
    assert (tmp_path / "lpg" / "domain.pddl").read_text().startswith("; hygiene-pddl compile --for lpg")


def test_the_table_documents_every_exported_name():
    documented = set(re.findall(r"^\| `(\w+)", DOC, re.M))
    assert documented == set(hp.__all__)
    for name in hp.__all__:
        assert getattr(hp, name) is not None


def test_validate_rejects_a_plan_that_skips_the_treatment():
    result = hp.plan(SPOON, "hygiene-nsp", 30)
    assert result.status is PlanStatus.PLAN
    lines = [line for line in result.plan_text.splitlines() if "replace-pad" not in line and "wash-pad" not in line]
    check = hp.validate(SPOON, "\n".join(lines) + "\n")
    assert not check.valid and not check.instance.valid and not check.pddl.valid


def test_bad_input_and_unknown_names_raise_input_error(tmp_path):
    (tmp_path / "x.json").write_text("{")
    with pytest.raises(InputError):
        hp.load_instance(tmp_path / "x.json")
    with pytest.raises(InputError, match="unknown planner"):
        hp.plan(SPOON, "no-such-planner")
    with pytest.raises(InputError, match="unknown PDDL target"):
        hp.compile(SPOON, tmp_path, target="ff")
    with pytest.raises(AttributeError):
        hp.no_such_name  # noqa: B018
    assert hp.list_planners()["hygiene-nsp"] == (True, "")

"""The validate_plan command: exit codes 0/1/2/3, human and JSON output, no tracebacks."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hygiene_pddl.validation import cli
from hygiene_pddl.validation.pddl_level import engine

from .helpers import TOY, TOY_PROBLEM

ROOT = Path(__file__).resolve().parents[2]
PROBLEM = TOY_PROBLEM.format(extra="", goal="(done a)", metric="(:metric minimize (total-time))")


@pytest.fixture()
def files(tmp_path):
    (tmp_path / "d.pddl").write_text(TOY)
    (tmp_path / "p.pddl").write_text(PROBLEM)

    def make(plan: str) -> list[str]:
        path = tmp_path / "plan.txt"
        path.write_text(plan)
        return [str(tmp_path / "d.pddl"), str(tmp_path / "p.pddl"), str(path)]

    return make


def test_exit_0_valid(files, capsys):
    assert cli.main(files("0: (work a) [1]")) == 0
    out = capsys.readouterr().out
    assert "Plan valid" in out and "Final value: 1" in out


def test_exit_1_invalid_with_advice_and_hint(files, capsys):
    assert cli.main(files("0: (work a) [1]\n1.001: (work a) [1]")) == 1
    out = capsys.readouterr().out
    assert "Plan failed to execute" in out
    assert "set (free a) to true before step 2 at 1.001" in out
    assert "Hint: With -t 0.001 the plan would be valid" in out
    assert cli.main(["-t", "0.001", *files("0: (work a) [1]\n1.001: (work a) [1]")]) == 0


@pytest.mark.parametrize("plan", ["0: (work a [1]", "0: (fly a) [1]", "0: (work zz) [1]"])
def test_exit_2_bad_plan_input(files, capsys, plan):
    assert cli.main(files(plan)) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "plan.txt:1" in err and "Traceback" not in err


def test_exit_2_bad_domain_missing_file_and_bad_option(files, tmp_path, capsys):
    args = files("0: (work a) [1]")
    Path(args[0]).write_text(TOY.replace("(:types block)", "(:types block"))
    assert cli.main(args) == 2
    assert "d.pddl:" in capsys.readouterr().err
    assert cli.main([str(tmp_path / "nope.pddl"), args[1], args[2]]) == 2
    assert cli.main(["-t", "-1", *args]) == 2
    assert cli.main([]) == 2


def test_exit_3_internal_error(files, capsys, monkeypatch):
    def boom(*_a, **_k):
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(engine.Engine, "run", boom)
    assert cli.main(files("0: (work a) [1]")) == 3
    assert "internal error: RuntimeError: simulated bug" in capsys.readouterr().err


def test_json_schema(files, capsys):
    assert cli.main(["--json", *files("0: (work a) [1]\n0.5: (unready)")]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["schema"] == 1 and data["status"] == "invalid" and data["valid"] is False
    assert data["reason"] == "invariant"
    f = data["failure"]
    assert f["step"] == 1 and f["time"] == "0.5" and f["reason_text"] == "invariant violated"
    assert set(data) >= {"tolerance", "metric", "makespan", "steps", "happenings", "advice",
                         "hints", "trace", "arithmetic", "declared_status"}
    assert data["trace"][0]["events"] == ["(work a) - start"]
    assert cli.main(["--json", *files("0: (work a) [1]")]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["metric"] == {"value": "1", "text": "1", "direction": "minimize"}


def test_json_error_object(files, capsys):
    assert cli.main(["--json", *files("garbage")]) == 2
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "error" and "plan.txt:1:1" in data["error"]


def test_script_is_a_thin_wrapper(files):
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "validate_plan.py"),
                           *files("0: (work a) [1]")], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0 and "Plan valid" in proc.stdout


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(alphabet=list("();:[]. \n\t-0123456789abworkpayflex?"), max_size=60) | st.text(
    max_size=30))
def test_arbitrary_plan_text_never_crashes(files, text):
    code = cli.main(files(text))
    assert code in (0, 1, 2)

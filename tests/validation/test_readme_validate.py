"""The README's validation example runs as written (issue 17, job 2): the commands of its code block, in order,
from the repository root; `scripts/validate_plan.py` started by the system's python3 runs itself with .venv."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _block() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    at = text.index("Validate a plan at both levels")
    body = re.search(r"```sh\n(.*?)```", text[at:], re.DOTALL).group(1)
    commands = body.replace("\\\n", " ").splitlines()
    return [re.sub(r"\s+#.*$", "", c).strip() for c in commands if c.strip()]


def test_the_readme_validation_example_runs_as_written():
    commands = _block()
    assert commands[0].startswith("make venv") and "hygiene-pddl plan" in commands[1]
    if not (ROOT / ".venv" / "bin" / "hygiene-pddl").exists():
        pytest.skip("needs the project's .venv (make venv)")
    for command in commands[1:]:  # `make venv` made the environment these tests run in
        run = subprocess.run(command, shell=True, cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, f"{command}\n{run.stdout}\n{run.stderr}"
    assert "Plan valid" in run.stdout and "continuation valid" in run.stdout
    assert "optimal: matches the certified reference optimum" in run.stdout


def test_the_script_runs_itself_with_the_project_venv_when_python3_lacks_the_packages(tmp_path):
    base = Path(sys.base_prefix) / "bin" / "python3"
    if not base.exists() or not (ROOT / ".venv" / "bin" / "python").exists():
        pytest.skip("needs a base interpreter and the project's .venv")
    stem = ROOT / "problems" / "spoon_fruit" / "spoon_fruit-wash_then_touch-spare_parts_first"
    plan = tmp_path / "p.plan"
    plan.write_text("0.000: (wash-pad right right-pad) [3.000]\n3.010: (pick right apple apple-skin counter "
                    "right-pad) [1.000]\n4.020: (place right apple plate apple-skin plate-top) [1.000]\n")
    run = subprocess.run([str(base), str(ROOT / "scripts" / "validate_plan.py"), str(ROOT / "domains" /
                          "spoon_fruit.pddl"), f"{stem}.pddl", str(plan), "--instance", f"{stem}.json"],
                         capture_output=True, text=True, timeout=120, env={"PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Plan valid" in run.stdout and "continuation valid" in run.stdout

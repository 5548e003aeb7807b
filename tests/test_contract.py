"""The contract scripts rely on: exit codes per outcome, --json, quiet closed pipes, --version, and
defaults that do not depend on the current directory."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from hygiene_pddl import __version__, cli, errors
from hygiene_pddl.paths import benchmark_root, problems_dir
from tests.benchmark_files import an_infeasible_instance

ROOT = Path(__file__).resolve().parents[1]
SPOON = ROOT / "problems/spoon_fruit/spoon_fruit-wash_then_touch-water_first.json"
INFEASIBLE = an_infeasible_instance()


def _cli(*args: str, cwd: Path = ROOT, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hygiene_pddl", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)


def test_exit_code_page_matches_the_constants():
    page = (ROOT / "docs/exit-codes.md").read_text()
    rows = dict(re.findall(r"^\| (\d+) \| (.+?) \|", page, re.M))
    assert {int(c) for c in rows} == {errors.EXIT_OK, errors.EXIT_INVALID, errors.EXIT_BAD_INPUT, errors.EXIT_INTERNAL,
                                      errors.EXIT_INFEASIBLE, errors.EXIT_UNDETERMINED, errors.EXIT_UNAVAILABLE}
    assert "infeasible" in rows[str(errors.EXIT_INFEASIBLE)] and "undetermined" in rows[str(errors.EXIT_UNDETERMINED)]
    readme = (ROOT / "README.md").read_text()
    for code in (10, 12, 37):
        assert f"| {code} | `plan`" in readme


def test_plan_gives_each_outcome_its_own_code(tmp_path, capsys):
    assert cli.main(["plan", str(SPOON), "--json"]) == errors.EXIT_OK
    assert json.loads(capsys.readouterr().out)["status"] == "plan"
    assert cli.main(["plan", str(INFEASIBLE), "-o", str(tmp_path / "p.plan")]) == errors.EXIT_INFEASIBLE
    assert "; status: infeasible" in (tmp_path / "p.plan").read_text()
    capsys.readouterr()
    quiet = tmp_path / "quiet.py"
    quiet.write_text("pass\n")
    assert cli.main(["plan", str(SPOON), "--planner", f"cmd:{sys.executable} {quiet} {{domain}}"]) == 12
    assert "; status: undetermined" in capsys.readouterr().out
    assert cli.main(["plan", str(SPOON), "--planner", "cmd:not-installed-xyz {domain} {problem}"]) == 37
    assert "cannot run here" in capsys.readouterr().err
    assert cli.main(["plan", str(SPOON), "--planner", "no-such-planner"]) == errors.EXIT_BAD_INPUT
    assert cli.main(["plan", str(tmp_path / "missing.json")]) == errors.EXIT_BAD_INPUT


def test_json_on_planners_and_registries(capsys):
    assert cli.main(["planners", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["name"] for r in rows} >= {"hygiene-nsp", "fd-cpsat", "external:lpg"}
    assert all(set(r) == {"name", "available", "reason", "description"} for r in rows)
    assert all(r["available"] or r["reason"] for r in rows)
    assert cli.main(["registries", "check", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] is True and out["counts"]["families"] > 0 and out["counts"]["actions"] > 0


def test_json_on_build_check(tmp_path, capsys, monkeypatch):
    import compiler.build

    files = {Path("domains/a.pddl"): "x\n", Path("problems/f/b.pddl"): "y\n"}
    monkeypatch.setattr(compiler.build, "benchmark_files", lambda reg, root, jobs: files)  # two files, not 3879
    (tmp_path / "domains").mkdir()
    (tmp_path / "domains/a.pddl").write_text("x\n")
    assert cli.main(["build", "--check", "--json", "--root", str(tmp_path)]) == errors.EXIT_INVALID
    out = json.loads(capsys.readouterr().out)
    assert out == {"current": False, "files": 2, "stale": ["problems/f/b.pddl: missing"]}
    (tmp_path / "problems/f").mkdir(parents=True)
    (tmp_path / "problems/f/b.pddl").write_text("y\n")
    assert cli.main(["build", "--check", "--json", "--root", str(tmp_path)]) == errors.EXIT_OK
    assert json.loads(capsys.readouterr().out)["current"] is True


def test_json_on_bench_and_resume(tmp_path, capsys):
    args = ["bench", "--planners", "hygiene-nsp", "--instances", str(SPOON), "--out", str(tmp_path / "r"),
            "--time-limit", "30", "--json"]
    assert cli.main(args) == 0
    first = json.loads(capsys.readouterr().out)
    assert (first["total"], first["ran"], first["skipped"]) == (1, 1, 0) and first["statuses"] == {"plan": 1}
    assert first["results"] == str(tmp_path / "r" / "results.jsonl")
    assert cli.main(args) == 0
    again = json.loads(capsys.readouterr().out)
    assert (again["ran"], again["skipped"]) == (0, 1)


def test_closed_pipe_is_a_quiet_exit():
    proc = subprocess.Popen([sys.executable, "-m", "hygiene_pddl", "planners"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdout.readline()  # `| head -1`
    proc.stdout.close()
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0 and err == b""


def test_closed_pipe_keeps_the_outcome_code():
    shell = f"'{sys.executable}' -m hygiene_pddl plan '{INFEASIBLE}' --json | head -1; exit ${{PIPESTATUS[0]}}"
    run = subprocess.run(["bash", "-c", shell], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == errors.EXIT_INFEASIBLE and run.stdout == "{\n" and run.stderr == ""


def test_version():
    run = _cli("--version")
    assert run.returncode == 0 and run.stdout.strip() == f"hygiene-pddl {__version__}"
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", __version__)


def test_benchmark_defaults_do_not_depend_on_the_current_directory(tmp_path, monkeypatch):
    run = _cli("stats", "--json", "--no-gates", cwd=tmp_path)
    assert run.returncode == 0 and json.loads(run.stdout)["instances"] > 0
    run = _cli("stats", "--problems", str(tmp_path), cwd=tmp_path)
    assert run.returncode == 2 and "no benchmark instance here" in run.stderr and "Traceback" not in run.stderr
    run = _cli("demo", "--problems", str(tmp_path / "nowhere"), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert run.returncode == 2 and "not found" in run.stderr
    monkeypatch.chdir(tmp_path)
    assert benchmark_root() == ROOT and problems_dir() == ROOT / "problems"
    parser = cli.build_parser()
    assert parser.parse_args(["demo"]).problems is None and parser.parse_args(["build"]).root is None


def test_without_a_checkout_the_defaults_stop_with_exit_2(tmp_path, monkeypatch):
    import hygiene_pddl.paths as paths

    monkeypatch.setattr(paths, "PACKAGE_ROOT", tmp_path)
    with pytest.raises(errors.InputError, match="no committed benchmark beside the installed package"):
        problems_dir()
    assert cli.main(["stats"]) == errors.EXIT_BAD_INPUT

"""`validate --batch FILE` and several plans per call: every plan is reported, each file is read once."""

import io
import json
from pathlib import Path

import pytest

from hygiene_pddl.validation import batch, cli
from hygiene_pddl.validation.pddl_level import engine

from .helpers import TOY, TOY_PROBLEM

PROBLEM = TOY_PROBLEM.format(extra="", goal="(done a)", metric="(:metric minimize (total-time))")
GOOD, BAD = "0: (work a) [1]\n", "0: (work a) [1]\n1.001: (work a) [1]\n"


@pytest.fixture()
def corpus(tmp_path):
    (tmp_path / "d.pddl").write_text(TOY)
    (tmp_path / "p.pddl").write_text(PROBLEM)
    (tmp_path / "p2.pddl").write_text(PROBLEM.replace("(done a)", "(done b)"))
    (tmp_path / "broken.pddl").write_text(PROBLEM.replace("(:init", "(:init ("))
    for name, text in {"good.plan": GOOD, "bad.plan": BAD, "garbage.plan": "0: (work a\n",
                       "good_b.plan": "0: (work b) [1.2222]\n"}.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def _batch(tmp: Path, lines: list[str]) -> str:
    path = tmp / "jobs.txt"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def _json_lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()]


def test_batch_reports_every_plan_in_order_and_exits_with_the_worst(corpus, capsys, monkeypatch):
    monkeypatch.chdir(corpus)
    jobs = _batch(corpus, ["# planner comparison", "", "d.pddl p.pddl good.plan  # the good one",
                           "d.pddl p.pddl bad.plan", "d.pddl p.pddl garbage.plan", "d.pddl p.pddl",
                           "d.pddl broken.pddl good.plan", "d.pddl p2.pddl good_b.plan", "d.pddl p.pddl missing.plan"])
    assert cli.main(["--batch", jobs, "--json"]) == 2
    rows = _json_lines(capsys.readouterr().out)
    assert [(r["plan"], r["valid"], r["exit"]) for r in rows] == [
        ("good.plan", True, 0), ("bad.plan", False, 1), ("garbage.plan", None, 2), ("d.pddl p.pddl", None, 2),
        ("good.plan", None, 2), ("good_b.plan", True, 0), ("missing.plan", None, 2)]
    assert rows[1]["reason"] == "precondition" and rows[1]["failure"]["step"] == 2
    assert "garbage.plan:1" in rows[2]["error"] and "jobs.txt:6" in rows[3]["error"]
    assert "broken.pddl" in rows[4]["error"] and rows[4]["problem"] == "broken.pddl"
    assert "trace" not in rows[0] and rows[0]["hints"] == []  # no traces and no extra runs in bulk


def test_batch_human_output_and_exit_codes(corpus, capsys, monkeypatch):
    monkeypatch.chdir(corpus)
    assert cli.main(["--batch", _batch(corpus, ["d.pddl p.pddl good.plan", "d.pddl p2.pddl good_b.plan"])]) == 0
    out = capsys.readouterr().out
    assert out.count("Plan valid") == 2 and "== good_b.plan" in out
    assert cli.main(["--batch", _batch(corpus, ["d.pddl p.pddl good.plan", "d.pddl p.pddl bad.plan"])]) == 1
    assert "set (free a) to true before step 2 at 1.001" in capsys.readouterr().out


def test_each_domain_and_problem_is_read_once(corpus, monkeypatch, capsys):
    monkeypatch.chdir(corpus)
    reads: list[str] = []
    for name in ("read_domain", "read_problem"):
        real = getattr(batch, name)
        monkeypatch.setattr(batch, name, lambda path, real=real: reads.append(path) or real(path))
    lines = ["d.pddl p.pddl good.plan", "d.pddl p.pddl bad.plan", "d.pddl p2.pddl good_b.plan",
             "d.pddl p.pddl good.plan", "d.pddl broken.pddl good.plan", "d.pddl broken.pddl bad.plan"]
    assert cli.main(["--batch", _batch(corpus, lines)]) == 2
    assert sorted(reads) == ["broken.pddl", "d.pddl", "p.pddl", "p2.pddl"]


def test_batch_from_standard_input(corpus, capsys, monkeypatch):
    monkeypatch.chdir(corpus)
    monkeypatch.setattr("sys.stdin", io.StringIO("d.pddl p.pddl good.plan\n"))
    assert cli.main(["--batch", "-", "--json"]) == 0
    assert _json_lines(capsys.readouterr().out)[0]["valid"] is True


def test_several_plans_report_every_plan_even_when_one_is_unreadable(corpus, capsys):
    files = [str(corpus / n) for n in ("d.pddl", "p.pddl", "good.plan", "garbage.plan", "bad.plan")]
    assert cli.main(["--json", *files]) == 2
    rows = _json_lines(capsys.readouterr().out)
    assert [(Path(r["plan"]).name, r["valid"], r["exit"]) for r in rows] == [
        ("good.plan", True, 0), ("garbage.plan", None, 2), ("bad.plan", False, 1)]
    assert cli.main(files) == 2
    out = capsys.readouterr().out
    assert "Plan valid" in out and "garbage.plan:1" in out and "Plan failed to execute" in out


def test_an_internal_error_stops_only_its_plan(corpus, capsys, monkeypatch):
    real = engine.Engine.run

    def flaky(self, plan, *a, **k):
        if plan.steps and plan.steps[0].args == ("b",):
            raise RuntimeError("simulated bug")
        return real(self, plan, *a, **k)

    monkeypatch.setattr(engine.Engine, "run", flaky)
    monkeypatch.chdir(corpus)
    assert cli.main(["--batch", _batch(corpus, ["d.pddl p2.pddl good_b.plan", "d.pddl p.pddl good.plan"]),
                     "--json"]) == 3
    captured = capsys.readouterr()
    assert [r["exit"] for r in _json_lines(captured.out)] == [3, 0]
    assert "internal error: RuntimeError: simulated bug" in captured.err


@pytest.mark.parametrize("argv, message", [
    (["--batch", "x", "d", "p", "plan"], "not both"), (["d", "p"], "expected DOMAIN PROBLEM PLAN"),
    (["--batch", "x", "--instance", "i.json"], "--instance"), (["--batch", "nope.txt"], "nope.txt")])
def test_usage_errors_are_exit_2(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli.main(argv) == 2
    assert message in capsys.readouterr().err

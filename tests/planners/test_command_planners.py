"""Planners that are not a fixed list: ``cmd:TEMPLATE`` (any command-line PDDL planner) and ``up:ENGINE``."""

import os
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from hygiene_pddl import cli
from hygiene_pddl.errors import InputError
from hygiene_pddl.instances import load_instance, load_reference
from hygiene_pddl.planners import catalogue
from hygiene_pddl.planners.base import PlanStatus
from hygiene_pddl.planners.command import CommandPlanner, parse_command
from hygiene_pddl.plans.extract import extract_plan, plan_lines
from hygiene_pddl.plans.parser import parse_plan
from hygiene_pddl.registries import load_registries
from hygiene_pddl.validation.instance_level import evaluate_plan

ROOT = Path(__file__).resolve().parents[2]
REG = load_registries()
SPOON = ROOT / "problems/spoon_fruit/spoon_fruit-wash_then_touch-water_first.json"
LPG = Path(__import__("up_lpg").__file__).resolve().parent / "lpg"
ENGINE = pytest.mark.skipif(os.environ.get("HYGIENE_SKIP_ENGINES") == "1", reason="HYGIENE_SKIP_ENGINES=1")


def _accepted(result) -> bool:
    ref = load_reference(SPOON.with_name(SPOON.stem + ".reference.json"))
    return evaluate_plan(REG, load_instance(SPOON, REG), parse_plan(result.plan_text), ref).valid


OPTIC_LIKE = """Number of literals: 12
;;;; Solution Found
; States evaluated: 3
0.000: (wash-pad right right-pad)  [3.000]
3.001: (pick right apple apple-skin counter right-pad)  [1.000]
b (1.000 | 4.001)
; Plan found with metric 288.000
0.000: (replace-pad right right-pad)  [2.000]
2.001: (pick right apple apple-skin counter right-pad)  [1.000]
; a comment inside the plan
3.002: (place right apple plate apple-skin plate-top)  [1.000]
"""


def test_tolerant_reader_takes_the_last_plan_and_repairs_lpg_brackets():
    plan = extract_plan(OPTIC_LIKE)
    assert [s.action for s in plan.steps] == ["replace-pad", "pick", "place"]
    assert plan.steps[1].time == Fraction("2.001") and plan.steps[2].duration == 1
    lpg = extract_plan("; Version LPG-td-1.4\n\n0.0003:   (REPLACE-PAD_0 RIGHT RIGHT-PAD) [2.0000])\n")
    assert lpg.steps[0].action.lower() == "replace-pad_0" and lpg.steps[0].duration == 2
    fd = extract_plan("(pick left a b)\n(place left a c)\n; cost = 2 (unit cost)\n")
    assert [s.time for s in fd.steps] == [None, None] and fd.trailer_cost == 2
    assert extract_plan("no plan found\n;; search exhausted\n").steps == ()
    assert plan_lines("Solution: (not a plan) because words follow\n") == []
    assert extract_plan("(pick left a b)\n; cost: 288 (planner says)\n").cost == ()


def test_command_names_pick_their_target():
    assert parse_command("cmd:optic {domain} {problem}") == ("optic", "optic {domain} {problem}")
    assert parse_command("cmd:/opt/bin/lpg -o {domain} -f {problem}")[0] == "lpg"
    assert parse_command("cmd[enhsp]:java -jar e.jar -o {domain} -f {problem}")[0] == "enhsp"
    assert parse_command("cmd:myplanner {domain} {problem}")[0] == "val"
    with pytest.raises(InputError):
        parse_command("cmd:myplanner")  # no files: not a PDDL planner command
    assert "cmd:optic {domain} {problem}" in catalogue() and "up:tamer" in catalogue()
    assert "nonsense" not in catalogue()


@pytest.mark.skipif(not os.access(LPG, os.X_OK), reason="no LPG-td binary for this platform")
def test_lpg_td_through_a_command_template_gives_an_accepted_plan():
    planner = catalogue()[f"cmd:{LPG} -o {{domain}} -f {{problem}} -n 1 -out {{plan}}"].factory()
    result = planner.solve(load_instance(SPOON, REG), 30, REG)
    assert result.status is PlanStatus.PLAN, result.notes
    assert any("plan.txt_1.SOL" in n for n in result.notes)  # LPG-td's numbered plan file
    assert _accepted(result) and not result.proved_optimal


def _script(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "planner.py"
    path.write_text(body)
    return path


def test_a_planner_printing_noise_and_plans_on_stdout(tmp_path):
    script = _script(tmp_path, f"import sys\nassert open(sys.argv[1]).read()\nprint({OPTIC_LIKE!r})\n")
    planner = CommandPlanner(f"{sys.executable} {script} {{domain}} {{problem}}")
    result = planner.solve(load_instance(SPOON, REG), 20, REG)
    assert result.status is PlanStatus.PLAN and [s.name for s in result.steps] == ["replace-pad", "pick", "place"]
    assert any("standard output" in n for n in result.notes) and _accepted(result)


def test_a_planner_past_the_time_limit_is_killed_and_undetermined(tmp_path):
    script = _script(tmp_path, "import time\ntime.sleep(60)\n")
    result = CommandPlanner(f"{sys.executable} {script} {{domain}} {{problem}}").solve(
        load_instance(SPOON, REG), 0.5, REG)
    assert result.status is PlanStatus.UNDETERMINED and "killed at the time limit" in result.notes
    assert result.timing("total") < 20


def test_a_planner_without_a_plan_or_with_a_bad_one_is_undetermined(tmp_path):
    quiet = _script(tmp_path, "import sys\nprint('no solution', file=sys.stderr)\nsys.exit(1)\n")
    result = CommandPlanner(f"{sys.executable} {quiet} {{domain}}").solve(load_instance(SPOON, REG), 20, REG)
    assert result.status is PlanStatus.UNDETERMINED and "stderr: no solution" in result.notes
    wrong = _script(tmp_path, "print('0: (fly right apple) [1]')\n")
    result = CommandPlanner(f"{sys.executable} {wrong} {{domain}}").solve(load_instance(SPOON, REG), 20, REG)
    assert result.status is PlanStatus.UNDETERMINED and any("does not map back" in n for n in result.notes)


def test_plan_command_exit_codes_for_command_planners(tmp_path):
    assert cli.main(["plan", str(SPOON), "--planner", "cmd:no-such-planner-here {domain} {problem}"]) == 37
    assert cli.main(["plan", str(SPOON), "--planner", "cmd:no-such-planner-here"]) == 2
    quiet = _script(tmp_path, "pass\n")
    assert cli.main(["plan", str(SPOON), "--planner", f"cmd:{sys.executable} {quiet} {{domain}}"]) == 12


@ENGINE
def test_any_unified_planning_engine_by_name():
    info = catalogue()["up:symk"]  # not one of external:'s engines: its flavour comes from its declared kind
    assert info.available() == (True, "")
    result = info.factory().solve(load_instance(SPOON, REG), 30, REG)
    assert result.planner == "up:symk" and result.notes[0].startswith("classical flavour")
    assert result.status is PlanStatus.PLAN and _accepted(result)
    ok, why = catalogue()["up:no-such-engine"].available()
    assert not ok and "no engine 'no-such-engine'" in why

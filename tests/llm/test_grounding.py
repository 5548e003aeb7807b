"""Goal grounding: the LLM grounder's answers read and type-checked, hygiene-nsp-llm on them, rule-sat's rules
grounder recorded, accuracy against the grounded goals; saved answers and the plan command's errors."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from hygiene_pddl.instances import load_instance
from hygiene_pddl.planners.goal_grounding import accuracy, goal_problem
from hygiene_pddl.planners.llm.grounding import read_goal_answer
from hygiene_pddl.planners.llm.planner import GroundedNSP, SavedPlanner
from hygiene_pddl.planners.llm.reader import Unreadable
from hygiene_pddl.planners.rule_sat import RuleSat
from hygiene_pddl.plans.parser import parse_plan
from hygiene_pddl.registries import load_registries
from hygiene_pddl.validation.instance_level import evaluate_plan
from tests.llm.scenarios import find_instance
from tests.llm.server import Reply, ScriptedServer

REG = load_registries()
COCOA = load_instance(find_instance("hot_cocoa-time_first"), REG)  # goals (has-cocoa mug), (melted marshmallows)


@pytest.mark.parametrize("text", [
    '{"goals": ["(has-cocoa mug)", "(melted marshmallows)"]}',
    'Sure!\n```json\n{"Goals": [["Has_Cocoa", "Mug"], ["melted", "marshmallows"]]}\n```',
    "<think>hmm</think>The goals are:\n```\n- (has-cocoa mug)\n- (melted marshmallows)\n- (has-cocoa mug)\n```",
])
def test_grounder_answers_in_several_shapes(text):
    assert read_goal_answer(REG, COCOA, text) == (("has-cocoa", "mug"), ("melted", "marshmallows"))


@pytest.mark.parametrize("text, reason", [
    ('{"goals": ["(has-tea mug)"]}', "predicate has-tea is not in the registry"),
    ('{"goals": ["(at mug)"]}', "takes 2 argument(s)"),
    ('{"goals": ["(at teapot counter)"]}', "teapot is not an object of this task"),
    ('{"goals": ["(at counter mug)"]}', "counter is not an item"),
    ('{"goals": ["(holding middle mug)"]}', "middle is not a gripper"),
    ('{"goals": ["has cocoa"]}', "is not an atom"),
    ("I would make cocoa.", "no goal atoms"),
])
def test_a_grounding_that_fails_the_type_check_says_why(text, reason):
    with pytest.raises(Unreadable, match=re.escape(reason)):
        read_goal_answer(REG, COCOA, text)


def test_goal_problem_accepts_the_benchmark_goals():
    for path in list(find_instance("hot_cocoa-time_first").parent.parent.glob("*/*.json"))[:200]:
        if path.name.endswith(".reference.json") or path.name == "MANIFEST.json":
            continue
        inst = load_instance(path, REG)
        assert [goal_problem(REG, inst, g) for g in inst.goals] == [None] * len(inst.goals), path


def test_accuracy_counts_exact_sets_and_atoms():
    a = accuracy([(["(a x)", "(b y)"], ["(b y)", "(a x)"]), (["(a x)"], ["(a x)", "(c z)"]), (None, ["(d w)"])])
    assert (a.n, a.grounded, a.exact, a.predicted, a.true_atoms, a.correct) == (3, 2, 1, 3, 5, 3)
    assert a.precision == 1.0 and a.recall == 3 / 5


def test_rule_sat_records_its_grounding():
    result = RuleSat().solve(COCOA, 30.0, REG)
    assert result.usage["grounding"] == {"grounder": "rules", "status": "ok",
                                         "goals": ["(has-cocoa mug)", "(melted marshmallows)"]}


def test_hygiene_nsp_llm_plans_for_the_grounded_goals(tmp_path, monkeypatch):
    replies = {0: Reply('{"goals": ["(has-cocoa mug)", "(melted marshmallows)"]}')}
    with ScriptedServer(lambda body, before: replies.get(before, Reply('{"goals": ["(at mug stove)"]}'))) as server:
        monkeypatch.setenv("HYGIENE_LLM_BASE_URL", server.url)
        monkeypatch.setenv("HYGIENE_LLM_CACHE", str(tmp_path))
        result = GroundedNSP("g").solve(COCOA, 30.0, REG)
        assert result.status.value == "plan" and evaluate_plan(REG, COCOA, parse_plan(result.plan_text)).valid
        assert result.usage["grounding"]["goals"] == ["(has-cocoa mug)", "(melted marshmallows)"]
        assert dict(result.timings)["grounding"] > 0 and result.planner == "hygiene-nsp-llm"
        # a grounding the planner plans for but that misses the request: a valid plan for the wrong task
        wrong = GroundedNSP("g", sample=2).solve(COCOA, 30.0, REG)
        assert wrong.usage["grounding"]["goals"] == ["(at mug stove)", "(safe mug)"]  # deliveries are safe (v2)
        assert not evaluate_plan(REG, COCOA, parse_plan(wrong.plan_text)).valid


def test_a_failed_grounding_is_reported_as_such(tmp_path, monkeypatch):
    with ScriptedServer(lambda body, before: Reply('{"goals": ["(at teapot counter)"]}')) as server:
        monkeypatch.setenv("HYGIENE_LLM_BASE_URL", server.url)
        monkeypatch.setenv("HYGIENE_LLM_CACHE", str(tmp_path))
        result = GroundedNSP("g").solve(COCOA, 30.0, REG)
    assert result.status.value == "undetermined" and result.usage["outcome"] == "failed grounding"
    assert result.usage["grounding"]["status"] == "failed" and "teapot" in result.usage["grounding"]["reason"]
    assert any(n.startswith("failed grounding: ") for n in result.notes)


def test_saved_answers_and_a_missing_one(tmp_path):
    (tmp_path / f"{COCOA.id}.md").write_text("```\n; status: infeasible\n```\n")
    answer = SavedPlanner(str(tmp_path)).solve(COCOA, 5.0, REG)
    assert answer.status.value == "infeasible" and answer.usage["saved"]["file"].endswith(".md")
    other = load_instance(find_instance("hot_cocoa-energy_first"), REG)
    missing = SavedPlanner(str(tmp_path)).solve(other, 5.0, REG)
    assert missing.status.value == "undetermined" and missing.usage["outcome"] == "no saved response"


def _plan_cli(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hygiene_pddl", "plan", str(find_instance("hot_cocoa-time_first")),
                           *args], capture_output=True, text=True, env=env, timeout=120)


def test_plan_command_with_an_llm_planner(tmp_path):
    base = {k: v for k, v in os.environ.items() if not k.startswith(("HYGIENE_LLM_", "OPENAI_"))}
    text = "".join(f"{s['start']}: ({s['name']} {' '.join(s['args'])}) [{s['duration']}]\n"
                   for s in json.loads(find_instance("hot_cocoa-time_first").with_name(
                       "hot_cocoa-time_first.reference.json").read_text())["plan"])
    with ScriptedServer(lambda body, before: Reply(text) if body["model"] == "good" else Reply(status=401)) as srv:
        env = {**base, "HYGIENE_LLM_BASE_URL": srv.url, "HYGIENE_LLM_CACHE": str(tmp_path)}
        done = _plan_cli("--planner", "llm:good", "--json", env=env)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["status"] == "plan"
        denied = _plan_cli("--planner", "llm:denied", env=env)
        assert denied.returncode == 2 and "HTTP 401" in denied.stderr and "Traceback" not in denied.stderr
    remote = _plan_cli("--planner", "llm:x", env={**base, "HYGIENE_LLM_BASE_URL": "https://example.invalid/v1"})
    assert remote.returncode == 37 and "no API key" in remote.stderr  # the planner cannot run here (docs/exit-codes.md)
    unknown = _plan_cli("--planner", "lm:x", env=base)
    assert unknown.returncode == 2 and "llm:<model>" in unknown.stderr

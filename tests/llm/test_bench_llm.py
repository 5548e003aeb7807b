"""The whole path through `hygiene-pddl bench` and `report` against a local OpenAI-compatible server: prompt,
HTTP client, retries, concurrency cap, cache, reader, both validators, metrics, report tables."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from hygiene_pddl.instances import load_instance
from hygiene_pddl.planners.llm.planner import LLMPlanner
from hygiene_pddl.registries import load_registries
from tests.llm.scenarios import PLAN_SCENARIOS, UNREADABLE_TEXT, Script, find_instance
from tests.llm.server import ScriptedServer

ROOT = Path(__file__).resolve().parents[2]
INSTANCES = [str(find_instance(i)) for i in PLAN_SCENARIOS]
PLANNERS = "llm:scripted,hygiene-nsp-llm"  # hygiene-nsp beside them: docs/llm.md, the helper report


def _cli(env: dict, *args: str) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "hygiene_pddl", *args], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def _bench(env: dict, out: Path, planners: str = PLANNERS) -> str:
    return _cli(env, "bench", "--planners", planners, "--instances", *INSTANCES, "--out", str(out), "--jobs", "2",
                "--time-limit", "20", "--quiet").stdout


def _report(env: dict, out: Path) -> tuple[dict, str]:
    printed = _cli(env, "report", str(out), "--out", str(out / "report"), "--no-swaps").stdout
    return json.loads((out / "report" / "report.json").read_text())["tables"], printed


def _records(out: Path) -> dict[tuple[str, str], dict]:
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines() if line.strip()]
    return {(r["planner"], r["instance"]): r for r in rows}


def _failures(tables: dict, planner: str) -> dict:
    return {k: v for k, v in tables["failures"][planner].items() if v and k not in ("n", "first_nonoptimal")}


def test_llm_planners_on_the_bench_end_to_end(tmp_path, monkeypatch):
    with ScriptedServer(Script(list(PLAN_SCENARIOS))) as server:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("HYGIENE_LLM_", "OPENAI_"))}
        env.update(HYGIENE_LLM_BASE_URL=server.url, HYGIENE_LLM_CACHE=str(tmp_path / "cache"),
                   HYGIENE_LLM_GROUNDER="scripted", HYGIENE_LLM_TIMEOUT="1", HYGIENE_LLM_RETRIES="1",
                   HYGIENE_LLM_BACKOFF="0.05", HYGIENE_LLM_MAX_CONCURRENT="1", HYGIENE_LLM_PRICE_INPUT="1",
                   HYGIENE_LLM_PRICE_OUTPUT="2", HYGIENE_LLM_TEMPERATURE="0.2", HYGIENE_LLM_SEED="7")
        first = tmp_path / "first"
        _bench(env, first)
        # 9 plan prompts + 1 retry after the 429 + 1 retry after the timeout; 5 distinct grounding prompts
        assert len(server.requests) == 16
        assert server.max_in_flight == 1  # HYGIENE_LLM_MAX_CONCURRENT=1 across the two bench workers
        tables, printed = _report(env, first)
        assert _failures(tables, "llm:scripted") == {
            "safe_optimal": 4,  # correct, prose-wrapped, JSON-shaped, 429 then correct
            "correct_rejection": 1, "incorrect_rejection": 1, "invalid_continuation": 1,  # unsafe plan
            "no_plan": 2}  # unreadable text, timeout
        assert _failures(tables, "hygiene-nsp-llm") == {"safe_optimal": 8, "no_plan": 1}  # the failed grounding
        llm = tables["llm"]["llm:scripted"]
        assert (llm["unreadable output"], llm["endpoint failure"], llm["retries"], llm["http_requests"],
                llm["cached"]) == (1, 1, 2, 11, 0)
        assert llm["prompt_tokens"] > 0 and llm["cost_usd"] > 0
        assert llm["parameters"] == [{"model": "scripted", "temperature": 0.2, "seed": 7, "max_tokens": 16384,
                                      "reasoning_effort": None}]
        assert tables["llm"]["hygiene-nsp-llm"]["failed grounding"] == 1
        assert tables["grounding"]["hygiene-nsp-llm"] | {} == {**tables["grounding"]["hygiene-nsp-llm"],
                                                              "n": 9, "grounded": 8, "exact": 8}
        assert "LLM calls" in printed and "Grounding accuracy" in printed

        records = _records(first)
        unreadable = records[("llm:scripted", "hot_cocoa-energy_first")]
        assert unreadable["status"] == "undetermined" and UNREADABLE_TEXT in " ".join(unreadable["notes"])
        assert records[("llm:scripted", "hot_cocoa-time_first")]["usage"]["retries"] == 1
        timed_out = records[("llm:scripted", "spoon_fruit-touch_then_wash-spare_parts_first")]
        assert timed_out["usage"]["outcome"] == "endpoint failure" and timed_out["usage"]["http_requests"] == 2
        for (planner, _), rec in records.items():
            if planner.startswith("llm:"):
                assert rec["usage"]["llm"]["temperature"] == 0.2 and rec["usage"]["llm"]["max_tokens"] == 16384
                assert rec["usage"]["llm"]["template"] == "plan-v1"
        assert records[("llm:scripted", "spoon_fruit-wash_then_touch-spare_parts_first")]["valid"] is False

        # a resumed bench runs nothing and asks nothing
        assert "0 run now" in _bench(env, first)
        assert len(server.requests) == 16

        # a fresh run on the same cache asks only what failed before (the timed-out call) and plans the same
        for key, value in env.items():
            if key.startswith("HYGIENE_LLM_"):
                monkeypatch.setenv(key, value)
        reg = load_registries()
        for instance in PLAN_SCENARIOS:
            result = LLMPlanner("scripted").solve(load_instance(find_instance(instance), reg), 20.0, reg)
            before = records[("llm:scripted", instance)]
            assert result.status.value == before["status"]
            if before["plan_file"]:
                assert result.plan_text == (first / before["plan_file"]).read_text()
            assert result.usage["cached"] is (PLAN_SCENARIOS[instance] != "timeout")
        assert len(server.requests) == 16 + 2

        # answers obtained elsewhere (here: the cached texts, one file per instance id) score the same
        saved = tmp_path / "saved"
        saved.mkdir()
        for rec in records.values():
            usage = rec.get("usage") or {}
            if rec["planner"] == "llm:scripted" and usage.get("cache_file"):
                entry = json.loads(Path(usage["cache_file"]).read_text())
                (saved / f"{rec['instance']}.txt").write_text(entry["response"]["text"])
        second = tmp_path / "second"
        _bench(env, second, f"saved:{saved}")
        assert len(server.requests) == 16 + 2
        tables2, _ = _report(env, second)
        saved_name = f"saved:{saved.resolve()}"
        assert _failures(tables2, saved_name) == _failures(tables, "llm:scripted")  # the timeout: no saved answer
        assert tables2["llm"][saved_name]["no saved response"] == 1
        again = _records(second)
        for key in ("status", "valid", "pddl_valid", "cost", "optimal"):
            assert {i: again[(saved_name, i)][key] for i in PLAN_SCENARIOS} == \
                   {i: records[("llm:scripted", i)][key] for i in PLAN_SCENARIOS}

"""The chat client against the local server: retries with backoff, the deadline bounds every call, the cache
answers repeats without a request, configuration errors fail loudly, and the call cap holds across processes."""

from __future__ import annotations

import dataclasses
import multiprocessing
import threading
import time

import pytest

from hygiene_pddl.errors import InputError
from hygiene_pddl.planners.llm.cache import NoSlot, call_slot
from hygiene_pddl.planners.llm.client import ChatClient, EndpointError
from hygiene_pddl.planners.llm.config import EndpointConfig, endpoint_config, read_config_file
from tests.llm.server import Reply, ScriptedServer

MESSAGES = [{"role": "user", "content": "plan something"}]


def _cfg(server: ScriptedServer, tmp_path, **kw) -> EndpointConfig:
    return EndpointConfig(name="m", model="m", base_url=server.url, cache=str(tmp_path / "cache"), backoff=0.01,
                          retries=3, **kw)


def test_429_and_5xx_are_retried_then_the_answer_is_cached(tmp_path):
    script = {0: Reply(status=429, headers={"retry-after": "0"}), 1: Reply(status=503), 2: Reply("; status: plan")}
    with ScriptedServer(lambda body, before: script.get(before, script[2])) as server:
        cfg = _cfg(server, tmp_path, price_input=1.0, price_output=3.0)
        done = ChatClient(cfg).complete(MESSAGES, time.monotonic() + 20)
        assert (done.text, done.requests, done.retries, done.cached) == ("; status: plan", 3, 2, False)
        assert done.tokens["prompt_tokens"] > 0 and done.cost(cfg) > 0
        again = ChatClient(cfg).complete(MESSAGES, time.monotonic() + 20)
        assert (again.text, again.requests, again.cached, again.tokens) == (done.text, 0, True, done.tokens)
        assert len(server.requests) == 3
        # another sample, seed or temperature is another request
        ChatClient(cfg).complete(MESSAGES, time.monotonic() + 20, sample=2)
        ChatClient(dataclasses.replace(cfg, temperature=0.7)).complete(MESSAGES, time.monotonic() + 20)
        assert len(server.requests) == 5
        assert [r.get("seed") for r in server.requests[-2:]] == [1, 0]


def test_retries_stop_at_the_configured_count_and_failures_are_not_cached(tmp_path):
    with ScriptedServer(lambda body, before: Reply(status=500)) as server:
        cfg = _cfg(server, tmp_path)
        done = ChatClient(cfg).complete(MESSAGES, time.monotonic() + 20)
        assert done.text is None and done.requests == 4 and "gave up after 3 retries" in done.failure
        ChatClient(cfg).complete(MESSAGES, time.monotonic() + 20)
        assert len(server.requests) == 8


def test_a_slow_endpoint_never_holds_the_call_past_its_deadline(tmp_path):
    with ScriptedServer(lambda body, before: Reply("late", delay=30)) as server:
        cfg = _cfg(server, tmp_path, timeout=600.0)
        t0 = time.monotonic()
        done = ChatClient(cfg).complete(MESSAGES, t0 + 1.5)
        assert done.text is None and "timed out" in done.failure
        assert time.monotonic() - t0 < 3.0


@pytest.mark.parametrize("status", [400, 401, 404])
def test_configuration_errors_are_not_retried(tmp_path, status):
    with ScriptedServer(lambda body, before: Reply(status=status)) as server:
        with pytest.raises(EndpointError, match=f"HTTP {status}"):
            ChatClient(_cfg(server, tmp_path)).complete(MESSAGES, time.monotonic() + 20)
        assert len(server.requests) == 1


def _hold(folder: str, held: multiprocessing.Queue) -> None:
    with call_slot(folder, 2, time.monotonic() + 30):
        held.put(1)
        time.sleep(0.3)
        held.put(-1)


def test_the_call_cap_holds_across_processes(tmp_path):
    held: multiprocessing.Queue = multiprocessing.Queue()
    procs = [multiprocessing.get_context("fork").Process(target=_hold, args=(str(tmp_path), held))
             for _ in range(5)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(30)
    now = peak = 0
    while not held.empty():
        now += held.get()
        peak = max(peak, now)
    assert peak == 2 and all(p.exitcode == 0 for p in procs)
    with call_slot(tmp_path, 1, time.monotonic() + 5):
        busy = threading.Event()

        def other() -> None:
            try:
                with call_slot(tmp_path, 1, time.monotonic() + 0.2):
                    pass
            except NoSlot:
                busy.set()

        t = threading.Thread(target=other)
        t.start()
        t.join()
        assert busy.is_set()


def test_settings_from_file_environment_and_model_table(tmp_path):
    conf = tmp_path / "llm.toml"
    conf.write_text('[defaults]\nbase_url = "http://127.0.0.1:9/v1"\ntemperature = 0.5\nmax_tokens = 100\n\n'
                    '[models."sol"]\nmodel = "gpt-5.6-sol"\nreasoning_effort = "high"\ntemperature = "none"\n'
                    'max_tokens_field = "max_completion_tokens"\nprice_input = 1.25\nprice_output = 10\n')
    env = {"HYGIENE_LLM_CONFIG": str(conf), "HYGIENE_LLM_MAX_TOKENS": "200", "HYGIENE_LLM_MODEL": "ignored"}
    sol, other = endpoint_config("sol", env), endpoint_config("qwen", env)
    assert (sol.model, sol.temperature, sol.reasoning_effort, sol.max_tokens, sol.max_tokens_field) == \
        ("gpt-5.6-sol", None, "high", 200, "max_completion_tokens")
    assert (other.model, other.temperature, other.max_tokens, other.local) == ("qwen", 0.5, 200, True)
    assert other.availability() == (True, "")
    remote = endpoint_config("x", {"OPENAI_BASE_URL": "https://example.invalid/v1"})
    assert not remote.availability()[0] and "OPENAI_API_KEY" in remote.availability()[1]
    assert remote.parameters()["base_url"] == "https://example.invalid/v1"


@pytest.mark.parametrize("text, message", [
    ("[defaults]\ntemperature = ", "malformed TOML"),
    ("[defaults]\ntemprature = 1\n", "unknown setting(s) temprature"),
    ("[defaults]\nretries = -1\n", "retries must be a non-negative integer"),
    ('[model.x]\nmodel = "y"\n', "unknown table(s) model"),
    ('[defaults]\nmax_tokens_field = "tokens"\n', "max_tokens_field must be"),
])
def test_a_bad_configuration_file_is_bad_input(tmp_path, text, message):
    conf = tmp_path / "llm.toml"
    conf.write_text(text)
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")) as err:
        read_config_file(conf)
    assert str(conf) in str(err.value)

"""Language-model planners behind the common interface: ``llm:<model>`` (one chat-completions call with the
``plan`` prompt), ``saved:<dir>`` (answers obtained elsewhere, one file per instance id) and
``hygiene-nsp-llm`` (Hygiene-NSP on goals grounded by a language model from the request, paper §IV-A).

Every result carries ``usage``: the endpoint parameters (model, base URL, temperature, seed, max tokens,
reasoning effort), the prompt's template version and SHA-256, the sample number, whether the answer came from
the cache, HTTP requests and retries made, token counts, cost (when prices are configured) and the outcome
(``answer``, ``unreadable output``, ``endpoint failure``, ``failed grounding``, ``no saved response``).
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from pathlib import Path

from hygiene_pddl.costs import CostVector
from hygiene_pddl.errors import InputError
from hygiene_pddl.instances.model import Instance
from hygiene_pddl.planners.base import PlannerResult, PlanStatus, no_plan_result, plan_text, timings_since
from hygiene_pddl.planners.goal_grounding import grounding_usage, with_implied_goals
from hygiene_pddl.planners.llm.cache import canonical_json, sha256
from hygiene_pddl.planners.llm.client import ChatClient, Completion, EndpointError, request_body
from hygiene_pddl.planners.llm.config import EndpointConfig, endpoint_config
from hygiene_pddl.planners.llm.grounding import read_goal_answer
from hygiene_pddl.planners.llm.prompt import TEMPLATES, messages, render_prompt
from hygiene_pddl.planners.llm.reader import Unreadable, excerpt, read_answer
from hygiene_pddl.registries import Registries, load_registries

#: Seconds kept back from the time limit for reading the answer and writing the plan.
RESERVE = 0.5
#: Share of the time limit the grounding call of hygiene-nsp-llm may take (the rest is Hygiene-NSP's).
GROUNDING_SHARE = 0.5
#: File names a saved answer may have in a ``saved:`` folder, tried in this order.
SAVED_SUFFIXES = ("", ".txt", ".md", ".json", ".plan", ".out", ".response")

UNREADABLE = "unreadable output"
ENDPOINT_FAILURE = "endpoint failure"
FAILED_GROUNDING = "failed grounding"
NO_SAVED = "no saved response"


def call_usage(cfg: EndpointConfig, purpose: str, prompt: str, done: Completion, sample: int) -> dict:
    """The ``usage`` record of one call (no secret: the key's variable name is not even recorded)."""
    body = request_body(cfg, messages(prompt), sample)
    return {
        "llm": {**cfg.parameters(), "name": cfg.name, "seed_sent": body.get("seed"), "template": TEMPLATES[purpose],
                "prompt_sha256": sha256(canonical_json(messages(prompt))), "sample": sample},
        "calls": 1, "cached": done.cached, "http_requests": done.requests, "retries": done.retries,
        "tokens": dict(done.tokens), "cost_usd": done.cost(cfg), "finish_reason": done.finish_reason,
        "cache_file": done.cache_file, "call_seconds": round(done.seconds, 3),
    }


def answer_result(name: str, reg: Registries, inst: Instance, text: str | None, failure: str, usage: dict,
                  t0: float, t_build: float) -> PlannerResult:
    """The result of reading one answer (``text``; ``None`` with ``failure`` when there is none)."""
    timings = timings_since(t0, t_build)
    if text is None:
        outcome = NO_SAVED if failure.startswith(NO_SAVED) else ENDPOINT_FAILURE
        return _no_plan(name, reg, inst, PlanStatus.UNDETERMINED, timings, [failure], usage, outcome)
    answer = read_answer(reg, inst, text)
    notes = list(answer.notes)
    if answer.claimed_cost is not None:
        usage["claimed_cost"] = dict(answer.claimed_cost)
    if answer.status == "unreadable":
        return _no_plan(name, reg, inst, PlanStatus.UNDETERMINED, timings,
                        [f"{UNREADABLE}: {answer.reason}", f"response text: {excerpt(text)}"], usage, UNREADABLE)
    if answer.status != "plan":
        notes.append(f"the model judges the continuation {answer.status}")
        return _no_plan(name, reg, inst, PlanStatus(answer.status), timings, notes, usage, "answer")
    cost = None
    if answer.claimed_cost is not None:
        cost = CostVector.from_mapping(answer.claimed_cost)
        if len(answer.claimed_cost) < len(cost.values):
            notes.append("cost dimensions the answer does not state are taken as 0 in its claimed cost")
    usage["outcome"] = "answer"
    return PlannerResult(name, inst.id, PlanStatus.PLAN, False, answer.steps,
                         plan_text(reg, inst, list(answer.steps), name, cost), cost, timings, tuple(notes), usage=usage)


def _no_plan(name: str, reg: Registries, inst: Instance, status: PlanStatus, timings, notes: list[str], usage: dict,
             outcome: str) -> PlannerResult:  # noqa: ANN001
    usage["outcome"] = outcome
    return dataclasses.replace(no_plan_result(name, reg, inst, status, timings, notes), usage=usage)


def _ask(cfg: EndpointConfig, prompt: str, deadline: float, sample: int, purpose: str) -> Completion:
    try:
        return ChatClient(cfg).complete(messages(prompt), deadline, sample, purpose)
    except EndpointError as exc:
        raise InputError(str(exc)) from None


@dataclass
class LLMPlanner:
    """A language model as a planner: the ``plan`` prompt in, the answer read into a plan file."""

    model: str
    name: str = ""
    sample: int = 1  # run k of a bench is sample k (its own seed and cache entry)

    def __post_init__(self) -> None:
        self.name = self.name or f"llm:{self.model}"

    def solve(self, inst: Instance, time_limit: float = 30.0, reg: Registries | None = None) -> PlannerResult:
        reg = reg or load_registries()
        t0 = time.perf_counter()
        deadline = time.monotonic() + time_limit - RESERVE
        cfg = endpoint_config(self.model)
        prompt = render_prompt(reg, inst, "plan")
        t_build = time.perf_counter() - t0
        done = _ask(cfg, prompt, deadline, self.sample, "plan")
        usage = call_usage(cfg, "plan", prompt, done, self.sample)
        return answer_result(self.name, reg, inst, done.text, done.failure, usage, t0, t_build)


@dataclass
class SavedPlanner:
    """Answers obtained elsewhere: ``folder/<instance id>[.txt|.md|.json|...]`` holds the answer text."""

    folder: str
    name: str = ""

    def __post_init__(self) -> None:
        self.name = self.name or f"saved:{self.folder}"

    def answer_file(self, inst: Instance) -> Path | None:
        for suffix in SAVED_SUFFIXES:
            path = Path(self.folder) / f"{inst.id}{suffix}"
            if path.is_file():
                return path
        return None

    def solve(self, inst: Instance, time_limit: float = 30.0, reg: Registries | None = None) -> PlannerResult:
        reg = reg or load_registries()
        t0 = time.perf_counter()
        path = self.answer_file(inst)
        usage = {"saved": {"folder": self.folder, "file": str(path) if path else None}}
        if path is None:
            return answer_result(self.name, reg, inst, None, f"{NO_SAVED}: no file {inst.id}[.txt|.md|.json|...] "
                                 f"in {self.folder}", usage, t0, 0.0)
        text = path.read_bytes().decode("utf-8", errors="replace")
        return answer_result(self.name, reg, inst, text, "", usage, t0, time.perf_counter() - t0)


@dataclass
class GroundedNSP:
    """Hygiene-NSP whose goals come from a language model's grounding of the request (paper §IV-A): the
    instance's grounded goals are replaced by the model's, type-checked against the registries; a failed
    grounding is the answer *undetermined* with the reason. Optimality claims are relative to the grounded
    goals (the note says so)."""

    model: str | None
    name: str = "hygiene-nsp-llm"
    sample: int = 1

    def solve(self, inst: Instance, time_limit: float = 30.0, reg: Registries | None = None) -> PlannerResult:
        from hygiene_pddl.planners.nsp import HygieneNSP

        if not self.model:
            raise InputError("hygiene-nsp-llm needs a grounding model: set HYGIENE_LLM_GROUNDER (or "
                             "HYGIENE_LLM_MODEL), or name it as hygiene-nsp-llm:<model>")
        reg = reg or load_registries()
        t0 = time.perf_counter()
        cfg = endpoint_config(self.model)
        prompt = render_prompt(reg, inst, "ground")
        done = _ask(cfg, prompt, time.monotonic() + time_limit * GROUNDING_SHARE, self.sample, "ground")
        usage = call_usage(cfg, "ground", prompt, done, self.sample)
        grounder = f"llm:{self.model}"
        if done.text is None:
            usage["grounding"] = grounding_usage(grounder, None, done.failure)
            return answer_result(self.name, reg, inst, None, done.failure, usage, t0, time.perf_counter() - t0)
        try:
            goals = with_implied_goals(reg, inst, read_goal_answer(reg, inst, done.text))
        except Unreadable as exc:
            usage["grounding"] = grounding_usage(grounder, None, str(exc))
            return _no_plan(self.name, reg, inst, PlanStatus.UNDETERMINED, timings_since(t0, time.perf_counter() - t0),
                            [f"{FAILED_GROUNDING}: {exc}", f"response text: {excerpt(done.text)}"], usage,
                            FAILED_GROUNDING)
        usage["grounding"] = grounding_usage(grounder, goals)
        usage["outcome"] = "answer"
        t_ground = time.perf_counter() - t0
        result = HygieneNSP(name=self.name).solve(dataclasses.replace(inst, goals=goals),
                                                  max(0.1, time_limit - t_ground), reg)
        note = "goals grounded by " + grounder + ": " + ", ".join("(" + " ".join(g) + ")" for g in goals)
        notes = (note, *result.notes) + (("optimality is relative to the grounded goals",)
                                         if result.proved_optimal else ())
        timings = dict(result.timings)
        timings = (("grounding", t_ground), ("build", timings.get("build", 0.0)), ("solve", timings.get("solve", 0.0)),
                   ("total", time.perf_counter() - t0))
        return dataclasses.replace(result, timings=timings, notes=notes, usage=usage)

"""Report tables for planners that record ``usage`` (LLM planners, grounders): calls, cache hits, HTTP
requests, retries, tokens and cost, the no-plan outcomes behind the failure table's "no plan" column
(unreadable output, endpoint failure, failed grounding), and grounding accuracy against the grounded goals.

Main-comparison records only (projection-study runs left out), every run counted.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from hygiene_pddl.bench.report import Table
from hygiene_pddl.planners.goal_grounding import accuracy, with_implied_goals

OUTCOMES = ("unreadable output", "endpoint failure", "failed grounding", "no saved response")


def _mine(raw: list[dict], planner: str) -> list[dict]:
    return [r for r in raw if r["planner"] == planner and not r.get("projection") and isinstance(r.get("usage"), dict)]


def llm_summary(raw: list[dict], planners: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Per planner with LLM calls: their count, parameters and what they cost."""
    out: dict[str, dict[str, Any]] = {}
    for p in planners:
        calls = [r["usage"] for r in _mine(raw, p) if "llm" in r["usage"] or "saved" in r["usage"]]
        if not calls:
            continue
        tokens = {k: sum(int((u.get("tokens") or {}).get(k, 0)) for u in calls)
                  for k in ("prompt_tokens", "completion_tokens", "reasoning_tokens")}
        costs = [u.get("cost_usd") for u in calls if u.get("cost_usd") is not None]
        params = sorted({json.dumps({k: u["llm"].get(k) for k in ("model", "temperature", "seed", "max_tokens",
                                                                  "reasoning_effort")}, sort_keys=True)
                         for u in calls if "llm" in u})
        out[p] = {"runs": len(calls), "cached": sum(1 for u in calls if u.get("cached")),
                  "http_requests": sum(int(u.get("http_requests") or 0) for u in calls),
                  "retries": sum(int(u.get("retries") or 0) for u in calls), **tokens,
                  "cost_usd": round(sum(costs), 6) if costs else None,
                  **{o: sum(1 for u in calls if u.get("outcome") == o) for o in OUTCOMES},
                  "parameters": [json.loads(x) for x in params]}
    return out


def grounding_summary(raw: list[dict], planners: Sequence[str], index) -> dict[str, dict[str, Any]]:  # noqa: ANN001
    """Per planner that grounds the request (rule-sat, hygiene-nsp-llm): accuracy against the grounded goals
    (both sides with the goals the loader implies, :func:`with_implied_goals`)."""
    from hygiene_pddl.instances import load_instance
    from hygiene_pddl.literals import atom_from_text, atom_text
    from hygiene_pddl.registries import load_registries

    reg, loaded = None, {}
    out = {}
    for p in planners:
        pairs, grounders = [], set()
        for r in _mine(raw, p):
            g, info = r["usage"].get("grounding"), index.instances.get(r["instance"])
            if not isinstance(g, dict) or info is None:
                continue
            reg = reg or load_registries()
            inst = loaded.setdefault(r["instance"], load_instance(info.path, reg))
            guess = None
            if g.get("status") == "ok":
                atoms = [atom_from_text(t) for t in g.get("goals", [])]
                guess = [atom_text(a) for a in with_implied_goals(reg, inst, atoms)]
            grounders.add(str(g.get("grounder")))
            pairs.append((guess, [atom_text(a) for a in inst.goals]))
        if pairs:
            out[p] = {"grounder": ", ".join(sorted(grounders)), **accuracy(pairs).as_dict()}
    return out


def _count(v: Any) -> str:
    return "–" if v is None else str(v)


def _param_text(params: list[dict]) -> str:
    return "; ".join(f"{p['model']} T={p['temperature']} seed={p['seed']} max={p['max_tokens']}"
                     + (f" effort={p['reasoning_effort']}" if p.get("reasoning_effort") else "") for p in params) or "–"


def llm_tables(raw: list[dict], planners: Sequence[str], index) -> tuple[dict[str, Any], list[Table]]:  # noqa: ANN001
    """(``tables`` entries ``llm`` and ``grounding``, their rendered tables); empty when no planner has usage."""
    calls, grounding = llm_summary(raw, planners), grounding_summary(raw, planners, index)
    out: list[Table] = []
    if calls:
        keys = ("runs", "cached", "http_requests", "retries", "prompt_tokens", "completion_tokens", "reasoning_tokens",
                "cost_usd", *OUTCOMES)
        out.append(Table(
            "llm", "LLM calls: cache, requests, tokens, cost, and the no-plan outcomes",
            ["planner", *keys, "parameters"],
            [[p, *(c[k] for k in keys), _param_text(c["parameters"])] for p, c in calls.items()],
            [[p, str(c["runs"]), str(c["cached"]), str(c["http_requests"]), str(c["retries"]),
              f"{c['prompt_tokens']} / {c['completion_tokens']}",
              "–" if c["cost_usd"] is None else f"{c['cost_usd']:.4f}",
              *(str(c[o]) for o in OUTCOMES), _param_text(c["parameters"])] for p, c in calls.items()],
            note="cached: answers served from the response cache (no request); the outcome columns split the failure "
                 "table's 'no plan/undet.' column; cost from the configured prices, for every answer used",
            display_headers=["planner", "runs", "cached", "HTTP requests", "retries", "tokens in / out", "cost USD",
                             "unreadable output", "endpoint failure", "failed grounding", "no saved answer",
                             "parameters"]))
    if grounding:
        keys = ("grounder", "n", "grounded", "exact", "precision", "recall")
        out.append(Table(
            "grounding", "Grounding accuracy against the grounded goals",
            ["planner", *keys], [[p, *(g[k] for k in keys)] for p, g in grounding.items()],
            [[p, g["grounder"], str(g["n"]), str(g["grounded"]), f"{g['exact']}/{g['n']}",
              "–" if g["precision"] is None else f"{g['precision']:.1%}",
              "–" if g["recall"] is None else f"{g['recall']:.1%}"] for p, g in grounding.items()],
            note="grounded: goals passed the type check; exact: the same goal set; precision and recall over goal "
                 "atoms",
            display_headers=["planner", "grounder", "n", "grounded", "exact", "atom precision", "atom recall"]))
    return {"llm": calls, "grounding": grounding}, out

"""One chat-completions call through the ``openai`` client: cache first, then a call slot, then the request
with its own retries (429, 5xx, timeouts, dropped connections; exponential backoff honouring Retry-After),
every attempt bounded by the planner's deadline.

The client library's own retries are off (``max_retries=0``): they know nothing of the planner's time limit
and would not be counted in the result.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

import openai  # imported with the planner (before the bench's clock starts), not inside the first call

from hygiene_pddl.planners.llm.cache import NoSlot, ResponseCache, call_slot, canonical_json, sha256
from hygiene_pddl.planners.llm.config import EndpointConfig

#: The least time worth starting an HTTP call with (seconds).
MIN_CALL = 0.5
RETRYABLE = (408, 409, 429)


class EndpointError(Exception):
    """An answer that retrying cannot change (bad request, wrong key, unknown model): the configuration is
    wrong, so the run fails loudly instead of scoring a planner."""


@dataclass
class Completion:
    """What one call produced: the text (None when the endpoint never answered), and its cost."""

    text: str | None
    cached: bool = False
    requests: int = 0  # HTTP requests made now (0 when served from the cache)
    retries: int = 0
    failure: str = ""  # why there is no text
    finish_reason: str | None = None
    tokens: dict = field(default_factory=dict)  # prompt_tokens, completion_tokens, total_tokens, ...
    cache_file: str | None = None
    seconds: float = 0.0

    def cost(self, cfg: EndpointConfig) -> float | None:
        """USD for the tokens, when both prices are configured."""
        if cfg.price_input is None or cfg.price_output is None or not self.tokens:
            return None
        return round((self.tokens.get("prompt_tokens", 0) * cfg.price_input
                      + self.tokens.get("completion_tokens", 0) * cfg.price_output) / 1e6, 8)


def request_body(cfg: EndpointConfig, messages: list[dict], sample: int = 1) -> dict:
    """The request's fields that shape the answer (the cache key is their hash)."""
    body: dict = {"model": cfg.model, "messages": messages, cfg.max_tokens_field: cfg.max_tokens}
    if cfg.temperature is not None:
        body["temperature"] = cfg.temperature
    if cfg.seed is not None:
        body["seed"] = cfg.seed + sample - 1
    if cfg.reasoning_effort:
        body["reasoning_effort"] = cfg.reasoning_effort
    return body


def request_key(cfg: EndpointConfig, body: dict, sample: int) -> str:
    return sha256(canonical_json({"base_url": cfg.base_url.rstrip("/"), "body": body,
                                  "extra_body": cfg.extra_body, "sample": sample}))


def _tokens(usage: object) -> dict:
    if usage is None:
        return {}
    data = usage.model_dump() if hasattr(usage, "model_dump") else dict(usage)  # type: ignore[call-overload]
    out = {k: int(v) for k, v in data.items() if isinstance(v, int) and not isinstance(v, bool)}
    details = data.get("completion_tokens_details") or {}
    if isinstance(details, dict) and isinstance(details.get("reasoning_tokens"), int):
        out["reasoning_tokens"] = details["reasoning_tokens"]
    return out


def _retry_after(exc: Exception) -> float | None:
    response = getattr(exc, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


class ChatClient:
    """Calls one configured endpoint (:class:`EndpointConfig`) with caching, a concurrency cap and retries."""

    def __init__(self, cfg: EndpointConfig):
        self.cfg = cfg
        self.cache = ResponseCache(cfg.cache)
        self._client = None

    def _openai(self) -> openai.OpenAI:
        if self._client is None:
            self._client = openai.OpenAI(base_url=self.cfg.base_url, api_key=self.cfg.api_key() or "not-needed",
                                         max_retries=0, timeout=self.cfg.timeout)
        return self._client

    def complete(self, messages: list[dict], deadline: float, sample: int = 1, purpose: str = "plan") -> Completion:
        """The answer to ``messages``, from the cache or the endpoint, by ``deadline`` (``time.monotonic``)."""
        t0 = time.monotonic()
        body = request_body(self.cfg, messages, sample)
        key = request_key(self.cfg, body, sample)
        if (hit := self._cached(key)) is not None:
            return hit
        slots = self.cache.root / "slots" / sha256(self.cfg.base_url.rstrip("/"))[:16]
        try:
            with call_slot(slots, self.cfg.max_concurrent, deadline - MIN_CALL):
                if (hit := self._cached(key)) is not None:  # answered while this call waited for its slot
                    return hit
                done = self._call(body, deadline, random.Random(key))
        except NoSlot as exc:
            done = Completion(None, failure=f"endpoint failure: {exc}")
        done.seconds = time.monotonic() - t0
        if done.text is not None:
            path = self.cache.put(key, {
                "key": key, "purpose": purpose, "sample": sample, "base_url": self.cfg.base_url,
                "request": {**{k: v for k, v in body.items() if k != "messages"}, "extra_body": self.cfg.extra_body,
                            "prompt_sha256": sha256(canonical_json(messages))},
                "messages": messages,
                "response": {"text": done.text, "finish_reason": done.finish_reason, "tokens": done.tokens}})
            done.cache_file = str(path)
        return done

    def _cached(self, key: str) -> Completion | None:
        entry = self.cache.get(key)
        if entry is None:
            return None
        resp = entry["response"]
        return Completion(resp.get("text"), cached=True, finish_reason=resp.get("finish_reason"),
                          tokens=dict(resp.get("tokens") or {}), cache_file=str(self.cache.path(key)))

    def _call(self, body: dict, deadline: float, rng: random.Random) -> Completion:
        out = Completion(None)
        while True:
            left = deadline - time.monotonic()
            if left < MIN_CALL:
                out.failure = out.failure or "endpoint failure: no time left for a call"
                out.failure += f" (time limit reached after {out.requests} request(s))" if out.requests else ""
                return out
            out.requests += 1
            try:
                resp = self._openai().chat.completions.create(**body, extra_body=self.cfg.extra_body or None,
                                                              timeout=min(self.cfg.timeout, left))
            except (openai.APITimeoutError, openai.APIConnectionError) as exc:
                kind = "timed out" if isinstance(exc, openai.APITimeoutError) else f"connection failed ({exc})"
                out.failure, wait = f"endpoint failure: request {out.requests} {kind}", None
            except openai.APIStatusError as exc:
                if exc.status_code not in RETRYABLE and exc.status_code < 500:
                    raise EndpointError(f"{self.cfg.base_url} answered HTTP {exc.status_code} for model "
                                        f"{self.cfg.model!r}: {_short(exc.message)}") from None
                out.failure = f"endpoint failure: HTTP {exc.status_code} ({_short(exc.message)})"
                wait = _retry_after(exc)
            else:
                choice = resp.choices[0] if resp.choices else None
                out.text = (choice.message.content or "") if choice is not None else ""
                out.finish_reason = getattr(choice, "finish_reason", None)
                out.tokens = _tokens(resp.usage)
                out.failure = ""
                return out
            if out.retries >= self.cfg.retries:
                out.failure += f"; gave up after {out.retries} retries"
                return out
            out.retries += 1
            backoff = min(self.cfg.backoff_max, self.cfg.backoff * 2 ** (out.retries - 1))
            wait = wait if wait is not None else backoff * (0.5 + rng.random() / 2)
            if time.monotonic() + wait + MIN_CALL > deadline:
                out.failure += "; no time left to retry"
                return out
            time.sleep(wait)


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit] + "…"

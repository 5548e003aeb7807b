"""Which endpoint a language-model planner calls, and with which parameters (docs/llm.md).

Settings come, later ones winning, from built-in defaults, the ``[defaults]`` table of the TOML file named by
``HYGIENE_LLM_CONFIG``, the environment (``HYGIENE_LLM_*``), and the file's ``[models."NAME"]`` table for the
model named in the planner (``llm:NAME``). The API key is never written to a file or a result: only the name of
the environment variable that holds it is configured.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

from hygiene_pddl.errors import InputError, Location

DEFAULT_BASE_URL = "https://api.openai.com/v1"


def _default_cache() -> str:
    root = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return str(Path(root) / "hygiene-pddl" / "llm")


@dataclass(frozen=True)
class EndpointConfig:
    """One model behind one OpenAI-compatible chat-completions endpoint."""

    name: str  # the planner's name for it (llm:NAME)
    model: str  # the model name sent to the endpoint
    base_url: str = DEFAULT_BASE_URL
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float | None = 0.0  # None: not sent (models that accept only their default)
    seed: int | None = 0  # None: not sent; run k of a bench sends seed + k - 1
    max_tokens: int = 16384
    max_tokens_field: str = "max_tokens"  # OpenAI's reasoning models want "max_completion_tokens"
    reasoning_effort: str | None = None  # e.g. "high" (sent only when set)
    timeout: float = 600.0  # seconds per HTTP call (never past the planner's time limit)
    retries: int = 6  # retries after a 429, a 5xx, a timeout or a dropped connection
    backoff: float = 1.0  # seconds before the first retry; doubled each time, capped at backoff_max
    backoff_max: float = 60.0
    max_concurrent: int = 4  # calls in flight to this endpoint at once, across processes
    cache: str = dataclasses.field(default_factory=_default_cache)
    price_input: float | None = None  # USD per million prompt tokens
    price_output: float | None = None  # USD per million completion tokens
    extra_body: dict = dataclasses.field(default_factory=dict)  # further request fields, sent as given

    @property
    def local(self) -> bool:
        """An endpoint on this machine (llama.cpp, vLLM, Ollama, the tests' server): no key needed."""
        return (urlparse(self.base_url).hostname or "") in ("127.0.0.1", "localhost", "::1")

    def api_key(self) -> str | None:
        return os.environ.get(self.api_key_env) or None

    def availability(self) -> tuple[bool, str]:
        if self.api_key() is None and not self.local:
            return False, (f"no API key: set {self.api_key_env} (or choose another variable with "
                           f"HYGIENE_LLM_API_KEY_ENV) for {self.base_url}")
        return True, ""

    def parameters(self) -> dict:
        """The parameters recorded with every result (no secret)."""
        return {"model": self.model, "base_url": self.base_url, "temperature": self.temperature, "seed": self.seed,
                "max_tokens": self.max_tokens, "reasoning_effort": self.reasoning_effort,
                **({"extra_body": self.extra_body} if self.extra_body else {})}


#: HYGIENE_LLM_<KEY> environment variables and the fields they set.
ENV_FIELDS = ("model", "base_url", "api_key_env", "temperature", "seed", "max_tokens", "max_tokens_field",
              "reasoning_effort", "timeout", "retries", "backoff", "backoff_max", "max_concurrent", "cache",
              "price_input", "price_output")
_FIELDS = {f.name: f for f in dataclasses.fields(EndpointConfig)}
_OPTIONAL = {"temperature", "seed", "reasoning_effort", "price_input", "price_output"}
_KINDS = {"temperature": float, "seed": int, "max_tokens": int, "timeout": float, "retries": int, "backoff": float,
          "backoff_max": float, "max_concurrent": int, "price_input": float, "price_output": float}


def _value(key: str, raw: object, where: str) -> object:
    """A setting from the environment (text) or the file (TOML value), checked and converted."""
    if key in _OPTIONAL and (raw is None or (isinstance(raw, str) and raw.strip().lower() in ("", "none", "off"))):
        return None
    if key == "extra_body":
        if not isinstance(raw, dict):
            raise InputError(f"{key} must be a table of request fields, got {raw!r}", Location(where))
        return raw
    kind = _KINDS.get(key, str)
    try:
        value = kind(raw) if not isinstance(raw, bool) else None
    except (TypeError, ValueError):
        value = None
    if value is None or (kind is not str and isinstance(value, int | float) and value < 0):
        what = {int: "a non-negative integer", float: "a non-negative number", str: "text"}[kind]
        raise InputError(f"{key} must be {what}, got {raw!r}", Location(where))
    if key == "max_tokens_field" and value not in ("max_tokens", "max_completion_tokens"):
        raise InputError(f"max_tokens_field must be max_tokens or max_completion_tokens, got {raw!r}",
                         Location(where))
    if key == "cache":
        value = str(Path(str(value)).expanduser().resolve())
    return value


def _table(data: object, where: str) -> dict:
    if not isinstance(data, dict):
        raise InputError("expected a table of settings", Location(where))
    unknown = sorted(set(data) - set(_FIELDS) - {"name"})
    if unknown:
        known = ", ".join(sorted(set(_FIELDS) - {"name"}))
        raise InputError(f"unknown setting(s) {', '.join(unknown)}; known: {known}",
                         Location(where))
    return {k: _value(k, v, where) for k, v in data.items() if k != "name"}


def read_config_file(path: str | Path) -> tuple[dict, dict[str, dict]]:
    """(defaults, models) of a TOML configuration file; InputError with the position when malformed."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"cannot read the LLM configuration (HYGIENE_LLM_CONFIG): {exc.strerror}",
                         Location(str(path))) from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"malformed TOML: {exc}", Location(str(path))) from None
    unknown = sorted(set(data) - {"defaults", "models"})
    if unknown:
        raise InputError(f"unknown table(s) {', '.join(unknown)}; expected [defaults] and [models.NAME]",
                         Location(str(path)))
    defaults = _table(data.get("defaults", {}), f"{path}: [defaults]")
    models_raw = data.get("models", {})
    if not isinstance(models_raw, dict):
        raise InputError("models must be a table of [models.NAME] tables", Location(str(path)))
    models = {name: _table(table, f"{path}: [models.{name}]") for name, table in models_raw.items()}
    return defaults, models


def endpoint_config(name: str, env: dict[str, str] | None = None) -> EndpointConfig:
    """The settings for the model the planner calls ``name`` (``llm:NAME``); the model name sent is ``NAME``
    unless its ``[models."NAME"]`` table says ``model = ...``."""
    env = dict(os.environ) if env is None else env
    settings: dict = {}
    models: dict[str, dict] = {}
    if env.get("HYGIENE_LLM_CONFIG"):
        defaults, models = read_config_file(env["HYGIENE_LLM_CONFIG"])
        settings.update(defaults)
    if env.get("OPENAI_BASE_URL"):
        settings["base_url"] = env["OPENAI_BASE_URL"]
    for key in ENV_FIELDS:
        var = f"HYGIENE_LLM_{key.upper()}"
        if var in env and key != "model":  # HYGIENE_LLM_MODEL names the default model (default_model)
            settings[key] = _value(key, env[var], f"environment variable {var}")
    settings.pop("model", None)
    settings.update(models.get(name, {}))
    settings.setdefault("model", name)
    return EndpointConfig(name=name, **settings)


def default_model(env: dict[str, str] | None = None) -> str | None:
    """The model of planners that name none (``hygiene-nsp-llm``): HYGIENE_LLM_GROUNDER, else HYGIENE_LLM_MODEL."""
    env = dict(os.environ) if env is None else env
    return env.get("HYGIENE_LLM_GROUNDER") or env.get("HYGIENE_LLM_MODEL") or None

"""Language-model planners (docs/llm.md): ``llm:<model>``, ``saved:<dir>``, ``hygiene-nsp-llm``.

Modules: :mod:`.config` (endpoint settings), :mod:`.prompt` (the versioned Jinja2 prompts), :mod:`.client`
(the ``openai`` client with retries, a concurrency cap and :mod:`.cache`), :mod:`.reader` (the tolerant
reader of answers), :mod:`.grounding` (the LLM grounder), :mod:`.planner` (the planners themselves).
"""

from __future__ import annotations

from pathlib import Path

from hygiene_pddl.planners.base import PlannerFamily, PlannerInfo, register, register_family
from hygiene_pddl.planners.llm.config import default_model, endpoint_config


def _planner(kind: str, *args: object) -> object:
    """A planner object (the ``openai`` client is imported here, when a planner is built, never at listing)."""
    from hygiene_pddl.planners.llm import planner

    return getattr(planner, kind)(*args)


def _llm_info(name: str) -> PlannerInfo:
    model = name.partition(":")[2]
    return PlannerInfo(name, f"language model {model} over an OpenAI-compatible chat endpoint (docs/llm.md)",
                       lambda: _planner("LLMPlanner", model, name), lambda: endpoint_config(model).availability())


def _saved_info(name: str) -> PlannerInfo:
    folder = name.partition(":")[2]

    def available() -> tuple[bool, str]:
        return (True, "") if Path(folder).is_dir() else (False, f"no folder {folder}")

    return PlannerInfo(name, f"answers saved in {folder}, one file per instance id",
                       lambda: _planner("SavedPlanner", folder, name),
                       available)


def _grounded_info(name: str) -> PlannerInfo:
    model = name.partition(":")[2] or None

    def available() -> tuple[bool, str]:
        chosen = model or default_model()
        if chosen is None:
            return False, "no grounding model: set HYGIENE_LLM_GROUNDER (or HYGIENE_LLM_MODEL)"
        return endpoint_config(chosen).availability()

    return PlannerInfo(name, "Hygiene-NSP on goals grounded from the request by a language model (paper §IV-A; model "
                       f"{model or 'from HYGIENE_LLM_GROUNDER'})",
                       lambda: _planner("GroundedNSP", model or default_model(), name),
                       available)


register_family(PlannerFamily("llm", "llm:<model>", "a language model over an OpenAI-compatible chat endpoint "
                              "(HYGIENE_LLM_BASE_URL, HYGIENE_LLM_CONFIG; docs/llm.md)", _llm_info))
register_family(PlannerFamily("saved", "saved:<dir>", "score answers obtained elsewhere: <dir>/<instance id>.txt",
                              _saved_info, lambda name: "saved:" + str(Path(name.partition(":")[2]).resolve())))
register_family(PlannerFamily("hygiene-nsp-llm", "hygiene-nsp-llm:<model>", "Hygiene-NSP with an LLM grounding "
                              "of the request by <model>", _grounded_info))
register(_grounded_info("hygiene-nsp-llm"))

"""hygiene-pddl: PDDL for hygiene-aware household robot planning (HygieneRoboBench).

The three jobs in a few lines (docs/api.md)::

    import hygiene_pddl as hp
    inst = hp.load_instance("problems/spoon_fruit/spoon_fruit-wash_then_touch-water_first.json")
    hp.compile(inst, "out/lpg", target="lpg")
    result = hp.plan(inst, "hygiene-nsp")
    print(hp.validate(inst, result.plan_text).valid)
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("hygiene-pddl")
except PackageNotFoundError:  # pragma: no cover - run from a source tree that was never installed
    __version__ = "0+unknown"

#: The documented API (hygiene_pddl.api), imported on first use so that the CLI starts fast.
__all__ = ["Validation", "compile", "list_instances", "list_planners", "load_instance", "plan", "report", "run_bench",
           "validate", "__version__"]


def __getattr__(name: str):  # noqa: ANN202
    if name in __all__ and name != "__version__":
        from hygiene_pddl import api

        return getattr(api, name)
    raise AttributeError(f"module 'hygiene_pddl' has no attribute {name!r}")

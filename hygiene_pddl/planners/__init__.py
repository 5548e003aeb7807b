"""Planners behind one interface (:mod:`hygiene_pddl.planners.base`), sharing the lexicographic CP-SAT core."""

import importlib

#: Modules that register planners when imported (a missing optional module is skipped).
PLANNER_MODULES = ("nsp", "fd_cpsat", "rule_sat", "baselines", "external")


def catalogue() -> dict:
    """Every registered planner (importing the modules that register them)."""
    from hygiene_pddl.planners.base import PLANNERS

    for name in PLANNER_MODULES:
        module = f"hygiene_pddl.planners.{name}"
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name is None or not module.startswith(exc.name):
                raise
    return dict(PLANNERS)

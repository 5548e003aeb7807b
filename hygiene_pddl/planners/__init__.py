"""Planners behind one interface (:mod:`hygiene_pddl.planners.base`), sharing the lexicographic CP-SAT core."""

import importlib

#: Modules that register planners when imported (a missing optional module is skipped).
PLANNER_MODULES = ("nsp", "fd_cpsat", "rule_sat", "baselines", "external")


class Catalogue(dict):
    """The registered planners by name; it also answers for the open families of names, built on request:
    ``cmd:TEMPLATE`` / ``cmd[TARGET]:TEMPLATE`` (any command-line PDDL planner) and ``up:ENGINE`` (any
    unified-planning engine), see :mod:`hygiene_pddl.planners.command`."""

    def _dynamic(self, name: object):  # noqa: ANN202
        from hygiene_pddl.planners.command import command_info, up_info

        if isinstance(name, str) and name.startswith("cmd"):
            return command_info(name) if name.startswith(("cmd:", "cmd[")) else None
        if isinstance(name, str) and name.startswith("up:"):
            return up_info(name)
        return None

    def __missing__(self, name: str):  # noqa: ANN204
        info = self._dynamic(name)
        if info is None:
            raise KeyError(name)
        return info

    def __contains__(self, name: object) -> bool:
        return dict.__contains__(self, name) or self._dynamic(name) is not None


def catalogue() -> Catalogue:
    """Every registered planner (importing the modules that register them), and the open name families."""
    from hygiene_pddl.planners.base import PLANNERS

    for name in PLANNER_MODULES:
        module = f"hygiene_pddl.planners.{name}"
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name is None or not module.startswith(exc.name):
                raise
    return Catalogue(PLANNERS)

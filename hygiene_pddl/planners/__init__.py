"""Planners behind one interface (:mod:`hygiene_pddl.planners.base`), sharing the lexicographic CP-SAT core."""

import importlib

#: Modules that register planners when imported (a missing optional module is skipped).
PLANNER_MODULES = ("nsp", "fd_cpsat", "rule_sat", "baselines", "external", "llm")


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


def planner_info(name: str):  # noqa: ANN201 - a PlannerInfo, or None for an unknown name
    """The planner called ``name``: a registered one, or a member of a family (``llm:<model>``,
    ``saved:<dir>``; see :func:`canonical_name`); ``None`` when nothing answers to it."""
    from hygiene_pddl.planners.base import PLANNER_FAMILIES

    known = catalogue()
    if name in known:
        return known[name]
    prefix, sep, rest = name.partition(":")
    family = PLANNER_FAMILIES.get(prefix)
    if not sep or family is None or not rest:
        return None
    return family.make(name)


def canonical_name(name: str) -> str:
    """``name`` as every process reads it the same way (``saved:DIR`` gets an absolute DIR)."""
    from hygiene_pddl.planners.base import PLANNER_FAMILIES

    if name in catalogue():
        return name
    prefix, sep, rest = name.partition(":")
    family = PLANNER_FAMILIES.get(prefix)
    return family.canonical(name) if sep and rest and family is not None else name

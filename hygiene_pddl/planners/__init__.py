"""Planners behind one interface (:mod:`hygiene_pddl.planners.base`), sharing the lexicographic CP-SAT core."""


def catalogue() -> dict:
    """Every registered planner (importing the modules that register them)."""
    from hygiene_pddl.planners import nsp  # noqa: F401
    from hygiene_pddl.planners.base import PLANNERS

    try:
        from hygiene_pddl.planners import fd_cpsat  # noqa: F401
    except ModuleNotFoundError as exc:
        if exc.name != "hygiene_pddl.planners.fd_cpsat":
            raise
    return dict(PLANNERS)

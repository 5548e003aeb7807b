"""hygiene-pddl: PDDL for hygiene-aware household robot planning (HygieneRoboBench)."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("hygiene-pddl")
except PackageNotFoundError:  # pragma: no cover - run from a source tree that was never installed
    __version__ = "0+unknown"

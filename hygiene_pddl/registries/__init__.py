"""The five registries: data files shipped in the package, loaded once and validated."""

from hygiene_pddl.registries.loader import load_registries
from hygiene_pddl.registries.model import Registries

__all__ = ["Registries", "load_registries"]

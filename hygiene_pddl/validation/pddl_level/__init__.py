"""PDDL-level plan validation with VAL's semantics (happenings, tolerance, mutex, metric)."""

from .api import DEFAULT_TOLERANCE, PddlValidator, validate_files, validate_plan
from .result import Failure, Reason, Status, TraceEntry, ValidationResult
from .world import UnsupportedError

__all__ = [
    "DEFAULT_TOLERANCE",
    "Failure",
    "PddlValidator",
    "Reason",
    "Status",
    "TraceEntry",
    "UnsupportedError",
    "ValidationResult",
    "validate_files",
    "validate_plan",
]

"""VAL-style plan files: value objects, a Lark reader, a writer and epsilon offsets."""

from .epsilon import add_epsilon_offsets
from .model import Plan, PlanStep
from .parser import parse_plan, read_plan
from .writer import format_decimal, format_step, write_plan

__all__ = [
    "Plan",
    "PlanStep",
    "add_epsilon_offsets",
    "format_decimal",
    "format_step",
    "parse_plan",
    "read_plan",
    "write_plan",
]

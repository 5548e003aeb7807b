"""PDDL 2.1 (+ PDDL 2.2 timed initial literals) reader, AST and printer."""

from .ast import Domain, Problem
from .check import check_domain, check_problem
from .parser import (
    DomainParser,
    ProblemParser,
    parse_domain,
    parse_problem,
    read_domain,
    read_problem,
)
from .printer import print_domain, print_problem

__all__ = [
    "check_domain",
    "check_problem",
    "Domain",
    "DomainParser",
    "Problem",
    "ProblemParser",
    "parse_domain",
    "parse_problem",
    "print_domain",
    "print_problem",
    "read_domain",
    "read_problem",
]

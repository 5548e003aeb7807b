"""Public entry points: validate one plan, or many plans against one parsed domain/problem."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

from hygiene_pddl.pddl import ast, read_domain, read_problem
from hygiene_pddl.pddl.check import check_domain, check_problem
from hygiene_pddl.plans import Plan, read_plan

from .advice import advice_text, tolerance_hints
from .engine import Engine
from .numeric import Arith
from .result import ValidationResult
from .timeline import Shapes
from .world import World

DEFAULT_TOLERANCE = Fraction(1, 100)


class PddlValidator:
    """Validates plans for one domain/problem pair (grounding tables built once).

    `arithmetic="val"` (default) computes in IEEE doubles exactly where VAL does, so verdicts
    at tolerance boundaries match VAL; `"exact"` uses fractions throughout.
    """

    def __init__(self, domain: ast.Domain, problem: ast.Problem, *,
                 tolerance: Fraction | str | float = DEFAULT_TOLERANCE,
                 arithmetic: str = "val", domain_file: str | None = None,
                 problem_file: str | None = None, shapes: Shapes | None = None):
        """`shapes`: the compiled operators of `domain`, shared by the validators of its problems; passing
        them says the caller has already run ``check_domain`` on `domain`."""
        if shapes is None:
            check_domain(domain, domain_file)
        check_problem(problem, domain, problem_file)
        self.domain = domain
        self.problem = problem
        self.world = World(domain, problem)
        self.shapes = shapes if shapes is not None else Shapes()
        self.arith = Arith(arithmetic)
        self.tolerance = Fraction(tolerance)
        if self.tolerance <= 0:
            raise ValueError("the tolerance must be positive")
        self._engines: dict[Fraction, Engine] = {}

    def engine(self, tolerance: Fraction | None = None) -> Engine:
        tol = self.tolerance if tolerance is None else Fraction(tolerance)
        eng = self._engines.get(tol)
        if eng is None:
            eng = self._engines[tol] = Engine(self.world, self.shapes, self.arith, tol)
        return eng

    def validate(self, plan: Plan, *, tolerance: Fraction | str | float | None = None,
                 trace: bool = False, hints: bool = False,
                 plan_file: str | None = None) -> ValidationResult:
        """The verdict on `plan`; InputError when a step names an unknown action/object."""
        tol = self.tolerance if tolerance is None else Fraction(tolerance)
        result = self.engine(tol).run(plan, plan_file, trace)
        extra = tolerance_hints(self, plan, result) if hints else ()
        return replace(result, advice=advice_text(result, plan), hints=extra)

    def validate_many(self, plans: Iterable[Plan], *,
                      tolerance: Fraction | str | float | None = None) -> list[ValidationResult]:
        """Batch validation in one process (no trace, no hints)."""
        return [self.validate(p, tolerance=tolerance) for p in plans]


def validate_plan(domain: ast.Domain, problem: ast.Problem, plan: Plan, *,
                  tolerance: Fraction | str | float = DEFAULT_TOLERANCE,
                  arithmetic: str = "val", trace: bool = True,
                  hints: bool = True) -> ValidationResult:
    """Validate one parsed plan."""
    return PddlValidator(domain, problem, tolerance=tolerance, arithmetic=arithmetic).validate(
        plan, trace=trace, hints=hints)


def validate_files(domain_path: str | Path, problem_path: str | Path, plan_path: str | Path,
                   *, tolerance: Fraction | str | float = DEFAULT_TOLERANCE,
                   arithmetic: str = "val", trace: bool = True,
                   hints: bool = True) -> ValidationResult:
    """Read the three files and validate; InputError (exit 2) for unreadable input."""
    domain = read_domain(domain_path)
    problem = read_problem(problem_path)
    plan = read_plan(plan_path)
    validator = PddlValidator(domain, problem, tolerance=tolerance, arithmetic=arithmetic,
                              domain_file=str(domain_path), problem_file=str(problem_path))
    return validator.validate(plan, trace=trace, hints=hints, plan_file=str(plan_path))

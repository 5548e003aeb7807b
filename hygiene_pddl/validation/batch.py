"""Validate many plans in one process (``validate --batch FILE``): each domain and problem is read once.

A batch file has one ``DOMAIN PROBLEM PLAN`` triple a line (whitespace-separated paths, relative to the
current directory); ``#`` starts a comment. Every plan gets its own outcome and exit code: an unreadable
plan, domain or problem is that plan's exit 2 and the others are still validated.
"""

from __future__ import annotations

import traceback
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from hygiene_pddl.errors import EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_INVALID, EXIT_OK, InputError, Location
from hygiene_pddl.pddl import check_domain, read_domain, read_problem
from hygiene_pddl.plans import read_plan

from .pddl_level import PddlValidator, ValidationResult
from .pddl_level.timeline import Shapes


@dataclass(frozen=True)
class Job:
    """One plan to validate against one domain and problem (`line`: where the batch file names it)."""

    domain: str
    problem: str
    plan: str
    line: int | None = None


@dataclass(frozen=True)
class Outcome:
    """What happened to one job: a verdict, or the input error (exit 2) or bug (exit 3) that stopped it."""

    job: Job
    code: int
    result: ValidationResult | None = None
    error: str | None = None

    @property
    def valid(self) -> bool | None:
        """True/False for a verdict, None when there is none (unreadable input, internal error)."""
        return None if self.result is None else self.result.valid


def read_jobs(path: str) -> list[Job | Outcome]:
    """The jobs a batch file names (``-``: standard input); a malformed line is an exit-2 outcome in place."""
    import sys

    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read batch file: {getattr(exc, 'strerror', None) or exc}",
                         Location(path)) from None
    out: list[Job | Outcome] = []
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split("#", 1)[0].split()
        if not fields:
            continue
        if len(fields) != 3:
            where = Location(path, number)
            message = InputError(f"expected DOMAIN PROBLEM PLAN (three paths), found {len(fields)} field(s)", where)
            out.append(Outcome(Job("", "", line.strip(), number), EXIT_BAD_INPUT, error=str(message)))
            continue
        out.append(Job(*fields, line=number))
    return out


class Validators:
    """Validators by (domain, problem) path, each file read once; input errors are remembered too."""

    def __init__(self, tolerance: Fraction, arithmetic: str = "val"):
        self.tolerance, self.arithmetic = tolerance, arithmetic
        self._domains: dict[str, tuple] = {}
        self._pairs: dict[tuple[str, str], PddlValidator | InputError] = {}

    def _domain(self, path: str) -> tuple:
        """(domain or InputError, the Shapes shared by every problem of the domain)."""
        got = self._domains.get(path)
        if got is None:
            try:
                domain = read_domain(path)
                check_domain(domain, path)
                got = (domain, Shapes())
            except InputError as exc:
                got = (exc, None)
            self._domains[path] = got
        return got

    def get(self, domain_path: str, problem_path: str) -> PddlValidator:
        """The validator for the pair; raises the (remembered) InputError when either file is unreadable."""
        key = (domain_path, problem_path)
        got = self._pairs.get(key)
        if got is None:
            domain, shapes = self._domain(domain_path)
            try:
                if isinstance(domain, InputError):
                    raise domain
                got = PddlValidator(domain, read_problem(problem_path), tolerance=self.tolerance,
                                    arithmetic=self.arithmetic, domain_file=domain_path, problem_file=problem_path,
                                    shapes=shapes)
            except InputError as exc:
                got = exc
            self._pairs[key] = got
        if isinstance(got, InputError):
            raise got
        return got


def validate_jobs(jobs: Iterable[Job | Outcome], tolerance: Fraction, arithmetic: str = "val", *,
                  trace: bool = False, hints: bool = False) -> Iterator[Outcome]:
    """One outcome per job, in order; input errors and bugs stop only their own job."""
    validators = Validators(tolerance, arithmetic)
    for job in jobs:
        if isinstance(job, Outcome):
            yield job
            continue
        try:
            validator = validators.get(job.domain, job.problem)
            result = validator.validate(read_plan(job.plan), trace=trace, hints=hints, plan_file=job.plan)
        except InputError as exc:
            yield Outcome(job, EXIT_BAD_INPUT, error=str(exc))
            continue
        except Exception as exc:  # a bug: report it for this plan and go on with the others
            yield Outcome(job, EXIT_INTERNAL, error=f"internal error: {type(exc).__name__}: {exc} (please report "
                                                     f"this)\n{traceback.format_exc()}")
            continue
        yield Outcome(job, EXIT_OK if result.valid else EXIT_INVALID, result)

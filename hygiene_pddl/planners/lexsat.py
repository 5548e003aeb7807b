"""Lexicographic optimisation over a CP-SAT model (paper eq. 6), shared by the planners.

CP-SAT 9.15 has no lexicographic objective, and one weighted sum of ten tiers overflows int64
or turns into a float objective once the tiers' ranges are realistic (docs/cpsat.md).
:func:`lexsolve` therefore runs one CP-SAT solve per objective, in order: minimise the stage's
expression, read its exact integer value, fix it (``expr == value`` when the stage was proved
optimal, ``expr <= value`` otherwise), hint the whole solution into the next stage, go on.  An
optional tie-break stage (e.g. the sum of start times) makes the solution canonical.  The core
knows nothing about hygiene: it takes a ``CpModel`` (left untouched; the stages run on a clone)
and an ordered list of named integer linear expressions.

Status of the whole run (:class:`LexStatus`):

* ``OPTIMAL``: every objective stage was proved optimal (and, with ``certify=True``, confirmed
  with presolve off);
* ``FEASIBLE``: a solution exists but some stage was not proved (time budget, a conflicting
  certificate); that stage and every later one are reported ``proved=False``;
* ``INFEASIBLE``: the first stage proved that the model has no solution;
* ``UNDETERMINED``: no solution was found and infeasibility was not proved (time ran out).

Solver settings default to reproducible ones (:class:`LexSettings`: one worker, fixed seed,
``linearization_level=2``); with a wall-clock limit that binds, runs may still differ: pass
``deterministic_time`` for budgets that reproduce exactly.
"""

from __future__ import annotations

import enum
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ortools.sat.python import cp_model

__all__ = [
    "CertificationError",
    "LexResult",
    "LexSettings",
    "LexStatus",
    "StageRecord",
    "evaluate",
    "lexsolve",
]

ObjectiveList = Sequence[tuple[str, cp_model.LinearExprT]] | Mapping[str, cp_model.LinearExprT]


class CpModel(cp_model.CpModel):
    """``cp_model.CpModel`` without the deprecated camel-case aliases its constructor installs on every instance
    (about a millisecond per model and clone, which the planners build several of per instance)."""

    def _add_pre_pep8_methods(self) -> None:
        pass

    def clone(self) -> CpModel:
        out = CpModel()
        out.proto.copy_from(self.proto)
        out.rebuild_constant_map()
        return out


class LexStatus(enum.Enum):
    """Outcome of a lexicographic solve."""

    OPTIMAL = "optimal"
    FEASIBLE = "feasible"
    INFEASIBLE = "infeasible"
    UNDETERMINED = "undetermined"


@dataclass(frozen=True)
class LexSettings:
    """CP-SAT parameters applied to every stage; the defaults are chosen for determinism.

    ``num_workers=1`` with a fixed ``random_seed`` gives identical solutions run to run (several
    workers race and may return different optimal solutions).  ``interleave_search=True`` makes
    several workers deterministic too.  ``linearization_level=2`` lets makespan-like stages prove
    optimality quickly.  ``extra`` sets any other ``SatParameters`` field by name.
    """

    num_workers: int = 1
    random_seed: int = 0
    linearization_level: int = 2
    interleave_search: bool = False
    cp_model_presolve: bool = True
    keep_all_feasible_solutions_in_presolve: bool = False
    extra: Mapping[str, Any] = field(default_factory=dict)

    def apply(self, params: Any) -> None:
        """Write these settings into a ``SatParameters`` message."""
        params.num_workers = self.num_workers
        params.random_seed = self.random_seed
        params.linearization_level = self.linearization_level
        params.interleave_search = self.interleave_search
        params.cp_model_presolve = self.cp_model_presolve
        params.keep_all_feasible_solutions_in_presolve = (
            self.keep_all_feasible_solutions_in_presolve)
        for name, value in self.extra.items():
            setattr(params, name, value)


@dataclass(frozen=True)
class StageRecord:
    """What one stage found.

    ``value`` is the stage objective in the solution kept after the stage (``None`` if none);
    ``bound`` the best lower bound CP-SAT reported; ``proved`` whether ``value`` is the proved
    lexicographic optimum given the earlier stages; ``hint_value`` the objective at the solution
    carried in from the previous stage; ``kept_previous`` is true when the solver returned no
    better solution than the hint and the previous solution was kept.  ``solver_status`` is the
    CP-SAT status name, or ``AT_LOWER_BOUND`` for a stage skipped because the carried-in solution
    met its given lower bound.  With ``certify``, ``certified`` is ``True`` (presolve-off run
    agrees, or skipped at its bound), ``False`` (disagreement, see ``note``) or ``None`` (not
    checked / the check ran out of time).
    """

    name: str
    value: int | None
    bound: int | None
    proved: bool
    wall_time: float
    solver_status: str
    hint_value: int | None = None
    kept_previous: bool = False
    tie_break: bool = False
    certified: bool | None = None
    certify_value: int | None = None
    certify_status: str | None = None
    note: str = ""


@dataclass(frozen=True)
class LexResult:
    """Status, per-stage records, the kept solution and timings of a lexicographic solve.

    ``solution`` is the full assignment (indexed by the model's variable index) of the last kept
    solution, or ``None``; read it with :meth:`value` / :meth:`boolean_value`.
    """

    status: LexStatus
    stages: tuple[StageRecord, ...]
    solution: tuple[int, ...] | None
    total_time: float
    settings: LexSettings

    @property
    def found(self) -> bool:
        """Whether a solution is available."""
        return self.solution is not None

    @property
    def objective_stages(self) -> tuple[StageRecord, ...]:
        """The stage records without the tie-break stage."""
        return tuple(s for s in self.stages if not s.tie_break)

    @property
    def objective_values(self) -> dict[str, int]:
        """Name to value of every objective stage that has a value, in stage order."""
        return {s.name: s.value for s in self.objective_stages if s.value is not None}

    @property
    def stage_times(self) -> dict[str, float]:
        """Name to wall seconds of every stage run (certification included)."""
        return {s.name: s.wall_time for s in self.stages}

    @property
    def canonical(self) -> bool:
        """Whether the tie-break stage ran and was proved optimal."""
        return any(s.tie_break and s.proved for s in self.stages)

    @property
    def certified(self) -> bool | None:
        """``True`` if every stage was certified, ``False`` on any disagreement, else ``None``."""
        flags = [s.certified for s in self.stages]
        if any(f is False for f in flags):
            return False
        if flags and all(f is True for f in flags):
            return True
        return None

    def value(self, expression: cp_model.LinearExprT) -> int:
        """Value of an integer linear expression (variable, literal, sum) in the solution."""
        if self.solution is None:
            raise ValueError(f"no solution ({self.status.value})")
        return evaluate(expression, self.solution)

    def boolean_value(self, literal: cp_model.LiteralT) -> bool:
        """Truth value of a literal in the solution."""
        return bool(self.value(literal))  # type: ignore[arg-type]

    def values(self, expressions: Sequence[cp_model.LinearExprT]) -> list[int]:
        """Values of several expressions in the solution."""
        return [self.value(e) for e in expressions]


class CertificationError(RuntimeError):
    """A presolve-off re-run disagreed with the presolved run (``certify="raise"``)."""

    def __init__(self, message: str, result: LexResult):
        super().__init__(message)
        self.result = result


def evaluate(expression: cp_model.LinearExprT, solution: Sequence[int]) -> int:
    """Value of an integer linear expression under a full assignment indexed by variable."""
    if isinstance(expression, bool | int):
        return int(expression)
    flat = cp_model.FlatIntExpr(expression)
    if not flat.ok:
        raise TypeError(f"not an integer linear expression: {expression}")
    return int(flat.offset) + sum(
        int(c) * int(solution[v.index]) for v, c in zip(flat.vars, flat.coeffs, strict=True))


def _check_objective(name: str, expression: cp_model.LinearExprT) -> None:
    if isinstance(expression, bool | int):
        return
    if not isinstance(expression, cp_model.LinearExpr) or not expression.is_integer():
        raise TypeError(f"objective {name!r} is not an integer linear expression: {expression!r}")


def _set_hint(model: cp_model.CpModel, solution: Sequence[int]) -> None:
    """Replace the model's hint by a complete assignment."""
    model.clear_hints()
    hint = model.proto.solution_hint
    hint.vars.extend(range(len(solution)))
    hint.values.extend(solution)


@dataclass
class _Run:
    """Outcome of one CP-SAT call."""

    status: Any
    status_name: str
    solution: tuple[int, ...] | None
    value: int | None
    bound: int | None
    wall: float


class _Clock:
    """Global budget split evenly over the runs still to come; unused time rolls on."""

    def __init__(self, seconds: float, dtime: float | None, runs: int):
        self.start = time.perf_counter()
        self.seconds = seconds
        self.dtime = dtime
        self.dtime_used = 0.0
        self.runs_left = runs

    def skip(self, runs: int) -> None:
        """Give the share of ``runs`` runs that will not happen to the later ones."""
        self.runs_left = max(0, self.runs_left - runs)

    def slice(self, whole: bool = False) -> tuple[float, float | None]:
        """The next run's (seconds, deterministic seconds): an even share, or with ``whole`` all that is left."""
        runs = 1 if whole else max(1, self.runs_left)
        left = max(0.0, self.seconds - (time.perf_counter() - self.start))
        dshare = None
        if self.dtime is not None:
            dshare = max(0.0, self.dtime - self.dtime_used) / runs
        if not whole:
            self.runs_left -= 1
        return left / runs, dshare


def _finite(bound: float) -> int | None:
    return round(bound) if math.isfinite(bound) else None


def _solve(
    model: cp_model.CpModel,
    expression: cp_model.LinearExprT,
    settings: LexSettings,
    clock: _Clock,
    presolve: bool | None = None,
    dtime_cap: float | None = None,
    whole: bool = False,
) -> _Run:
    seconds, dtime = clock.slice(whole)
    if dtime_cap is not None:
        dtime = dtime_cap if dtime is None else min(dtime, dtime_cap)
    t0 = time.perf_counter()
    if seconds <= 0.0 or (dtime is not None and dtime <= 0.0):
        return _Run(cp_model.UNKNOWN, "UNKNOWN (no time left)", None, None, None, 0.0)
    model.minimize(expression)
    solver = cp_model.CpSolver()
    settings.apply(solver.parameters)
    if presolve is not None:
        solver.parameters.cp_model_presolve = presolve
    solver.parameters.max_time_in_seconds = seconds
    if dtime is not None:
        solver.parameters.max_deterministic_time = dtime
    status = solver.solve(model)
    wall = time.perf_counter() - t0
    clock.dtime_used += solver.deterministic_time
    if status == cp_model.MODEL_INVALID:
        raise ValueError(f"invalid CP-SAT model: {model.validate()}")
    solution = value = bound = None
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        solution = tuple(int(v) for v in solver.response_proto.solution)
        value = evaluate(expression, solution)
        bound = _finite(solver.best_objective_bound)
    elif status != cp_model.INFEASIBLE:
        bound = _finite(solver.best_objective_bound)
    return _Run(status, solver.status_name(status), solution, value, bound, wall)


def _merge(run: _Run, check: _Run) -> tuple[_Run, bool | None, str]:
    """Combine a presolved run with its presolve-off check.

    Solutions are witnesses; ``OPTIMAL`` and ``INFEASIBLE`` are claims.  A claim contradicted by
    a witness (an optimum above a found solution, infeasibility beside a solution) is a
    disagreement.  Returns the merged run (best witness; ``OPTIMAL`` only if an uncontradicted
    claim covers it), whether the two runs agree (``None`` if either is inconclusive) and a note.
    """
    runs = (run, check)
    found = [r for r in runs if r.solution is not None]
    best = min(found, key=lambda r: r.value) if found else None  # type: ignore[arg-type,return-value]
    optimum_claims = [r.value for r in runs if r.status == cp_model.OPTIMAL]
    infeasible_claims = [r for r in runs if r.status == cp_model.INFEASIBLE]
    contradiction = (best is not None and (
        bool(infeasible_claims) or any(v > best.value for v in optimum_claims)))  # type: ignore[operator]
    conclusive = all(r.status in (cp_model.OPTIMAL, cp_model.INFEASIBLE) for r in runs)
    agree = False if contradiction else (True if conclusive else None)
    note = ""
    if contradiction:
        note = (f"presolve-off run: {check.status_name} {check.value}; "
                f"presolved run: {run.status_name} {run.value}")
    if best is not None:
        proved = not contradiction and best.value in optimum_claims
        status = cp_model.OPTIMAL if proved else cp_model.FEASIBLE
        name = best.status_name if proved or best.status != cp_model.OPTIMAL else "FEASIBLE"
        bound = max((r.bound for r in runs if r.bound is not None), default=None)
        return _Run(status, name, best.solution, best.value, bound, run.wall), agree, note
    if infeasible_claims:
        return infeasible_claims[0], agree, note
    return run, agree, note


def lexsolve(
    model: cp_model.CpModel,
    objectives: ObjectiveList,
    *,
    time_limit: float = 10.0,
    deterministic_time: float | None = None,
    tie_break: cp_model.LinearExprT | None = None,
    tie_break_name: str = "tie_break",
    settings: LexSettings | None = None,
    certify: bool | str = False,
    lower_bounds: Mapping[str, int] | None = None,
    hint: Sequence[int] | None = None,
    tie_break_deterministic_time: float | None = None,
) -> LexResult:
    """Minimise ``objectives`` lexicographically over ``model`` (which is not modified).

    ``time_limit`` (wall seconds) and ``deterministic_time`` (CP-SAT deterministic seconds, for
    reproducible budgets) are global budgets split evenly over the remaining stages, unused time
    going on to later ones; a stage that finds no solution in its share while none is known yet (no
    ``hint``, no earlier stage) goes on with the whole remaining budget, since later stages need one.
    ``tie_break`` adds a last stage that makes the solution canonical; it does not affect the
    status (see :attr:`LexResult.canonical`).  ``certify=True`` re-runs
    every stage with ``cp_model_presolve=False`` (sharing the budget) and flags disagreements in
    the stage records; a disagreeing stage is reported unproved and the better witnessed
    solution is kept.  ``certify="raise"`` raises :class:`CertificationError` instead.
    ``lower_bounds`` gives valid lower bounds per objective (e.g. 0 for a sum of non-negative
    amounts): a stage whose carried-in solution already meets its bound is proved without a solve.
    ``hint`` is a complete feasible assignment of ``model`` (indexed by variable; e.g. a CP-SAT solution of
    ``model`` with some variables fixed), carried into the first stage like a previous stage's solution. Its
    feasibility is not re-checked; a wrong length raises ``ValueError``.
    ``tie_break_deterministic_time`` caps the tie-break stage's CP-SAT deterministic time (a reproducible
    budget; the stage then runs without presolve): when it binds, the best schedule found is kept and
    :attr:`LexResult.canonical` is false.
    """
    items = list(objectives.items()) if isinstance(objectives, Mapping) else list(objectives)
    if not items:
        raise ValueError("lexsolve needs at least one objective")
    for name, expression in items:
        _check_objective(name, expression)
    if tie_break is not None:
        _check_objective(tie_break_name, tie_break)
    if certify not in (False, True, "raise"):
        raise ValueError(f"certify must be False, True or 'raise', not {certify!r}")
    settings = settings or LexSettings()
    if settings.extra.get("fix_variables_to_their_hinted_value"):
        raise ValueError("fix_variables_to_their_hinted_value would make every later stage return "
                         "the carried-in solution and call it optimal")
    stages: list[tuple[str, cp_model.LinearExprT, bool]] = [(n, e, False) for n, e in items]
    if tie_break is not None:
        stages.append((tie_break_name, tie_break, True))

    clock = _Clock(time_limit, deterministic_time, len(stages) * (2 if certify else 1))
    work = model.clone()
    records: list[StageRecord] = []
    solution: tuple[int, ...] | None = None
    if hint is not None:
        solution = tuple(int(v) for v in hint)
        if len(solution) != len(work.proto.variables):
            raise ValueError(f"hint has {len(solution)} values for {len(work.proto.variables)} variables")
    all_proved = True

    for index, (name, expression, is_tie) in enumerate(stages):
        hint_value = None
        if solution is not None:
            _set_hint(work, solution)
            hint_value = evaluate(expression, tuple(work.proto.solution_hint.values))
            bound = (lower_bounds or {}).get(name)
            if bound is not None and hint_value == bound and not is_tie:
                clock.skip(2 if certify else 1)
                records.append(StageRecord(
                    name, hint_value, bound, all_proved, 0.0, "AT_LOWER_BOUND", hint_value,
                    certified=True if certify else None, note="carried-in solution meets the "
                    "given lower bound; no solve"))
                if index + 1 < len(stages):
                    work.add(expression == hint_value if all_proved else expression <= hint_value)
                continue
        capped = is_tie and tie_break_deterministic_time is not None
        # a capped tie-break improves the carried-in schedule: presolve would eat its budget
        run = (_solve(work, expression, settings, clock, presolve=False, dtime_cap=tie_break_deterministic_time)
               if capped else _solve(work, expression, settings, clock))
        wall = run.wall
        notes: list[str] = []
        if solution is None and run.solution is None and run.status == cp_model.UNKNOWN:
            # nothing to carry into later stages yet: their shares are worth nothing without a solution
            more = _solve(work, expression, settings, clock, whole=True)
            if more.wall > 0.0:
                notes.append(f"no solution within the stage's share ({wall:.2f} s): went on with the whole "
                             f"remaining budget ({more.wall:.2f} s more)")
                wall += more.wall
                run = replace(more, wall=wall)
        proved = run.status == cp_model.OPTIMAL
        cert: dict[str, Any] = {}

        if certify:
            # Re-run with presolve off, hinted with the presolved answer when there is one.
            if run.solution is not None:
                _set_hint(work, run.solution)
            check = _solve(work, expression, settings, clock, presolve=False)
            wall += check.wall
            run, agree, note = _merge(run, check)
            proved = run.status == cp_model.OPTIMAL
            cert = {"certified": agree, "certify_value": check.value,
                    "certify_status": check.status_name}
            if note:
                notes.append(note)

        if index == 0 and run.solution is None and solution is None:
            status = (LexStatus.INFEASIBLE if run.status == cp_model.INFEASIBLE
                      else LexStatus.UNDETERMINED)
            records.append(StageRecord(name, None, run.bound, False, wall, run.status_name,
                                       tie_break=is_tie, note="; ".join(notes), **cert))
            return _finish(status, records, None, clock, settings, certify)

        kept_previous = False
        value = run.value
        if solution is not None and (run.solution is None or run.value > hint_value):
            # The previous solution satisfies this stage's model: nothing returned, or a
            # returned value worse than it, means time ran out or a certificate is wrong.
            if run.solution is not None and proved:
                notes.append(f"solver claimed optimum {run.value} above the hinted "
                             f"feasible solution's {hint_value}")
            elif run.status == cp_model.INFEASIBLE:
                notes.append("solver claimed INFEASIBLE although the hinted solution is feasible")
            kept_previous, proved, value = True, False, hint_value
        else:
            solution = run.solution
        assert solution is not None and value is not None

        if is_tie:
            proved = proved and all_proved
        else:
            all_proved = all_proved and proved
            proved = all_proved
            if index + 1 < len(stages):
                work.add(expression == value if proved else expression <= value)
        records.append(StageRecord(name, value, run.bound, proved, wall, run.status_name,
                                   hint_value, kept_previous, is_tie, note="; ".join(notes),
                                   **cert))

    # Later stages fix unproved ones only with "<=", so report values in the final solution.
    records = [replace(r, value=evaluate(stages[i][1], solution)) for i, r in enumerate(records)]
    status = LexStatus.OPTIMAL if all_proved else LexStatus.FEASIBLE
    return _finish(status, records, solution, clock, settings, certify)


def _finish(
    status: LexStatus,
    records: list[StageRecord],
    solution: tuple[int, ...] | None,
    clock: _Clock,
    settings: LexSettings,
    certify: bool | str,
) -> LexResult:
    result = LexResult(status, tuple(records), solution,
                       time.perf_counter() - clock.start, settings)
    if certify == "raise" and result.certified is False:
        bad = [f"{s.name}: {s.note}" for s in records if s.certified is False]
        raise CertificationError("certification disagreement: " + "; ".join(bad), result)
    return result

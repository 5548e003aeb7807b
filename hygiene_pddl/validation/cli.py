"""`validate_plan.py [-t TOL] [--json] DOMAIN PROBLEM PLAN...` or `--batch FILE` (also `hygiene-pddl validate`).

Exit codes: 0 valid, 1 invalid plan, 2 unreadable input, 3 internal error; with several plans, the worst
of the plans' own codes. Only what validation needs is imported (start-up time matters for one plan).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import traceback
from collections.abc import Sequence
from fractions import Fraction

from hygiene_pddl.errors import EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_INVALID, EXIT_OK, InputError

from .batch import Job, Outcome, read_jobs, validate_jobs
from .pddl_level.numeric import decimal_text
from .pddl_level.result import SCHEMA_VERSION, ValidationResult

_DECIMAL = re.compile(r"^(\d+(\.\d*)?|\.\d+)$")


def tolerance(text: str) -> Fraction:
    """argparse type: a positive decimal such as 0.01."""
    if not _DECIMAL.match(text) or Fraction(text) <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive decimal such as 0.01, got {text!r}")
    return Fraction(text)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The PDDL-level options (shared with the `hygiene-pddl validate` subcommand)."""
    parser.usage = ("%(prog)s [options] DOMAIN PROBLEM PLAN [PLAN ...]\n"
                    "       %(prog)s [options] --batch FILE")
    parser.add_argument("domain", nargs="?", help="PDDL domain file")
    parser.add_argument("problem", nargs="?", help="PDDL problem file")
    parser.add_argument("plan", nargs="*", help="plan file(s) (VAL format); several are validated in one process")
    parser.add_argument("--batch", metavar="FILE",
                        help="validate the DOMAIN PROBLEM PLAN triples listed in FILE, one a line (# comments; "
                             "- reads standard input); each domain and problem is read once")
    parser.add_argument("--instance", metavar="I.json",
                        help="also evaluate at instance level: full-history replay, hygiene, costs")
    parser.add_argument("--reference", metavar="R.json",
                        help="with --instance: compare the cost vector with the certified optimum")
    parser.add_argument("--gantt", metavar="FILE.png",
                        help="with --instance: draw the plan as gripper and appliance lanes")
    parser.add_argument("-t", "--tolerance", type=tolerance, default=Fraction(1, 100),
                        metavar="TOL", help="VAL's epsilon tolerance (default 0.01)")
    parser.add_argument("--json", action="store_true",
                        help="print the result as JSON (schema: docs/validate-json.md); several plans: "
                             "one JSON object a line")
    parser.add_argument("--exact", action="store_true",
                        help="exact rational arithmetic instead of VAL's doubles")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="also print the state trace")


def _human(result: ValidationResult, verbose: bool) -> str:
    lines = []
    if verbose:
        for t in result.trace:
            lines.append(f"{decimal_text(t.time)}: {', '.join(t.events)}")
            lines += [f"    + {a}" for a in t.added] + [f"    - {d}" for d in t.deleted]
            lines += [f"    {k} := {decimal_text(v)}" for k, v in t.changed]
    if result.valid:
        lines += ["Plan valid", f"Final value: {result.metric_text}"]
    else:
        f = result.failure
        lines.append("Goal not satisfied" if f.reason.name == "GOAL" else "Plan failed to execute")
        lines.append(f"Plan invalid: {f.reason.value}")
        if f.condition and f.reason.name != "PRECONDITION":
            lines.append(f"  condition: {f.condition}")
    if result.advice:
        lines.append("Advice:")
        lines += [f"  {line}" for line in result.advice.splitlines()]
    lines += [f"Hint: {h}" for h in result.hints]
    return "\n".join(lines)


def _usage_error(args: argparse.Namespace) -> str | None:
    if args.batch and (args.domain or args.problem or args.plan):
        return "give either DOMAIN PROBLEM PLAN... or --batch FILE, not both"
    if not args.batch and not (args.domain and args.problem and args.plan):
        return "expected DOMAIN PROBLEM PLAN [PLAN ...] or --batch FILE"
    if (args.reference or args.gantt) and not args.instance:
        return "--reference and --gantt need --instance"
    if args.batch and args.instance:
        return "--instance evaluates the plans of one instance; give them as DOMAIN PROBLEM PLAN..."
    if args.gantt and len(args.plan) > 1:
        return "--gantt draws one plan; give a single PLAN"
    return None


def run(args: argparse.Namespace) -> int:
    """Validate per parsed `args`; print one report per plan; return the worst exit code."""
    if isinstance(args.plan, str):
        args.plan = [args.plan]
    problem = _usage_error(args)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return EXIT_BAD_INPUT
    single = not args.batch and len(args.plan) == 1
    try:
        instance = _load_instance_level(args) if args.instance else None
        jobs = read_jobs(args.batch) if args.batch else [Job(args.domain, args.problem, p) for p in args.plan]
    except InputError as exc:
        if args.json:
            print(json.dumps(_error_json(None, str(exc)), indent=2))
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    worst = EXIT_OK
    out = _Printer()
    detail = not args.batch  # traces and tolerance hints cost extra runs: not in bulk
    trace = bool(args.verbose or (detail and args.json))
    for outcome in validate_jobs(jobs, args.tolerance, "exact" if args.exact else "val", trace=trace,
                                 hints=detail):
        code, text = _render(args, outcome, instance, single)
        worst = max(worst, code)
        if outcome.code == EXIT_INTERNAL and outcome.error:
            print(outcome.error, file=sys.stderr)
        elif single and outcome.error:
            print(f"error: {outcome.error}", file=sys.stderr)
            if not args.json:
                continue
        if text and not out.write(text):
            break
    out.close()
    return worst


class _Printer:
    """Prints reports; a closed pipe (`| head`) ends the output quietly."""

    def __init__(self) -> None:
        self.first = True

    def write(self, text: str) -> bool:
        try:
            sys.stdout.write(text + "\n")
        except BrokenPipeError:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return False
        return True

    def close(self) -> None:
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _error_json(outcome: Outcome | None, error: str, code: int = EXIT_BAD_INPUT) -> dict:
    job = outcome.job if outcome else None
    return {"schema": SCHEMA_VERSION, **_names(job), "status": "error", "valid": None, "exit": code,
            "error": error}


def _names(job: Job | None) -> dict:
    """The files a JSON report is about."""
    return {"plan": job.plan if job else None, "domain": job.domain if job else None,
            "problem": job.problem if job else None}


def _render(args: argparse.Namespace, outcome: Outcome, instance: tuple | None, single: bool) -> tuple[int, str]:
    """(exit code, text) of one plan: VAL's lines and advice, or JSON; with --instance both levels."""
    if outcome.result is None:
        if args.json:
            return outcome.code, json.dumps(_error_json(outcome, outcome.error or "", outcome.code),
                                            indent=2 if single else None)
        head = f"== {outcome.job.plan}\n" if not single else ""
        return outcome.code, f"{head}error: {outcome.error.splitlines()[0] if outcome.error else ''}"
    try:
        levels = _instance_level(args, outcome, instance) if instance is not None else None
    except InputError as exc:  # the instance-level reading (plan, instance, --gantt target)
        if single and not args.json:  # one message on stderr, as for the PDDL level's errors
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_BAD_INPUT, ""
        bad = Outcome(outcome.job, EXIT_BAD_INPUT, error=str(exc))
        return _render(args, bad, None, single)
    except Exception as exc:  # the one place that turns bugs into exit 3
        print(f"internal error: {type(exc).__name__}: {exc}\n(please report this; traceback follows)",
              file=sys.stderr)
        traceback.print_exc(file=sys.stderr)
        return EXIT_INTERNAL, ""
    result = outcome.result
    valid = result.valid if levels is None else levels.valid
    code = EXIT_OK if valid else EXIT_INVALID
    if args.json:
        data = {**_names(outcome.job), **result.to_json(include_trace=bool(result.trace) or single),
                "exit": code}
        if levels is not None:
            data.update(levels.json())
        return code, json.dumps(data, indent=2 if single else None)
    text = _human(result, args.verbose)
    if not single:
        text = f"== {outcome.job.plan}\n{text}"
    if levels is not None:
        text += "\n\n" + levels.text()
    return code, text


def _load_instance_level(args: argparse.Namespace) -> tuple:
    from hygiene_pddl.instances import load_instance, load_reference
    from hygiene_pddl.registries import load_registries

    reg = load_registries()
    inst = load_instance(args.instance, reg)
    ref = load_reference(args.reference) if args.reference else None
    if ref is not None and ref.instance != inst.id:
        raise InputError(f"reference is for {ref.instance!r}, not {inst.id!r}")
    return reg, inst, ref


def _instance_level(args: argparse.Namespace, outcome: Outcome, instance: tuple):
    from hygiene_pddl.plans.parser import read_plan

    from .levels import BothLevels

    reg, inst, ref = instance
    plan = read_plan(outcome.job.plan)
    both = BothLevels.evaluate(reg, inst, plan, outcome.result, ref, args.tolerance, outcome.job.plan)
    if args.gantt:
        from hygiene_pddl.outputs import writing
        from hygiene_pddl.validation.gantt import draw_gantt

        with writing(args.gantt, "--gantt") as target:
            target.parent.mkdir(parents=True, exist_ok=True)
            draw_gantt(both.report, target)
    return both


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(
        prog="validate_plan.py",
        description="Validate PDDL 2.1 plans the way VAL does. Exit codes: 0 valid, 1 invalid plan, "
                    "2 unreadable input, 3 internal error (several plans: the worst).")
    add_arguments(parser)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return EXIT_OK if exc.code == 0 else EXIT_BAD_INPUT
    return run(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

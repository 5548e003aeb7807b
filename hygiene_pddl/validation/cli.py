"""`validate_plan.py [-t TOL] [--json] DOMAIN PROBLEM PLAN` (also `hygiene-pddl validate`).

Exit codes: 0 valid, 1 invalid plan, 2 unreadable input, 3 internal error.
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

from .pddl_level import ValidationResult, validate_files
from .pddl_level.numeric import decimal_text

_DECIMAL = re.compile(r"^(\d+(\.\d*)?|\.\d+)$")


def tolerance(text: str) -> Fraction:
    """argparse type: a positive decimal such as 0.01."""
    if not _DECIMAL.match(text) or Fraction(text) <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive decimal such as 0.01, got {text!r}")
    return Fraction(text)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The PDDL-level options (shared with the `hygiene-pddl validate` subcommand)."""
    parser.add_argument("domain", help="PDDL domain file")
    parser.add_argument("problem", help="PDDL problem file")
    parser.add_argument("plan", help="plan file (VAL format)")
    parser.add_argument("-t", "--tolerance", type=tolerance, default=Fraction(1, 100),
                        metavar="TOL", help="VAL's epsilon tolerance (default 0.01)")
    parser.add_argument("--json", action="store_true",
                        help="print the result as JSON (schema: docs/validate-json.md)")
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


def run(args: argparse.Namespace) -> int:
    """Validate per parsed `args`; print the report; return the exit code."""
    try:
        result = validate_files(args.domain, args.problem, args.plan, tolerance=args.tolerance,
                                arithmetic="exact" if args.exact else "val",
                                trace=bool(args.json or args.verbose), hints=True)
    except InputError as exc:
        if args.json:
            print(json.dumps({"schema": 1, "status": "error", "valid": False,
                              "error": str(exc)}, indent=2))
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Exception as exc:  # the one place that turns bugs into exit 3
        print(f"internal error: {type(exc).__name__}: {exc}\n(please report this; "
              "traceback follows)", file=sys.stderr)
        traceback.print_exc(file=sys.stderr)
        return EXIT_INTERNAL
    text = json.dumps(result.to_json(), indent=2) if args.json else _human(result, args.verbose)
    try:
        print(text, flush=True)
    except BrokenPipeError:  # e.g. piped into `head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return EXIT_OK if result.valid else EXIT_INVALID


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(
        prog="validate_plan.py",
        description="Validate a PDDL 2.1 plan the way VAL does. Exit codes: 0 valid, "
                    "1 invalid plan, 2 unreadable input, 3 internal error.")
    add_arguments(parser)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return EXIT_OK if exc.code == 0 else EXIT_BAD_INPUT
    return run(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

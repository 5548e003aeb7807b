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
    parser.add_argument("plan", nargs="+", help="plan file(s) (VAL format); several are validated in one process")
    parser.add_argument("--instance", metavar="I.json",
                        help="also evaluate at instance level: full-history replay, hygiene, costs")
    parser.add_argument("--reference", metavar="R.json",
                        help="with --instance: compare the cost vector with the certified optimum")
    parser.add_argument("--gantt", metavar="FILE.png",
                        help="with --instance: draw the plan as gripper and appliance lanes")
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
    """Validate per parsed `args`; print the report; return the exit code (the worst over all plans)."""
    plans = args.plan if isinstance(args.plan, list) else [args.plan]
    if (args.reference or args.gantt) and not args.instance:
        print("error: --reference and --gantt need --instance", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.gantt and len(plans) > 1:
        print("error: --gantt draws one plan; give a single PLAN", file=sys.stderr)
        return EXIT_BAD_INPUT
    outputs, codes = [], []
    try:
        instance = _load_instance_level(args) if args.instance else None
        for plan in plans:
            code, out = _run_one(args, plan, instance)
            codes.append(code)
            outputs.append(out)
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
    if args.json:
        text = json.dumps(outputs[0] if len(outputs) == 1 else outputs, indent=2)
    else:
        text = "\n\n".join(outputs)
    try:
        print(text, flush=True)
    except BrokenPipeError:  # e.g. piped into `head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return max(codes)


def _load_instance_level(args: argparse.Namespace) -> tuple:
    from hygiene_pddl.instances import load_instance, load_reference
    from hygiene_pddl.registries import load_registries

    reg = load_registries()
    inst = load_instance(args.instance, reg)
    ref = load_reference(args.reference) if args.reference else None
    if ref is not None and ref.instance != inst.id:
        raise InputError(f"reference is for {ref.instance!r}, not {inst.id!r}")
    return reg, inst, ref


def _run_one(args: argparse.Namespace, plan_path: str, instance: tuple | None) -> tuple[int, object]:
    result = validate_files(args.domain, args.problem, plan_path, tolerance=args.tolerance,
                            arithmetic="exact" if args.exact else "val",
                            trace=bool(args.json or args.verbose), hints=True)
    valid = result.valid
    report = None
    if instance is not None:
        from hygiene_pddl.plans.parser import read_plan
        from hygiene_pddl.validation.instance_level import evaluate_plan, report_text

        reg, inst, ref = instance
        report = evaluate_plan(reg, inst, read_plan(plan_path), ref, args.tolerance, plan_file=plan_path)
        if args.gantt:
            from hygiene_pddl.outputs import writing
            from hygiene_pddl.validation.gantt import draw_gantt

            with writing(args.gantt, "--gantt") as target:
                target.parent.mkdir(parents=True, exist_ok=True)
                draw_gantt(report, target)
        valid = valid and report.valid
    if args.json:
        out: object = result.to_json()
        if report is not None:
            from hygiene_pddl.validation.instance_level import report_json

            out = {**result.to_json(), "instance_level": report_json(report), "valid": valid,
                   "levels_agree": result.valid == report.valid}
        return (EXIT_OK if valid else EXIT_INVALID), out
    text = _human(result, args.verbose)
    if len(args.plan if isinstance(args.plan, list) else [args.plan]) > 1:
        text = f"== {plan_path}\n{text}"
    if report is not None:
        text += "\n\n" + report_text(report)
        if result.valid != report.valid:
            text += ("\nWARNING: the PDDL level and the instance level disagree; please report this "
                     "(the plan counts as invalid)")
    return (EXIT_OK if valid else EXIT_INVALID), text


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

"""Further ``hygiene-pddl`` subcommands: compile, build (the compiler's entry points)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hygiene_pddl.cli import command
from hygiene_pddl.errors import EXIT_INVALID, EXIT_OK


def _compile_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("instance", type=Path, help="public instance JSON")
    p.add_argument("-o", "--out", type=Path, required=True, help="output folder for domain.pddl and problem.pddl")
    p.add_argument("--flavor", choices=["temporal", "classical"], default="temporal")
    p.add_argument("--no-total-time", action="store_true",
                   help="temporal: leave (total-time) out of the metric, for readers that reject it (unified-planning)")


@command("compile", "compile an instance to PDDL (domain.pddl, problem.pddl)", _compile_args)
def _compile(args: argparse.Namespace) -> int:
    from compiler.render import render_classical, render_domain, render_problem
    from hygiene_pddl.instances import load_instance
    from hygiene_pddl.registries import load_registries

    reg = load_registries()
    inst = load_instance(args.instance, reg)
    if args.flavor == "temporal":
        domain = render_domain(reg, inst.family)
        problem = render_problem(reg, inst, metric_total_time=not args.no_total_time)[0]
    else:
        domain, problem, _ = render_classical(reg, inst)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "domain.pddl").write_text(domain, encoding="utf-8")
    (args.out / "problem.pddl").write_text(problem, encoding="utf-8")
    print(f"wrote {args.out / 'domain.pddl'} and {args.out / 'problem.pddl'} ({args.flavor})")
    return EXIT_OK


def _build_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--root", type=Path, default=Path("."), help="repository root holding domains/ and problems/")
    p.add_argument("--check", action="store_true", help="do not write; exit 1 naming every stale file")


@command("build", "regenerate the committed benchmark (domains/, problems/)", _build_args)
def _build(args: argparse.Namespace) -> int:
    from compiler.build import benchmark_files, stale_files, write_files
    from hygiene_pddl.registries import load_registries

    files = benchmark_files(load_registries())
    if args.check:
        problems = stale_files(args.root, files)
        for line in problems:
            print(line, file=sys.stderr)
        if problems:
            print(f"{len(problems)} file(s) out of date: run `hygiene-pddl build`", file=sys.stderr)
            return EXIT_INVALID
        print(f"benchmark is current ({len(files)} files)")
        return EXIT_OK
    write_files(args.root, files)
    print(f"wrote {len(files)} files under {args.root / 'domains'} and {args.root / 'problems'}")
    return EXIT_OK

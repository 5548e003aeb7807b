"""Further ``hygiene-pddl`` subcommands: compile, build, plan, planners, stats, scale."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hygiene_pddl.cli import command
from hygiene_pddl.errors import EXIT_INVALID, EXIT_OK
from hygiene_pddl.outputs import output_dir, write_text, writing


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
    write_text(output_dir(args.out, "-o") / "domain.pddl", domain, "-o")
    write_text(args.out / "problem.pddl", problem, "-o")
    print(f"wrote {args.out / 'domain.pddl'} and {args.out / 'problem.pddl'} ({args.flavor})")
    return EXIT_OK


def _build_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--root", type=Path, default=Path("."), help="repository root holding domains/ and problems/")
    p.add_argument("--check", action="store_true", help="do not write; exit 1 naming every stale file")
    p.add_argument("--full", action="store_true",
                   help="compose, certify (two methods) and admit the full benchmark; writes problems/MANIFEST.json")
    p.add_argument("--jobs", type=int, default=2, help="certification processes for --full")


@command("build", "regenerate the committed benchmark (domains/, problems/)", _build_args)
def _build(args: argparse.Namespace) -> int:
    from compiler.build import benchmark_files, stale_files, write_files
    from hygiene_pddl.registries import load_registries

    reg = load_registries()
    if args.full:
        from hygiene_pddl.episodes.pipeline import full_build, manifest_text

        manifest = full_build(reg, jobs=args.jobs, cache_file=args.root / ".cache" / "certify.json")
        (args.root / "problems").mkdir(exist_ok=True)
        (args.root / "problems" / "MANIFEST.json").write_text(manifest_text(manifest), encoding="utf-8")
    files = benchmark_files(reg, root=args.root)
    if args.check:
        problems = stale_files(args.root, files)
        for line in problems:
            print(line, file=sys.stderr)
        if problems:
            print(f"{len(problems)} file(s) out of date: run `hygiene-pddl build`", file=sys.stderr)
            return EXIT_INVALID
        print(f"benchmark is current ({len(files)} files)")
        return EXIT_OK
    with writing(args.root, "--root"):
        write_files(args.root, files)
    print(f"wrote {len(files)} files under {args.root / 'domains'} and {args.root / 'problems'}")
    return EXIT_OK


def _plan_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("instance", type=Path, help="public instance JSON")
    p.add_argument("--planner", default="hygiene-nsp", help="planner name (see `hygiene-pddl planners`)")
    p.add_argument("-o", "--out", type=Path, help="write the VAL-style plan file here (default: print it)")
    p.add_argument("--time-limit", type=float, default=30.0, help="seconds (default 30)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")


@command("plan", "plan the continuation of one instance", _plan_args)
def _plan(args: argparse.Namespace) -> int:
    import json

    from hygiene_pddl.errors import InputError
    from hygiene_pddl.instances import load_instance
    from hygiene_pddl.planners import catalogue
    from hygiene_pddl.registries import load_registries

    planners = catalogue()
    if args.planner not in planners:
        raise InputError(f"unknown planner {args.planner!r}; available: {', '.join(sorted(planners))}")
    info = planners[args.planner]
    ok, why = info.available()
    if not ok:
        raise InputError(f"planner {args.planner} is not available here: {why}")
    reg = load_registries()
    inst = load_instance(args.instance, reg)
    result = info.factory().solve(inst, args.time_limit, reg)
    if args.out:
        write_text(args.out, result.plan_text, "-o")
    if args.json:
        print(json.dumps({
            "planner": result.planner, "instance": result.instance, "status": result.status.value,
            "proved_optimal": result.proved_optimal, "cost": result.cost.as_dict() if result.cost else None,
            "timings": dict(result.timings), "plan": result.plan_text, "notes": list(result.notes)},
            indent=2, sort_keys=True))
    elif not args.out:
        print(result.plan_text, end="")
    else:
        print(f"{result.status.value}{' (proved optimal)' if result.proved_optimal else ''}: wrote {args.out}")
    return EXIT_OK


def _planners_args(p: argparse.ArgumentParser) -> None:
    pass


@command("planners", "list the planners and whether each can run here", _planners_args)
def _planners(args: argparse.Namespace) -> int:
    from hygiene_pddl.planners import catalogue

    for name, info in sorted(catalogue().items()):
        ok, why = info.available()
        print(f"{name:<20} {'available' if ok else 'unavailable: ' + why}\n    {info.description}")
    return EXIT_OK


def _stats_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--problems", type=Path, default=Path("problems"))
    p.add_argument("--json", action="store_true")


@command("stats", "the benchmark's composition, beside SPEC §9's targets", _stats_args)
def _stats(args: argparse.Namespace) -> int:
    import json

    from hygiene_pddl.episodes.stats import composition, rows

    comp = composition(args.problems)
    if args.json:
        print(json.dumps(comp, indent=2, sort_keys=True))
        return EXIT_OK
    for name, have, want in rows(comp):
        mark = "" if have == want else "   <-- target " + str(want)
        print(f"{name:<34} {have}{mark}")
    return EXIT_OK


def _scale_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("instance", type=Path, help="public instance JSON (e.g. a committed one)")
    p.add_argument("--copies", type=int, required=True, help="copies of every delivered item (at least 1)")
    p.add_argument("-o", "--out", type=Path, required=True, help="the derived instance JSON to write")


@command("scale", "derive a longer task: copies of an instance's delivered items (episodes/scaling.py)", _scale_args)
def _scale(args: argparse.Namespace) -> int:
    import json

    from hygiene_pddl.episodes.scaling import delivered_items, scaled_instance_data
    from hygiene_pddl.errors import InstanceError, Location
    from hygiene_pddl.instances import load_instance
    from hygiene_pddl.instances.loader import instance_from_data
    from hygiene_pddl.registries import load_registries

    reg = load_registries()
    load_instance(args.instance, reg)  # a malformed input fails here, with its position
    data = json.loads(args.instance.read_text(encoding="utf-8"))
    if args.copies < 1:
        raise InstanceError(f"--copies must be at least 1, not {args.copies}", Location(str(args.instance)))
    if not delivered_items(data):
        raise InstanceError("no goal (at ITEM PLACE) whose item starts somewhere: nothing to copy",
                            Location(str(args.instance), path="goals"))
    scaled = scaled_instance_data(data, args.copies)
    instance_from_data(scaled, reg, name=str(args.out))  # the derived task resolves against the registries
    write_text(args.out, json.dumps(scaled, indent=2, sort_keys=True) + "\n", "-o")
    print(f"wrote {args.out} ({scaled['id']}: {len(scaled['goals'])} goals; compile it with "
          f"`hygiene-pddl compile {args.out} -o DIR`)")
    return EXIT_OK

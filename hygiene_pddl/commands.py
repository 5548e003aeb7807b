"""Further ``hygiene-pddl`` subcommands: compile, build, plan, planners, stats, scale."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hygiene_pddl.cli import command, print_json
from hygiene_pddl.errors import (
    EXIT_INFEASIBLE,
    EXIT_INVALID,
    EXIT_OK,
    EXIT_UNAVAILABLE,
    EXIT_UNDETERMINED,
    InputError,
    Location,
)
from hygiene_pddl.outputs import output_dir, write_text, writing


def _compile_args(p: argparse.ArgumentParser) -> None:
    from hygiene_pddl.planners.targets import ALIASES, TARGETS

    p.add_argument("instance", type=Path, help="public instance JSON")
    p.add_argument("-o", "--out", type=Path, required=True, help="output folder for domain.pddl and problem.pddl")
    p.add_argument("--for", dest="target", metavar="PLANNER",
                   help="write the PDDL this planner reads as shipped, each adaptation in the header comment: "
                        + ", ".join(TARGETS) + f" (aliases: {', '.join(f'{a}={k}' for a, k in ALIASES.items())}); "
                        "see docs/external-planners.md")
    p.add_argument("--flavor", choices=["temporal", "classical", "numeric"], default="temporal",
                   help="without --for: the committed files' flavour (default temporal); numeric: the classical "
                        "projection with stocks and loads as fluents (docs/pddl-encoding.md)")
    p.add_argument("--no-total-time", action="store_true",
                   help="temporal: leave (total-time) out of the metric, for readers that reject it (unified-planning)")
    p.add_argument("--json", action="store_true",
                   help="print {\"domain\", \"problem\", \"target\", \"adaptations\"} as JSON")


@command("compile", "compile an instance to PDDL (domain.pddl, problem.pddl), for VAL or for one planner",
         _compile_args)
def _compile(args: argparse.Namespace) -> int:
    from compiler.render import render_classical, render_instance_domain, render_problem
    from hygiene_pddl.instances import load_instance
    from hygiene_pddl.registries import load_registries

    reg = load_registries()
    inst = load_instance(args.instance, reg)
    if args.target:
        from hygiene_pddl.planners.targets import export

        exp = export(args.target, reg, inst)
        with writing(output_dir(args.out, "-o"), "-o"):
            domain_path, problem_path = exp.write(args.out)
        label, adaptations = exp.target.key, list(exp.adaptations)
    else:
        if args.flavor == "temporal":
            domain = render_instance_domain(reg, inst)
            problem = render_problem(reg, inst, metric_total_time=not args.no_total_time)[0]
        else:
            domain, problem, _ = render_classical(reg, inst, args.flavor)
        domain_path = write_text(output_dir(args.out, "-o") / "domain.pddl", domain, "-o")
        problem_path = write_text(args.out / "problem.pddl", problem, "-o")
        label, adaptations = args.flavor, []
    if args.json:
        print_json({"domain": str(domain_path), "problem": str(problem_path), "target": label,
                    "adaptations": adaptations})
    else:
        print(f"wrote {domain_path} and {problem_path} ({label})")
    return EXIT_OK


def _build_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--root", type=Path, default=None,
                   help="repository root holding domains/ and problems/ (default: the checkout the package is in)")
    p.add_argument("--check", action="store_true", help="do not write; exit 1 naming every stale file")
    p.add_argument("--json", action="store_true",
                   help="with --check: print {\"current\": bool, \"files\": N, \"stale\": [...]} as JSON")
    p.add_argument("--full", action="store_true",
                   help="compose, certify (two methods) and admit the full benchmark; writes problems/MANIFEST.json "
                        "(exit 1 when no composition survives certification and admission)")
    p.add_argument("--jobs", type=int, default=2,
                   help="processes: for rendering the files, and for certifying with --full (default 2)")
    p.add_argument("--cache", type=Path, default=None,
                   help="--full: the certification cache, saved every 25 results so that an interrupted build "
                        "resumes (default: ROOT/.cache/certify.json)")
    p.add_argument("--retry-unproved", action="store_true",
                   help="--full: certify again the cached instances a method did not prove (or the two disagreed)")


@command("build", "regenerate the committed benchmark (domains/, problems/)", _build_args)
def _build(args: argparse.Namespace) -> int:
    from compiler.build import benchmark_files, stale_files, write_files
    from hygiene_pddl.paths import benchmark_root
    from hygiene_pddl.registries import load_registries

    args.root = args.root if args.root is not None else benchmark_root()
    reg = load_registries()
    if args.full:
        from hygiene_pddl.bench.progress import RoundProgress
        from hygiene_pddl.episodes.pipeline import NoAdmissibleComposition, full_build, manifest_text

        bar = RoundProgress("certify", "instances", enabled=sys.stderr.isatty())
        cache = args.cache if args.cache is not None else args.root / ".cache" / "certify.json"
        try:
            manifest = full_build(reg, jobs=args.jobs, cache_file=cache, progress=bar,
                                  retry_unproved=args.retry_unproved)
        except NoAdmissibleComposition as exc:
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_INVALID
        finally:
            bar.close()
        (args.root / "problems").mkdir(exist_ok=True)
        (args.root / "problems" / "MANIFEST.json").write_text(manifest_text(manifest), encoding="utf-8")
    files = benchmark_files(reg, root=args.root, jobs=max(1, args.jobs))
    if args.check:
        problems = stale_files(args.root, files)
        if args.json:
            print_json({"current": not problems, "files": len(files), "stale": problems})
            return EXIT_INVALID if problems else EXIT_OK
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
    p.add_argument("--planner", default="hygiene-nsp",
                   help="planner name (see `hygiene-pddl planners`), or 'cmd:COMMAND {domain} {problem} [{plan}]' "
                        "(any command-line PDDL planner; cmd[TARGET]:... picks the PDDL target), or up:ENGINE "
                        "(any unified-planning engine); docs/external-planners.md")
    p.add_argument("-o", "--out", type=Path, help="write the VAL-style plan file here (default: print it)")
    p.add_argument("--time-limit", type=float, default=30.0, help="seconds (default 30)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.epilog = ("exit codes: 0 plan found, 10 proved infeasible, 12 undetermined (no plan, no proof), "
                "37 planner unavailable here, 2 bad input, 3 internal error (docs/exit-codes.md)")


#: ``plan``'s exit code for each outcome (docs/exit-codes.md).
PLAN_EXIT = {"plan": EXIT_OK, "infeasible": EXIT_INFEASIBLE, "undetermined": EXIT_UNDETERMINED}


@command("plan", "plan the continuation of one instance", _plan_args)
def _plan(args: argparse.Namespace) -> int:
    import json

    from hygiene_pddl.instances import load_instance
    from hygiene_pddl.planners import catalogue, planner_info
    from hygiene_pddl.registries import load_registries

    info = planner_info(args.planner)
    if info is None:
        raise InputError(f"unknown planner {args.planner!r}; available: {', '.join(sorted(catalogue()))} "
                         "and llm:<model>, saved:<dir>, cmd:<command>, up:<engine>", Location("--planner"))
    ok, why = info.available()
    if not ok:
        print(f"error: planner {args.planner} cannot run here: {why}", file=sys.stderr)
        return EXIT_UNAVAILABLE
    reg = load_registries()
    inst = load_instance(args.instance, reg)
    result = info.factory().solve(inst, args.time_limit, reg)
    if args.out:  # first: an unwritable target is the one message
        write_text(args.out, result.plan_text, "-o")
    for note in result.notes if not args.json else ():
        print(f"note: {note}", file=sys.stderr)
    if args.json:
        print(json.dumps({
            "planner": result.planner, "instance": result.instance, "status": result.status.value,
            "proved_optimal": result.proved_optimal, "cost": result.cost.as_dict() if result.cost else None,
            "timings": dict(result.timings), "plan": result.plan_text, "notes": list(result.notes),
            **({"usage": result.usage} if result.usage is not None else {})},
            indent=2, sort_keys=True))
    elif not args.out:
        print(result.plan_text, end="")
    else:
        print(f"{result.status.value}{' (proved optimal)' if result.proved_optimal else ''}: wrote {args.out}")
    return PLAN_EXIT[result.status.value]


def _planners_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true",
                   help="print [{\"name\", \"available\", \"reason\", \"description\"}, ...] as JSON")


@command("planners", "list the planners and whether each can run here", _planners_args)
def _planners(args: argparse.Namespace) -> int:
    from hygiene_pddl.planners import catalogue
    from hygiene_pddl.planners.base import PLANNER_FAMILIES

    rows = []
    for name, info in sorted(catalogue().items()):
        ok, why = info.available()
        rows.append({"name": name, "available": ok, "reason": why, "description": info.description})
    if args.json:
        print_json(rows)
        return EXIT_OK
    for r in rows:
        print(f"{r['name']:<20} {'available' if r['available'] else 'unavailable: ' + r['reason']}\n"
              f"    {r['description']}")
    print("and any command-line PDDL planner ('cmd:COMMAND {domain} {problem} [{plan}]') or unified-planning "
          "engine (up:ENGINE): docs/external-planners.md")
    for family in sorted(PLANNER_FAMILIES.values(), key=lambda f: f.prefix):
        print(f"{family.usage:<20} (a family of planners)\n    {family.description}")
    return EXIT_OK


def _stats_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--problems", type=Path, default=None,
                   help="benchmark problems folder (default: the checkout's problems/, wherever you run from)")
    p.add_argument("--json", action="store_true", help="print the composition as JSON")
    p.add_argument("--no-gates", action="store_true",
                   help="skip issue 13's structural gates (they parse every domain and problem, ~20 s)")


@command("stats", "the benchmark's composition, beside SPEC §9's targets", _stats_args)
def _stats(args: argparse.Namespace) -> int:
    import dataclasses
    import json

    from hygiene_pddl.episodes.gates import gates
    from hygiene_pddl.episodes.stats import composition, rows
    from hygiene_pddl.paths import problems_dir
    from hygiene_pddl.registries import load_registries

    folder = problems_dir(args.problems)
    comp = composition(folder)
    measured = [] if args.no_gates else gates(load_registries(), folder, folder.parent / "domains")
    if args.json:
        comp["gates"] = [dataclasses.asdict(g) for g in measured]
        print(json.dumps(comp, indent=2, sort_keys=True))
        return EXIT_OK
    for name, have, want in rows(comp):
        mark = "" if have == want else "   <-- target " + str(want)
        print(f"{name:<34} {have}{mark}")
    if measured:
        print("\nissue 13 gates (measured on the committed files; docs/benchmark-composition.md, 'Gates')")
        print("\n".join(g.text() for g in measured))
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


def _migrate_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("instance", type=Path, help="public instance JSON (format 1 or 2)")
    p.add_argument("-o", "--out", type=Path, required=True, help="where to write the format-2 instance")


@command("migrate", "rewrite a format-1 instance as format 2, stating what v2 adds (docs/world-model-v2.md)",
         _migrate_args)
def _migrate(args: argparse.Namespace) -> int:
    import json

    from hygiene_pddl.episodes.writer import dumps
    from hygiene_pddl.instances import load_instance
    from hygiene_pddl.literals import atom_text

    inst = load_instance(args.instance)  # checks the file; for format 1 it adds the goals deliveries imply
    data = json.loads(args.instance.read_text(encoding="utf-8"))
    data["format"] = "hygiene-pddl-instance/2"
    data["goals"] = [atom_text(g) for g in inst.goals]
    write_text(args.out, dumps(data), "-o")
    for note in inst.notes:
        print(note)
    print(f"wrote {args.out} (format 2, {len(inst.notes)} goal(s) added)")
    return EXIT_OK


def _families_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=["check", "list", "compose"],
                   help="check: expand, solve and audit the named data families; list: the data families; "
                        "compose: per SPEC §9 row, the most the named families' designs can give, and whether one "
                        "composition meets every row at once (no planning)")
    p.add_argument("names", nargs="*", help="family names (default: every data family)")
    p.add_argument("--time-limit", type=float, default=10.0, help="seconds per Hygiene-NSP solve")
    p.add_argument("--json", action="store_true", help="print the reports as JSON")
    p.add_argument("--jobs", type=int, default=1, help="families audited at a time (worker processes)")
    p.add_argument("--cache", type=Path, default=None,
                   help="folder keeping each finished family report: a rerun (after an interruption) reuses the "
                        "reports made with the same time limit, registries and code")
    p.add_argument("--gates", action="store_true",
                   help="after the reports, issue 13's gates over the checked families, measured on Hygiene-NSP's "
                        "plans (a preview: uncertified, unproved plans included)")


def _family_gates(reg, reports) -> list:  # noqa: ANN001
    from hygiene_pddl.episodes.gates import measure

    cases = [c for r in reports for c in r.cases]
    return measure(reg, cases, {r.family: r.domain_signature for r in reports if not r.error},
                   [s for r in reports for s in r.instance_signatures])


def _families_compose(reg, names: list[str], as_json: bool) -> int:  # noqa: ANN001
    import json

    from hygiene_pddl.episodes.builder import TARGETS, candidates, closest, room
    from hygiene_pddl.episodes.pipeline import first_family_contribution

    cands, fixed = candidates(reg, names), first_family_contribution(reg)
    rows = room(cands, fixed)
    _, off, proved = closest(cands, fixed)
    if as_json:
        print(json.dumps({"rows": [{"row": r, "target": t, "most": m, "families": n} for r, t, m, n in rows],
                          "closest": {"off": off, "proved": proved}}, indent=2, sort_keys=True))
        return EXIT_OK
    print(f"{len(names)} data families and the first families; SPEC §9 wants {TARGETS['families']} families")
    for r, t, m, n in rows:
        print(f"  {r:30s} target {t:4d}  at most {m:4d}  from {n:3d} families{'' if m >= t else '  SHORT'}")
    near = "the nearest composition" + ("" if proved else " found in 60 s (not proved nearest)")
    if not off:
        print("one composition meets every row at once")
    else:
        print(f"no composition meets every row at once; {near} is off in: "
              + ", ".join(f"{r} {d:+d}" for r, d in sorted(off.items())))
    return EXIT_OK


@command("families", "list or audit data families (registries/data/families/*.yaml)", _families_args)
def _families(args: argparse.Namespace) -> int:
    import dataclasses
    import json

    from hygiene_pddl.registries import load_registries

    reg = load_registries()
    data = sorted(n for n, f in reg.families.items() if f.spec is not None)
    names = args.names or data
    unknown = [n for n in names if n not in data]
    if unknown:
        from hygiene_pddl.errors import InputError

        raise InputError(f"not a data family: {', '.join(unknown)} (data families: {len(data)})")
    if args.action == "list":
        for n in names:
            f = reg.families[n]
            print(f"{n}\t{f.source_activity}\t{f.activity_group}\t{f.household_area}")
        return EXIT_OK
    if args.action == "compose":
        return _families_compose(reg, names, args.json)
    from hygiene_pddl.episodes.audit import audit_families, report_text

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    if args.cache is not None:
        output_dir(args.cache, "--cache")
    with writing(args.cache or ".", "--cache"):
        reports = audit_families(reg, names, args.time_limit, max(1, args.jobs), args.cache, log)
    preview = _family_gates(reg, reports) if args.gates else []
    if args.json:
        hidden = ("cases", "domain_signature", "instance_signatures")
        docs = [{k: v for k, v in dataclasses.asdict(r).items() if k not in hidden} for r in reports]
        print(json.dumps({"families": docs, "gates": [dataclasses.asdict(g) for g in preview]} if args.gates
                         else docs, indent=2, sort_keys=True))
    else:
        print("\n".join(report_text(r) for r in reports))
        if preview:
            print(f"\nissue 13 gates over these {len(reports)} families (Hygiene-NSP's plans, uncertified)")
            print("\n".join(g.text() for g in preview))
    ok = all(not r.error and not any(c[4] for c in r.claims) for r in reports)
    return EXIT_OK if ok else EXIT_INVALID

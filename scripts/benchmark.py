#!/usr/bin/env python3
"""Measure what the issues ask for, in one run, and print ratios beside the figures.

Sections (``--sections``, comma-separated; default all):
  planners    per planner: median and 95th-percentile time per committed instance, split into model
              build and solve; hygiene-nsp's median against the 50 ms target
  validation  batch validation throughput (plans/s, one process) and single-plan CLI latency
  val         `validate --batch` against VAL run once per plan, over the IPC conformance plans
              (tests/fixtures/val_corpus) and the benchmark's reference plans: the time ratio (target <= 1.0) and
              the single-plan latency (target <= 0.3 s); VAL from --val or $VAL_VALIDATE (skipped without it)
  build       time to regenerate (and check) the whole committed benchmark
  scaling     (opt-in) hygiene-nsp on longer tasks derived from committed instances (copies of the delivered
              items, hygiene_pddl/episodes/scaling.py): time by plan length (<=10, ~20 actions); with
              --families-per-group 0, one instance of every family with a delivery goal
  certify     (opt-in, minutes) time to compose, certify by two methods and admit the whole benchmark
  bench       whole-benchmark wall time of `hygiene-pddl bench` (isolated planner calls, both validators)
              at --jobs 1 and --jobs 2, and the ratio
  overhead    (opt-in) what one isolated bench call costs around the planner, fresh processes (spawn)
              against the fork server (fork), same calls, --jobs 1, and the ratio
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
warnings.filterwarnings("ignore", message="pkg_resources is deprecated")


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, max(0, round(q * (len(values) - 1))))]


SAMPLE: int | None = 1  # families per activity group (plus the first families); None = every instance


def instances() -> list[Path]:
    """The committed instances the planner and bench sections run on (``--families-per-group``)."""
    if SAMPLE is None:
        return sorted(p for p in (ROOT / "problems").glob("*/*.json") if not p.name.endswith(".reference.json"))
    from hygiene_pddl.bench.demo import sample_instances

    return sample_instances(ROOT / "problems", SAMPLE)


def bench_planners(repeat: int, names: list[str]) -> dict[str, dict]:
    from hygiene_pddl.instances import load_instance
    from hygiene_pddl.planners import catalogue
    from hygiene_pddl.registries import load_registries

    reg = load_registries()
    out = {}
    for name in names:
        planner = catalogue()[name].factory()
        rows = []
        for path in instances():
            inst = load_instance(path, reg)
            for _ in range(repeat):
                r = planner.solve(inst, 60, reg)
                rows.append((r.timing("build"), r.timing("solve"), r.timing("total"), len(r.steps), r.status.value))
        totals = [t for _, _, t, _, _ in rows]
        out[name] = {"n": len(rows), "median_total": statistics.median(totals), "p95_total": pct(totals, 0.95),
                     "median_build": statistics.median(b for b, *_ in rows),
                     "median_solve": statistics.median(s for _, s, *_ in rows),
                     "p95_build": pct([b for b, *_ in rows], 0.95), "p95_solve": pct([s for _, s, *_ in rows], 0.95),
                     "max_steps": max(n for *_, n, _ in rows),
                     "statuses": sorted({st for *_, st in rows})}
    return out


def bench_validation(repeat: int) -> dict:
    from hygiene_pddl.instances import load_instance
    from hygiene_pddl.pddl import read_domain, read_problem
    from hygiene_pddl.planners.nsp import HygieneNSP
    from hygiene_pddl.plans.parser import parse_plan
    from hygiene_pddl.registries import load_registries
    from hygiene_pddl.validation.pddl_level.api import PddlValidator

    reg = load_registries()
    jobs = []
    for path in instances():
        inst = load_instance(path, reg)
        result = HygieneNSP().solve(inst, 60, reg)
        if result.steps:  # proved-infeasible instances have no plan to validate
            jobs.append((ROOT / "domains" / f"{inst.family}.pddl", path.with_name(path.stem + ".pddl"),
                         result.plan_text))
    n_plans = 0
    t0 = time.perf_counter()
    for domain_path, problem_path, text in jobs:
        validator = PddlValidator(read_domain(domain_path), read_problem(problem_path))
        plans = [parse_plan(text)] * repeat
        for result in validator.validate_many(plans):
            assert result.valid
            n_plans += 1
    batch = time.perf_counter() - t0
    latencies = []
    with tempfile.TemporaryDirectory() as tmp:
        plan_file = Path(tmp) / "plan.txt"
        domain_path, problem_path, text = jobs[0]
        plan_file.write_text(text)
        for _ in range(5):
            t = time.perf_counter()
            run = subprocess.run([sys.executable, str(ROOT / "scripts" / "validate_plan.py"), str(domain_path),
                                  str(problem_path), str(plan_file)], capture_output=True, text=True)
            latencies.append(time.perf_counter() - t)
            assert run.returncode == 0, run.stdout + run.stderr
    return {"plans": n_plans, "batch_seconds": batch, "plans_per_second": n_plans / batch,
            "cli_median_latency": statistics.median(latencies)}


def _shared() -> Path | None:
    """The project's shared/ folder (beside the clone, or above a worktree)."""
    return next((p / "shared" for p in ROOT.parents if (p / "shared" / "conformance").is_dir()), None)


def val_jobs(folder: Path) -> tuple[list[tuple[str, str, str]], int]:
    """(DOMAIN, PROBLEM, PLAN) triples: the conformance corpus's plans and the benchmark's reference plans (written
    by the plan writer into `folder`); and how many of them are conformance plans."""
    from hygiene_pddl.episodes.reference import chosen_steps
    from hygiene_pddl.instances import load_instance, load_reference
    from hygiene_pddl.planners.base import plan_text
    from hygiene_pddl.registries import load_registries

    jobs = []
    shared = _shared()
    corpus = ROOT / "tests" / "fixtures" / "val_corpus"
    if shared is not None:
        for e in json.loads((corpus / "plans.json").read_text()):
            jobs.append((str(shared / e["domain"]), str(shared / e["problem"]), str(corpus / e["plan"])))
    conformance = len(jobs)
    reg = load_registries()
    for path in sorted(p for p in (ROOT / "problems").glob("*/*.json") if not p.name.endswith(".reference.json")):
        ref = load_reference(path.with_name(path.stem + ".reference.json"))
        if not ref.feasible:
            continue
        inst = load_instance(path, reg)
        steps = chosen_steps(ref.plan)
        plan = folder / f"{path.stem}.plan"
        plan.write_text(plan_text(reg, inst, steps, "reference", ref.optimal_cost))
        jobs.append((str(ROOT / "domains" / f"{inst.family}.pddl"), str(path.with_name(path.stem + ".pddl")),
                     str(plan)))
    return jobs, conformance


def _timed(cmd: list[str], **kw) -> tuple[float, float]:
    """(wall, CPU of the child) seconds of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, check=False, **kw)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def bench_val(val: str, repeat: int) -> dict:
    """`validate --batch` over every plan against VAL once per plan (a shell loop), and one-plan latencies."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        jobs, conformance = val_jobs(folder)
        batch = folder / "jobs.txt"
        batch.write_text("".join(f"{d} {p} {f}\n" for d, p, f in jobs))
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")  # byte code as an installed package has it
        script = [sys.executable, str(ROOT / "scripts" / "validate_plan.py")]
        out = folder / "verdicts.jsonl"
        with out.open("w") as sink:
            subprocess.run([*script, jobs[0][0], jobs[0][1], jobs[0][2]], env=env, stdout=subprocess.DEVNULL)
            ours, ours_cpu = _timed([*script, "--batch", str(batch), "--json"], env=env, stdout=sink)
        verdicts = [json.loads(line) for line in out.read_text().splitlines()]
        loop = 'while read d p f; do "$0" "$d" "$p" "$f" >/dev/null 2>&1; done < "$1"'
        theirs, theirs_cpu = _timed(["sh", "-c", loop, val, str(batch)])
        single = {}
        for name, job in (("conformance", jobs[0]), ("benchmark", jobs[-1])):
            runs = [_timed([*script, *job], env=env, stdout=subprocess.DEVNULL) for _ in range(repeat)]
            vals = [_timed([val, *job], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(repeat)]
            single[name] = {"wall": statistics.median(w for w, _ in runs), "cpu": statistics.median(c for _, c in runs),
                            "val_wall": statistics.median(w for w, _ in vals)}
    return {"plans": len(jobs), "conformance": conformance, "ours": ours, "ours_cpu": ours_cpu, "val": theirs,
            "val_cpu": theirs_cpu, "verdicts": len(verdicts),
            "valid": sum(1 for v in verdicts if v["valid"] is True),
            "invalid": sum(1 for v in verdicts if v["valid"] is False),
            "unreadable": sum(1 for v in verdicts if v["valid"] is None), "single": single}


def bench_build() -> dict:
    from compiler.build import benchmark_files, stale_files
    from hygiene_pddl.registries import load_registries

    reg = load_registries()
    t = time.perf_counter()
    files = benchmark_files(reg, root=ROOT)
    build = time.perf_counter() - t
    t = time.perf_counter()
    files2 = benchmark_files(reg, root=ROOT, jobs=2)
    build2 = time.perf_counter() - t
    t = time.perf_counter()
    stale = stale_files(ROOT, files)
    check = time.perf_counter() - t
    return {"files": len(files), "build_seconds": build, "build2_seconds": build2, "check_seconds": check,
            "stale": len(stale), "same": files == files2}


def bench_wall(names: list[str], time_limit: float) -> dict[int, dict]:
    from hygiene_pddl.bench import BenchConfig, run_bench

    out = {}
    for jobs in (1, 2):
        with tempfile.TemporaryDirectory() as tmp:
            s = run_bench(BenchConfig(names, instances(), Path(tmp), jobs=jobs, time_limit=time_limit,
                                      progress=False))
        out[jobs] = {"runs": s.ran, "wall": s.wall, "failures": s.failures, "statuses": s.statuses}
    return out


def bench_overhead(names: list[str], time_limit: float) -> dict[str, dict]:
    """Per-call harness overhead (call wall - planner wall - fork-server start-up) with fresh processes and
    with the fork server, on the same calls, one at a time."""
    from hygiene_pddl.bench import BenchConfig, run_bench
    from hygiene_pddl.bench.store import read_results

    out = {}
    for start in ("spawn", "fork"):
        with tempfile.TemporaryDirectory() as tmp:
            s = run_bench(BenchConfig(names, instances(), Path(tmp), jobs=1, time_limit=time_limit, progress=False,
                                      start=start))
            recs = read_results(Path(tmp) / "results.jsonl")[0]
        h = [(r["harness"], float(r["wall"])) for r in recs]
        out[start] = {"calls": len(recs), "wall": s.wall,
                      "overhead": statistics.median(x["call"] - w - x["server_start"] for x, w in h),
                      "max_overhead": max(x["call"] - w - x["server_start"] for x, w in h),
                      "start": statistics.median(x["start"] - x["server_start"] for x, _ in h),
                      "check": statistics.median(x["check"] for x, _ in h),
                      "server_start": sum(x["server_start"] for x, _ in h),
                      "planner": statistics.median(w for _, w in h)}
    return out


def bench_scaling(copies: list[int], time_limit: float) -> list[dict]:
    """hygiene-nsp on tasks derived from one instance per sampled family by copying its delivered items."""
    import json

    from hygiene_pddl.episodes.scaling import delivered_items, scaled_instance_data
    from hygiene_pddl.instances.loader import instance_from_data
    from hygiene_pddl.planners.nsp import HygieneNSP
    from hygiene_pddl.registries import load_registries

    reg = load_registries()
    bases: dict[str, dict] = {}
    for path in instances():
        data = json.loads(path.read_text())
        if data["family"] not in bases and delivered_items(data):
            bases[data["family"]] = data
    rows = []
    for data in bases.values():
        for n in copies:
            inst = instance_from_data(scaled_instance_data(data, n), reg)
            r = HygieneNSP().solve(inst, time_limit, reg)
            rows.append({"instance": inst.id, "copies": n, "steps": len(r.steps), "status": r.status.value,
                         "proved": r.proved_optimal, "total": r.timing("total")})
            print(f"  {inst.id}: {r.status.value}{' (optimal)' if r.proved_optimal else ''}, {len(r.steps)} "
                  f"actions, {r.timing('total'):.3f} s", flush=True)
    return rows


def bench_certify(jobs: int) -> dict:
    """Compose, certify (two methods) and admit the whole benchmark from scratch (no cache)."""
    from hygiene_pddl.episodes.pipeline import full_build
    from hygiene_pddl.registries import load_registries

    t = time.perf_counter()
    manifest = full_build(load_registries(), jobs=jobs, cache_file=None, log=lambda *_: None)
    return {"instances": len(manifest["references"]), "seconds": time.perf_counter() - t, "jobs": jobs}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sections", default="planners,validation,val,build,bench")
    ap.add_argument("--val", default=os.environ.get("VAL_VALIDATE") or shutil.which("Validate"),
                    help="VAL's Validate binary for the val section (default: $VAL_VALIDATE, else Validate on PATH)")
    ap.add_argument("--repeat", type=int, default=3, help="solves per instance / validations per plan")
    ap.add_argument("--planners", default="hygiene-nsp,fd-cpsat")
    ap.add_argument("--families-per-group", type=int, default=1,
                    help="planners/bench sections: the first families plus N families per activity group; 0 = all")
    ap.add_argument("--certify-jobs", type=int, default=2, help="processes for the certify section")
    ap.add_argument("--copies", default="1,2,3,4,6,9", help="scaling section: copies of the delivered items")
    ap.add_argument("--scaling-time-limit", type=float, default=10.0, help="scaling section: seconds per solve")
    args = ap.parse_args(argv)
    global SAMPLE
    SAMPLE = args.families_per_group or None
    sections = args.sections.split(",")
    if "planners" in sections:
        res = bench_planners(args.repeat, args.planners.split(","))
        print(f"## planners (seconds per instance, {len(instances())} committed instances)")
        print("| planner | runs | median total | p95 total | median build | median solve | p95 build | "
              "p95 solve | max steps |")
        print("|---|---|---|---|---|---|---|---|---|")
        for name, r in res.items():
            print(f"| {name} | {r['n']} | {r['median_total']:.3f} | {r['p95_total']:.3f} | {r['median_build']:.3f} | "
                  f"{r['median_solve']:.3f} | {r['p95_build']:.3f} | {r['p95_solve']:.3f} | {r['max_steps']} |")
        if "hygiene-nsp" in res:
            r = res["hygiene-nsp"]
            print(f"\nhygiene-nsp median / 50 ms target = {r['median_total'] / 0.05:.1f}x "
                  f"(instances up to {r['max_steps']} actions)")
        if {"hygiene-nsp", "fd-cpsat"} <= set(res):
            ratio = res["fd-cpsat"]["median_total"] / res["hygiene-nsp"]["median_total"]
            print(f"fd-cpsat / hygiene-nsp median time = {ratio:.1f}x")
    if "validation" in sections:
        r = bench_validation(max(10, args.repeat * 10))
        print("\n## validation")
        print(f"batch: {r['plans']} plans in {r['batch_seconds']:.2f} s = {r['plans_per_second']:.1f} plans/s "
              "(one process)")
        print(f"single-plan CLI latency (median of 5): {r['cli_median_latency']:.3f} s "
              f"= {r['cli_median_latency'] * r['plans_per_second']:.0f}x one batched validation")
    if "val" in sections:
        print("\n## validation against VAL")
        if not args.val or not Path(args.val).is_file():
            print("skipped: VAL's Validate not found (give --val PATH or set VAL_VALIDATE)")
        else:
            r = bench_val(args.val, max(3, args.repeat))
            print(f"{r['plans']} plans ({r['conformance']} IPC conformance plans, {r['plans'] - r['conformance']} "
                  f"benchmark reference plans): {r['valid']} valid, {r['invalid']} invalid, {r['unreadable']} "
                  "unreadable")
            print(f"`validate --batch` (one process, start-up included): {r['ours']:.2f} s wall, "
                  f"{r['ours_cpu']:.2f} s CPU")
            print(f"VAL once per plan (shell loop): {r['val']:.2f} s wall, {r['val_cpu']:.2f} s CPU")
            print(f"batch / VAL wall time = {r['ours'] / r['val']:.2f}x (target <= 1.0); "
                  f"CPU = {r['ours_cpu'] / r['val_cpu']:.2f}x")
            for name, x in r["single"].items():
                print(f"single-plan call ({name} plan, median of {max(3, args.repeat)}): {x['wall']:.3f} s wall, "
                      f"{x['cpu']:.3f} s CPU (target <= 0.3 s); VAL {x['val_wall']:.3f} s")
    if "build" in sections:
        r = bench_build()
        print("\n## build")
        print(f"regenerate {r['files']} files: {r['build_seconds']:.2f} s in one process, {r['build2_seconds']:.2f} s "
              f"in two ({r['build_seconds'] / r['build2_seconds']:.2f}x; the same files: {r['same']}); check "
              f"against the committed tree: {r['check_seconds']:.3f} s; stale: {r['stale']}")
    if "bench" in sections:
        r = bench_wall(args.planners.split(","), 60)
        print(f"\n## bench ({len(instances())} committed instances, {args.planners}, time limit 60 s)")
        for jobs, x in r.items():
            print(f"--jobs {jobs}: {x['runs']} runs in {x['wall']:.1f} s ({x['failures']} failed; {x['statuses']})")
        print(f"--jobs 1 / --jobs 2 wall time = {r[1]['wall'] / r[2]['wall']:.2f}x")
    if "overhead" in sections:
        r = bench_overhead(args.planners.split(","), 60)
        print(f"\n## harness overhead per call ({args.planners}, {len(instances())} instances, --jobs 1; seconds)")
        print("| worker start | calls | bench wall / call | median planner | median overhead | max overhead | "
              "median start | median check | server start-up |")
        print("|---|---|---|---|---|---|---|---|---|")
        for start, x in r.items():
            print(f"| {start} | {x['calls']} | {x['wall'] / x['calls']:.2f} | {x['planner']:.3f} | {x['overhead']:.3f} "
                  f"| {x['max_overhead']:.3f} | {x['start']:.3f} | {x['check']:.3f} | {x['server_start']:.2f} |")
        print(f"median overhead spawn / fork = {r['spawn']['overhead'] / r['fork']['overhead']:.1f}x; "
              f"bench wall spawn / fork = {r['spawn']['wall'] / r['fork']['wall']:.1f}x")
    if "scaling" in sections:
        print(f"\n## scaling (hygiene-nsp, time limit {args.scaling_time_limit:g} s per solve)")
        rows = bench_scaling([int(c) for c in args.copies.split(",")], args.scaling_time_limit)
        print("| plan length | tasks | proved optimal | median total | p90 total | max total |")
        print("|---|---|---|---|---|---|")
        bands = (("1-5", 1, 5), ("6-10", 6, 10), ("11-15", 11, 15), ("16-25 (~20)", 16, 25), (">25", 26, 10**6))
        for label, lo, hi in bands:
            band = [x for x in rows if lo <= x["steps"] <= hi]
            if band:
                ts = [x["total"] for x in band]
                print(f"| {label} | {len(band)} | {sum(x['proved'] for x in band)} | {statistics.median(ts):.3f} | "
                      f"{pct(ts, 0.9):.3f} | {max(ts):.3f} |")
        infeasible = [x for x in rows if x["status"] == "infeasible"]
        if infeasible:
            ts = [x["total"] for x in infeasible]
            print(f"proved infeasible: {len(infeasible)} tasks, median {statistics.median(ts):.3f} s, "
                  f"max {max(ts):.3f} s")
        lost = [x for x in rows if x["status"] == "undetermined"]
        if lost:
            print(f"no answer within the limit: {len(lost)} tasks ({', '.join(x['instance'] for x in lost)})")
        unproved = [x for x in rows if x["status"] == "plan" and not x["proved"]]
        if unproved:
            print(f"plan not proved optimal within the limit: {', '.join(x['instance'] for x in unproved)}")
        small = [x["total"] for x in rows if 0 < x["steps"] <= 10]
        if small:
            print(f"\nderived tasks up to 10 actions: median / 50 ms target = {statistics.median(small) / 0.05:.1f}x")
        # around 20 actions: plans of 16-25 actions, and tasks of 8+ copies left without an answer (they count
        # against the target at the time limit); proved-infeasible tasks have no plan length and are left out
        around20 = [x["total"] for x in rows if 16 <= x["steps"] <= 25 or (x["copies"] >= 8 and x in lost)]
        if around20:
            print(f"derived tasks around 20 actions (16-25, or no answer at 8+ copies): p90 / 250 ms target = "
                  f"{pct(around20, 0.9) / 0.25:.1f}x over {len(around20)} tasks")
    if "certify" in sections:
        r = bench_certify(args.certify_jobs)
        print(f"\n## certify (compose, two-method certification, admission; {r['jobs']} processes, no cache)")
        per = r["seconds"] / r["instances"]
        print(f"{r['instances']} instances in {r['seconds']:.1f} s = {per:.2f} s per instance")
    return 0


if __name__ == "__main__":
    sys.exit(main())

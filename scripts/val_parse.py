#!/usr/bin/env python3
"""Run VAL's Parser on every committed domain/problem pair of the benchmark (issue 13: every committed file parses).

    scripts/val_parse.py --parser PATH/TO/VAL/bin/Parser [--jobs 2] [--problems problems] [--json]

Each instance gives three pairs: its K's temporal domain with the temporal problem and with the no-total-time
problem, and its classical domain with its classical problem. A pair passes when the Parser prints "Errors: 0,
warnings: 0". Prints the failing pairs and a count; exit code 0 when every pair passes, 1 otherwise, 2 when the
Parser cannot be run. VAL is not part of the project: build it yourself (github.com/KCL-Planning/VAL).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def pairs(problems: Path) -> list[tuple[Path, Path]]:
    """(domain, problem) for every committed instance, in name order."""
    from compiler.kset import FamilyDomain
    from hygiene_pddl.instances import load_instance
    from hygiene_pddl.registries import load_registries

    reg = load_registries()
    out = []
    for path in sorted(problems.glob("*/*.json")):
        if path.name.endswith(".reference.json"):
            continue
        stem = path.name[: -len(".json")]
        k = FamilyDomain.of_instance(reg, load_instance(path, reg))
        domain = problems.parent / "domains" / f"{k.file_stem}.pddl"
        out += [(domain, path.with_name(f"{stem}.pddl")), (domain, path.with_name(f"{stem}.no-total-time.pddl")),
                (path.with_name(f"{stem}.classical-domain.pddl"), path.with_name(f"{stem}.classical.pddl"))]
    return out


def parse(parser: str, domain: Path, problem: Path) -> tuple[int, int]:
    """VAL Parser's (errors, warnings) on one pair; (-1, -1) when its output has no count."""
    run = subprocess.run([parser, str(domain), str(problem)], capture_output=True, text=True, timeout=600)
    m = re.search(r"Errors: (\d+), warnings: (\d+)", run.stdout)
    return (int(m.group(1)), int(m.group(2))) if m else (-1, -1)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--parser", required=True, help="VAL's Parser binary")
    ap.add_argument("--problems", type=Path, default=ROOT / "problems")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if not Path(args.parser).is_file():
        print(f"error: {args.parser}: no such file (VAL's Parser binary)", file=sys.stderr)
        return 2
    todo = pairs(args.problems)
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        results = list(pool.map(lambda p: parse(args.parser, *p), todo))
    failing = [(d, p, r) for (d, p), r in zip(todo, results, strict=True) if r != (0, 0)]
    if args.json:
        print(json.dumps({"pairs": len(todo), "failing": [{"domain": str(d), "problem": str(p), "errors": r[0],
                                                           "warnings": r[1]} for d, p, r in failing]}, indent=1))
    else:
        for d, p, (e, w) in failing:
            print(f"{p.relative_to(args.problems.parent)} with {d.name}: errors {e}, warnings {w}")
        print(f"{len(todo) - len(failing)} of {len(todo)} pairs parse with 0 errors and 0 warnings")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())

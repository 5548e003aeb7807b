"""Seed files and a CLI runner shared by the fuzz regression tests."""

from __future__ import annotations

import json
from pathlib import Path

from hygiene_pddl.fuzz.cases import BenchmarkSeed, reference_plan

ROOT = Path(__file__).resolve().parents[2]
SPOON = BenchmarkSeed(ROOT / "problems" / "spoon_fruit" / "spoon_fruit-touch_then_wash-water_first.json")
DOMAIN, PROBLEM, INSTANCE, REFERENCE = SPOON.domain, SPOON.problem, SPOON.instance, SPOON.reference
#: The instance's optimal plan (two steps: pick the apple, place it on the plate).
PLAN = reference_plan(SPOON)
STEPS = [line for line in PLAN.splitlines() if line and not line.startswith(";")]


def instance_data() -> dict:
    return json.loads(INSTANCE.read_text(encoding="utf-8"))


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)
    return path

"""Paths shared by the bench tests."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROBLEMS = ROOT / "problems"
PLUGIN = str(Path(__file__).with_name("fake_planners.py"))
#: The hand-checked first families: what the harness tests bench (the full benchmark is too large for a test).
FIRST = [PROBLEMS / "bowl_to_sink", PROBLEMS / "hot_cocoa", PROBLEMS / "spoon_fruit"]

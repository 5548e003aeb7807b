"""Paths shared by the bench tests."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROBLEMS = ROOT / "problems"
PLUGIN = str(Path(__file__).with_name("fake_planners.py"))

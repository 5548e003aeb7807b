"""scripts/up_parse.py: unified-planning's reader over the committed pairs meant for it, resumable."""

import json
import shutil
import subprocess
import sys

from tests.compiler.conftest import ROOT

SCRIPT = ROOT / "scripts" / "up_parse.py"
STEM = "spoon_fruit-wash_then_touch-water_first"


def _tree(tmp_path):
    """A benchmark tree with one spoon-fruit instance."""
    fam = tmp_path / "problems" / "spoon_fruit"
    fam.mkdir(parents=True)
    for f in (ROOT / "problems" / "spoon_fruit").glob(f"{STEM}.*"):
        shutil.copy(f, fam)
    (tmp_path / "domains").mkdir()
    shutil.copy(ROOT / "domains" / "spoon_fruit.pddl", tmp_path / "domains")
    return tmp_path / "problems"


def _run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True)


def test_reads_the_two_pairs_meant_for_it_resumes_and_names_a_broken_file(tmp_path):
    problems, out = _tree(tmp_path), tmp_path / "up.jsonl"
    run = _run("--problems", problems, "--out", out, "--jobs", 1)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "2 of 2 pairs read" in run.stdout
    recs = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["problem"].rsplit(".", 2)[-2] for r in recs) == ["classical", "no-total-time"]
    assert all(r["actions"] > 0 and r["goals"] > 0 and not r["error"] for r in recs)
    # resumed: nothing read again, even after the files are gone
    (problems / "spoon_fruit" / f"{STEM}.classical.pddl").write_text("(define (problem p) (:domain")
    again = _run("--problems", problems, "--out", out, "--json")
    assert again.returncode == 0 and json.loads(again.stdout)["pairs"] == 2
    assert len(out.read_text().splitlines()) == 2
    # a fresh run reads the broken file and fails naming it
    broken = _run("--problems", problems, "--jobs", 1)
    assert broken.returncode == 1 and f"{STEM}.classical.pddl" in broken.stdout
    assert "1 of 2 pairs read" in broken.stdout

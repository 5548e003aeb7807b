"""`validate_plan.py --instance/--reference/--gantt`: both levels, exit codes, JSON."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STEM = ROOT / "problems" / "spoon_fruit" / "spoon_fruit-wash_then_touch-spare_parts_first"
GOOD = """0.000: (wash-pad right right-pad) [3.000]
3.010: (pick right apple apple-skin counter right-pad) [1.000]
4.020: (place right apple plate apple-skin plate-top) [1.000]
"""
UNSAFE = """0.000: (pick right apple apple-skin counter right-pad) [1.000]
1.010: (place right apple plate apple-skin plate-top) [1.000]
"""


def _run(tmp_path: Path, plan: str, *extra: str) -> subprocess.CompletedProcess:
    path = tmp_path / "plan.txt"
    path.write_text(plan)
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "validate_plan.py"), str(ROOT / "domains" /
                           "spoon_fruit.pddl"), f"{STEM}.pddl", str(path), "--instance", f"{STEM}.json",
                           "--reference", f"{STEM}.reference.json", *extra], capture_output=True, text=True)


def test_valid_and_optimal(tmp_path):
    run = _run(tmp_path, GOOD)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "continuation valid" in run.stdout and "optimal: matches" in run.stdout


def test_unsafe_plan_gets_repair_advice_with_provenance(tmp_path):
    run = _run(tmp_path, UNSAFE, "--gantt", str(tmp_path / "g.png"))
    assert run.returncode == 1
    assert "treat the right pad before step 1" in run.stdout
    assert "tray rim → left pad at 0 → spoon handle at 2 → right pad at 11 → apple skin at 11" in run.stdout
    assert (tmp_path / "g.png").read_bytes()[:4] == b"\x89PNG"


def test_json_carries_both_levels(tmp_path):
    run = _run(tmp_path, UNSAFE, "--json")
    data = json.loads(run.stdout)
    assert data["valid"] is False and data["levels_agree"] is True
    assert data["instance_level"]["findings"][0]["problem"] == "hygiene"


def test_reference_for_another_instance_is_bad_input(tmp_path):
    other = ROOT / "problems" / "spoon_fruit" / "spoon_fruit-wash_then_touch-water_first.reference.json"
    path = tmp_path / "plan.txt"
    path.write_text(GOOD)
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "validate_plan.py"), str(ROOT / "domains" /
                          "spoon_fruit.pddl"), f"{STEM}.pddl", str(path), "--instance", f"{STEM}.json",
                          "--reference", str(other)], capture_output=True, text=True)
    assert run.returncode == 2 and "reference is for" in run.stderr and "Traceback" not in run.stderr


def test_a_step_that_occupies_no_lane_gets_its_own_lane_in_the_chart():
    """A dwell occupies no gripper and no appliance: the chart gives it the "(no lane)" lane even when other steps
    have lanes (the v2 fuzz corpus found `validate --gantt` failing with an internal error there)."""
    from hygiene_pddl.validation.gantt import NO_LANE, chart_lanes

    shown = [(0, "(dwell tray)", 0, 3, ()), (1, "(pick left cup)", 0, 1, ("gripper:left",)),
             (2, "(run-hot washer)", 1, 9, ("appliance:washer",))]
    assert chart_lanes(shown) == ["gripper:left", "appliance:washer", NO_LANE]
    assert chart_lanes(shown[1:]) == ["gripper:left", "appliance:washer"]
    assert chart_lanes([]) == [NO_LANE]

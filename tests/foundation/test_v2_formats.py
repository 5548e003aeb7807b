"""Format-2 instances, `migrate`, and `--data DIR` on every command (issue 12)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from hygiene_pddl.cli import main
from hygiene_pddl.instances import load_instance
from tests.foundation.helpers import DATA_DIR, PROBLEMS

#: a format-1 instance as v1 committed it (the benchmark is written in format 2 now)
SPOON = Path(__file__).resolve().parents[1] / "fixtures" / "format1" / "spoon_fruit-wash_then_touch-water_first.json"


def test_format_one_gains_the_implied_safe_goal_with_a_note():
    inst = load_instance(SPOON)
    assert inst.format == 1 and ("safe", "apple") in inst.goals
    assert len(inst.notes) == 1 and "(safe apple)" in inst.notes[0]


def test_migrate_writes_format_two_that_loads_without_notes(tmp_path, capsys):
    out = tmp_path / "spoon.json"
    assert main(["migrate", str(SPOON), "-o", str(out)]) == 0
    assert "(safe apple) added" in capsys.readouterr().out
    data = json.loads(out.read_text())
    assert data["format"] == "hygiene-pddl-instance/2" and "(safe apple)" in data["goals"]
    migrated = load_instance(out)
    assert migrated.notes == () and migrated.goals == load_instance(SPOON).goals


def test_format_two_must_state_the_safe_delivery_goal(tmp_path, capsys):
    data = json.loads(SPOON.read_text())
    data["format"] = "hygiene-pddl-instance/2"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data, indent=1))
    assert main(["replay", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.json" in err and "add the goal (safe apple)" in err


def test_a_delivery_into_a_receptacle_for_dirty_things_needs_no_safe_goal():
    inst = load_instance(PROBLEMS / "bowl_to_sink" / "bowl_to_sink-left_side_brush.json")
    assert not any(g[0] == "safe" for g in inst.goals) and inst.notes == ()


def test_data_dir_reaches_every_command(tmp_path, capsys):
    data = tmp_path / "data"
    shutil.copytree(DATA_DIR, data)
    actions = data / "actions.yaml"
    text = actions.read_text()
    marker = "  wash-pad:\n    description: Wash a gripper's contact pad at the sink.\n"
    assert marker in text
    actions.write_text(text.replace(marker + "    parameters: [[g, gripper]]\n    occupies: [g]\n"
                                             "    capacities: [sink]\n    duration: 3\n",
                                    marker + "    parameters: [[g, gripper]]\n    occupies: [g]\n"
                                             "    capacities: [sink]\n    duration: 4\n"))
    assert main(["replay", str(SPOON)]) == 0
    capsys.readouterr()
    assert main(["replay", str(SPOON), "--data", str(data)]) == 2
    assert "wash-pad lasts 4 TU, found 3" in capsys.readouterr().err
    assert main(["compile", str(SPOON), "-o", str(tmp_path / "out"), "--data", str(data)]) == 2
    import os

    from hygiene_pddl.registries.loader import DATA_ENV
    assert DATA_ENV not in os.environ  # in-process calls leave the default as it was


def test_a_broken_data_dir_is_reported_before_any_work(tmp_path, capsys):
    data = tmp_path / "data"
    shutil.copytree(DATA_DIR, data)
    (data / "profiles.yaml").unlink()
    assert main(["stats", "--data", str(data)]) == 2
    assert "missing registry file" in capsys.readouterr().err


def test_the_environment_variable_is_the_default(tmp_path, monkeypatch):
    from hygiene_pddl.registries.loader import DATA_ENV, default_data_dir

    monkeypatch.setenv(DATA_ENV, str(tmp_path))
    assert default_data_dir() == Path(tmp_path)

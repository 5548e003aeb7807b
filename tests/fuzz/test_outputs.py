"""Issue 15, outputs: commands write only where told; an unwritable target is exit 2 naming it."""

from __future__ import annotations

import pytest

from tests.foundation.test_bad_input import _run_main, assert_one_clear_message

from .common import DOMAIN, INSTANCE, PLAN, PROBLEM, write


def _commands(target: str, plan: str) -> dict[str, list[str]]:
    return {
        "compile -o": ["compile", str(INSTANCE), "-o", target],
        "plan -o": ["plan", str(INSTANCE), "--planner", "history-blind", "--time-limit", "2", "-o", target],
        "scale -o": ["scale", str(INSTANCE), "--copies", "2", "-o", target],
        "validate --gantt": ["validate", str(DOMAIN), str(PROBLEM), plan, "--instance", str(INSTANCE),
                             "--gantt", target],
        "bench --out": ["bench", "--planners", "history-blind", "--instances", str(INSTANCE), "--out", target,
                        "--quiet"],
        "report --out": ["report", str(INSTANCE.parent), "--out", target],
        "demo --out": ["demo", "--out", target],
    }


@pytest.mark.parametrize("command", list(_commands("", "")))
@pytest.mark.parametrize("where", ["under a file", "in /proc"])
def test_an_unwritable_target_is_exit_2_naming_it(capsys, tmp_path, command, where):
    blocker = write(tmp_path, "a-file", "not a folder\n")
    target = str(blocker / "sub" / "x.out") if where == "under a file" else "/proc/hygiene-fuzz/x.out"
    argv = _commands(target, str(write(tmp_path, "plan.txt", PLAN)))[command]
    rc, out, err = _run_main(capsys, argv)
    assert_one_clear_message(rc, out, err, target, f"cannot write {command.split()[1]} target")


def test_a_file_given_as_the_output_folder_is_exit_2(capsys, tmp_path):
    blocker = write(tmp_path, "a-file", "not a folder\n")
    rc, out, err = _run_main(capsys, ["compile", str(INSTANCE), "-o", str(blocker)])
    assert_one_clear_message(rc, out, err, str(blocker), "names a folder to write into, but this is a file")
    assert blocker.read_text() == "not a folder\n"


def test_the_gantt_chart_is_written_under_the_name_given(capsys, tmp_path):
    """matplotlib adds ".png" to a name without a suffix: `--gantt /dev/null` made /dev/null.png."""
    plan = write(tmp_path, "plan.txt", PLAN)
    chart = tmp_path / "chart"
    rc, out, err = _run_main(capsys, ["validate", str(DOMAIN), str(PROBLEM), str(plan), "--instance", str(INSTANCE),
                                      "--gantt", str(chart)])
    assert (rc, err) == (0, "")
    assert chart.read_bytes().startswith(b"\x89PNG")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chart", "plan.txt"]

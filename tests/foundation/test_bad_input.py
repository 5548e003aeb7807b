"""Bad input gets one clear message and exit code 2, through cli.main and `python -m hygiene_pddl`."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from hygiene_pddl.cli import main
from hygiene_pddl.errors import RegistryError
from hygiene_pddl.registries import load_registries

from .helpers import DATA_DIR, ROOT, instance_path, read_json


def _run_main(capsys, argv: list[str]) -> tuple[int, str, str]:
    rc = main(argv)
    out = capsys.readouterr()
    return rc, out.out, out.err


def _run_subprocess(argv: list[str]) -> tuple[int, str, str]:
    proc = subprocess.run([sys.executable, "-m", "hygiene_pddl", *argv], capture_output=True,
                          text=True, cwd=ROOT, timeout=60)
    return proc.returncode, proc.stdout, proc.stderr


def assert_one_clear_message(rc: int, out: str, err: str, *expected: str) -> str:
    assert rc == 2, (rc, out, err)
    assert "Traceback" not in err and "internal error" not in err
    lines = err.rstrip().splitlines()
    # one error: a first line naming file:line:column and the problem, then only indented context
    # (such as the offending line)
    assert lines and lines[0].startswith("error: "), err
    assert all(line.startswith(" ") for line in lines[1:]), err
    for text in expected:
        assert text in lines[0], (text, lines[0])
    return lines[0]


def line_of(path: Path, needle: str) -> int:
    """1-based line of the first occurrence of ``needle`` in ``path`` (an independent oracle)."""
    for i, line in enumerate(path.read_text().splitlines(), start=1):
        if needle in line:
            return i
    raise AssertionError(f"{needle!r} not in {path}")


# --- malformed registries ------------------------------------------------------------------------

@dataclass(frozen=True)
class RegistryBreak:
    file: str
    old: str
    new: str
    path: str  # the entry path the message must name
    needle: str  # text on the line the message must point at
    says: str  # a phrase of the explanation


REGISTRY_BREAKS = {
    "unknown_material": RegistryBreak(
        "task_sources.yaml", "handle: {material: metal}, head", "handle: {material: titanium}, head",
        "object_types.spoon.regions.handle.material", "titanium", "unknown material 'titanium'"),
    "duration_wrong_type": RegistryBreak(
        "actions.yaml", "    capacities: [sink]\n    duration: 3\n",
        "    capacities: [sink]\n    duration: three\n",
        "actions.wash-pad.duration", "duration: three", "'three' is not of type 'integer'"),
    "bad_literal": RegistryBreak(
        "actions.yaml", 'at_start: ["(holding ?g ?o)"]', 'at_start: ["(holding ?g ?o"]',
        "actions.rinse-item.condition.at_start.0", "(holding ?g ?o\"", "(holding ?g ?o"),
    "unknown_predicate": RegistryBreak(
        "actions.yaml", 'at_start: ["(holding ?g ?o)"]', 'at_start: ["(gripping ?g ?o)"]',
        "actions.rinse-item.condition.at_start.0", "gripping", "unknown predicate 'gripping'"),
    "unknown_hazard_in_treatment": RegistryBreak(
        "hygiene_rules.yaml", "      pet_waste_bacteria: [\"*\"]\n      mould: [\"*\"]",
        "      pet_waste_bacteria: [\"*\"]\n      mold: [\"*\"]",
        "treatments.disinfect.removes.mold", "mold:", "unknown hazard 'mold'"),
    "unknown_profile_dimension": RegistryBreak(
        "profiles.yaml", "order: [water, cleaning_agent]", "order: [watter, cleaning_agent]",
        "profiles.water_first.order", "watter", "watter"),
    "unknown_gripper_constant": RegistryBreak(
        "actions.yaml", 'at_start: ["(sprayed ?s)", "(not (holding left ?s))"',
        'at_start: ["(sprayed ?s)", "(not (holding middle ?s))"',
        "actions.dwell.condition.at_start.1", "holding middle",
        "names 'middle', which is not one of the robot's grippers"),
    "yaml_syntax": RegistryBreak(
        "events.yaml", "    parameters: [[h, time]]", "    parameters: [[h, time]",
        "", "sets_horizon", "not valid YAML"),
}


def _broken_data(tmp_path: Path, case: RegistryBreak) -> Path:
    data = tmp_path / "data"
    shutil.copytree(DATA_DIR, data)
    target = data / case.file
    text = target.read_text()
    assert text.count(case.old) >= 1, f"registry changed: {case.old!r} not in {case.file}"
    target.write_text(text.replace(case.old, case.new, 1))
    return data


def _expected_location(data: Path, case: RegistryBreak) -> str:
    line = line_of(data / case.file, case.needle)
    return f"{data / case.file}:{line}:"


@pytest.mark.parametrize("name", sorted(REGISTRY_BREAKS))
def test_malformed_registry_raises_registry_error_with_location(tmp_path, name):
    case = REGISTRY_BREAKS[name]
    data = _broken_data(tmp_path, case)
    with pytest.raises(Exception) as info:  # RegistryError, or InputError for YAML syntax
        load_registries(data)
    err = info.value
    assert getattr(err, "exit_code", None) == 2
    assert err.location.file == str(data / case.file)
    if name != "yaml_syntax":
        assert isinstance(err, RegistryError)
        assert err.location.path == case.path
        assert err.location.line == line_of(data / case.file, case.needle)
    assert case.says in err.message


# every case runs through cli.main; the cases the issue names also through a real subprocess
SUBPROCESS_CASES = {"unknown_material", "duration_wrong_type", "bad_literal",
                    "unknown_hazard_in_treatment", "unknown_object_in_action", "unordered_history",
                    "history_inconsistent_with_observations", "unknown_profile_dimension"}


def _runs(names):
    return [(n, r) for n in sorted(names) for r in ("main", "subprocess")
            if r == "main" or n in SUBPROCESS_CASES]


@pytest.mark.parametrize("name,runner", _runs(REGISTRY_BREAKS))
def test_registries_check_on_broken_data_exits_2(tmp_path, capsys, name, runner):
    case = REGISTRY_BREAKS[name]
    data = _broken_data(tmp_path, case)
    argv = ["registries", "check", "--data", str(data)]
    rc, out, err = _run_main(capsys, argv) if runner == "main" else _run_subprocess(argv)
    msg = assert_one_clear_message(rc, out, err, _expected_location(data, case), case.says)
    if case.path:
        assert f"at {case.path}:" in msg
    assert out == ""


@pytest.mark.parametrize("runner", ["main", "subprocess"])
def test_registries_check_on_shipped_data_exits_0(tmp_path, capsys, runner):
    copy = tmp_path / "data"
    shutil.copytree(DATA_DIR, copy)
    for argv in (["registries", "check"], ["registries", "check", "--data", str(copy)]):
        rc, out, err = _run_main(capsys, argv) if runner == "main" else _run_subprocess(argv)
        assert (rc, err) == (0, "")
        assert out.startswith("registries OK:")


def test_registries_check_on_missing_folder_exits_2(tmp_path, capsys):
    rc, out, err = _run_main(capsys, ["registries", "check", "--data", str(tmp_path / "nowhere")])
    assert_one_clear_message(rc, out, err, "missing registry file")


def test_a_failed_load_leaves_the_packaged_registries_usable(tmp_path):
    data = _broken_data(tmp_path, REGISTRY_BREAKS["unknown_material"])
    with pytest.raises(RegistryError):
        load_registries(data)
    assert load_registries().object_types["spoon"].region("handle").material == "metal"


# --- malformed instances -------------------------------------------------------------------------

SPOON = instance_path("spoon_fruit", "wash_then_touch-water_first")


def _set(*keys_and_value):
    *keys, value = keys_and_value

    def edit(d: dict) -> None:
        for k in keys[:-1]:
            d = d[k]
        d[keys[-1]] = value
    return edit


def _obs(d: dict) -> None:
    facts = d["observations"]["facts"]
    facts.remove("(holding left spoon)")
    facts.append("(at spoon counter)")


@dataclass(frozen=True)
class InstanceBreak:
    edit: Callable[[dict], None]
    expected: tuple[str, ...]  # substrings of the one message
    needle: str | None = None  # text on the line the message must point at (after `path:`)


INSTANCE_BREAKS = {
    "unknown_object_in_action": InstanceBreak(
        _set("history", 2, "args", 1, "fork"), ("history.2.args.1", "'fork'"), '"fork"'),
    "unknown_object_in_event": InstanceBreak(
        _set("history", 7, "args", 1, "fork"), ("history.7.args.1", "'fork'"), '"fork"'),
    "unknown_region_in_event": InstanceBreak(
        _set("history", 7, "args", 2, "rim"), ("history.7", "'rim'", "not a region of spoon")),
    "unknown_action": InstanceBreak(
        _set("history", 0, "name", "teleport"), ("history.0.name", "unknown action 'teleport'"),
        '"teleport"'),
    "wrong_duration": InstanceBreak(
        _set("history", 4, "duration", 1), ("history.4.duration", "wash-pad lasts 3 TU")),
    "unordered_history": InstanceBreak(
        _set("history", 3, "start", 1), ("history.3.start", "not in time order")),
    "record_after_decision_time": InstanceBreak(
        _set("history", 7, "start", 12), ("history.7.start", "after the decision time 11")),
    "physically_inconsistent_history": InstanceBreak(
        _set("history", 4, "start", 3), ("history.4", "physically inconsistent", "busy")),
    "history_inconsistent_with_observations": InstanceBreak(
        _obs, ("observations", "do not match the replayed history", "(holding left spoon)")),
    "resources_inconsistent_with_history": InstanceBreak(
        _set("resources", "water", 7), ("resources", "differ from the initial stocks")),
    "unknown_profile_dimension": InstanceBreak(
        _set("profile", "order", 0, "spare_parts"), ("profile.order", "unknown cost dimension",
                                                     "'spare_parts'")),
    "unknown_hazard": InstanceBreak(
        _set("initial", "hazards", 0, "hazard", "salmonella"),
        ("initial.hazards.0.hazard", "unknown hazard 'salmonella'"), '"salmonella"'),
    "known_event_not_an_event": InstanceBreak(
        _set("known_events", [2]), ("known_events.0", "does not point at an event")),
    "schema_violation": InstanceBreak(
        _set("decision_time", "eleven"), ("decision_time", "'eleven' is not of type 'integer'"),
        '"eleven"'),
}


def _write_broken(tmp_path: Path, case: InstanceBreak) -> Path:
    data = read_json(SPOON)
    case.edit(data)
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data, indent=2, sort_keys=True))
    return path


@pytest.mark.parametrize("name,runner", _runs(INSTANCE_BREAKS))
def test_malformed_instance_exits_2_with_one_message(tmp_path, capsys, name, runner):
    case = INSTANCE_BREAKS[name]
    path = _write_broken(tmp_path, case)
    argv = ["replay", str(path)]
    rc, out, err = _run_main(capsys, argv) if runner == "main" else _run_subprocess(argv)
    expected = [str(path), *case.expected]
    if case.needle:
        expected.append(f"{path}:{line_of(path, case.needle)}:")
    assert_one_clear_message(rc, out, err, *expected)
    assert out == ""


def _missing_comma(text: str) -> str:
    return text.replace('"decision_time": 11,', '"decision_time": 11', 1)


def _unclosed_brace(text: str) -> str:
    return text.rstrip().rstrip("}")


def _unquoted_value(text: str) -> str:
    return text.replace('"family": "spoon_fruit"', '"family": spoon fruit :', 1)


@pytest.mark.parametrize("breaker,runner", [
    (_missing_comma, "main"), (_missing_comma, "subprocess"), (_unclosed_brace, "main"),
    (_unquoted_value, "main")], ids=lambda v: v if isinstance(v, str) else v.__name__.strip("_"))
def test_invalid_json_syntax_reports_line_and_column(tmp_path, capsys, breaker, runner):
    text = breaker(json.dumps(read_json(SPOON), indent=2, sort_keys=True))
    with pytest.raises(json.JSONDecodeError) as info:
        json.loads(text)
    path = tmp_path / "syntax.json"
    path.write_text(text)
    rc, out, err = (_run_main(capsys, ["replay", str(path)]) if runner == "main"
                    else _run_subprocess(["replay", str(path)]))
    msg = assert_one_clear_message(rc, out, err, f"{path}:")
    # line:column present, and the line is where a JSON parser stops (or the line before it,
    # when the fault is a missing delimiter at the end of that line)
    loc = msg.removeprefix(f"error: {path}:").split(":")
    line, column = int(loc[0]), int(loc[1])
    assert column >= 1
    assert info.value.lineno - 1 <= line <= info.value.lineno


@pytest.mark.parametrize("edit", [
    lambda t: t.rstrip()[:-1].rstrip() + ",\n}\n",  # trailing comma
    lambda t: t.replace('"family": "spoon_fruit"', "'family': 'spoon_fruit'", 1),
    lambda t: t + "# a comment\n",
], ids=["trailing_comma", "single_quotes", "comment"])
def test_json_invalid_text_is_rejected(tmp_path, capsys, edit):
    text = edit(json.dumps(read_json(SPOON), indent=2, sort_keys=True))
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)
    path = tmp_path / "lenient.json"
    path.write_text(text)
    rc, out, err = _run_main(capsys, ["replay", str(path)])
    assert_one_clear_message(rc, out, err, f"{path}:")


def test_tab_indented_json_is_accepted(tmp_path, capsys):
    path = tmp_path / "tabs.json"
    path.write_text(json.dumps(read_json(SPOON), indent="\t", sort_keys=True))
    rc, out, err = _run_main(capsys, ["replay", str(path)])
    assert (rc, err) == (0, "")


@pytest.mark.parametrize("runner", ["main", "subprocess"])
def test_missing_instance_file_exits_2(tmp_path, capsys, runner):
    argv = ["replay", str(tmp_path / "absent.json")]
    rc, out, err = _run_main(capsys, argv) if runner == "main" else _run_subprocess(argv)
    assert_one_clear_message(rc, out, err, "absent.json", "cannot read file")


def test_instance_that_is_not_an_object_exits_2(tmp_path, capsys):
    path = tmp_path / "list.json"
    path.write_text("[1, 2, 3]\n")
    rc, out, err = _run_main(capsys, ["replay", str(path)])
    assert_one_clear_message(rc, out, err, str(path), "is not of type 'object'")


@pytest.mark.parametrize("runner", ["main", "subprocess"])
def test_good_instance_replays_with_exit_0(capsys, runner):
    for argv in (["replay", str(SPOON)], ["replay", "--json", str(SPOON)]):
        rc, out, err = _run_main(capsys, argv) if runner == "main" else _run_subprocess(argv)
        assert (rc, err) == (0, "")
        if "--json" in argv:
            data = json.loads(out)
            assert ["right", "pad"] in [f["carrier"] for f in data["contamination"]]
        else:
            assert "right pad" in out and "right pad at 11" in out

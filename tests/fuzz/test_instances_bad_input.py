"""Issue 15, instances: what Python's json accepts but strict JSON does not, numbers beyond the limits, planners
over absurd horizons and stocks."""

from __future__ import annotations

import json
import time

import pytest

from hygiene_pddl.jsonpos import scan
from tests.foundation.test_bad_input import _run_main, assert_one_clear_message

from .common import INSTANCE, instance_data, write

TEXT = INSTANCE.read_text(encoding="utf-8")


def _replay(capsys, tmp_path, text: str, command: str = "replay", *extra: str) -> tuple[int, str, str, str]:
    path = write(tmp_path, "instance.json", text)
    rc, out, err = _run_main(capsys, [command, str(path), *extra])
    return rc, out, err, str(path)


def _where(text: str, needle: str) -> str:
    at = text.index(needle)
    return f"{text.count(chr(10), 0, at) + 1}:{at - text.rfind(chr(10), 0, at)}"


@pytest.mark.parametrize("depth, bracket", [(101, "["), (1000, "{"), (100_000, "[")])
def test_deep_nesting_is_exit_2_at_the_first_level_too_deep(capsys, tmp_path, depth, bracket):
    inner = '{"a": ' * depth + "1" + "}" * depth if bracket == "{" else "[" * depth + "]" * depth
    text = TEXT.replace('"decision_time": 11', f'"decision_time": {inner}', 1)
    rc, out, err, path = _replay(capsys, tmp_path, text)
    assert_one_clear_message(rc, out, err, f"{path}:", "nested deeper than 100 levels")


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_numbers_are_exit_2_at_their_place(capsys, tmp_path, token):
    text = TEXT.replace('"horizon": 16', f'"horizon": {token}', 1)
    rc, out, err, path = _replay(capsys, tmp_path, text, "compile", "-o", str(tmp_path / "out"))
    assert_one_clear_message(rc, out, err, f"{path}:{_where(text, token)}: at horizon:", token)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("literal, says", [("1" * 5000, "5000 characters"), ("1e400", "beyond the range"),
                                           (str(2**63), "above 1000000000"), ("16.0", "not of type 'integer'")])
def test_numbers_beyond_the_limits_are_exit_2(capsys, tmp_path, literal, says):
    text = TEXT.replace('"horizon": 16', f'"horizon": {literal}', 1)
    rc, out, err, path = _replay(capsys, tmp_path, text)
    assert_one_clear_message(rc, out, err, f"{path}:{_where(text, literal)}: at horizon:", says)


def test_a_duplicate_key_is_exit_2_at_the_second_one(capsys, tmp_path):
    """``"horizon": 16, "horizon": 12`` used to turn the answer into infeasible."""
    text = TEXT.replace('"horizon": 16', '"horizon": 16, "horizon": 12', 1)
    rc, out, err, path = _replay(capsys, tmp_path, text, "plan", "--planner", "history-blind")
    second = _where(text, '"horizon": 12')
    assert_one_clear_message(rc, out, err, f"{path}:{second}:", "duplicate key 'horizon'")


def test_the_scanner_finds_every_value_where_json_reads_it():
    data = json.loads(TEXT)
    positions = scan(TEXT, "x.json")
    decoder = json.JSONDecoder()
    for path, offset in positions.items():
        value = data
        for step in path:
            value = value[step]
        assert decoder.raw_decode(TEXT, offset)[0] == value, path
    assert len(positions) > 100


@pytest.mark.parametrize("planner", ["hygiene-nsp", "history-blind"])
def test_a_planner_over_a_horizon_of_a_billion_answers_within_its_time_limit(capsys, tmp_path, planner):
    data = instance_data()
    data["horizon"] = 10**9
    start = time.process_time()
    rc, out, err, _ = _replay(capsys, tmp_path, json.dumps(data), "plan", "--planner", planner,
                              "--time-limit", "2", "--json")
    assert (rc, err) == (0, "")
    assert json.loads(out)["status"] in ("plan", "undetermined")
    assert time.process_time() - start < 20  # CPU seconds: the solver's threads stop at the limit


def test_classical_flavour_refuses_stocks_it_would_write_as_a_billion_objects(capsys, tmp_path):
    data = instance_data()
    for stock, left in data["resources"].items():
        used = data["initial"]["stocks"][stock] - left
        data["initial"]["stocks"][stock], data["resources"][stock] = 10**9, 10**9 - used
    start = time.process_time()
    rc, out, err, path = _replay(capsys, tmp_path, json.dumps(data), "compile", "-o", str(tmp_path / "out"),
                                 "--flavor", "classical")
    assert_one_clear_message(rc, out, err, f"{path}: at resources:", "stocks above 1000")
    assert time.process_time() - start < 10


def test_classical_costs_beyond_32_bits_are_exit_2_not_a_crash(capsys, tmp_path):
    data = instance_data()
    data["horizon"] = 10**9
    rc, out, err, path = _replay(capsys, tmp_path, json.dumps(data), "compile", "-o", str(tmp_path / "out"),
                                 "--flavor", "classical")
    assert_one_clear_message(rc, out, err, f"{path}: at horizon:", "32-bit")


@pytest.mark.parametrize("field", ["id", "object"])
def test_a_name_ending_in_a_newline_does_not_pass_its_pattern(capsys, tmp_path, field):
    """Python's ``$`` matches before a final newline: ``"spoon\\n"`` passed ``^[a-z0-9][a-z0-9_.-]*$``."""
    data = instance_data()
    if field == "id":
        data["id"] += "\n"
    else:
        data["objects"]["plate\n"] = data["objects"].pop("plate")
    rc, out, err, path = _replay(capsys, tmp_path, json.dumps(data), "compile", "-o", str(tmp_path / "out"))
    assert_one_clear_message(rc, out, err, f"{path}:", "\\n")
    assert not (tmp_path / "out").exists()


def test_ticks_beyond_the_limit_are_exit_2_at_the_horizon(capsys, tmp_path):
    """A problem declaring its makespan with ticks has one object per TU left: 10^9 of them ran out of memory."""
    from tests.benchmark_files import a_ticks_instance

    path = a_ticks_instance()
    data = json.loads(path.read_text())
    data["horizon"] = 10**9
    start = time.process_time()
    rc, out, err, written = _replay(capsys, tmp_path, json.dumps(data), "compile", "-o", str(tmp_path / "out"))
    assert_one_clear_message(rc, out, err, f"{written}: at horizon:", "more than 10000 TU")
    assert time.process_time() - start < 10

"""ResultRecord: the JSON Lines contract between the bench harness and the metrics."""

import json

import pytest

from hygiene_pddl.errors import InputError
from hygiene_pddl.metrics import ResultRecord, iter_records, load_records

FULL = ResultRecord(
    planner="hygiene-nsp", instance="spoon_fruit-wash_then_touch-water_first", run=2, status="plan",
    plan_file="plans/hygiene-nsp/spoon_fruit-wash_then_touch-water_first.0.plan", valid=True, pddl_valid=True,
    cost={"replacement_parts": 1, "solid_waste": 1, "active_robot_time": 4, "makespan": 4}, optimal=True,
    first_worse=None, timings={"build": 0.1, "solve": 0.3, "total": 0.4}, wall=0.9, notes=("lex stage 3",),
    error=None, projection={"mode": "projected", "fallback": False}, proved_optimal=True,
    harness={"call": 1.2, "start": 0.1, "check": 0.2, "process": "fork"}, usage={"prompt_tokens": 812})


def test_json_round_trip():
    line = FULL.to_json()
    assert "\n" not in line
    assert ResultRecord.from_json(line) == FULL
    assert ResultRecord.from_json(json.loads(line)) == FULL
    assert ResultRecord.from_dict(FULL.to_dict()) == FULL
    assert set(json.loads(line)) == {"planner", "instance", "run", "status", "plan_file", "valid", "pddl_valid",
                                     "cost", "optimal", "first_worse", "timings", "wall", "notes", "error",
                                     "projection", "proved_optimal", "harness", "usage"}
    assert json.loads(line)["notes"] == ["lex stage 3"]


def test_minimal_record_and_defaults():
    r = ResultRecord.from_json('{"planner": "p", "instance": "i", "run": 0, "status": "timeout"}')
    assert (r.plan_file, r.valid, r.cost, r.timings, r.notes, r.projection, r.mode) == (
        None, None, None, {}, (), None, None)
    assert not r.submitted_plan


@pytest.mark.parametrize("bad", [
    {"planner": "p", "instance": "i", "run": 0, "status": "solved"},
    {"planner": "p", "instance": "i", "status": "plan"},
    {"planner": "p", "instance": "i", "run": 0, "status": "plan", "projection": {"mode": "half"}},
    {"planner": "p", "instance": "i", "run": 0, "status": "plan", "first_worse": {"by": 1}},
])
def test_bad_records_are_refused(bad):
    with pytest.raises(ValueError):
        ResultRecord.from_json(bad)


def test_load_records_tolerates_only_a_cut_last_line(tmp_path):
    good = FULL.to_json()
    store = tmp_path / "results.jsonl"
    store.write_text(f"{good}\n\n{good}\n{good[:40]}")  # the last write was interrupted
    assert load_records(store) == [FULL, FULL]
    store.write_text(f"{good}\n{good[:40]}\n{good}\n")
    with pytest.raises(InputError) as exc:
        load_records(store)
    assert exc.value.location.line == 2
    assert list(iter_records([good + "\n"])) == [FULL]

"""Issue 13's gates (hygiene_pddl/episodes/gates.py): the shallow-rule probe, registry usage, and `stats`."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from hygiene_pddl.episodes.gates import USED_AT_LEAST, Case, overlapping, shallow_rule, usage
from hygiene_pddl.registries import load_registries

ROOT = Path(__file__).resolve().parents[2]
REG = load_registries()


def _case(i: int, family: str, public: dict, steps=(), history=(), cost=None) -> Case:
    return Case(f"{family}-{i}", family, True, tuple(steps), tuple(history), public, cost or {})


@given(st.integers(min_value=2, max_value=5), st.integers(min_value=0, max_value=10**6))
@settings(max_examples=25, deadline=None)
def test_an_answer_that_a_public_token_gives_away_is_predicted_on_unseen_families(k, salt):
    cases = [_case(i, f"fam{salt}-{f}", {"id token 0": f"t{i % k}", "request": "same"}, cost={"x": i % k})
             for f in range(12) for i in range(6)]
    share, keys = shallow_rule(cases, lambda c: c.cost["x"])
    assert share == 1.0 and "id token 0" in keys


def test_an_answer_no_public_feature_carries_is_not_predicted():
    # the answer is the family's own secret: no public feature repeats across families
    cases = [_case(i, f"fam{f}", {"request": "same", "id token 0": str(i)}, cost={"x": f % 7})
             for f in range(28) for i in range(4)]
    share, _ = shallow_rule(cases, lambda c: c.cost["x"])
    assert share <= 0.3


def test_usage_counts_an_entry_only_from_the_threshold_on():
    pick = (0, 1, "pick", ("left", "cup", "handle", "table"))
    wash = (1, 3, "wash-pad", ("left",))
    cases = [_case(i, "f", {}, steps=[pick] + ([wash] if i < USED_AT_LEAST else []),
                   history=[("event", "pad-touch", ())] if i < USED_AT_LEAST - 1 else [], cost={"water": 1})
             for i in range(USED_AT_LEAST + 2)]
    used = usage(REG, cases)
    _, unused_actions = used["actions"]
    assert "pick" not in unused_actions and "wash-pad" not in unused_actions and "fold" in unused_actions
    assert "pad-touch" in used["events"][1]  # one use short of the threshold
    assert "water" not in used["cost dimensions"][1] and "energy" in used["cost dimensions"][1]
    assert "water" not in used["stocks"][1]  # wash-pad consumes water


def test_overlap_is_two_spans_sharing_time():
    assert overlapping(_case(0, "f", {}, steps=[(0, 3, "a", ()), (2, 1, "b", ())]))
    assert not overlapping(_case(0, "f", {}, steps=[(0, 2, "a", ()), (2, 1, "b", ())]))


def test_stats_prints_the_gates_of_a_one_family_benchmark(tmp_path):
    family = sorted(p.name for p in (ROOT / "problems").iterdir() if p.is_dir())[0]
    shutil.copytree(ROOT / "problems" / family, tmp_path / "problems" / family)
    (tmp_path / "domains").mkdir()
    shutil.copy(ROOT / "domains" / f"{family}.pddl", tmp_path / "domains")
    out = subprocess.run([sys.executable, "-m", "hygiene_pddl", "stats", "--json", "--problems",
                          str(tmp_path / "problems")], capture_output=True, text=True, check=True).stdout
    gates = {g["name"]: g for g in json.loads(out)["gates"]}
    classes = next(g for n, g in gates.items() if n.startswith("structural classes"))
    assert classes["value"] == "1" and not classes["met"]
    lengths = next(g for n, g in gates.items() if n.startswith("reference continuation length"))
    refs = [json.loads(p.read_text()) for p in (tmp_path / "problems" / family).glob("*.reference.json")]
    longest = max(len(r["plan"]) for r in refs)
    assert lengths["value"].endswith(f"/ {longest}")

"""The state-projection study on hand-made paired runs (families from tests/metrics/toy.py: e*, m*, h*)."""

import pytest

from hygiene_pddl.metrics import all_tables, projection_pairs, projection_study

from .toy import INDEX, rec


def run(iid, mode, total, status="plan", *, r=0, fallback=False, planner="P", **kw):
    return rec(planner, iid, status, run=r, timings={"build": 0.0, "solve": total, "total": total},
               projection={"mode": mode, "fallback": fallback}, **kw)


# key           full                         projected                                  agree  new violation
# e1 r0   (e)   plan ms2, 10 s               plan ms2, 8 s                               yes
# e2 r0   (e)   undetermined, 10 s           plan ms2, 6 s                               no
# m1 r0   (m)   plan ms4, 4 s                plan ms4, 4 s, fallback                     yes
# m1 r1   (m)   plan ms4, 4 s                plan INVALID (no cost), 2 s                 no     yes
# h4 r0   (h)   plan e1 ms5, 5 s             plan e1 ms5, 5 s                            yes
# m2 r0   (m)   plan, 3 s                    -- (unpaired)
# family e: 1 - (8 + 6) / (10 + 10) = 0.3; family m: 1 - (4 + 2) / (4 + 4) = 0.25; family h: 1 - 5/5 = 0
# median over families of (0.3, 0.25, 0.0) = 0.25 (the mean would be 0.1833...)
RECORDS = [
    run("e1", "full", 10, cost={"makespan": 2}),
    run("e1", "projected", 8, cost={"makespan": 2}),
    run("e2", "full", 10, "undetermined"),
    run("e2", "projected", 6, cost={"makespan": 2}),
    run("m1", "full", 4, cost={"makespan": 4}),
    run("m1", "projected", 4, cost={"makespan": 4}, fallback=True),
    run("m1", "full", 4, cost={"makespan": 4}, r=1),
    run("m1", "projected", 2, valid=False, r=1),
    run("h4", "projected", 5, cost={"energy": 1, "makespan": 5}),  # order in the store does not matter
    run("h4", "full", 5, cost={"energy": 1, "makespan": 5}),
    run("m2", "full", 3, cost={"makespan": 4}),
    rec("P", "e1", cost={"makespan": 2}),  # a main-comparison record: not part of the study
]


def test_pairs():
    pairs, lonely = projection_pairs(RECORDS)
    assert len(pairs) == 5
    assert lonely == [("P", "m2", 0)]
    assert pairs[("P", "m1", 1)]["projected"].valid is False


def test_projection_study_by_hand():
    s = projection_study(RECORDS, INDEX)["P"]
    assert (s["pairs"], s["unpaired"], s["fallbacks"], s["agreement"], s["new_violations"]) == (5, 1, 1, 3, 1)
    assert s["family_reduction"] == pytest.approx({"e": 0.3, "h": 0.0, "m": 0.25})
    assert s["families"] == 3
    assert s["median_reduction"] == pytest.approx(0.25)
    assert [(d["instance"], d["run"]) for d in s["disagreements"]] == [("e2", 0), ("m1", 1)]
    assert s["disagreements"][0]["full"]["status"] == "undetermined"


def test_an_invalid_full_run_makes_no_new_violation():
    recs = [run("e1", "full", 1, valid=False), run("e1", "projected", 1, valid=False)]
    s = projection_study(recs, INDEX)["P"]
    assert (s["new_violations"], s["agreement"]) == (0, 1)


def test_study_is_in_all_tables_and_separate_from_the_main_comparison():
    t = all_tables(RECORDS, INDEX)
    assert t["comparison_set"]["instances"] == ["e1"]
    assert t["projection"]["P"]["pairs"] == 5

"""SR, OSR, PS, HC, HC*, event SR/OSR and the failure table on the hand-made set of tests/metrics/toy.py.

Every expected value is worked out by hand from the indicator tables in toy.py."""

from dataclasses import astuple
from fractions import Fraction

import pytest

from hygiene_pddl.metrics import (
    all_tables,
    comparison_set,
    event_instances,
    event_resolution,
    failure_table,
    history_completion,
    indicators,
    outcome,
    pair_counts,
    profile_success,
    resolution,
    resolution_by,
    select,
)
from hygiene_pddl.metrics.core import NO_OPTIMUM

from .toy import ALL, INDEX, A, B, info, rec

RA, RB = select(A, "A"), select(B, "B")


def test_indicators_follow_the_definitions():
    e1 = INDEX.instances["e1"]
    assert astuple(indicators(e1, RA["e1"])) == (1, 1, 0, 1, 1)  # (f, b, r, o, m)
    # wrong cost: m = 0, still b = 1
    assert astuple(indicators(e1, rec("X", "e1", cost={"makespan": 3}))) == (1, 1, 0, 1, 0)
    # an invalid plan at the optimal cost has m = 1 but b = 0, so its OSR term is f b o m = 0
    bad = indicators(e1, rec("X", "e1", valid=False, cost={"makespan": 2}))
    assert (bad.b, bad.m, bad.sr, bad.osr) == (0, 1, 0, 0)
    # no result: nothing
    assert astuple(indicators(e1, None)) == (1, 0, 0, 1, 0)
    # infeasible reference: r = 1 only for an explicit "infeasible"; "undetermined" is not a judgment
    h1 = INDEX.instances["h1"]
    assert indicators(h1, rec("X", "h1", "infeasible")).sr == 1
    assert indicators(h1, rec("X", "h1", "undetermined")).sr == 0
    # no certified optimum: o = 0 and m = 0 whatever the cost
    m3 = INDEX.instances["m3"]
    assert (indicators(m3, RA["m3"]).o, indicators(m3, RA["m3"]).m, indicators(m3, RA["m3"]).osr) == (0, 0, 0)


def test_select_takes_the_lowest_run_and_skips_projection_and_other_planners():
    assert RB["e3"].run == 0 and RB["e3"].valid is True
    assert set(RA) == set(ALL) - {"h4"}
    projected = rec("B", "e1", cost={"makespan": 9}, projection={"mode": "projected", "fallback": False})
    assert select([*B, projected], "B")["e1"].cost == {"makespan": 2}
    # the same (instance, run) twice: the later record is a re-evaluation and wins
    again = rec("B", "e1", cost={"makespan": 7})
    assert select([*B, again], "B")["e1"].cost == {"makespan": 7}
    assert select(B, "B", run=1) == {"e3": B[3]}


def test_sr_osr_overall():
    # Planner A over all ten instances: SR terms e1 e2 m1 m3 h1 = 5, OSR terms e1 m1 h1 = 3
    r = resolution(RA, INDEX, ALL)
    assert (r.n, r.sr_count, r.osr_count) == (10, 5, 3)
    assert (r.sr, r.osr) == (0.5, 0.3)
    # Default comparison set of A alone: the nine instances it was run on (h4 has no record): 5/9, 3/9
    r = resolution(RA, INDEX)
    assert (r.n, r.sr_count, r.osr_count) == (9, 5, 3)
    assert Fraction(r.sr).limit_denominator(100) == Fraction(5, 9)
    # Planner B: SR terms all but m3 and h1 = 8; OSR terms e1 e2 e3 m2 h3 (safe optimal) + h2 (rejection) = 6
    r = resolution(RB, INDEX, ALL)
    assert (r.n, r.sr_count, r.osr_count, r.sr, r.osr) == (10, 8, 6, 0.8, 0.6)


def test_sr_osr_by_tier_and_activity():
    # A, easy {e1 e2 e3}: SR e1 e2 = 2/3, OSR e1 = 1/3; moderate {m1 m2 m3}: SR m1 m3 = 2/3, OSR m1 = 1/3;
    # hard {h1 h2 h3 h4}: SR h1 = 1/4, OSR h1 = 1/4
    by = resolution_by(RA, INDEX, "tier", ALL)
    assert list(by) == ["easy", "moderate", "hard"]
    assert [(v.n, v.sr_count, v.osr_count) for v in by.values()] == [(3, 2, 1), (3, 2, 1), (4, 1, 1)]
    # A, food {e1 e2 m3 h1 h3}: SR e1 e2 m3 h1 = 4/5, OSR e1 h1 = 2/5; dish {e3 m1 m2 h2 h4}: SR m1, OSR m1 = 1/5
    by = resolution_by(RA, INDEX, "activity_group", ALL)
    assert {k: (v.n, v.sr_count, v.osr_count) for k, v in by.items()} == {"food": (5, 4, 2), "dish": (5, 1, 1)}
    # B, hard {h1 h2 h3 h4}: SR h2 h3 h4 = 3/4, OSR h2 h3 = 2/4
    hard = resolution_by(RB, INDEX, "tier", ALL)["hard"]
    assert (hard.sr, hard.osr) == (0.75, 0.5)
    # any attribute: feasibility. B on the two infeasible ones: h2 rejected correctly, h1 got a plan -> 1/2
    assert resolution_by(RB, INDEX, "feasible", ALL)[False].sr_count == 1


def test_profile_pairs():
    # flip (e1, e2): A b=1,1 m=1,0 -> 0;  B b=1,1 m=1,1 -> 1
    # general (e3, m1): A b=0,1 -> 0;     B b=1,1 m=1,0 -> 0
    # invariant (h3, e1) is ineligible (h3 has a prior violation): n = 0 although B is safe and optimal on both
    assert [profile_success(RA, INDEX, lb, ALL) for lb in ("flip", "general", "invariant")] == [0, 0, 0]
    assert [profile_success(RB, INDEX, lb, ALL) for lb in ("flip", "general", "invariant")] == [1, 0, 0]
    inv = pair_counts(RB, INDEX, "profile", "invariant", ALL)
    assert (inv.n, inv.optimal) == (0, 0)
    assert indicators(INDEX.instances["h3"], RB["h3"]).m == indicators(INDEX.instances["e1"], RB["e1"]).m == 1
    assert pair_counts(RB, INDEX, "profile", "flip", ALL).as_dict() == {"n": 1, "ps": 1}


def test_history_pairs():
    # relevant (m1, m2): A b=1,0 -> 0;          B b=1,1 -> HC 1, m=0,1 -> HC* 0
    # relevant (e1, e3): A b=1,0 -> 0;          B b=1,1 m=1,1 -> HC 1, HC* 1
    # irrelevant (h1, e2): ineligible (h1 is infeasible), not counted
    # irrelevant (m2, h4): A b=0,0 (h4 missing) -> 0;  B b=1,1 -> HC 1, m=1,0 -> HC* 0
    assert history_completion(RA, INDEX, "relevant", ALL) == (0, 0)
    assert history_completion(RA, INDEX, "irrelevant", ALL) == (0, 0)
    assert history_completion(RB, INDEX, "relevant", ALL) == (2, 1)
    assert history_completion(RB, INDEX, "irrelevant", ALL) == (1, 0)
    assert pair_counts(RB, INDEX, "history", "relevant", ALL).as_dict() == {"n": 2, "hc": 2, "hc_star": 1}
    assert pair_counts(RB, INDEX, "history", "irrelevant", ALL).n == 1


def test_pairs_need_both_members_in_the_comparison_set():
    # Without e3 in the comparison set the relevant pair (e1, e3) drops out: B keeps only (m1, m2): HC 1, HC* 0
    subset = [i for i in ALL if i != "e3"]
    assert pair_counts(RB, INDEX, "history", "relevant", subset).as_dict() == {"n": 1, "hc": 1, "hc_star": 0}


def test_event_subsets():
    # relevant: m1 (h3 is excluded: prior violation); irrelevant: e2, m2
    assert event_instances(INDEX, "relevant", ALL) == ("m1",)
    assert event_instances(INDEX, "irrelevant", ALL) == ("e2", "m2")
    # A: relevant m1 safe optimal -> 1/1, 1/1; irrelevant e2 safe non-optimal, m2 rejected -> SR 1/2, OSR 0/2
    a_rel, a_irr = (event_resolution(RA, INDEX, ev, ALL) for ev in ("relevant", "irrelevant"))
    assert (a_rel.n, a_rel.sr, a_rel.osr) == (1, 1.0, 1.0)
    assert (a_irr.n, a_irr.sr, a_irr.osr) == (2, 0.5, 0.0)
    # B: relevant m1 safe at makespan 5 > 4 -> SR 1, OSR 0; irrelevant e2 m2 both safe optimal -> 1, 1
    b_rel, b_irr = (event_resolution(RB, INDEX, ev, ALL) for ev in ("relevant", "irrelevant"))
    assert (b_rel.sr, b_rel.osr, b_irr.sr, b_irr.osr) == (1.0, 0.0, 1.0, 1.0)


def test_failure_table():
    # A: safe_optimal e1 m1; correct_rejection h1; no_plan h3 (timeout) h4 (missing); incorrect_rejection m2;
    #    invalid e3 h2 (a plan on an infeasible instance); safe_nonoptimal e2 (makespan) m3 (no optimum)
    fa = failure_table(RA, INDEX, ALL)
    assert fa.as_dict() == {"n": 10, "safe_optimal": 2, "correct_rejection": 1, "no_plan": 2,
                            "incorrect_rejection": 1, "invalid_continuation": 2, "safe_nonoptimal": 2,
                            "first_nonoptimal": {"makespan": 1, NO_OPTIMUM: 1}}
    # B: safe_optimal e1 e2 e3 m2 h3; correct h2; no_plan m3; invalid h1; safe_nonoptimal m1 (makespan) h4 (energy)
    fb = failure_table(RB, INDEX, ALL)
    assert (fb.safe_optimal, fb.correct_rejection, fb.no_plan, fb.incorrect_rejection, fb.invalid_continuation,
            fb.safe_nonoptimal) == (5, 1, 1, 0, 1, 2)
    assert fb.first_nonoptimal == {"energy": 1, "makespan": 1}
    for f, res in ((fa, resolution(RA, INDEX, ALL)), (fb, resolution(RB, INDEX, ALL))):
        cols = (f.safe_optimal, f.correct_rejection, f.no_plan, f.incorrect_rejection, f.invalid_continuation,
                f.safe_nonoptimal)
        assert sum(cols) == f.n == res.n
        # the three failure columns fail SR; safe_nonoptimal passes SR but not OSR
        assert res.n - res.sr_count == f.no_plan + f.incorrect_rejection + f.invalid_continuation
        assert res.sr_count - res.osr_count == f.safe_nonoptimal


@pytest.mark.parametrize(("status", "feasible", "column"), [
    ("infeasible", False, "correct_rejection"),
    ("infeasible", True, "incorrect_rejection"),
    ("undetermined", False, "no_plan"),
    ("undetermined", True, "no_plan"),
    ("error", True, "no_plan"),
    ("memout", True, "no_plan"),
    ("timeout", False, "no_plan"),
])
def test_rejections_and_no_answers(status, feasible, column):
    inst = info("x", feasible=feasible, opt={"makespan": 1} if feasible else None)
    r = rec("X", "x", status)
    assert outcome(inst, r) == column
    assert indicators(inst, r).sr == (column == "correct_rejection")
    assert indicators(inst, r).osr == (column == "correct_rejection")


def test_all_tables_use_one_comparison_set_for_all_planners():
    t = all_tables([*A, *B], INDEX)
    assert t["comparison_set"]["n"] == 10  # union of A's nine and B's ten; the ghost is not in the index
    assert t["unindexed"] == ["ghost"]
    assert t["comparison_set"]["history_pairs"] == {"relevant": 2, "irrelevant": 1}
    assert t["comparison_set"]["profile_pairs"] == {"general": 1, "flip": 1, "invariant": 0}
    # A's missing h4 counts as no plan: 5/10, 3/10 (not 5/9)
    assert t["overall"]["A"] == {"n": 10, "sr_count": 5, "osr_count": 3, "sr": 0.5, "osr": 0.3}
    assert t["overall"]["B"]["sr"] == 0.8 and t["overall"]["B"]["osr"] == 0.6
    assert t["by_tier"]["A"]["hard"]["sr_count"] == 1
    assert t["by_activity_group"]["B"]["food"] == {"n": 5, "sr_count": 3, "osr_count": 3, "sr": 0.6, "osr": 0.6}
    assert t["profile_pairs"]["B"] == {"general": {"n": 1, "ps": 0}, "flip": {"n": 1, "ps": 1},
                                       "invariant": {"n": 0, "ps": 0}}
    assert t["history_pairs"]["B"]["relevant"] == {"n": 2, "hc": 2, "hc_star": 1}
    assert t["events"]["A"]["irrelevant"]["sr"] == 0.5
    assert t["failures"]["A"]["no_plan"] == 2
    assert "history_swaps" not in t
    assert comparison_set([*A, *B], INDEX, ["A"]) == tuple(i for i in sorted(ALL) if i != "h4")

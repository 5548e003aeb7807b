"""Plan quality per dimension, time ratios, cactus curves, the common set and per-instance rows on the
hand-made set of tests/metrics/toy.py (expected values worked out by hand from its tables)."""

import pytest

from hygiene_pddl.metrics import all_tables, cactus, common_set, per_instance, plan_quality, select, time_ratio

from .toy import ALL, INDEX, A, B, rec

RA, RB = select(A, "A"), select(B, "B")


def test_the_common_set_is_what_every_planner_has_a_result_on():
    # A has no record on h4; B's ghost is not in the index
    assert common_set({"A": RA, "B": RB}, INDEX) == ("e1", "e2", "e3", "h1", "h2", "h3", "m1", "m2", "m3")
    tables = all_tables(A + B, INDEX, instances="common")
    assert tables["comparison_set"]["rule"] == "common" and tables["comparison_set"]["n"] == 9
    assert tables["comparison_set"]["coverage"]["B"] == {"results": 10, "in_set": 9}
    assert tables["overall"]["B"]["n"] == 9 and all_tables(A + B, INDEX)["overall"]["B"]["n"] == 10


def test_plan_quality_compares_safe_plans_with_the_optimum_dimension_by_dimension():
    # A: safe plans with an optimum e1 (ms 2 = 2), e2 (ms 3 > 2), m1 (ms 4 = 4); m3 has no certified optimum
    qa = plan_quality(RA, INDEX, ALL)
    assert (qa["plans"], qa["optimal"]) == (3, 2)
    assert qa["dimensions"]["makespan"] == {"worse": 1, "better": 0, "mean_excess": pytest.approx(1 / 3),
                                            "ratio": pytest.approx(9 / 8)}
    assert qa["dimensions"]["water"] == {"worse": 0, "better": 0, "mean_excess": 0.0, "ratio": None}
    # B: e1 e2 e3 m1 (ms 5 > 4) m2 h3 h4 (energy 2 > 1)
    qb = plan_quality(RB, INDEX, ALL)
    assert (qb["plans"], qb["optimal"]) == (7, 5)
    assert qb["dimensions"]["energy"]["worse"] == 1 and qb["dimensions"]["energy"]["ratio"] == 2.0
    assert qb["dimensions"]["makespan"]["ratio"] == pytest.approx(26 / 25)
    assert qb["dimensions"]["water"]["ratio"] == 1.0
    assert plan_quality(RA, INDEX, [])["dimensions"]["water"]["mean_excess"] is None


def _timed(planner: str, times: dict[str, float]) -> dict:
    base = {r.instance: r for r in (A if planner == "A" else B)}
    out = {}
    for iid, t in times.items():
        r = base[iid]
        out[iid] = rec(planner, iid, r.status, valid=r.valid, cost=r.cost, timings={"total": t})
    return out


def test_time_ratio_is_taken_where_both_resolved():
    a = _timed("A", {"e1": 0.2, "e2": 0.3, "m1": 0.4, "h1": 9.0, "e3": 5.0})
    b = _timed("B", {"e1": 0.1, "e2": 0.1, "m1": 0.8, "h1": 0.1, "e3": 0.1})
    # h1: B's plan is invalid; e3: A's plan is invalid; ratios 2, 3, 0.5
    r = time_ratio(a, b, INDEX, ALL)
    assert (r["n"], r["median"], r["min"]) == (3, 2.0, 0.5) and r["max"] == pytest.approx(3.0)
    assert r["geomean"] == pytest.approx(3 ** (1 / 3))
    floor = time_ratio(_timed("A", {"e1": 0.0}), _timed("B", {"e1": 0.002}), INDEX, ALL)
    assert floor["geomean"] == pytest.approx(0.5)  # 0.0 s counts as 1 ms
    assert time_ratio(a, {}, INDEX, ALL) == {"n": 0, "geomean": None, "median": None, "min": None, "max": None}


def test_cactus_curves_are_the_sorted_times_of_resolved_instances():
    a = _timed("A", {"e1": 0.5, "e2": 0.1, "e3": 0.05, "m3": 2.0, "h1": 1.0, "h3": 0.01})
    assert cactus(a, INDEX, ALL) == [0.1, 0.5, 1.0, 2.0]  # e3 invalid, h3 timeout: not resolved
    assert cactus(a, INDEX, ALL, optimal=True) == [0.5, 1.0]  # e2 non-optimal, m3 without an optimum


def test_per_instance_rows_give_each_planner_outcome_status_and_time():
    rows = {r["instance"]: r for r in per_instance({"A": RA, "B": RB}, INDEX, ALL, {"tier": lambda i: i.tier})}
    assert rows["e2"]["tier"] == "easy"
    assert rows["e2"]["A"] == {"outcome": "safe_nonoptimal", "status": "plan", "time": 0.0, "first_worse": "makespan"}
    assert rows["h4"]["A"] == {"outcome": "no_plan", "status": "none", "time": None, "first_worse": None}
    assert rows["h2"]["B"]["outcome"] == "correct_rejection" and rows["h3"]["A"]["status"] == "timeout"

"""Properties over random small benchmarks and result sets: 0 <= OSR <= SR <= 1, order invariance, and the
failure table's columns partitioning the comparison set consistently with SR and OSR."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from hygiene_pddl.episodes.index import BenchmarkIndex, Pair
from hygiene_pddl.metrics import all_tables, failure_table, pair_counts, resolution, select

from .toy import info, rec

COSTS = [None, {"makespan": 2}, {"makespan": 3}, {"water": 1, "makespan": 2}]
STATUSES = ["plan", "infeasible", "undetermined", "error", "timeout", "memout"]


@st.composite
def benchmarks(draw):
    n = draw(st.integers(1, 8))
    instances = []
    for k in range(n):
        feasible = draw(st.booleans())
        opt = draw(st.sampled_from(COSTS)) if feasible else None
        instances.append(info(f"i{k}", feasible=feasible, opt=opt, tier=draw(st.sampled_from(["easy", "hard"])),
                              activity=draw(st.sampled_from(["food", "dish"])),
                              event=draw(st.sampled_from(["none", "relevant", "irrelevant"])),
                              prior=draw(st.booleans())))
    ids = [i.id for i in instances]
    pairs = []
    if n >= 2:
        for _ in range(draw(st.integers(0, 4))):
            a, b = draw(st.lists(st.sampled_from(ids), min_size=2, max_size=2, unique=True))
            kind, label = draw(st.sampled_from([("profile", "general"), ("profile", "flip"),
                                                ("profile", "invariant"), ("history", "relevant"),
                                                ("history", "irrelevant")]))
            pairs.append(Pair(kind, label, a, b))
    index = BenchmarkIndex({i.id: i for i in instances}, tuple(pairs))
    records = []
    for planner in ("A", "B"):
        for iid in draw(st.lists(st.sampled_from(ids), unique=True)):
            status = draw(st.sampled_from(STATUSES))
            if status == "plan":
                records.append(rec(planner, iid, valid=draw(st.booleans()), cost=draw(st.sampled_from(COSTS)),
                                   worse=draw(st.sampled_from([None, ("makespan", 1)]))))
            else:
                records.append(rec(planner, iid, status))
    return index, records


@settings(max_examples=200, deadline=None)
@given(benchmarks())
def test_rates_are_bounded_and_ordered(data):
    index, records = data
    ids = list(index.instances)
    for planner in ("A", "B"):
        res = resolution(select(records, planner), index, ids)
        assert 0 <= res.osr_count <= res.sr_count <= res.n == len(ids)
        assert 0.0 <= res.osr <= res.sr <= 1.0
        for label in ("relevant", "irrelevant"):
            c = pair_counts(select(records, planner), index, "history", label, ids)
            assert 0 <= c.optimal <= c.completed <= c.n


@settings(max_examples=200, deadline=None)
@given(benchmarks())
def test_failure_columns_partition_the_comparison_set(data):
    index, records = data
    ids = list(index.instances)
    for planner in ("A", "B"):
        results = select(records, planner)
        f, res = failure_table(results, index, ids), resolution(results, index, ids)
        assert (f.safe_optimal + f.correct_rejection + f.no_plan + f.incorrect_rejection + f.invalid_continuation
                + f.safe_nonoptimal) == f.n == len(ids)
        assert f.safe_optimal + f.correct_rejection == res.osr_count
        assert f.safe_nonoptimal == res.sr_count - res.osr_count
        assert sum(f.first_nonoptimal.values()) == f.safe_nonoptimal


@settings(max_examples=100, deadline=None)
@given(benchmarks(), st.randoms(use_true_random=False))
def test_tables_do_not_depend_on_record_order(data, rnd: random.Random):
    index, records = data
    shuffled = list(records)
    rnd.shuffle(shuffled)
    assert all_tables(shuffled, index) == all_tables(records, index)

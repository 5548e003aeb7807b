"""A hand-made ten-instance benchmark and two planners' results whose metrics are worked out by hand in
test_core.py (every value there is derived from the tables in this file's comments)."""

from pathlib import Path

from hygiene_pddl.costs import CostVector
from hygiene_pddl.episodes.index import BenchmarkIndex, InstanceInfo, Pair
from hygiene_pddl.metrics import ResultRecord


def info(iid: str, *, feasible: bool = True, opt: dict | None = None, tier: str = "easy", activity: str = "food",
         event: str = "none", prior: bool = False, family: str | None = None) -> InstanceInfo:
    return InstanceInfo(iid, family or iid[0], Path(f"{iid}.json"), Path(f"{iid}.reference.json"), feasible,
                        None if opt is None else CostVector.from_mapping(opt), tier, activity, "kitchen", "toy",
                        event, prior, None)


def rec(planner: str, iid: str, status: str = "plan", *, valid: bool | None = None, cost: dict | None = None,
        worse: tuple[str, int] | None = None, run: int = 0, **kw) -> ResultRecord:
    if status == "plan" and valid is None:
        valid = True
    plan_file = f"plans/{planner}/{iid}.plan" if status == "plan" else None
    first_worse = None if worse is None else {"dimension": worse[0], "by": worse[1]}
    return ResultRecord(planner, iid, run, status, plan_file=plan_file, valid=valid, cost=cost,
                        first_worse=first_worse, **kw)


# id   feasible  optimum              tier      activity  event       prior violation
# e1   yes       makespan 2           easy      food      none
# e2   yes       makespan 2           easy      food      irrelevant
# e3   yes       water 1, makespan 3  easy      dish      none
# m1   yes       makespan 4           moderate  dish      relevant
# m2   yes       makespan 4           moderate  dish      irrelevant
# m3   yes       none certified       moderate  food      none
# h1   no        -                    hard      food      none
# h2   no        -                    hard      dish      none
# h3   yes       makespan 5           hard      food      relevant    yes (no safe prefix)
# h4   yes       energy 1, makespan 5 hard      dish      none
INSTANCES = [
    info("e1", opt={"makespan": 2}),
    info("e2", opt={"makespan": 2}, event="irrelevant"),
    info("e3", opt={"water": 1, "makespan": 3}, activity="dish"),
    info("m1", opt={"makespan": 4}, tier="moderate", activity="dish", event="relevant"),
    info("m2", opt={"makespan": 4}, tier="moderate", activity="dish", event="irrelevant"),
    info("m3", tier="moderate"),
    info("h1", feasible=False, tier="hard"),
    info("h2", feasible=False, tier="hard", activity="dish"),
    info("h3", opt={"makespan": 5}, tier="hard", event="relevant", prior=True),
    info("h4", opt={"energy": 1, "makespan": 5}, tier="hard", activity="dish"),
]
# Pairs; eligible = both members have a safe prefix and a feasible continuation.
#   profile flip       (e1, e2)   eligible
#   profile general    (e3, m1)   eligible
#   profile invariant  (h3, e1)   NOT eligible (h3 has a prior violation)
#   history relevant   (m1, m2)   eligible
#   history relevant   (e1, e3)   eligible
#   history irrelevant (h1, e2)   NOT eligible (h1 is infeasible)
#   history irrelevant (m2, h4)   eligible
PAIRS = (
    Pair("profile", "flip", "e1", "e2"),
    Pair("profile", "general", "e3", "m1"),
    Pair("profile", "invariant", "h3", "e1"),
    Pair("history", "relevant", "m1", "m2"),
    Pair("history", "relevant", "e1", "e3"),
    Pair("history", "irrelevant", "h1", "e2"),
    Pair("history", "irrelevant", "m2", "h4"),
)
INDEX = BenchmarkIndex({i.id: i for i in INSTANCES}, PAIRS)

# Planner A            b  m  (o)  SR-term OSR-term  failure column
#   e1 plan ms2        1  1   1    1       1         safe_optimal
#   e2 plan ms3        1  0   1    1       0         safe_nonoptimal (makespan)
#   e3 plan invalid    0  0   1    0       0         invalid_continuation
#   m1 plan ms4        1  1   1    1       1         safe_optimal
#   m2 "infeasible"    0  0   1    0       0         incorrect_rejection
#   m3 plan ms4        1  0   0    1       0         safe_nonoptimal (no certified optimum)
#   h1 "infeasible"    f=0, r=1    1       1         correct_rejection
#   h2 plan invalid    f=0, r=0    0       0         invalid_continuation
#   h3 timeout         0  0   1    0       0         no_plan
#   h4 (no record)     0  0   1    0       0         no_plan
A = [
    rec("A", "e1", cost={"makespan": 2}),
    rec("A", "e2", cost={"makespan": 3}, worse=("makespan", 1)),
    rec("A", "e3", valid=False),
    rec("A", "m1", cost={"makespan": 4}),
    rec("A", "m2", "infeasible"),
    rec("A", "m3", cost={"makespan": 4}),
    rec("A", "h1", "infeasible"),
    rec("A", "h2", valid=False),
    rec("A", "h3", "timeout", error="time limit 30 s"),
]
# Planner B            b  m  (o)  SR-term OSR-term  failure column
#   e1 plan ms2        1  1   1    1       1         safe_optimal
#   e2 plan ms2        1  1   1    1       1         safe_optimal
#   e3 plan w1 ms3     1  1   1    1       1         safe_optimal   (run 1 of e3, invalid, is ignored)
#   m1 plan ms5        1  0   1    1       0         safe_nonoptimal (makespan)
#   m2 plan ms4        1  1   1    1       1         safe_optimal
#   m3 undetermined    0  0   0    0       0         no_plan
#   h1 plan invalid    f=0, r=0    0       0         invalid_continuation
#   h2 "infeasible"    f=0, r=1    1       1         correct_rejection
#   h3 plan ms5        1  1   1    1       1         safe_optimal
#   h4 plan e2 ms5     1  0   1    1       0         safe_nonoptimal (energy)
#   ghost (not in the index) is ignored
B = [
    rec("B", "e1", cost={"makespan": 2}),
    rec("B", "e2", cost={"makespan": 2}),
    rec("B", "e3", cost={"water": 1, "makespan": 3}),
    rec("B", "e3", valid=False, run=1),
    rec("B", "m1", cost={"makespan": 5}, worse=("makespan", 1)),
    rec("B", "m2", cost={"makespan": 4}),
    rec("B", "m3", "undetermined"),
    rec("B", "h1", valid=False),
    rec("B", "h2", "infeasible"),
    rec("B", "h3", cost={"makespan": 5}),
    rec("B", "h4", cost={"energy": 2, "makespan": 5}, worse=("energy", 1)),
    rec("B", "ghost", cost={"makespan": 1}),
]
ALL = [i.id for i in INSTANCES]

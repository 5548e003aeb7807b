"""History-swap evaluation on the committed first families: Hygiene-NSP's plans replayed under the paired
history. spoon_fruit wash_then_touch / touch_then_wash (relevant): the plan for the early touch has no
treatment and becomes unsafe after the late touch; the wash or replacement planned after the late touch stays
safe after the early touch but costs more than its optimum (makespan 2). bowl_to_sink left / right brush
(irrelevant): the same plan is safe and optimal under both histories."""

from pathlib import Path

import pytest

from hygiene_pddl.episodes.index import load_index
from hygiene_pddl.instances import load_instance, load_reference
from hygiene_pddl.metrics import ResultRecord, all_tables
from hygiene_pddl.metrics.swap import history_swaps
from hygiene_pddl.planners.nsp import HygieneNSP
from hygiene_pddl.plans.parser import parse_plan
from hygiene_pddl.registries import load_registries
from hygiene_pddl.validation.instance_level import evaluate_plan

ROOT = Path(__file__).resolve().parents[2]
INDEX = load_index(ROOT / "problems")
FAMILIES = ("spoon_fruit", "bowl_to_sink")
IDS = sorted(i for i, inf in INDEX.instances.items() if inf.family in FAMILIES)


@pytest.fixture(scope="module")
def reg():
    return load_registries()


@pytest.fixture(scope="module")
def results_dir(tmp_path_factory, reg):
    """Solve, save the plans, evaluate each under its own instance: what the bench harness stores."""
    out = tmp_path_factory.mktemp("results")
    records = []
    for iid in IDS:
        info = INDEX.instances[iid]
        inst = load_instance(info.path, reg)
        result = HygieneNSP().solve(inst, 30, reg)
        plan_file = f"plans/{iid}.plan"
        (out / plan_file).parent.mkdir(exist_ok=True)
        (out / plan_file).write_text(result.plan_text)
        rep = evaluate_plan(reg, inst, parse_plan(result.plan_text), load_reference(info.reference_path))
        records.append(ResultRecord("hygiene-nsp", iid, 0, result.status.value, plan_file=plan_file,
                                    valid=rep.valid, cost=rep.cost.as_dict() if rep.cost else None,
                                    optimal=rep.optimal, timings=dict(result.timings)))
    return out, records


def test_relevant_swaps_break_and_irrelevant_swaps_preserve(results_dir, reg):
    out, records = results_dir
    assert all(r.valid and r.optimal for r in records)
    swaps = history_swaps(records, INDEX, out, reg)
    rel = swaps["by_planner"]["hygiene-nsp"]["relevant"]
    # two relevant pairs (one per profile) x two directions, all four source plans safe and optimal
    assert (rel["evaluations"], rel["replayed"], rel["safe_optimal_before"]) == (4, 4, 4)
    assert rel["stayed_safe_optimal"] == 0 and rel["outcome_preserved"] == 0
    after = {(c["from"].split("-")[1], c["to"].split("-")[1]): c["after"] for c in rel["cases"]}
    assert after[("touch_then_wash", "wash_then_touch")] == {"safe": False, "optimal": False}
    assert after[("wash_then_touch", "touch_then_wash")] == {"safe": True, "optimal": False}
    irr = swaps["by_planner"]["hygiene-nsp"]["irrelevant"]
    assert (irr["evaluations"], irr["safe_optimal_before"], irr["stayed_safe_optimal"], irr["outcome_preserved"]) \
        == (2, 2, 2, 2)
    assert swaps["total"]["relevant"]["stayed_safe_optimal"] == 0
    assert "cases" not in swaps["total"]["relevant"]


def test_no_plan_and_missing_plan_files(results_dir, reg):
    out, records = results_dir
    left, right = "bowl_to_sink-left_side_brush", "bowl_to_sink-right_side_brush"
    ours = [ResultRecord("X", left, 0, "undetermined"),
            ResultRecord("X", right, 0, "plan", plan_file="plans/missing.plan", valid=True,
                         cost={"active_robot_time": 2, "makespan": 2})]
    irr = history_swaps(ours, INDEX, out, reg, instances=IDS)["by_planner"]["X"]["irrelevant"]
    # left -> right: no plan stays no plan (preserved); right -> left: the file is gone (unavailable)
    assert (irr["evaluations"], irr["replayed"], irr["outcome_preserved"], irr["unavailable"]) == (2, 0, 1, 1)
    assert irr["safe_optimal_before"] == 1 and irr["stayed_safe_optimal"] == 0


def test_all_tables_include_the_swaps_with_a_results_dir(results_dir, reg):
    out, records = results_dir
    t = all_tables(records, INDEX, results_dir=out, reg=reg)
    assert t["history_swaps"]["total"]["irrelevant"]["outcome_preserved"] == 2
    assert t["overall"]["hygiene-nsp"]["sr"] == 1.0 and t["history_pairs"]["hygiene-nsp"]["relevant"]["hc_star"] == 2

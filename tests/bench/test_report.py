"""``hygiene-pddl report``: files and numbers for a hand-made results file over the committed benchmark, and
the plots, swap evaluation and Gantt chart for a real bench run."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from hygiene_pddl import cli
from hygiene_pddl.bench import run_demo, write_report
from hygiene_pddl.episodes.index import load_index
from hygiene_pddl.errors import InputError
from tests.bench.common import PROBLEMS

PNG = b"\x89PNG\r\n\x1a\n"
INDEX = load_index(PROBLEMS)
BL, BR = "bowl_to_sink-left_side_brush", "bowl_to_sink-right_side_brush"
CE, CT = "hot_cocoa-energy_first", "hot_cocoa-time_first"
TS, TW = "spoon_fruit-touch_then_wash-spare_parts_first", "spoon_fruit-touch_then_wash-water_first"
WS, WW = "spoon_fruit-wash_then_touch-spare_parts_first", "spoon_fruit-wash_then_touch-water_first"


def opt(iid: str) -> dict:
    return INDEX.instances[iid].optimal_cost.as_dict()


def rec(planner: str, iid: str, status: str = "plan", valid: bool | None = True, cost: dict | None = None,
        worse: dict | None = None, projection: dict | None = None, total: float = 1.0, server: float = 0.0,
        claim: bool = False) -> dict:
    plan = status == "plan"
    wall = total + 0.5  # each call: 0.25 s around the planner besides a fork-server start-up
    return {"planner": planner, "instance": iid, "run": 1, "status": status,
            "plan_file": f"plans/{planner}/{iid}.plan" if plan else None, "valid": valid if plan else None,
            "pddl_valid": valid if plan else None, "cost": (cost or opt(iid)) if plan else None,
            "optimal": (cost is None) if plan else None, "first_worse": worse,
            "timings": {"build": 0.0, "solve": total, "total": total}, "wall": wall, "notes": [],
            "error": None, "projection": projection, "proved_optimal": claim,
            "harness": {"call": wall + 0.25 + server, "start": 0.1 + server, "check": 0.15, "process": "fork",
                        "server_start": server, "time_limit": 10.0}}


# The committed first families: 8 feasible instances with certified optima; tiers (from the seven features) easy
# (BL, BR), moderate (CE, CT, TS, TW), hard (WS, WW); activity groups dishware (BL, BR) and food (the rest);
# events irrelevant TS TW, relevant WS WW;
# pairs profile general (TS, TW), flip (WS, WW), invariant (CE, CT); history relevant (TS, WS), (TW, WW),
# irrelevant (BL, BR). All pairs are eligible.
#
# alpha       outcome                      b m   beta
#   BL        safe optimal                 1 1   safe optimal
#   BR        safe optimal                 1 1   error
#   CE        safe, makespan +1            1 0   safe optimal
#   CT        timeout                      0 0   (no record: no plan)
#   TS        safe optimal                 1 1   (none)
#   TW        "infeasible" (incorrect)     0 0   (none)
#   WS        invalid plan                 0 0   (none)
#   WW        safe optimal                 1 1   (none)
# alpha: SR 5/8, OSR 4/8; easy 2/2 2/2; moderate 2/4 1/4; hard 1/2 1/2; PS general 0 (TW), flip 0 (WS),
#        invariant 0 (CT); HC relevant 0/2 (WS, TW fail), irrelevant 1/1, HC* irrelevant 1/1; events relevant
#        SR 1/2 OSR 1/2, irrelevant SR 1/2 OSR 1/2; failures 4 optimal, 1 no plan, 1 incorrect rejection,
#        1 invalid, 1 safe non-optimal (makespan).
# beta:  SR 2/8, OSR 2/8; failures 2 optimal, 6 no plan; HC irrelevant 0/1.
# projection study (alpha on BL): full 2.0 s, projected 1.0 s, same status and cost -> reduction 50 %.
CE_COST = {**opt(CE), "makespan": opt(CE)["makespan"] + 1}
# alpha claims proved optimality on BL (right) and CE (wrong: makespan +1); its BR answer came after the 10 s
# limit (11.5 s); its first call paid a 5 s fork-server start-up
RECORDS = [
    rec("alpha", BL, server=5.0, claim=True), rec("alpha", BR, total=11.0),
    rec("alpha", CE, cost=CE_COST, worse={"dimension": "makespan", "by": 1}, claim=True),
    rec("alpha", CT, "timeout"), rec("alpha", TS), rec("alpha", TW, "infeasible"),
    rec("alpha", WS, valid=False, cost=opt(WS)), rec("alpha", WW),
    rec("beta", BL), rec("beta", BR, "error"), rec("beta", CE),
    rec("alpha", BL, projection={"mode": "full", "fallback": False}, total=2.0),
    rec("alpha", BL, projection={"mode": "projected", "fallback": False}, total=1.0),
]


@pytest.fixture(scope="module")
def hand_made(tmp_path_factory):
    results = tmp_path_factory.mktemp("hand")
    (results / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    out = results / "report"
    code = cli.main(["report", str(results), "--out", str(out), "--problems", str(PROBLEMS), "--no-swaps",
                     "--set", "union"])
    assert code == 0
    return out


def test_the_default_comparison_set_is_what_every_planner_ran_on(tmp_path):
    (tmp_path / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    report = write_report(tmp_path, tmp_path / "r", problems=PROBLEMS, swaps=False)
    cs = report.tables["comparison_set"]
    # beta ran on BL, BR, CE only: both planners are scored there, and the report says so
    assert (cs["rule"], cs["instances"]) == ("common", [BL, BR, CE])
    assert cs["coverage"] == {"alpha": {"results": 8, "in_set": 3}, "beta": {"results": 3, "in_set": 3}}
    assert report.tables["overall"]["alpha"] == {"n": 3, "sr_count": 3, "osr_count": 2, "sr": 1.0, "osr": 2 / 3}
    assert report.tables["overall"]["beta"] == {"n": 3, "sr_count": 2, "osr_count": 2, "sr": 2 / 3, "osr": 2 / 3}
    md = (tmp_path / "r" / "report.md").read_text()
    assert "Comparison set (common): the instances every compared planner has a result on: 3 instances" in md
    assert "alpha 3 of its 8; beta 3 of its 3" in md
    # a file of ids chooses the set; an unknown id is bad input naming the file
    (tmp_path / "set.txt").write_text(f"# two instances\n{CT}\n{WW}  # a comment\n")
    assert cli.main(["report", str(tmp_path), "--out", str(tmp_path / "f"), "--problems", str(PROBLEMS),
                     "--no-swaps", "--set", str(tmp_path / "set.txt")]) == 0
    data = json.loads((tmp_path / "f" / "report.json").read_text())["tables"]
    assert data["comparison_set"]["instances"] == [CT, WW] and data["overall"]["alpha"]["sr_count"] == 1
    (tmp_path / "bad.txt").write_text("no-such-instance\n")
    with pytest.raises(InputError, match="not in the benchmark"):
        write_report(tmp_path, tmp_path / "g", problems=PROBLEMS, swaps=False, comparison=["no-such-instance"])


def _csv(path: Path) -> list[dict]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def test_report_files_exist(hand_made):
    names = {p.name for p in hand_made.iterdir()}
    assert {"report.md", "report.json", "overall.csv", "by_tier.csv", "by_activity_group.csv", "profile_pairs.csv",
            "history_pairs.csv", "events.csv", "failures.csv", "projection.csv", "runs.csv", "sr_osr_by_tier.png",
            "sr_osr_by_activity.png", "failures.png"} <= names
    for png in hand_made.glob("*.png"):
        assert png.read_bytes()[:8] == PNG and png.stat().st_size > 10_000
    assert "history_swaps.csv" not in names and "gantt.png" not in names  # --no-swaps; no plan files to draw


def test_sr_osr_overall_and_by_tier_and_activity(hand_made):
    overall = {r["planner"]: r for r in _csv(hand_made / "overall.csv")}
    assert [overall["alpha"][k] for k in ("n", "sr_count", "sr", "osr_count", "osr")] == ["8", "5", "0.625", "4", "0.5"]
    assert [overall["beta"][k] for k in ("n", "sr_count", "osr_count")] == ["8", "2", "2"]
    tiers = {(r["planner"], r["tier"]): r for r in _csv(hand_made / "by_tier.csv")}
    assert (tiers[("alpha", "easy")]["sr_count"], tiers[("alpha", "easy")]["osr_count"]) == ("2", "2")
    assert (tiers[("alpha", "moderate")]["n"], tiers[("alpha", "moderate")]["sr_count"],
            tiers[("alpha", "moderate")]["osr_count"]) == ("4", "2", "1")
    assert (tiers[("alpha", "hard")]["n"], tiers[("alpha", "hard")]["sr_count"],
            tiers[("alpha", "hard")]["osr_count"]) == ("2", "1", "1")
    # alpha: SR 100 % -> 50 % -> 50 % falls; OSR 100 % -> 25 % -> 50 % rises on hard
    trend = {r["planner"]: r for r in _csv(hand_made / "tier_trend.csv")}
    assert (trend["alpha"]["sr_falls"], trend["alpha"]["osr_falls"]) == ("True", "False")
    groups = {(r["planner"], r["activity_group"]): r for r in _csv(hand_made / "by_activity_group.csv")}
    assert groups[("alpha", "food_preparation")]["sr"] == "0.5"
    assert groups[("beta", "dishware_and_dining")]["sr"] == "0.5"
    md = (hand_made / "report.md").read_text()
    assert "| alpha | 8 | 62.5% (5/8) | 50.0% (4/8) |" in md
    assert "| beta | 8 | 25.0% (2/8) | 25.0% (2/8) |" in md


def test_pairs_events_failures_and_projection(hand_made):
    ps = {(r["planner"], r["label"]): (r["n"], r["ps"]) for r in _csv(hand_made / "profile_pairs.csv")}
    assert ps[("alpha", "general")] == ps[("alpha", "flip")] == ps[("alpha", "invariant")] == ("1", "0")
    hc = {(r["planner"], r["label"]): (r["n"], r["hc"], r["hc_star"]) for r in _csv(hand_made / "history_pairs.csv")}
    assert hc[("alpha", "relevant")] == ("2", "0", "0") and hc[("alpha", "irrelevant")] == ("1", "1", "1")
    assert hc[("beta", "irrelevant")] == ("1", "0", "0")
    ev = {(r["planner"], r["event"]): (r["n"], r["sr_count"], r["osr_count"]) for r in _csv(hand_made / "events.csv")}
    assert ev[("alpha", "relevant")] == ("2", "1", "1") and ev[("alpha", "irrelevant")] == ("2", "1", "1")
    fl = {r["planner"]: r for r in _csv(hand_made / "failures.csv")}
    assert [fl["alpha"][k] for k in ("n", "safe_optimal", "correct_rejection", "no_plan", "incorrect_rejection",
                                     "invalid_continuation", "safe_nonoptimal", "first_nonoptimal")] == [
        "8", "4", "0", "1", "1", "1", "1", "makespan: 1"]
    assert (fl["beta"]["safe_optimal"], fl["beta"]["no_plan"]) == ("2", "6")
    pj = _csv(hand_made / "projection.csv")
    assert len(pj) == 1 and (pj[0]["planner"], pj[0]["pairs"], pj[0]["agreement"], pj[0]["median_reduction"]) == (
        "alpha", "1", "1", "0.5")
    runs = {r["planner"]: r for r in _csv(hand_made / "runs.csv")}
    assert (runs["alpha"]["runs"], runs["alpha"]["plan"], runs["alpha"]["timeout"], runs["alpha"]["infeasible"],
            runs["alpha"]["valid_plans"]) == ("8", "6", "1", "1", "5")
    assert (runs["beta"]["runs"], runs["beta"]["error"]) == ("3", "1")
    assert (runs["alpha"]["late_answers"], runs["alpha"]["optimal_claims"], runs["alpha"]["wrong_optimal_claims"]) \
        == ("1", "2", "1")
    over = {r["planner"]: r for r in _csv(hand_made / "overhead.csv")}
    # the fork-server start-up is told apart: every call's overhead is 0.25 s
    assert (over["alpha"]["median_overhead"], over["alpha"]["max_overhead"], over["alpha"]["server_start"]) == (
        "0.25", "0.25", "5")
    assert over["alpha"]["calls_measured"] == "8" and over["beta"]["median_start"] == "0.1"


def test_json_holds_the_metrics_tables(hand_made):
    data = json.loads((hand_made / "report.json").read_text())
    assert data["tables"]["overall"]["alpha"] == {"n": 8, "sr_count": 5, "osr_count": 4, "sr": 0.625, "osr": 0.5}
    assert data["tables"]["failures"]["alpha"]["first_nonoptimal"] == {"makespan": 1}
    assert data["tables"]["comparison_set"]["planners"] == ["alpha", "beta"]
    assert data["rows"]["overall"][0] == {"planner": "alpha", "n": 8, "sr_count": 5, "sr": 0.625, "osr_count": 4,
                                          "osr": 0.5}


def test_report_prints_the_main_tables(tmp_path, capsys):
    (tmp_path / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    assert cli.main(["report", str(tmp_path), "--out", str(tmp_path / "r"), "--problems", str(PROBLEMS),
                     "--no-swaps", "--planners", "beta"]) == 0
    out = capsys.readouterr().out
    # the comparison set is what the chosen planners ran on: beta has records on three instances
    assert "Table II: SR and OSR over the comparison" in out and "66.7% (2/3)" in out and "alpha" not in out


@pytest.mark.parametrize("argv, message", [
    (["--planners", "gamma"], "no results for planner(s) gamma"),
    (["--gantt", "alpha"], "--gantt expects PLANNER:INSTANCE"),
    (["--problems", "/nonexistent"], "does not exist"),
])
def test_bad_report_input_exits_2(tmp_path, capsys, argv, message):
    (tmp_path / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    args = ["report", str(tmp_path), "--out", str(tmp_path / "r"), "--no-swaps"]
    if "--problems" not in argv:
        args += ["--problems", str(PROBLEMS)]
    assert cli.main(args + argv) == 2
    assert message in capsys.readouterr().err


def test_a_damaged_results_line_is_bad_input_with_its_line(tmp_path, capsys):
    lines = [json.dumps(r) for r in RECORDS[:3]]
    (tmp_path / "results.jsonl").write_text(lines[0] + "\n" + lines[1][:20] + "\n" + lines[2] + "\n")
    assert cli.main(["report", str(tmp_path), "--out", str(tmp_path / "r"), "--problems", str(PROBLEMS)]) == 2
    assert "results.jsonl:2: unreadable result record" in capsys.readouterr().err


def test_missing_results_is_bad_input(tmp_path, capsys):
    assert cli.main(["report", str(tmp_path), "--out", str(tmp_path / "r")]) == 2
    assert "no results.jsonl" in capsys.readouterr().err


def test_real_bench_report_has_swaps_and_a_gantt_chart(nsp_bench, tmp_path):
    results, _ = nsp_bench
    report = write_report(results, tmp_path, gantt=[("hygiene-nsp", CE), ("hygiene-nsp", WS)])
    swaps = report.tables["history_swaps"]["by_planner"]["hygiene-nsp"]
    # relevant swaps change the safe optimum (nothing stays safe and optimal); irrelevant swaps change nothing
    assert (swaps["relevant"]["evaluations"], swaps["relevant"]["stayed_safe_optimal"]) == (4, 0)
    assert (swaps["irrelevant"]["evaluations"], swaps["irrelevant"]["outcome_preserved"]) == (2, 2)
    assert (tmp_path / "gantt.png").read_bytes()[:8] == PNG
    assert report.tables["overall"]["hygiene-nsp"]["sr"] == 1.0
    assert {r["planner"] for r in csv.DictReader(open(tmp_path / "history_swaps.csv"))} == {"hygiene-nsp"}


def test_run_demo_reuses_finished_runs(nsp_bench, tmp_path, capsys):
    import shutil

    results, _ = nsp_bench
    shutil.copytree(results, tmp_path / "demo")
    report = run_demo(tmp_path / "demo", planners=("hygiene-nsp",), jobs=2, time_limit=30, problems=PROBLEMS,
                      families_per_group=0,
                      progress=False)
    out = capsys.readouterr().out
    assert "8 runs (8 reused" in out and "100.0% (8/8)" in out
    assert (tmp_path / "demo" / "report" / "report.md").exists() and report.planners == ["hygiene-nsp"]


def test_extras_per_instance_quality_time_ratio_and_breakdowns(hand_made):
    rows = {(r["instance"], r["planner"]): r for r in _csv(hand_made / "per_instance.csv")}
    assert len(rows) == 8 * 2  # the union set here: every instance, every planner
    assert (rows[(CE, "alpha")]["outcome"], rows[(CE, "alpha")]["first_worse"]) == ("safe_nonoptimal", "makespan")
    assert (rows[(CT, "beta")]["outcome"], rows[(CT, "beta")]["status"]) == ("no_plan", "none")
    assert "non-optimal (makespan) 1.00s" in (hand_made / "per_instance.md").read_text()
    quality = {(r["planner"], r["dimension"]): r for r in _csv(hand_made / "quality.csv")}
    assert (quality[("alpha", "makespan")]["plans"], quality[("alpha", "makespan")]["worse"]) == ("5", "1")
    ratio = {r["planner"]: r for r in _csv(hand_made / "time_ratio.csv")}
    # no hygiene-nsp here: alpha, the first planner, is the baseline; both resolved BL and CE (1.0 s each)
    assert (ratio["beta"]["n"], ratio["beta"]["geomean"]) == ("2", "1")
    for key in ("household_area", "design", "kind"):
        assert {r["planner"] for r in _csv(hand_made / f"by_{key}.csv")} == {"alpha", "beta"}
    assert {p.name for p in hand_made.glob("*.png")} >= {"cactus.png", "sr_osr_by_kind.png", "sr_osr_by_design.png"}

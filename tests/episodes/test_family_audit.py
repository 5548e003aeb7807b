"""`hygiene-pddl families check` (hygiene_pddl/episodes/audit.py) on a small data family of the tests' own.

The family (tests/fixtures/families/apple_on_plate-tiny.yaml) is read through ``--data`` from a copy of the
packaged registries, so the check runs the whole path a family author runs: expand the designs, solve every
draft with Hygiene-NSP, judge every pair, and (``--gates``) measure issue 13's gates over the plans.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FAMILY = ROOT / "tests" / "fixtures" / "families" / "apple_on_plate-tiny.yaml"


def _data(tmp_path: Path, text: str) -> Path:
    data = tmp_path / "data"
    shutil.copytree(ROOT / "hygiene_pddl" / "registries" / "data", data)
    for f in (data / "families").glob("*.yaml"):
        f.unlink()
    (data / "families" / FAMILY.name).write_text(text)
    return data


def _check(data: Path) -> tuple[int, dict]:
    run = subprocess.run([sys.executable, "-m", "hygiene_pddl", "families", "check", "--data", str(data), "--gates",
                          "--json", "--time-limit", "20"], capture_output=True, text=True)
    assert "Traceback" not in run.stderr, run.stderr
    return run.returncode, json.loads(run.stdout)


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    return _check(_data(tmp_path_factory.mktemp("fam"), FAMILY.read_text()))


def test_every_claim_of_a_sound_family_holds_and_every_draft_is_proved(checked):
    code, out = checked
    (rep,) = out["families"]
    assert code == 0 and rep["claims"] and not any(c[4] for c in rep["claims"])
    drafts = rep["drafts"].values()
    # the designed-infeasible drafts (prior_infeasible, infeasible) are proved infeasible, the others proved optimal
    assert sorted(d["status"] for d in drafts if d["status"] != "plan") == ["infeasible"] * 3
    assert all(d["proved"] for d in drafts if d["status"] == "plan")
    # the relevant design: one touched pad leaves the other free; both touched means one treatment
    assert sorted({len(d["treatments"]) for d in drafts}) == [0, 1]


def test_general_profile_pairs_that_get_one_plan_are_reported(checked):
    _, out = checked
    (rep,) = out["families"]
    general = {c[3] for c in rep["claims"] if c[1:3] == ["profile", "general"]}
    # the scenarios where no pad needs a treatment give both profiles the same plan (pick, place); where a pad
    # does, water-first replaces it and spare-parts-first washes it
    assert set(rep["same_plan_pairs"]) <= general and 0 < len(rep["same_plan_pairs"]) < len(general)
    plans = {d["steps_text"] for d in rep["drafts"].values() if d["status"] == "plan" and not d["treatments"]}
    assert len(plans) == 1 and plans.pop().startswith("pick ")


def test_the_gates_preview_measures_the_drafts_plans(checked):
    _, out = checked
    gates = {g["name"].split(" (")[0]: g for g in out["gates"]}
    assert gates["structural classes among the family domains"]["value"] == "1"
    lengths = [d["length"] for d in out["families"][0]["drafts"].values()]
    assert gates["reference continuation length, median / p90 / max"]["value"].endswith(f"/ {max(lengths)}")
    treated = [t.split()[1] for d in out["families"][0]["drafts"].values() for t in d["treatments"]]
    assert gates["treated gripper left / right"]["value"] == f"{treated.count('left')} / {treated.count('right')}"
    assert not gates["treatment choice a shallow rule predicts on held-out families"]["met"]  # one family: n/a


def test_a_relevant_design_whose_swap_changes_nothing_is_reported(tmp_path):
    # the clean plate rim instead of the second bowl-rim touch: the relevant pair no longer differs
    text = FAMILY.read_text().replace("relevant: [[left], [left, right]]", "relevant: [[left], [left, far]]")
    code, out = _check(_data(tmp_path, text))
    bad = [c for c in out["families"][0]["claims"] if c[4]]
    assert code == 1 and bad and all(c[1] == "history" and c[2] == "relevant" for c in bad)


def test_a_pair_with_an_undetermined_member_is_not_judged():
    # the laundry family's 24-action drafts are not answered in 10 ms
    run = subprocess.run([sys.executable, "-m", "hygiene_pddl", "families", "check", "doing_laundry-wash_dry_fold",
                          "--json", "--time-limit", "0.01"], capture_output=True, text=True)
    (rep,) = json.loads(run.stdout)
    assert all(d["status"] == "undetermined" for d in rep["drafts"].values())
    assert run.returncode == 1 and rep["claims"] and all(c[4].startswith("not judged") for c in rep["claims"])
    assert all(c[4].split(": ")[1].split(" undetermined")[0].split(", ")[0] in c[3] for c in rep["claims"])



def test_a_flip_is_claimed_on_its_own_scenario_only(tmp_path):
    from hygiene_pddl.episodes.designs import draft, family_designs
    from hygiene_pddl.registries import load_registries

    base = FAMILY.read_text().replace("  profiles: [water_first, spare_parts_first]",
                                      "  profiles: [water_first, spare_parts_first]\n"
                                      "  flip: [water_first, spare_parts_first]")
    for text, ranked in ((base, frozenset()), (base + "  ranked_on: [left, right]\n", frozenset({"left", "right"}))):
        reg = load_registries(_data(tmp_path / str(len(ranked)), text))
        fam = reg.families["apple_on_plate-tiny"]
        ranked_history = draft(reg, fam, "x", ranked, "water_first").history
        flips = 0
        for arch, design in family_designs(reg, fam).items():
            by_key = {d.key: d for d in design.drafts}
            for kind, label, a, b in design.pairs:
                if kind == "profile":
                    assert by_key[a].history == by_key[b].history  # a profile pair shares its scenario
                    assert (label == "flip") == (by_key[a].history == ranked_history), (arch, a, b, label)
                    flips += label == "flip"
        assert flips > 0


def test_certification_never_turns_an_action_bound_into_infeasibility(tmp_path):
    """"No plan within an action bound" is not "no plan" (a 9-action data family instance was certified infeasible
    at the v1 bound of 6), and an optimum that fills the bound is not one: the exact search has no action bound, and
    the joint model's bound is raised to two more than the search's plan, whatever bound is asked for."""
    from hygiene_pddl.episodes.builder import realise
    from hygiene_pddl.episodes.designs import family_designs
    from hygiene_pddl.episodes.reference import certify
    from hygiene_pddl.instances.loader import instance_from_data
    from hygiene_pddl.registries import load_registries

    reg = load_registries(_data(tmp_path, FAMILY.read_text()))
    fam = reg.families["apple_on_plate-tiny"]
    eps = realise(reg, fam.name, "history", family_designs(reg, fam)["history"])
    ep = max(eps, key=lambda e: len(e.history))  # both pads touched the bowl: a treatment, then pick and place
    inst = instance_from_data(ep.public(reg), reg, ep.id)
    short = certify(reg, inst, max_actions=2, time_limit=20, full=True)
    assert short.ok and short.feasible and len(short.steps) == 3, short.problem
    assert "at most 5 continuation actions" in short.methods[0] and "at most" not in short.methods[1]
    build = certify(reg, inst, time_limit=20)  # the build's second method: Hygiene-NSP's default settings
    assert build.ok and build.cost == short.cost, build.problem
    assert build.methods[0].startswith("hygiene-nsp (default settings)") and "at most" not in build.methods[1]


def test_families_check_runs_in_parallel_and_resumes_from_its_cache(tmp_path):
    data = _data(tmp_path, FAMILY.read_text())
    twin = FAMILY.read_text().replace("Put the apple on the plate.", "Put the apple on the plate, please.")
    (data / "families" / "apple_on_plate-twin.yaml").write_text(twin)
    cache = tmp_path / "cache"

    def run(limit: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "hygiene_pddl", "families", "check", "--data", str(data),
                               "--json", "--jobs", "2", "--cache", str(cache), "--time-limit", limit],
                              capture_output=True, text=True)

    first = run("20")
    assert first.returncode == 0 and sorted(p.name for p in cache.iterdir()) == [
        "apple_on_plate-tiny.pkl", "apple_on_plate-twin.pkl"]
    reports = json.loads(first.stdout)
    assert [r["family"] for r in reports] == ["apple_on_plate-tiny", "apple_on_plate-twin"]  # in order, not as done
    again = run("20")  # nothing solved again: both reports come from the cache, unchanged
    assert "2 of 2 families from" in again.stderr and "[" not in again.stderr.split("from")[1]
    assert json.loads(again.stdout) == reports
    other = run("19")  # another time limit is another question
    assert "families from" not in other.stderr and json.loads(other.stdout)[0]["family"] == "apple_on_plate-tiny"
    (tmp_path / "file").write_text("")
    bad = subprocess.run([sys.executable, "-m", "hygiene_pddl", "families", "check", "--data", str(data),
                          "--cache", str(tmp_path / "file")], capture_output=True, text=True)
    assert bad.returncode == 2 and "--cache" in bad.stderr and "Traceback" not in bad.stderr

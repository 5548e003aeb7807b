"""`compile --for PLANNER`: the PDDL each planner reads as shipped, run on the shipped binaries directly.

The binaries are the ones the Python packages ship (LPG-td in up-lpg, Fast Downward's driver in
up-fast-downward, the ENHSP jar in up-enhsp, the kairos command); a test is skipped where one cannot run.
Set ``HYGIENE_SKIP_ENGINES=1`` to skip the unified-planning engine runs (Aries: ~10 s).
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hygiene_pddl import cli
from hygiene_pddl.errors import InputError
from hygiene_pddl.instances import load_instance, load_reference
from hygiene_pddl.planners.external import engine_available
from hygiene_pddl.planners.targets import ALIASES, TARGETS, export, target
from hygiene_pddl.plans.extract import extract_plan
from hygiene_pddl.plans.parser import parse_plan
from hygiene_pddl.registries import load_registries
from hygiene_pddl.validation.pddl_level import PddlValidator

ROOT = Path(__file__).resolve().parents[2]
REG = load_registries()
SPOON = ROOT / "problems/spoon_fruit/spoon_fruit-wash_then_touch-water_first.json"
COCOA = ROOT / "problems/hot_cocoa/hot_cocoa-time_first.json"
RINSE = ROOT / "examples/mechanics/rinse_or_wash-soil-and-spill.json"
SITE = Path(__import__("up_lpg").__file__).resolve().parents[1]
LPG = SITE / "up_lpg" / "lpg"
FD = SITE / "up_fast_downward" / "downward" / "fast-downward.py"
ENHSP = SITE / "up_enhsp" / "ENHSP" / "enhsp.jar"
KAIROS = Path(sys.executable).parent / "kairos"
ENGINE = pytest.mark.skipif(os.environ.get("HYGIENE_SKIP_ENGINES") == "1", reason="HYGIENE_SKIP_ENGINES=1")


def _export(key: str, path: Path, out: Path):
    exp = export(key, REG, load_instance(path, REG))
    return exp, *exp.write(out)


def _run(argv, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in argv], cwd=cwd, capture_output=True, text=True, timeout=timeout)


def _valid_on(domain: Path, problem: Path, plan_text: str) -> bool:
    """VAL's verdict at -t 0.001: LPG-td separates happenings by 0.0002, Kairos by 0.001 (VAL's default
    0.01 merges such happenings)."""
    from hygiene_pddl.pddl import read_domain, read_problem

    validator = PddlValidator(read_domain(domain), read_problem(problem), tolerance="0.001")
    return validator.validate(extract_plan(plan_text)).valid


@pytest.mark.parametrize("key", list(TARGETS))
def test_every_target_states_its_adaptations_in_both_headers(key):
    inst = load_instance(SPOON, REG)
    exp = export(key, REG, inst)
    for text in (exp.domain, exp.problem):
        head = [line for line in text.splitlines() if line.startswith(";")]
        assert head[0].startswith(f"; hygiene-pddl compile --for {key}: for ")
        for sentence in TARGETS[key].adaptations():
            assert f"; adaptation: {sentence}" in head
    assert export(key, REG, inst).domain == exp.domain  # deterministic


def test_readme_and_docs_list_every_target():
    readme = (ROOT / "README.md").read_text()
    docs = (ROOT / "docs/external-planners.md").read_text()
    for key in TARGETS:
        assert f"| `{key}` |" in readme and f"| `{key}`" in docs
    for alias in ALIASES:
        assert f"`{alias}`" in docs


def test_aliases_and_unknown_targets():
    assert target("popf").key == "optic" and target("classical").key == "fast-downward"
    assert set(ALIASES.values()) <= set(TARGETS)
    with pytest.raises(InputError, match="unknown PDDL target 'ff'"):
        target("ff")


def test_classical_header_says_it_drops_the_deadline_and_why():
    for key in ("fast-downward", "enhsp"):
        head = export(key, REG, load_instance(SPOON, REG)).problem
        assert "; dropped: the deadline (every action ends by t+5): classical planning has no clock" in head
        assert "(in-time)" not in head.split("(define", 1)[1]


def test_compile_for_writes_files_and_json(tmp_path, capsys):
    assert cli.main(["compile", str(SPOON), "-o", str(tmp_path), "--for", "tamer", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["target"] == "tamer" and out["domain"] == str(tmp_path / "domain.pddl")
    assert any("conditional effects" in a for a in out["adaptations"])
    assert any("no :metric" in a for a in out["adaptations"])
    problem = (tmp_path / "problem.pddl").read_text()
    assert "(:metric" not in problem and "; hygiene-pddl compile --for tamer" in problem
    assert "(when " not in (tmp_path / "domain.pddl").read_text()
    assert cli.main(["compile", str(SPOON), "-o", str(tmp_path), "--for", "ff"]) == 2


def test_aries_files_have_no_numeric_fluent_and_keep_the_stocks():
    exp = export("aries", REG, load_instance(SPOON, REG))
    assert "(:functions" not in exp.domain and "stock-" not in exp.domain + exp.problem
    assert "(level-water n6)" in exp.problem and "(minus-2 n6 n4)" in exp.problem
    assert "minus-2" in exp.domain and "(at 5.5 (not (in-time)))" in exp.problem  # the deadline stays


@pytest.mark.skipif(not os.access(LPG, os.X_OK), reason="no LPG-td binary for this platform")
@pytest.mark.parametrize("path", [SPOON, RINSE], ids=lambda p: p.stem)
def test_lpg_td_binary_reads_the_lpg_files_and_its_plan_is_valid(path, tmp_path):
    exp, domain, problem = _export("lpg", path, tmp_path)
    run = _run([LPG, "-o", domain, "-f", problem, "-n", "1", "-out", tmp_path / "plan", "-seed", "0"], tmp_path, 60)
    assert "syntax error" not in run.stdout and "not supported" not in run.stdout, run.stdout[-2000:]
    plan_text = (tmp_path / "plan_1.SOL").read_text()
    assert "])" in plan_text  # LPG-td's quirk, repaired by the tolerant reader
    assert _valid_on(domain, problem, plan_text)  # VAL's semantics, on the exported files
    steps = [exp.map_back(s.action, s.args) for s in extract_plan(plan_text).steps]
    assert all(name in REG.actions for name, _ in steps)  # pick_0 → pick


@pytest.mark.skipif(not os.access(LPG, os.X_OK), reason="no LPG-td binary for this platform")
def test_lpg_td_binary_rejects_the_committed_and_the_up_files(tmp_path):
    for key, complaint in (("val", "syntax error"), ("up", "syntax error")):
        _, domain, problem = _export(key, SPOON, tmp_path / key)
        run = _run([LPG, "-o", domain, "-f", problem, "-n", "1", "-out", tmp_path / key / "plan"], tmp_path, 60)
        assert complaint in run.stdout and not (tmp_path / key / "plan_1.SOL").exists()


def test_fast_downward_driver_reads_the_classical_files(tmp_path):
    _, domain, problem = _export("fast-downward", COCOA, tmp_path)
    run = _run([sys.executable, FD, "--alias", "lama-first", domain, problem], tmp_path)
    assert run.returncode == 0, run.stdout[-2000:]
    plan = parse_plan((tmp_path / "sas_plan").read_text())
    names = [s.action for s in plan.steps]
    assert names.index("cook-start") < names.index("add-while-cooking") < names.index("cook-end")
    assert plan.trailer_cost is not None


@pytest.mark.skipif(shutil.which("java") is None or not ENHSP.is_file(), reason="ENHSP needs java and its jar")
def test_enhsp_jar_reads_the_numeric_files(tmp_path):
    _, domain, problem = _export("enhsp", SPOON, tmp_path)
    run = _run(["java", "-jar", ENHSP, "-o", domain, "-f", problem, "-sp", tmp_path / "plan"], tmp_path)
    assert "Problem Solved" in run.stdout, run.stdout[-2000:]
    plan = parse_plan((tmp_path / "plan").read_text())
    assert [s.action for s in plan.steps][-2:] == ["pick", "place"]


@pytest.mark.skipif(not KAIROS.is_file(), reason="no kairos command")
def test_kairos_command_reads_the_kairos_files(tmp_path):
    _, domain, problem = _export("kairos", SPOON, tmp_path)
    run = _run([KAIROS, "solve", domain, problem, "--no-anytime", "--timeout", "20"], tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    assert _valid_on(domain, problem, run.stdout)


@pytest.mark.parametrize("key", ["tamer", "aries"])
def test_unified_planning_engines_take_the_files_kind_but_not_the_committed_one(key, tmp_path):
    from unified_planning.io import PDDLReader
    from unified_planning.shortcuts import get_environment

    ok, why = engine_available(key)
    if not ok:
        pytest.skip(why)
    engine = get_environment().factory.engine(key)
    _, domain, problem = _export(key, SPOON, tmp_path / key)
    assert engine.supports(PDDLReader().parse_problem(str(domain), str(problem)).kind)
    _, domain, problem = _export("up", SPOON, tmp_path / "up")
    assert not engine.supports(PDDLReader().parse_problem(str(domain), str(problem)).kind)


@ENGINE
def test_aries_solves_its_file_without_any_compiler(tmp_path):
    from unified_planning.io import PDDLReader
    from unified_planning.shortcuts import OneshotPlanner, get_environment

    ok, why = engine_available("aries")
    if not ok:
        pytest.skip(why)
    get_environment().credits_stream = None
    exp, domain, problem = _export("aries", SPOON, tmp_path)
    q = PDDLReader().parse_problem(str(domain), str(problem))
    with OneshotPlanner(name="aries") as planner:
        result = planner.solve(q, timeout=60)
    assert result.status.name == "SOLVED_SATISFICING", result.log_messages
    steps = [exp.map_back(ai.action.name, tuple(p.object().name for p in ai.actual_parameters))
             for _, ai, _ in result.plan.timed_actions]
    assert [n for n, _ in steps][-2:] == ["pick", "place"]
    assert steps[0] in (("replace-pad", ("right", "right-pad")), ("wash-pad", ("right", "right-pad")))
    assert load_reference(SPOON.with_name(SPOON.stem + ".reference.json")).feasible

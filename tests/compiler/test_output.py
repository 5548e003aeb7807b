"""The compiler's output: deterministic, current, and what a reader of the file expects."""

import os
import re
import subprocess
import sys

import pytest

from compiler.build import benchmark_files
from compiler.render import render_classical, render_domain, render_problem
from hygiene_pddl.instances import load_instance
from hygiene_pddl.registries import load_registries
from tests.compiler.conftest import ROOT, instance_paths


@pytest.mark.parametrize("seed", ["0", "12345"])
def test_build_is_current_under_any_hash_seed(seed):
    """Two processes with different hash seeds both render exactly the committed files: the renders are
    byte-identical (rendered in two processes, as `build --check` does by default)."""
    env = {**os.environ, "PYTHONHASHSEED": seed}
    run = subprocess.run([sys.executable, "-m", "hygiene_pddl", "build", "--check", "--root", str(ROOT)],
                         capture_output=True, text=True, env=env, cwd=ROOT)
    assert run.returncode == 0, run.stderr


def test_check_names_a_stale_file(tmp_path):
    reg = load_registries()
    files = benchmark_files(reg)
    from compiler.build import stale_files, write_files

    write_files(tmp_path, files)
    assert stale_files(tmp_path, files) == []
    target = tmp_path / "domains" / "spoon_fruit.pddl"
    target.write_text(target.read_text() + "; edited\n")
    (tmp_path / "problems" / "extra.pddl").write_text("(define)")
    problems = stale_files(tmp_path, files)
    assert any("domains/spoon_fruit.pddl: stale" in p for p in problems)
    assert any("problems/extra.pddl: not produced" in p for p in problems)
    run = subprocess.run([sys.executable, "-m", "hygiene_pddl", "build", "--check", "--root", str(tmp_path)],
                         capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 1 and "spoon_fruit.pddl" in run.stderr


def test_requirements_are_declared_for_what_the_domain_uses():
    reg = load_registries()
    for family in reg.families:
        text = render_domain(reg, family)
        reqs = re.search(r"\(:requirements ([^)]*)\)", text).group(1).split()
        if "(or " in text:
            assert ":disjunctive-preconditions" in reqs
        if "(not " in text.split(":effect")[0]:
            assert ":negative-preconditions" in reqs
        if "(when " in text:
            assert ":conditional-effects" in reqs
        assert ":durative-actions" in reqs and ":numeric-fluents" in reqs


def test_no_name_is_both_a_type_and_an_action():
    reg = load_registries()
    for family in reg.families:
        text = render_domain(reg, family)
        types = set(re.search(r"\(:types ([^)]*)\)", text).group(1).replace("-", " ").split())
        actions = set(re.findall(r"\(:durative-action (\S+)", text))
        assert not types & actions


def test_deadline_and_decision_time_in_problem():
    reg = load_registries()
    inst = load_instance(ROOT / "problems/spoon_fruit/spoon_fruit-wash_then_touch-water_first.json", reg)
    text, names = render_problem(reg, inst)
    # horizon 16 - decision time 11 = 5 TU left: in-time goes false half a unit later
    assert "(at 5.5 (not (in-time)))" in text
    assert "(contaminated right-pad raw_meat_bacteria)" in text
    assert "(contaminated left-pad raw_meat_bacteria)" in text
    assert "(holding left spoon)" in text and "(idle right)" in text
    assert names.reverse["apple-skin"] == ("carrier", "apple", "skin")
    assert "(total-time)" in text
    no_tt, _ = render_problem(reg, inst, metric_total_time=False)
    assert "(total-time)" not in no_tt.split("(define")[1] and "makespan term is left out" in no_tt


def test_touch_then_wash_problem_has_a_clean_right_pad():
    reg = load_registries()
    inst = load_instance(ROOT / "problems/spoon_fruit/spoon_fruit-touch_then_wash-water_first.json", reg)
    text, _ = render_problem(reg, inst)
    assert "(contaminated right-pad" not in text
    assert "(contaminated left-pad raw_meat_bacteria)" in text


def test_classical_weights_order_profiles():
    reg = load_registries()
    spare = load_instance(ROOT / "problems/spoon_fruit/spoon_fruit-wash_then_touch-spare_parts_first.json", reg)
    water = load_instance(ROOT / "problems/spoon_fruit/spoon_fruit-wash_then_touch-water_first.json", reg)

    def weight(inst, action):
        domain, _, _ = render_classical(reg, inst)
        block = domain.split(f"(:action {action}\n")[1].split("(:action")[0]
        return int(re.search(r"\(increase \(total-cost\) (\d+)\)", block).group(1))

    assert weight(spare, "wash-pad") < weight(spare, "replace-pad")
    assert weight(water, "wash-pad") > weight(water, "replace-pad")


def test_malformed_instance_writes_nothing(tmp_path):
    bad = tmp_path / "bad.json"
    text = (instance_paths()[0]).read_text().replace('"(at bowl table)"', '"(at bowl nowhere)"')
    bad.write_text(text)
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, "-m", "hygiene_pddl", "compile", str(bad), "-o", str(out)],
                         capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 2
    assert "nowhere" in run.stderr and "Traceback" not in run.stderr
    assert not out.exists()

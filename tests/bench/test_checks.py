"""bench/checks.check_answer finds the PDDL files of an instance whose K is not its family's (a k-variant)."""

import json
import shutil
from pathlib import Path

from compiler.build import compile_instance_files
from compiler.kset import FamilyDomain
from compiler.render import render_instance_domain
from hygiene_pddl.bench.checks import check_answer
from hygiene_pddl.instances import load_instance
from hygiene_pddl.planners.nsp import HygieneNSP
from hygiene_pddl.registries import load_registries

ROOT = Path(__file__).resolve().parents[2]
STEM = "bowl_to_sink-left_side_brush"


def test_a_k_variant_instance_is_checked_against_its_own_domain_file(tmp_path):
    reg = load_registries()
    fam = tmp_path / "problems" / "bowl_to_sink"
    fam.mkdir(parents=True)
    data = json.loads((ROOT / "problems" / "bowl_to_sink" / f"{STEM}.json").read_text())
    data["registry"]["actions"] = ["pick", "place", "wash-pad"]  # no replace-pad: not the family's K
    (fam / f"{STEM}.json").write_text(json.dumps(data))
    shutil.copy(ROOT / "problems" / "bowl_to_sink" / f"{STEM}.reference.json", fam)
    inst = load_instance(fam / f"{STEM}.json", reg)
    stem = FamilyDomain.of_instance(reg, inst).file_stem
    assert stem != "bowl_to_sink" and not (ROOT / "domains" / f"{stem}.pddl").exists()
    (tmp_path / "domains").mkdir()
    (tmp_path / "domains" / f"{stem}.pddl").write_text(render_instance_domain(reg, inst))
    for name, text in compile_instance_files(reg, inst).items():
        (fam / name).write_text(text)
    text = HygieneNSP().solve(inst, 20, reg).plan_text  # the instance's own K: the pad wash, no renewal
    out = check_answer(reg, inst, fam / f"{STEM}.json", {"status": "plan", "plan_text": text}, tmp_path)
    assert out["valid"] is True and out["optimal"] is True
    assert out["pddl_valid"] is True and out["check_notes"] == []  # found domains/<family>-k<hash>.pddl

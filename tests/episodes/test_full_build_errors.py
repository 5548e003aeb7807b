"""`hygiene-pddl build --full` when the families cannot give a composition: exit 1 with one message, no
traceback, nothing written (the session-8 v2 build ended in a traceback once admission had banned 30 designs)."""

import json
import shutil

import pytest
import yaml

from hygiene_pddl import cli, errors
from hygiene_pddl.episodes.pipeline import NoAdmissibleComposition, full_build
from hygiene_pddl.registries import load_registries
from hygiene_pddl.registries.loader import DATA_DIR


def _no_designs(tmp_path):
    """The packaged registries without a family that has designs (only the hand-written first families and the
    mechanics examples are left)."""
    data = tmp_path / "data"
    shutil.copytree(DATA_DIR, data)
    shutil.rmtree(data / "families")
    sources = yaml.safe_load((data / "task_sources.yaml").read_text())
    sources["families"] = {k: v for k, v in sources["families"].items() if "kind" not in v}
    (data / "task_sources.yaml").write_text(yaml.safe_dump(sources, sort_keys=False))
    return data


def test_a_build_without_a_composition_exits_1_with_one_message(tmp_path, capsys):
    root = tmp_path / "root"
    root.mkdir()
    rc = cli.main(["build", "--full", "--root", str(root), "--data", str(_no_designs(tmp_path))])
    out, err = capsys.readouterr()
    assert rc == errors.EXIT_INVALID
    assert err.startswith("error: the families' designs cannot meet every SPEC §9 row") and "Traceback" not in err
    assert "instances -" in err  # the nearest composition's rows, e.g. far too few instances
    assert not (root / "problems" / "MANIFEST.json").exists()


def test_retry_unproved_drops_only_the_records_that_did_not_certify(tmp_path):
    cache = tmp_path / "certify.json"
    cache.write_text(json.dumps({"a:1": {"problem": ""}, "b:2": {"problem": "exact search did not prove"}}))
    said = []
    reg = load_registries(_no_designs(tmp_path))
    with pytest.raises(NoAdmissibleComposition) as info:
        full_build(reg, jobs=1, cache_file=cache, log=said.append, retry_unproved=True)
    assert info.value.banned == {} and info.value.off["instances"] < 0
    assert said[0] == "retrying 1 cached certification(s) that did not prove"


def test_a_composition_lost_to_cached_failures_says_so():
    """Banned before the first round by failures already in the cache, the message names the cache and the way
    out, not 'before any certification'."""
    err = NoAdmissibleComposition(0, {("fam", "crossed"): "fam-1: exact search did not prove"}, {"prior_unsafe": -5})
    assert "already failed in the certification cache" in str(err) and "--retry-unproved" in str(err)
    assert "prior_unsafe -5" in str(err) and "before any certification" not in str(err)
    assert "before any certification" in str(NoAdmissibleComposition(0, {}, {"instances": -3}))


def test_families_left_without_a_design_are_named():
    """The nearest composition is of the families that still have a design; a family whose every design is banned
    is named, so the rows alone do not hide it (session 10: 'history_irrelevant +1' hid two such families)."""
    from hygiene_pddl.episodes.builder import Candidate
    from hygiene_pddl.episodes.pipeline import stranded

    cands = [Candidate("a", "single", (), {}), Candidate("a", "history", (), {}), Candidate("b", "single", (), {})]
    assert stranded(cands, {("a", "single")}) == ()
    assert stranded(cands, {("a", "single"), ("a", "history")}) == ("a",)
    assert stranded(cands, {("a", "single"), ("a", "history"), ("b", "single")}) == ("a", "b")
    err = str(NoAdmissibleComposition(0, {("a", "single"): "a-1: unproved"}, {"history_irrelevant": 1}, ("a",)))
    assert "history_irrelevant +1, over the other families" in err and "no design left" in err and ": a" in err
    assert "no design left" not in str(NoAdmissibleComposition(0, {("a", "single"): "x"}, {"history_irrelevant": 1}))

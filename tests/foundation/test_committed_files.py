"""The committed first-family files are exactly what the generator writes, and match the schemas."""

from __future__ import annotations

import json

import jsonschema
import pytest
import yaml

from hygiene_pddl.episodes.first_families import first_families
from hygiene_pddl.episodes.writer import write_episode

from .helpers import DATA_DIR, PROBLEMS, SCHEMA_DIR, read_json

FIRST = ("spoon_fruit", "bowl_to_sink", "hot_cocoa")
COMMITTED = sorted(PROBLEMS.glob("*/*.json"))
PUBLIC = [p for p in COMMITTED if not p.name.endswith(".reference.json")]
REFERENCES = [p for p in COMMITTED if p.name.endswith(".reference.json")]


def _validator(name: str) -> jsonschema.Draft202012Validator:
    schema = json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.fixture(scope="module")
def regenerated(reg, tmp_path_factory):
    out = tmp_path_factory.mktemp("problems")
    written = [p for ep in first_families() for p in write_episode(ep, reg, out)]
    return out, written


def test_generator_writes_the_committed_files_byte_for_byte(regenerated):
    out, written = regenerated
    assert len(written) == 2 * 8
    for path in written:
        rel = path.relative_to(out)
        committed = PROBLEMS / rel
        assert committed.exists(), f"{rel} is generated but not committed"
        assert committed.read_bytes() == path.read_bytes(), f"{rel} differs from the generator's output"


def test_no_stray_first_family_files_are_committed(regenerated):
    out, _ = regenerated
    for family in FIRST:
        committed = {p.name for p in (PROBLEMS / family).glob("*.json")}
        generated = {p.name for p in (out / family).glob("*.json")}
        assert committed == generated


def test_generation_is_deterministic(reg, regenerated, tmp_path):
    out, written = regenerated
    again = [p for ep in first_families() for p in write_episode(ep, reg, tmp_path)]
    assert [p.read_bytes() for p in again] == [p.read_bytes() for p in written]


def test_committed_files_are_canonical_json():
    for path in COMMITTED:
        text = path.read_text(encoding="utf-8")
        assert text == json.dumps(json.loads(text), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def test_the_first_families_are_all_committed():
    assert {p.parent.name for p in PUBLIC} >= set(FIRST)
    assert len(PUBLIC) == len(REFERENCES)


@pytest.mark.parametrize("path", PUBLIC, ids=lambda p: p.stem)
def test_committed_instance_validates_against_its_schema(path):
    data = read_json(path)
    _validator("instance").validate(data)
    assert data["id"] == path.stem and data["family"] == path.parent.name


@pytest.mark.parametrize("path", REFERENCES, ids=lambda p: p.name.removesuffix(".reference.json"))
def test_committed_reference_validates_against_its_schema(path):
    data = read_json(path)
    _validator("reference").validate(data)
    assert data["instance"] == path.name.removesuffix(".reference.json")
    assert data["family"] == path.parent.name
    assert (path.parent / f"{data['instance']}.json").exists()


def test_schemas_are_not_vacuous():
    good = read_json(PUBLIC[0])
    inst = _validator("instance")
    for bad in ({**good, "contamination": []},  # observations never reveal hygiene state
                {k: v for k, v in good.items() if k != "history"},
                {**good, "decision_time": -1},
                {**good, "history": [{**good["history"][0], "kind": "teleport"}] if good["history"] else [1]}):
        assert not inst.is_valid(bad)
    ref = read_json(REFERENCES[0])
    assert not _validator("reference").is_valid({**ref, "difficulty": {"tier": "trivial", "features": {}}})


@pytest.mark.parametrize("name", ["task_sources", "hygiene_rules", "actions", "events", "profiles"])
def test_shipped_registries_validate_against_their_schemas(name):
    data = yaml.safe_load((DATA_DIR / f"{name}.yaml").read_text())
    _validator(f"registry.{name}").validate(data)

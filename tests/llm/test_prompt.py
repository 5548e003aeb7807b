"""The prompts: byte-stable, from the public input only, K rendered from the registry entries, versions pinned."""

from __future__ import annotations

import dataclasses
import json
import random
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hygiene_pddl.instances import load_instance
from hygiene_pddl.instances.loader import instance_from_data
from hygiene_pddl.planners.llm.prompt import TEMPLATE_DIGESTS, TEMPLATES, render_prompt, template_digest
from hygiene_pddl.registries import load_registries
from tests.llm.scenarios import PLAN_SCENARIOS, find_instance

REG = load_registries()
IDS = sorted(PLAN_SCENARIOS)


def _shuffled(data: object, rng: random.Random, unordered: bool = False) -> object:
    """The same JSON value with every object's keys, every fact list and every list of registry names (K) in
    another order (lists whose order means something, such as arguments and the history, stay)."""
    if isinstance(data, dict):
        items = list(data.items())
        rng.shuffle(items)
        return {k: _shuffled(v, rng, k == "registry") for k, v in items}
    if isinstance(data, list) and (unordered or all(isinstance(v, str) and v.startswith("(") for v in data)):
        return rng.sample(data, len(data))
    return [_shuffled(v, rng) for v in data] if isinstance(data, list) else data


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(IDS), st.integers(0, 2**32 - 1), st.sampled_from(["plan", "ground"]))
def test_prompt_bytes_do_not_depend_on_the_order_of_the_input_file(instance, seed, purpose):
    path = find_instance(instance)
    data = json.loads(path.read_text())
    again = instance_from_data(_shuffled(data, random.Random(seed)), REG, name=str(path))
    assert render_prompt(REG, again, purpose) == render_prompt(REG, load_instance(path, REG), purpose)


@pytest.mark.parametrize("purpose", ["plan", "ground"])
def test_prompt_shows_neither_grounded_goals_nor_id_nor_family(purpose):
    inst = load_instance(find_instance("hot_cocoa-time_first"), REG)
    other = dataclasses.replace(inst, goals=(("at", "mug", "counter"),), id="x-secret-id", family="x-family")
    text = render_prompt(REG, inst, purpose)
    assert render_prompt(REG, other, purpose) == text
    assert "hot_cocoa" not in text and "(has-cocoa mug)" not in text


def test_plan_prompt_renders_k_and_the_public_input():
    inst = load_instance(find_instance("spoon_fruit-wash_then_touch-water_first"), REG)
    text = render_prompt(REG, inst)
    assert text.startswith(f"[hygiene-pddl prompt {TEMPLATES['plan']}]\n")
    for name in (*inst.actions, *inst.events, *inst.hazards, *inst.treatments, *inst.object_names):
        assert f"\n{name}" in text or f"- {name}:" in text, name
    assert inst.request in text
    for record in inst.history:
        assert record.text() in text
    assert " > ".join(inst.profile.order) in text
    assert "replacement_parts 1, solid_waste 1" in text  # replace-pad's costs, from the registry entry
    assert "time 0 is the decision time" in text and "; status: infeasible" in text
    # a registry entry with a changed value reaches the prompt: K is the registry's data, not template text
    changed = dataclasses.replace(REG.actions["wash-pad"], duration=7)
    reg = dataclasses.replace(REG, actions={**REG.actions, "wash-pad": changed})
    assert "duration (TU): 7" in render_prompt(reg, inst) and "duration (TU): 7" not in text


@pytest.mark.parametrize("version", sorted(TEMPLATE_DIGESTS))
def test_a_changed_template_needs_a_new_version(version):
    assert template_digest(version) == TEMPLATE_DIGESTS[version], (
        f"templates/{version}.j2 changed: copy it to a new version, point TEMPLATES at it and pin its digest")


def test_prompt_command_prints_the_prompt_byte_for_byte(tmp_path):
    path = find_instance("bowl_to_sink-left_side_brush")
    runs = [subprocess.run([sys.executable, "-m", "hygiene_pddl", "prompt", str(path)], capture_output=True,
                           check=True).stdout for _ in range(2)]
    assert runs[0] == runs[1] == render_prompt(REG, load_instance(path, REG)).encode("utf-8")
    out = tmp_path / "prompts"
    subprocess.run([sys.executable, "-m", "hygiene_pddl", "prompt", "--purpose", "ground", "--out", str(out),
                    str(path.parent)], capture_output=True, check=True)
    files = sorted(p.name for p in out.iterdir())
    assert files == sorted(f"{p.stem}.txt" for p in path.parent.glob("*.json") if "reference" not in p.name)
    assert (out / f"{path.stem}.txt").read_text() == render_prompt(REG, load_instance(path, REG), "ground")


def test_v2_registry_fields_reach_the_prompt():
    from hygiene_pddl.literals import parse_literal
    from hygiene_pddl.registries.model import ContactSpec, Endpoint

    inst = load_instance(find_instance("spoon_fruit-wash_then_touch-water_first"), REG)
    guarded = ContactSpec(Endpoint("o", "@base"), Endpoint("x", "@surface"), "end",
                          guard=(parse_literal("(at ?x ?d)"),), forall=(("x", "item"),))
    place = dataclasses.replace(REG.actions["place"], contacts=(guarded,))
    plate = dataclasses.replace(REG.object_types["plate"], roles=(("work", "top"),), capacity=2)
    reg = dataclasses.replace(REG, actions={**REG.actions, "place": place},
                              object_types={**REG.object_types, "plate": plate}, blocked_by=("covered",))
    text = render_prompt(reg, inst)
    assert "at end: ?o.@base touches ?x.@surface if (at ?x ?d) for every ?x - item" in text
    assert "work region (@work): top" in text and "holds at most 2 item(s)" in text
    assert "While (covered ?x) holds, no region of ?x can be touched." in text

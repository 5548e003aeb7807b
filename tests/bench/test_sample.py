"""The stratified sample for slow engines: whole pair groups, every stratum value, proportional conditions,
deterministic; usable from ``hygiene-pddl bench --sample``."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from hygiene_pddl import cli
from hygiene_pddl.bench import resolve_instances
from hygiene_pddl.bench.sample import condition, family_kind, sample_files, stratified_sample, units
from hygiene_pddl.episodes.index import BenchmarkIndex, InstanceInfo, Pair, load_index
from tests.bench.common import PLUGIN, PROBLEMS

INDEX = load_index(PROBLEMS)
KIND = family_kind()


def _values(ids, kind=KIND) -> dict[str, set]:
    infos = [INDEX.instances[i] for i in ids]
    return {"group": {x.activity_group for x in infos}, "tier": {x.tier for x in infos},
            "area": {x.household_area for x in infos}, "design": {x.design for x in infos},
            "kind": {kind(x) for x in infos}, "event": {x.event for x in infos},
            "infeasible": {x.feasible for x in infos}, "prior": {x.prior_violation for x in infos}}


def _split_pairs(index: BenchmarkIndex, ids) -> list[Pair]:
    chosen = set(ids)
    return [p for p in index.pairs if (p.a in chosen) != (p.b in chosen)]


def test_the_sample_covers_every_value_keeps_pairs_whole_and_is_deterministic():
    sample = stratified_sample(INDEX, 150, kind=KIND)
    assert len(sample) >= 150 and len(set(sample)) == len(sample) and sample == sorted(sample)
    assert _values(sample) == _values(INDEX.instances)
    assert not _split_pairs(INDEX, sample)
    assert stratified_sample(INDEX, 150, kind=KIND) == sample
    assert stratified_sample(INDEX, 150, seed=1, kind=KIND) != sample
    # each condition (infeasible, each event, prior violation, plain) near its proportional share
    biggest = max(map(len, units(INDEX, INDEX.instances)))
    population = Counter(condition(x) for x in INDEX.instances.values())
    got = Counter(condition(INDEX.instances[i]) for i in sample)
    for c, n in population.items():
        assert abs(got[c] - len(sample) * n / len(INDEX.instances)) <= biggest + 1, (c, got[c], n)


def _info(k: int, group: str, tier: str, event: str, feasible: bool) -> InstanceInfo:
    return InstanceInfo(f"i{k:03d}", f"f{k % 7}", Path(f"i{k}.json"), Path(f"i{k}.reference.json"), feasible, None,
                        tier, group, f"area{k % 3}", f"design{k % 5}", event, False, None)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("ab"), st.sampled_from(["easy", "hard"]),
                          st.sampled_from(["none", "none", "relevant"]), st.booleans()), min_size=1, max_size=40),
       st.lists(st.tuples(st.integers(0, 39), st.integers(0, 39)), max_size=30),
       st.integers(1, 45), st.integers(0, 3))
def test_any_sample_is_pair_closed_covering_and_big_enough(rows, links, size, seed):
    infos = {x.id: x for x in (_info(k, *row) for k, row in enumerate(rows))}
    pairs = tuple(Pair("history", "relevant", f"i{a:03d}", f"i{b:03d}") for a, b in links
                  if a != b and a < len(rows) and b < len(rows))
    index = BenchmarkIndex(infos, pairs)
    sample = stratified_sample(index, size, seed)
    assert len(sample) >= min(size, len(infos)) and set(sample) <= set(infos)
    assert not _split_pairs(index, sample)
    for attr in ("activity_group", "tier", "design", "household_area", "event", "feasible"):
        assert {getattr(infos[i], attr) for i in sample} == {getattr(x, attr) for x in infos.values()}
    assert stratified_sample(index, size, seed) == sample


def test_bench_runs_on_the_sample(tmp_path):
    sizes = Counter(x.family for x in INDEX.instances.values())
    big = sorted(sizes, key=lambda f: (-sizes[f], f))[:2]  # the sample keeps pairs whole and meets every stratum
    files = resolve_instances([PROBLEMS / f for f in big])
    expected = sample_files(files, 3)
    assert 3 <= len(expected) < len(files)
    assert cli.main(["bench", "--planners", "fake-state", "--plugin", PLUGIN, "--instances",
                     *(str(PROBLEMS / f) for f in big), "--sample", "3", "--out", str(tmp_path), "--quiet"]) == 0
    records = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert sorted(r["instance"] for r in records) == sorted(p.stem for p in expected)
    meta = json.loads((tmp_path / "bench.json").read_text())["invocations"][0]
    assert meta["sample"] == {"size": 3, "seed": 0} and len(meta["instances"]) == len(expected)

"""The progress bar's time estimate (bench, ``build --full``) and the certification progress callback."""

from hygiene_pddl.bench.progress import Progress, RoundProgress, eta_text, time_left


def test_time_left_counts_only_what_this_session_finished():
    # 10 runs, 2 resumed from an earlier session, 2 more finished now in 60 s: 6 left at 30 s each
    assert time_left(10, 4, 2, 60.0) == 180.0
    assert eta_text(10, 4, 2, 60.0) == "0:01:00 spent, about 0:03:00 left"
    assert eta_text(10, 2, 2, 5.0) == "0:00:05 spent, time left: estimating"  # nothing finished yet this session
    assert eta_text(10, 10, 2, 118.0) == "0:01:58 spent, done"


def test_progress_counts_failures_without_a_terminal():
    bar = Progress(5, done=1, failures=1, enabled=False)
    with bar:
        bar.advance(failed=True)
        bar.advance()
    assert (bar.done, bar.failures, bar.resumed) == (3, 2, 1)


def test_round_progress_opens_a_bar_per_round_and_closes_it_at_the_end():
    rounds = RoundProgress("certify", "instances", enabled=False)
    rounds(0, 2)
    first = rounds.bar
    rounds(1, 2)
    assert first is not None and first.done == 1
    rounds(2, 2)
    assert rounds.bar is None and first.done == 2
    rounds(0, 0)  # a round with nothing to certify opens nothing
    assert rounds.bar is None


def test_certification_reports_progress_after_every_instance():
    from hygiene_pddl.episodes.first_families import first_families
    from hygiene_pddl.episodes.pipeline import certify_all
    from hygiene_pddl.registries import load_registries

    calls: list[tuple[int, int]] = []
    episodes = first_families()[:1]
    certify_all(load_registries(), episodes, 1, {}, log=lambda _: None, progress=lambda n, t: calls.append((n, t)))
    assert calls == [(0, 1), (1, 1)]


def test_a_draft_certified_under_another_design_is_reused_not_certified_again():
    """Two designs of a family share a draft (the base scenario of ``single`` is ``profiles2``'s first profile): the
    record certified for one is the other's, renamed, found by the content digest (public data without id and
    request), and nothing is certified."""
    from hygiene_pddl.episodes.builder import realise
    from hygiene_pddl.episodes.designs import family_designs
    from hygiene_pddl.episodes.pipeline import certify_all, content_digest, hash_data
    from hygiene_pddl.registries import load_registries

    reg = load_registries()
    name = "changing_dogs_water-bowl_from_the_dishwasher"
    designs = family_designs(reg, reg.families[name])
    base = realise(reg, name, "single", designs["single"])[0]
    same = realise(reg, name, "profiles2", designs["profiles2"])[0]
    other = realise(reg, name, "profiles2", designs["profiles2"])[1]
    assert base.id != same.id and content_digest(base.public(reg)) == content_digest(same.public(reg))
    assert content_digest(other.public(reg)) != content_digest(base.public(reg))  # another profile: other content
    text = f"; planner: hygiene-nsp\n; instance: {base.id} (times relative to decision time t=4)\n"
    rec = {"id": base.id, "plan_text": text, "problem": "", "feasible": True,
           "content": content_digest(base.public(reg))}
    cache = {f"{base.id}:{hash_data(base.public(reg))}": rec}
    logged: list[str] = []
    got = certify_all(reg, [same], 1, cache, log=logged.append)
    assert logged[0].startswith("certifying 0 instance(s)")
    assert got[same.id]["id"] == same.id and f"; instance: {same.id} " in got[same.id]["plan_text"]
    assert base.id not in got[same.id]["plan_text"] and cache[f"{base.id}:{hash_data(base.public(reg))}"] is rec


def test_the_build_bans_designs_whose_instances_failed_in_its_cache_and_counts_what_is_left():
    """A failing record bans every design holding that instance (by content, so also a design that shares the
    draft under another id); ``uncertified`` counts the instances the cache lacks per design."""
    from hygiene_pddl.episodes.builder import candidates
    from hygiene_pddl.episodes.pipeline import cached_failures, content_digest, digests, hash_data, uncertified
    from hygiene_pddl.registries import load_registries

    reg = load_registries()
    name = "changing_dogs_water-bowl_from_the_dishwasher"
    cands = {c.archetype: c for c in candidates(reg, [name])}
    base = cands["single"].episodes[0]
    data = base.public(reg)
    cache = {f"{base.id}:{hash_data(data)}": {"id": base.id, "plan_text": "", "problem": "exact search did not prove",
                                            "feasible": True, "content": content_digest(data)}}
    digest = digests(reg, list(cands.values()))
    reasons = cached_failures(list(cands.values()), cache, digest)
    banned = set(reasons)
    sharing = {a for a, c in cands.items() if any(content_digest(e.public(reg)) == content_digest(data)
                                                   for e in c.episodes)}
    assert {(name, "single"), (name, "profiles2")} <= banned and banned == {(name, a) for a in sharing}
    assert reasons[(name, "profiles2")].endswith("exact search did not prove")
    left = uncertified(list(cands.values()), cache, digest)
    assert left[(name, "single")] == 0 and left[(name, "profiles3")] == 2
    assert all(left[(name, a)] == len(c.episodes) for a, c in cands.items() if a not in sharing)

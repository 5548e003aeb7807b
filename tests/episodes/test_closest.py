"""builder.closest: the composition nearest SPEC §9's rows taken together (families compose prints it)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from hygiene_pddl.episodes.builder import Candidate, closest

TARGETS = {"instances": 5, "families": 2, "groups": {"g": 5}, "tiers": {"easy": 3}, "infeasible": 1}


def _cand(family: str, archetype: str, **rows: int) -> Candidate:
    return Candidate(family, archetype, (), rows)


def test_a_composition_meeting_every_row_has_no_deviation():
    cands = [_cand("a", "x", instances=2, **{"group:g": 2, "tier:easy": 2}),
             _cand("a", "y", instances=3, **{"group:g": 3, "tier:easy": 1}, infeasible=1),
             _cand("b", "x", instances=2, **{"group:g": 2, "tier:easy": 2})]
    choice, off, proved = closest(cands, {}, TARGETS)
    assert choice == {"a": "y", "b": "x"} and off == {} and proved


def test_rows_that_cannot_be_met_together_are_named_with_their_deviation():
    # each row alone can be met (a/y gives the infeasible instance, a/x the easy ones), not both at once
    cands = [_cand("a", "x", instances=3, **{"group:g": 3, "tier:easy": 3}),
             _cand("a", "y", instances=3, **{"group:g": 3}, infeasible=1),
             _cand("b", "x", instances=2, **{"group:g": 2})]
    _, off, proved = closest(cands, {}, TARGETS)
    assert proved and sum(map(abs, off.values())) == 1 and set(off) <= {"tier:easy", "infeasible"}


@settings(max_examples=15, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=2, max_size=4))
def test_the_deviation_is_the_least_over_every_choice(options):
    """Brute force over one family's archetypes against a second family fixed: the reported total is the least."""
    cands = [_cand("a", f"o{i}", instances=n, infeasible=k) for i, (n, k) in enumerate(options)]
    cands.append(_cand("b", "x", instances=2))
    targets = {"instances": 4, "families": 2, "groups": {}, "tiers": {}, "infeasible": 1}
    _, off, proved = closest(cands, {}, targets)
    best = min(abs(n + 2 - 4) + abs(k - 1) for n, k in options)
    assert proved and sum(map(abs, off.values())) == best

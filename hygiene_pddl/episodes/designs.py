"""Controlled designs of data families (issue 13): a family file's variants and designs become instances and pairs.

A family file (``registries/data/families/*.yaml``, :mod:`hygiene_pddl.registries.families`) states its base
scenario, its history with records tagged by variant, and which controlled comparisons it offers:

- ``relevant: [A, B]`` / ``irrelevant: [C, D]``: two variant sets whose histories differ relevantly (the optimum
  changes) or irrelevantly (the same continuation stays optimal);
- ``events: {relevant: e, irrelevant: f}``: variants adding a contact event known to the planner;
- ``profiles``: the profiles it may be asked under, ``flip`` / ``invariant``: a profile pair whose ranking of the
  reference plans is claimed to flip / stay;
- ``prior``: a variant with a violation in the history; ``infeasible``: variants whose continuation is impossible.

The archetypes below are generic: each uses only what a family declares and yields the same
:class:`~hygiene_pddl.episodes.kinds.Design` the builder composes and the admission checks. Nothing here knows a
task kind.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from hygiene_pddl.episodes.kinds import Design, Draft
from hygiene_pddl.literals import parse_literal
from hygiene_pddl.registries.model import Family, FamilySpec, Registries


@dataclass(frozen=True)
class Axes:
    """What a family's ``designs`` block offers (validated by the registry loader)."""

    relevant: tuple[frozenset[str], frozenset[str]] | None
    irrelevant: tuple[frozenset[str], frozenset[str]] | None
    events: tuple[str, str] | None  # (relevant variant, irrelevant variant)
    profiles: tuple[str, ...]
    flip: tuple[str, str] | None
    invariant: tuple[str, str] | None
    prior: frozenset[str] | None
    infeasible: frozenset[str] | None
    #: the variant set whose profile pairs carry the flip / invariant claims (elsewhere a pair is general)
    ranked_on: frozenset[str] = frozenset()

    @classmethod
    def of(cls, spec: FamilySpec) -> Axes:
        d = dict(spec.designs)

        def pair(key: str) -> tuple[frozenset[str], frozenset[str]] | None:
            return (frozenset(d[key][0]), frozenset(d[key][1])) if key in d else None

        events = dict(d["events"]) if "events" in d else None
        return cls(pair("relevant"), pair("irrelevant"),
                   (events["relevant"], events["irrelevant"]) if events else None,
                   tuple(d.get("profiles", (spec.profile,))),
                   tuple(d["flip"]) if "flip" in d else None, tuple(d["invariant"]) if "invariant" in d else None,
                   frozenset(d["prior"]) if "prior" in d else None,
                   frozenset(d["infeasible"]) if "infeasible" in d else None,
                   frozenset(d.get("ranked_on", ())))


def _record(reg: Registries, start: int, text: str, note: str) -> dict:
    lit = parse_literal(text)
    if lit.predicate in reg.actions:
        out = {"kind": "action", "name": lit.predicate, "args": list(lit.args), "start": start,
               "duration": reg.actions[lit.predicate].duration}
    else:
        out = {"kind": "event", "name": lit.predicate, "args": list(lit.args), "start": start}
    return {**out, "note": note} if note else out


def draft(reg: Registries, fam: Family, key: str, chosen: Iterable[str], profile: str, event: str = "none",
          prior: bool = False) -> Draft:
    """The instance a set of variants and a profile make of the family's base scenario."""
    spec = fam.spec
    assert spec is not None
    chosen = frozenset(chosen)
    stocks, sources = dict(spec.stocks), list(spec.sources)
    decision_time, time_left = spec.decision_time, spec.time_left
    for v in spec.variants:
        if v.name in chosen:
            stocks.update(dict(v.stocks))
            sources += [s for s in v.sources if s not in sources]
            decision_time = v.decision_time if v.decision_time is not None else decision_time
            time_left = v.time_left if v.time_left is not None else time_left
    entries = sorted((e for e in spec.history if e.included(chosen)), key=lambda e: e.start)
    history = [_record(reg, e.start, e.record, e.note) for e in entries]
    return Draft(key=key, history=history, profile=profile, stocks=stocks, goals=list(spec.goals),
                 facts=list(spec.facts), hazards=sources, decision_time=decision_time,
                 horizon=decision_time + time_left, event=event, prior_violation=prior)


def _profiles(axes: Axes, n: int) -> tuple[str, ...] | None:
    return axes.profiles[:n] if len(axes.profiles) >= n else None


def _profile_pairs(keys_by_profile: dict[str, str], axes: Axes, base: frozenset[str]
                   ) -> list[tuple[str, str, str, str]]:
    """Profile pairs among drafts of one variant set ``base``. A flip or invariant claim is a claim about one
    scenario (the file's ``ranked_on``, by default the base scenario); on any other variant set the same two
    profiles make a general pair."""
    profs = list(keys_by_profile)
    ranked = base == axes.ranked_on
    out = []
    for i, p in enumerate(profs):
        for q in profs[i + 1:]:
            label = ("flip" if ranked and axes.flip and {p, q} == set(axes.flip) else
                     "invariant" if ranked and axes.invariant and {p, q} == set(axes.invariant) else "general")
            out.append(("profile", label, keys_by_profile[p], keys_by_profile[q]))
    return out


def _with_profiles(reg: Registries, fam: Family, axes: Axes, base: frozenset[str], tag: str, n: int,
                   event: str = "none", profiles: tuple[str, ...] | None = None) -> tuple[list[Draft], list]:
    profs = profiles or _profiles(axes, n)
    if profs is None:
        return [], []
    drafts = [draft(reg, fam, f"{tag}-{p}", base, p, event) for p in profs]
    return drafts, _profile_pairs({p: f"{tag}-{p}" for p in profs}, axes, base)


def _crossed(reg: Registries, fam: Family, axes: Axes, extra: int = 0) -> Design | None:
    if not (axes.relevant and axes.irrelevant):
        return None
    (ra, rb), (ia, ib) = axes.relevant, axes.irrelevant
    p = axes.profiles[0]
    drafts = [draft(reg, fam, f"{r}{i}", rel | irr, p) for r, rel in (("a", ra), ("b", rb))
              for i, irr in (("x", ia), ("y", ib))]
    pairs = [("history", "relevant", "ax", "bx"), ("history", "relevant", "ay", "by"),
             ("history", "irrelevant", "ax", "ay"), ("history", "irrelevant", "bx", "by")]
    if extra:
        more = _profiles(axes, extra + 1)
        if more is None:
            return None
        for q in more[1:]:
            drafts.append(draft(reg, fam, f"ax-{q}", ra | ia, q))
            pairs += _profile_pairs({p: "ax", q: f"ax-{q}"}, axes, ra | ia)
    return Design(drafts, pairs, crossed=True)


def _history(reg: Registries, fam: Family, axes: Axes, label: str, profiles: int = 1) -> Design | None:
    groups = axes.relevant if label == "relevant" else axes.irrelevant
    profs = _profiles(axes, profiles)
    if groups is None or profs is None:
        return None
    drafts, pairs = [], []
    for p in profs:
        drafts += [draft(reg, fam, f"a-{p}", groups[0], p), draft(reg, fam, f"b-{p}", groups[1], p)]
        pairs.append(("history", label, f"a-{p}", f"b-{p}"))
    for side, base in (("a", groups[0]), ("b", groups[1])):
        pairs += _profile_pairs({p: f"{side}-{p}" for p in profs}, axes, base)
    return Design(drafts, pairs)


def _events(reg: Registries, fam: Family, axes: Axes, profiles: int) -> Design | None:
    if axes.events is None or _profiles(axes, profiles) is None:
        return None
    drafts, pairs = [], []
    for label, variant in zip(("relevant", "irrelevant"), axes.events, strict=True):
        d, p = _with_profiles(reg, fam, axes, frozenset({variant}), f"e{label[0]}", profiles, event=label)
        drafts += d
        pairs += p
    return Design(drafts, pairs)


def _single_plus(reg: Registries, fam: Family, axes: Axes, kind: str) -> Design | None:
    variants = axes.prior if kind == "prior" else axes.infeasible
    if variants is None:
        return None
    p = axes.profiles[0]
    base = draft(reg, fam, "base", frozenset(), p)
    other = draft(reg, fam, kind, variants, p, prior=kind == "prior")
    return Design([base, other])


def _profile_design(reg: Registries, fam: Family, axes: Axes, n: int) -> Design | None:
    drafts, pairs = _with_profiles(reg, fam, axes, frozenset(), "p", n)
    return Design(drafts, pairs) if drafts else None


#: archetype name -> constructor; the builder tries each in this order and composes among those that apply.
ARCHETYPES: dict[str, Callable[[Registries, Family, Axes], Design | None]] = {
    "single": lambda r, f, a: Design([draft(r, f, "base", frozenset(), a.profiles[0])]),
    "profiles2": lambda r, f, a: _profile_design(r, f, a, 2),
    "profiles3": lambda r, f, a: _profile_design(r, f, a, 3),
    "profiles4": lambda r, f, a: _profile_design(r, f, a, 4),
    "history": lambda r, f, a: _history(r, f, a, "relevant"),
    "history2": lambda r, f, a: _history(r, f, a, "relevant", 2),
    "history_irr": lambda r, f, a: _history(r, f, a, "irrelevant"),
    "crossed": lambda r, f, a: _crossed(r, f, a),
    "crossed_plus1": lambda r, f, a: _crossed(r, f, a, 1),
    "crossed_plus2": lambda r, f, a: _crossed(r, f, a, 2),
    "events1": lambda r, f, a: _events(r, f, a, 1),
    "events2": lambda r, f, a: _events(r, f, a, 2),
    "events3": lambda r, f, a: _events(r, f, a, 3),
    "prior": lambda r, f, a: _single_plus(r, f, a, "prior"),
    "infeasible": lambda r, f, a: _single_plus(r, f, a, "infeasible"),
}


def family_designs(reg: Registries, fam: Family) -> dict[str, Design]:
    """Every archetype the family's data supports, by name."""
    assert fam.spec is not None
    axes = Axes.of(fam.spec)
    out = {}
    for name, make in ARCHETYPES.items():
        design = make(reg, fam, axes)
        if design is not None and design.drafts:
            out[name] = design
    return out

"""Controlled designs of data families (issue 13): a family file's variants and designs become instances and pairs.

A family file (``registries/data/families/*.yaml``, :mod:`hygiene_pddl.registries.families`) states its base
scenario, its history with records tagged by variant, and which controlled comparisons it offers:

- ``relevant: [A, B]`` / ``irrelevant: [C, D]``: two variant sets whose histories differ relevantly (the optimum
  changes) or irrelevantly (the same continuation stays optimal);
- ``events: {relevant: e, irrelevant: f}``: variants adding a contact event known to the planner;
- ``profiles``: the profiles it may be asked under, ``flip`` / ``invariant``: a profile pair whose ranking of the
  reference plans is claimed to flip / stay;
- ``prior``: variants with a violation in the history that a continuation can still make good;
  ``prior_infeasible``: variants with a violation no continuation can make good; ``infeasible``: variants whose
  continuation is impossible.

The archetypes below are generic: each uses only what a family declares and yields the same
:class:`~hygiene_pddl.episodes.kinds.Design` the builder composes and the admission checks. Nothing here knows a
task kind.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from hygiene_pddl.episodes.kinds import Design, Draft
from hygiene_pddl.literals import parse_record
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
    prior_infeasible: frozenset[str] | None = None

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
                   frozenset(d.get("ranked_on", ())),
                   frozenset(d["prior_infeasible"]) if "prior_infeasible" in d else None)


def _record(reg: Registries, start: int, text: str, note: str) -> dict:
    lit = parse_record(text)
    if lit.predicate in reg.actions:
        out = {"kind": "action", "name": lit.predicate, "args": list(lit.args), "start": start,
               "duration": reg.actions[lit.predicate].duration}
    else:
        out = {"kind": "event", "name": lit.predicate, "args": list(lit.args), "start": start}
    return {**out, "note": note} if note else out


def draft(reg: Registries, fam: Family, key: str, chosen: Iterable[str], profile: str, event: str = "none",
          prior: bool = False, infeasible: bool = False) -> Draft:
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
                 horizon=decision_time + time_left, event=event, prior_violation=prior,
                 expect_infeasible=infeasible)


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


def _crossed(reg: Registries, fam: Family, axes: Axes, extra: int = 0, cell: str = "") -> Design | None:
    """The 2x2 crossed-history group (relevant x irrelevant variants) under the first profile, plus ``extra``
    copies of cell ax under the next profiles. ``cell="prior"``: cell by also carries the family's ``prior``
    variants (a violation on record: its pairs are ineligible); ``cell="infeasible"``: an infeasible draft joins."""
    if not (axes.relevant and axes.irrelevant):
        return None
    if (cell == "prior" and not axes.prior) or (cell == "infeasible" and not axes.infeasible):
        return None
    (ra, rb), (ia, ib) = axes.relevant, axes.irrelevant
    p = axes.profiles[0]
    drafts = [draft(reg, fam, f"{r}{i}", rel | irr, p) for r, rel in (("a", ra), ("b", rb))
              for i, irr in (("x", ia), ("y", ib))]
    if cell == "prior":
        drafts[3] = draft(reg, fam, "by", rb | ib | axes.prior, p, prior=True)
    pairs = [("history", "relevant", "ax", "bx"), ("history", "relevant", "ay", "by"),
             ("history", "irrelevant", "ax", "ay"), ("history", "irrelevant", "bx", "by")]
    if extra:
        more = _profiles(axes, extra + 1)
        if more is None:
            return None
        for q in more[1:]:
            drafts.append(draft(reg, fam, f"ax-{q}", ra | ia, q))
            pairs += _profile_pairs({p: "ax", q: f"ax-{q}"}, axes, ra | ia)
    if cell == "infeasible":
        drafts.append(_infeasible(reg, fam, axes))
    return Design(drafts, pairs, crossed=True)


def _crossed_history2(reg: Registries, fam: Family, axes: Axes) -> Design | None:
    """The crossed group plus the relevant pair under the second and third profiles (four more drafts: two more
    relevant pairs, and a profile pair on each side)."""
    crossed, profs = _crossed(reg, fam, axes), _profiles(axes, 3)
    if crossed is None or profs is None:
        return None
    (ra, rb), q = axes.relevant, profs[1:]
    drafts = [draft(reg, fam, f"{side}-{x}", group, x) for x in q for side, group in (("a", ra), ("b", rb))]
    pairs = [("history", "relevant", f"a-{x}", f"b-{x}") for x in q]
    for side, group in (("a", ra), ("b", rb)):
        pairs += _profile_pairs({x: f"{side}-{x}" for x in q}, axes, group)
    return Design(crossed.drafts + drafts, crossed.pairs + pairs, crossed=True)


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


def _infeasible(reg: Registries, fam: Family, axes: Axes) -> Draft:
    assert axes.infeasible is not None
    return draft(reg, fam, "infeasible", axes.infeasible, axes.profiles[0], infeasible=True)


def _single_plus(reg: Registries, fam: Family, axes: Axes, kind: str, profiles: int = 1) -> Design | None:
    """The base scenario beside the family's ``prior`` / ``prior_infeasible`` / ``infeasible`` variants (the
    prior drafts under the first ``profiles`` profiles)."""
    variants = {"prior": axes.prior, "prior_infeasible": axes.prior_infeasible, "infeasible": axes.infeasible}[kind]
    profs = _profiles(axes, profiles)
    if variants is None or profs is None:
        return None
    base = draft(reg, fam, "base", frozenset(), axes.profiles[0])
    if kind == "infeasible":
        return Design([base, _infeasible(reg, fam, axes)])
    key = "prior" if kind == "prior" else "prior-infeasible"
    others = [draft(reg, fam, key if i == 0 else f"{key}-{q}", variants, q, prior=True,
                    infeasible=kind == "prior_infeasible") for i, q in enumerate(profs)]
    pairs = [("profile", "general", others[0].key, o.key) for o in others[1:]]
    return Design([base, *others], pairs)


def _history_infeasible(reg: Registries, fam: Family, axes: Axes) -> Design | None:
    """The relevant pair under two profiles and an infeasible draft."""
    hist = _history(reg, fam, axes, "relevant", 2)
    if hist is None or axes.infeasible is None:
        return None
    return Design([*hist.drafts, _infeasible(reg, fam, axes)], hist.pairs)


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
    "history3": lambda r, f, a: _history(r, f, a, "relevant", 3),
    "history_irr": lambda r, f, a: _history(r, f, a, "irrelevant"),
    "crossed": lambda r, f, a: _crossed(r, f, a),
    "crossed_plus1": lambda r, f, a: _crossed(r, f, a, 1),
    "crossed_plus2": lambda r, f, a: _crossed(r, f, a, 2),
    "crossed_history2": _crossed_history2,
    "crossed_prior": lambda r, f, a: _crossed(r, f, a, cell="prior"),
    "crossed_infeasible": lambda r, f, a: _crossed(r, f, a, cell="infeasible"),
    "events1": lambda r, f, a: _events(r, f, a, 1),
    "events2": lambda r, f, a: _events(r, f, a, 2),
    "events3": lambda r, f, a: _events(r, f, a, 3),
    "prior": lambda r, f, a: _single_plus(r, f, a, "prior"),
    "prior2": lambda r, f, a: _single_plus(r, f, a, "prior", 2),
    "prior_infeasible": lambda r, f, a: _single_plus(r, f, a, "prior_infeasible"),
    "prior_infeasible2": lambda r, f, a: _single_plus(r, f, a, "prior_infeasible", 2),
    "infeasible": lambda r, f, a: _single_plus(r, f, a, "infeasible"),
    "history2_infeasible": _history_infeasible,
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

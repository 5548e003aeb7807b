"""The episode builder (paper §III-B, SPEC §9): every family's candidate designs, a composition that meets the
benchmark's target counts exactly, and the episodes that realise it.

Composition is an exact integer program (CP-SAT): pick one archetype per family so that instances per
activity group, difficulty tiers (from the seven features), eligible history and profile pairs, crossed
groups, event contrasts, prior violations and infeasible continuations all equal their targets.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ortools.sat.python import cp_model

from hygiene_pddl.episodes.features import features, tier
from hygiene_pddl.episodes.kinds import KINDS, Design, Roles
from hygiene_pddl.episodes.writer import Episode
from hygiene_pddl.errors import InputError
from hygiene_pddl.registries import Registries
from hygiene_pddl.replay import replay

#: SPEC §9.
TARGETS = {
    "instances": 624, "families": 134,
    "groups": {"food_preparation": 126, "dishware_and_dining": 138, "cleaning_and_laundry": 130,
               "bedroom_and_storage": 112, "pet_and_household_care": 118},
    "tiers": {"easy": 200, "moderate": 238, "hard": 186},
    "feasible": 604, "infeasible": 20, "crossed": 200, "prior_safe": 10, "prior_unsafe": 14,
    "history_relevant": 180, "history_irrelevant": 92, "profile_general": 268, "profile_flip": 25,
    "profile_invariant": 5, "event_relevant": 50, "event_irrelevant": 50, "event_families": 25,
}


@dataclass(frozen=True)
class Candidate:
    family: str
    archetype: str
    episodes: tuple[Episode, ...]
    contribution: dict[str, int]


def _request(reg: Registries, family: str, key: str) -> str:
    """A data family asks every instance the same way (both members of every pair get the same request text);
    a v1 family varies the phrasing by instance."""
    requests = reg.families[family].requests or (reg.families[family].service_goal,)
    if reg.families[family].spec is not None:
        return requests[0]
    return requests[sum(map(ord, key)) % len(requests)]


def opaque_id(family: str, archetype: str, key: str) -> str:
    """A public id that names the family but not the design (issue 13): ``<family>-<8 hex digits>``."""
    import hashlib

    return f"{family}-{hashlib.sha256(f'{family}/{archetype}/{key}'.encode()).hexdigest()[:8]}"


def realise(reg: Registries, family: str, archetype: str, design: Design, feasible: dict[str, bool] | None = None
            ) -> list[Episode]:
    """Episodes of one design, with ids, requests, pair links and computed tiers."""
    fam = reg.families[family]
    roles = Roles(reg, fam)
    if fam.spec is not None:
        ids = {d.key: opaque_id(family, archetype, d.key) for d in design.drafts}
    else:
        ids = {d.key: f"{family}-{archetype.replace('_', '-')}-{d.key}" for d in design.drafts}
    infeasible = designed_infeasible(reg, family, design)
    out = []
    for d in design.drafts:
        pairs = [{"kind": k, "label": label, "with": ids[b if a == d.key else a]}
                 for k, label, a, b in design.pairs if d.key in (a, b)]
        ep = Episode(id=ids[d.key], family=family, request=_request(reg, family, d.key), goals=d.goals,
                     decision_time=d.decision_time, horizon=d.horizon, objects=roles.objects, facts=d.facts,
                     hazards=d.hazards, stocks=d.stocks, history=d.history, profile=d.profile,
                     known_events=d.known_events)
        inst = ep.materialise(reg).instance
        feats = features(reg, inst, replay(inst, reg))
        design_info = {"kind": archetype, "pairs": pairs, "event": d.event, "prior_violation": d.prior_violation,
                       "expect_infeasible": d.key in infeasible}
        if d.key in design.group_keys:
            design_info["group"] = f"{family}-crossed"
        ep.reference = {"design": design_info,
                        "difficulty": {"tier": tier(feats, fam.spec is not None), "features": feats}}
        out.append(ep)
    return out


def designed_infeasible(reg: Registries, family: str, design: Design) -> set[str]:
    """Draft keys whose continuation is infeasible by design: no stock for any treatment, or a prior
    violation the registry says washing cannot undo; a data family's drafts built from its ``infeasible`` or
    ``prior_infeasible`` variants."""
    if reg.families[family].spec is not None:
        return {d.key for d in design.drafts if d.expect_infeasible}
    out = {d.key for d in design.drafts if d.stocks.get("spare_pads", 1) == 0 and d.stocks.get("water", 0) <= 4}
    if reg.families[family].kind == "rescue_item" and not _washable(reg, family):
        out |= {d.key for d in design.drafts if d.prior_violation}
    return out


def _contribution(reg: Registries, family: str, design: Design, episodes: list[Episode]) -> dict[str, int]:
    by_key = {d.key: d for d in design.drafts}
    infeasible = designed_infeasible(reg, family, design)
    eligible = {k for k, d in by_key.items() if not d.prior_violation and k not in infeasible}
    c: Counter = Counter()
    c["instances"] = len(design.drafts)
    for ep in episodes:
        c[f"tier:{ep.reference['difficulty']['tier']}"] += 1
    c[f"group:{reg.families[family].activity_group}"] = len(design.drafts)
    c["infeasible"] = len(infeasible)
    c["feasible"] = len(design.drafts) - len(infeasible)
    c["crossed"] = len(design.group_keys)
    c["prior_safe"] = sum(d.prior_violation and d.key not in infeasible for d in design.drafts)
    c["prior_unsafe"] = sum(d.prior_violation and d.key in infeasible for d in design.drafts)
    for kind, label, a, b in design.pairs:
        if a in eligible and b in eligible:
            if kind == "history":
                c[f"history_{label}"] += 1
            else:
                c["profile_general"] += 1
                if label in ("flip", "invariant"):
                    c[f"profile_{label}"] += 1
    c["event_relevant"] = sum(d.event == "relevant" for d in design.drafts if d.key in eligible)
    c["event_irrelevant"] = sum(d.event == "irrelevant" for d in design.drafts if d.key in eligible)
    c["event_families"] = int(c["event_relevant"] + c["event_irrelevant"] > 0)
    return dict(c)


def _washable(reg: Registries, family: str) -> bool:
    fam = reg.families[family]
    item = dict(fam.object_roles)["item"]
    region = reg.object_types[item].grasp[0]
    material = reg.object_types[item].region(region).material
    return reg.treatments["wash"].removes_from(fam.hazards[0], material)


def _designs(reg: Registries, fam) -> list[tuple[str, Design]]:  # noqa: ANN001
    """The family's archetypes: from its data (a family file) or from its v1 task kind."""
    if fam.spec is not None:
        from hygiene_pddl.episodes.designs import family_designs

        return list(family_designs(reg, fam).items())
    if fam.kind not in KINDS:
        return []
    archetypes, make = KINDS[fam.kind]
    return [(a, d) for a in archetypes if (d := make(Roles(reg, fam), a)) is not None]


def design_of(reg: Registries, family: str, archetype: str) -> Design:
    """One of the family's archetypes (a family file's or its v1 task kind's); InputError when it has none of
    that name (a manifest written for other registries)."""
    designs = dict(_designs(reg, reg.families[family]))
    if archetype not in designs:
        raise InputError(f"family {family!r} has no design {archetype!r}; its designs: {sorted(designs)}")
    return designs[archetype]


def candidates(reg: Registries, families: list[str] | None = None) -> list[Candidate]:
    out = []
    for name in sorted(families or reg.families):
        fam = reg.families[name]
        for archetype, design in _designs(reg, fam):
            try:
                episodes = realise(reg, name, archetype, design)
            except InputError:
                continue  # the family's objects cannot play this design (history inconsistent)
            out.append(Candidate(name, archetype, tuple(episodes), _contribution(reg, name, design, episodes)))
    return out


def _rows(targets: dict) -> dict[str, int]:
    """The composition's rows: every count of ``targets`` but the number of families, groups and tiers flattened."""
    rows = {k: v for k, v in targets.items() if not isinstance(v, dict) and k != "families"}
    rows |= {f"group:{g}": n for g, n in targets["groups"].items()}
    return rows | {f"tier:{t}": n for t, n in targets["tiers"].items()}


class _Model:
    """One boolean per (family, archetype), exactly one per family, and each row's total as a linear expression."""

    def __init__(self, cands: list[Candidate], fixed: dict[str, int], banned: set = frozenset()) -> None:
        self.m = cp_model.CpModel()
        self.x = {(c.family, c.archetype): self.m.new_bool_var(f"{c.family}/{c.archetype}") for c in cands
                  if (c.family, c.archetype) not in banned}
        for f in sorted({c.family for c in cands}):
            self.m.add_exactly_one(v for (fam, _), v in self.x.items() if fam == f)
        self.by_key = {(c.family, c.archetype): c for c in cands}
        self.fixed = fixed

    def total(self, row: str):  # noqa: ANN201 (a CP-SAT linear expression)
        return sum(v * self.by_key[k].contribution.get(row, 0) for k, v in self.x.items()) + self.fixed.get(row, 0)

    def solve(self, time_limit: float) -> tuple[cp_model.CpSolver, int]:
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        solver.parameters.random_seed = 0
        solver.parameters.max_time_in_seconds = time_limit
        return solver, solver.solve(self.m)

    def choice(self, solver: cp_model.CpSolver) -> dict[str, str]:
        return {f: a for (f, a), v in self.x.items() if solver.value(v)}


def compose(cands: list[Candidate], fixed: dict[str, int], targets: dict = TARGETS, banned: set = frozenset(),
            time_limit: float = 60.0, work: dict[tuple[str, str], int] | None = None,
            uses: dict[tuple[str, str], Counter] | None = None, fixed_uses: Counter | None = None
            ) -> dict[str, str]:
    """Pick one archetype per family (``fixed`` holds what the first families contribute). Returns
    family → archetype, or raises ValueError when the rows cannot be met (:func:`closest` says which).
    ``work``: (family, archetype) → instances still to certify; the composition needing the least is preferred
    (the build passes what its certification cache lacks). ``uses``: (family, archetype) → registry entry →
    how many of its instances are known to use it (``fixed_uses``: the first families'); before anything
    else the composition has as many entries as it can used by at least ``USED_AT_LEAST`` instances (the
    registry-usage gate, docs/benchmark-composition.md)."""
    model = _Model(cands, fixed, banned)
    for row, target in _rows(targets).items():
        model.m.add(model.total(row) == target)
    # deterministic preference: the least certification work, then earlier archetypes of each kind
    weight = len(KINDS_ORDER) + 1
    cost = sum(v * (weight * (work or {}).get(k, 0) + KINDS_ORDER.get(k[1], 0)) for k, v in model.x.items())
    if uses:
        from hygiene_pddl.episodes.gates import USED_AT_LEAST

        fixed_uses = fixed_uses or Counter()
        met = []
        for entry in sorted({e for u in uses.values() for e in u} | set(fixed_uses)):
            total = sum(v * uses.get(k, {}).get(entry, 0) for k, v in model.x.items()) + fixed_uses.get(entry, 0)
            b = model.m.new_bool_var(f"used/{entry}")
            model.m.add(total >= USED_AT_LEAST).only_enforce_if(b)
            met.append(b)
        most = weight * sum((work or {}).values()) + len(KINDS_ORDER) * len(cands) + 1  # above any cost
        cost -= most * sum(met)
    model.m.minimize(cost)
    solver, status = model.solve(time_limit)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        raise ValueError(f"no composition meets the targets ({solver.status_name(status)})")
    return model.choice(solver)


KINDS_ORDER = {a: i for _, (archs, _) in KINDS.items() for i, a in enumerate(archs)}


def closest(cands: list[Candidate], fixed: dict[str, int], targets: dict = TARGETS, time_limit: float = 60.0
            ) -> tuple[dict[str, str], dict[str, int], bool]:
    """The composition nearest the targets: one archetype per family minimising the total deviation over every
    row (all rows together, unlike :func:`room`'s per-row maxima). Returns family → archetype, row → deviation
    (chosen minus target, rows off only) and whether the minimum is proved (``False``: CP-SAT's best in time)."""
    model = _Model(cands, fixed)
    devs = {}
    for row, target, most, _ in room(cands, fixed, targets):  # |total - target| <= most + target
        bound = most + target
        d, a = model.m.new_int_var(-bound, bound, f"dev/{row}"), model.m.new_int_var(0, bound, f"abs/{row}")
        model.m.add(d == model.total(row) - target)
        model.m.add_abs_equality(a, d)
        devs[row] = (d, a)
    model.m.minimize(sum(a for _, a in devs.values()))
    solver, status = model.solve(time_limit)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        raise ValueError(f"no composition ({solver.status_name(status)})")
    off = {row: solver.value(d) for row, (d, _) in devs.items() if solver.value(d)}
    return model.choice(solver), off, status == cp_model.OPTIMAL


def room(cands: list[Candidate], fixed: dict[str, int], targets: dict = TARGETS) -> list[tuple[str, int, int, int]]:
    """Per composition row: (row, target, the most any choice of one archetype per family gives, how many
    families can contribute to it). A row whose maximum is below its target cannot be met by these families;
    a family author's view of what the benchmark is short of (``hygiene-pddl families compose``)."""
    rows = _rows(targets)
    by_family: dict[str, list[Candidate]] = {}
    for c in cands:
        by_family.setdefault(c.family, []).append(c)
    out = []
    for row, target in rows.items():
        best = [max(c.contribution.get(row, 0) for c in cs) for cs in by_family.values()]
        out.append((row, target, fixed.get(row, 0) + sum(best), sum(b > 0 for b in best)))
    return out

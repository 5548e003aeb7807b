"""The relaxation's rules about hazards passed on by contacts (planners/relaxation.py; docs/planners.md, "Chains"
and "The later of two goals")."""

from __future__ import annotations

from ortools.sat.python import cp_model

from hygiene_pddl.hygiene import HygieneRules
from hygiene_pddl.instances.model import Carrier, Instance
from hygiene_pddl.planners.grounding import GroundAction, is_derived

#: A provider: (ground action index, or -1 - k for the k-th ongoing history action; phase; guard).
Provider = tuple


def add_chains(m: cp_model.CpModel, rules: HygieneRules, inst: Instance, actions: list[GroundAction],
                carried: dict, init: set, at, used: list, treatments, providers,  # noqa: ANN001
                exempt: dict, strong: bool = False, last_time: int = 0) -> None:
    """Hazards passed on (docs/planners.md, "Chains"): a checked contact of a used action, at its first and at its
    last occurrence, brings hazard h from carrier y onto a clean region dst protected against it, where y carries
    h now, or gained it from a carrier x that carries it now through a contact that surely happened earlier (x
    untreated until then, the contact's guard true now and not undone). Then a treatment of y removed h in
    between, or the contact's guard was undone first, or dst already had h (an exempt contact brought it first)
    and, when a goal needs dst clean of h, a treatment of dst removes it later. With ``strong``, also
    :func:`add_last_goal` and the clean end of a treated goal region (below; ``last_time`` bounds every happening's
    place)."""
    goal_unsafe = {f for g in inst.goals if g[0] == "safe" for f in rules.unsafe_facts(g[1])}

    def option(p: Provider, *constraints) -> object:  # noqa: ANN002 - linear constraints
        """A literal that says provider p is used and the constraints hold."""
        q = m.new_bool_var("")
        if p[0] >= 0:
            m.add_implication(q, used[p[0]])
        for c in constraints:
            m.add(c).only_enforce_if(q)
        return q

    def sure_guard(guard: tuple) -> bool:
        return all(not is_derived(atom) and (atom in init) == pos for atom, pos in guard)

    def undone_by(guard: tuple, time) -> list:  # noqa: ANN001
        """Literals: some provider of a guard literal's negation happens no later than ``time``."""
        return [option(p, at(p) <= time) for atom, pos in guard for p in providers(atom, not pos)]

    # gains[(y, h)]: (action, phase, x, guard) of contacts that surely give h to y from x, which carries it now
    gains: dict[tuple[Carrier, str], list] = {}
    for j, a in enumerate(actions):
        for w in ("start", "end"):
            for c in a.phase(w).contacts:
                if not sure_guard(c.guard):
                    continue
                for x, y in (c.pair, c.pair[::-1]):
                    for h in carried.get(x, ()):
                        if x != y and h not in carried.get(y, ()) and rules.crosses(h, x, y):
                            gains.setdefault((y, h), []).append((j, w, x, c.guard))
    gained: dict[tuple, tuple] = {}  # (j, w, x, h, guard) -> (x untreated before it, its guard not undone)

    def gain_holds(j: int, w: str, x: Carrier, h: str, guard: tuple) -> tuple:
        key = (j, w, x, h, guard)
        if key not in gained:
            lits = []
            for why in (treatments(x, h), None):  # x treated before the contact; the guard undone before it
                ok = m.new_bool_var("")
                early = ([option(p, at(p) <= at((j, w))) for p in why] if why is not None
                         else undone_by(guard, at((j, w))))
                m.add_bool_or([ok, *early])
                lits.append(ok)
            gained[key] = tuple(lits)
        return gained[key]

    for u, a in enumerate(actions):
        for w in ("start", "end"):
            times = [at((u, w)), at((u, w), first=False)]
            for c in a.phase(w).contacts:
                if not c.checked or not sure_guard(c.guard):
                    continue
                for y, dst in (c.pair, c.pair[::-1]):
                    for h in rules.hazards:
                        if h in carried.get(dst, ()) or not rules.violates(dst, h) or not rules.crosses(h, y, dst):
                            continue
                        sources = [None] if h in carried.get(y, ()) else gains.get((y, h), [])
                        for tau in (times if sources == [None] else times[1:]):  # a gain: the last occurrence
                            for src in sources:
                                _chain(m, option, undone_by, gain_holds, at, used, u, tau, src, c.guard,
                                       treatments(y, h), exempt.get((dst, h), []),
                                       treatments(dst, h) if (dst, h) in goal_unsafe else None, h)

    def protected(contact, tau, when) -> None:  # noqa: ANN001
        """A contact that surely happens at ``tau`` (when literal ``when`` holds): what it carries now needs the
        options of an unguarded one."""
        for y, dst in (contact.pair, contact.pair[::-1]):
            for h in carried.get(y, ()):
                if h in carried.get(dst, ()) or not rules.violates(dst, h) or not rules.crosses(h, y, dst):
                    continue
                _chain(m, option, undone_by, gain_holds, at, used, -1, tau, None, (), treatments(y, h),
                       exempt.get((dst, h), []), treatments(dst, h) if (dst, h) in goal_unsafe else None, h, when)

    if strong:
        add_last_goal(m, inst, actions, init, at, used, providers, protected)
        for r, h in sorted(f for f in goal_unsafe if f[1] in carried.get(f[0], ())):
            _clean_after_treatment(m, rules, actions, carried, at, used, treatments, option, undone_by, sure_guard,
                                   r, h, last_time)


def add_last_goal(m: cp_model.CpModel, inst: Instance, actions: list[GroundAction], init: set, at, used: list,  # noqa: ANN001
                  providers, protected) -> None:  # noqa: ANN001
    """The later of two goals is achieved while the other holds (docs/planners.md, "The later of two goals").

    For goal atoms G1, G2 whose every provider surely adds them (an unconditional effect): the last happening
    that adds either is the last occurrence of one of those providers, later than every other used provider's
    last occurrence, and the other goal holds in its pre-state (it holds at the end and nothing adds it later).
    So a checked contact of that happening whose guard is the other goal and atoms the happening needs there
    happens, and needs what an unguarded contact needs. A happening that adds both gains nothing."""
    goals = sorted(g for g in inst.goals if g[0] != "safe" and not is_derived(g))
    pools = {g: providers(g, True) for g in goals}
    for i, g1 in enumerate(goals):
        for g2 in goals[i + 1:]:
            pool = [*pools[g1], *pools[g2]]
            if not pool or any(p[2] for p in pool):
                continue
            points = list(dict.fromkeys((p[0], p[1]) for p in pool))
            both = {(p[0], p[1]) for p in pools[g1]} & {(p[0], p[1]) for p in pools[g2]}
            gains = {}
            for j, w in points:
                if j < 0 or (j, w) in both:
                    continue
                other = g2 if (j, w) in {(p[0], p[1]) for p in pools[g1]} else g1
                a = actions[j]
                known = {x for x, pos in (a.cond_start if w == "start" else (*a.cond_end, *a.cond_overall)) if pos}
                sure = [c for c in a.phase(w).contacts if c.checked and c.guard
                        and all(pos and (x == other or x in known) for x, pos in c.guard)]
                if sure:
                    gains[(j, w)] = sure
            if not gains:
                continue
            last = {q: m.new_bool_var("") for q in points}
            for q, z in last.items():
                if q[0] >= 0:
                    m.add_implication(z, used[q[0]])
                    m.add_bool_or([~used[q[0]], *last.values()])
                else:
                    m.add_bool_or(list(last.values()))
                for r in points:
                    if r != q:
                        m.add(at(q, False) >= at(r, False)).only_enforce_if([z, *([used[r[0]]] if r[0] >= 0 else [])])
            for q, contacts in gains.items():
                for c in contacts:
                    protected(c, at(q, False), last[q])


def _clean_after_treatment(m: cp_model.CpModel, rules: HygieneRules, actions: list[GroundAction], carried: dict,
                           at, used: list, treatments, option, undone_by, sure_guard, r: Carrier, h: str,  # noqa: ANN001
                           last_time: int) -> None:
    """A region r that carries h now and must end clean of it (a ``(safe o)`` goal): let T be the last happening
    that removes h from r (one exists, as r carries h now); nothing brings h onto r at or after T, or r would
    carry h at the end. So a contact that happens strictly after T between r and a carrier y that carries h now,
    and that would pass h on to r, finds y clean: a treatment of y that may remove h came strictly before it (a
    contact reads its pre-state, and only treatments remove hazards), or the contact's guard (true now) was
    undone first. T is an occurrence of a used treatment of r, so no later than theta, the latest last
    occurrence of the used treatments of r (a history end's time); the rule is stated for contacts strictly after
    theta, at their first and at their last occurrence."""
    contacts = [(u, w, c, y) for u, a in enumerate(actions) for w in ("start", "end") for c in a.phase(w).contacts
                if sure_guard(c.guard) for y, dst in (c.pair, c.pair[::-1])
                if dst == r and y != r and h in carried.get(y, ()) and rules.crosses(h, y, r)]
    pool = treatments(r, h)
    if not contacts or not pool:
        return
    theta = m.new_int_var(0, last_time, "")
    for p in pool:
        if p[0] >= 0:
            m.add(theta >= at(p, False)).only_enforce_if(used[p[0]])
        else:
            m.add(theta >= at(p))
    m.add_bool_or([option(p, theta <= at(p, False)) for p in pool])
    for u, w, c, y in contacts:
        for tau in (at((u, w)), at((u, w), False)):
            late = m.new_bool_var("")
            m.add(tau >= theta + 1).only_enforce_if(late)
            m.add(tau <= theta).only_enforce_if(~late)
            options = [option(t, at(t) <= tau - 1) for t in treatments(y, h)] + undone_by(c.guard, tau - 1)
            m.add_bool_or([~used[u], ~late, *options])


def _chain(m: cp_model.CpModel, option, undone_by, gain_holds, at, used, u: int, tau, src, guard: tuple,  # noqa: ANN001
           cleaners: list, exempt: list, later: list | None, h: str, when=None) -> None:  # noqa: ANN001
    """One user happening at ``tau`` of a contact from y onto dst, with y's hazard from ``src`` (None: carried now;
    else the gaining contact): the options of :func:`add_chains` (when literal ``when`` holds, if given; ``u`` < 0:
    no action's use needed)."""
    antecedent = ([used[u]] if u >= 0 else []) + ([when] if when is not None else [])
    after = None
    if src is not None:
        g, gw, x, gguard = src
        antecedent.append(used[g])
        before = m.new_bool_var("")
        m.add(at((g, gw)) >= tau).only_enforce_if(~before)
        antecedent += [before, *gain_holds(g, gw, x, h, gguard)]
        after = at((g, gw))
    options = [option(t, at(t) <= tau - 1, *(() if after is None else (at(t, first=False) >= after + 1,)))
               for t in cleaners]
    options += undone_by(guard, tau - 1)
    if exempt:
        had = m.new_bool_var("")
        m.add_bool_or([option(e, at(e) <= tau - 1) for e in exempt]).only_enforce_if(had)
        if later is not None:
            m.add_bool_or([option(t, at(t, first=False) >= tau + 1) for t in later]).only_enforce_if(had)
        options.append(had)
    m.add_bool_or([~x for x in antecedent] + options)

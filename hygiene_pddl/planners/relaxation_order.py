"""Order rules of the relaxation (planners/relaxation.py) that follow from invariants of every execution.

docs/planners.md, "Proof by relaxation", derives each rule; in short:

* *Unary resources in happening order.* When every happening that may give a unary resource back is the end of an
  action holding it (or one history action's end), at most one holder runs at a time, so of two occurrences that
  hold it one ends strictly before the other starts (the TU-level no-overlap lets an end and a start share a TU in
  either order).
* *Goals restored.* A goal atom holds at the end, so after the last occurrence of a happening that surely makes
  it false, a provider of it happens: some provider's last occurrence is later (the filled bowl emptied for a
  rinse is filled again).
* *At-most-one groups.* A set of atoms of which at most one holds in every state (:func:`at_most_one_groups`: a
  gripper's ``empty`` and its ``holding`` atoms). When a happening U needs X and an earlier happening V needs
  another atom Y of X's group, X was false at V, so a happening in [V, U) made X true: some provider's first
  occurrence is before U and its last is no earlier than V.
* *Deleted supports.* Let pi be the last happening before U that made the literal U needs so (none, when it holds
  now and held until U). It holds from pi to U, so no happening that surely undoes it comes strictly between
  (:func:`add_reprovision`, with the group rule).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ortools.sat.python import cp_model

from hygiene_pddl.literals import Atom
from hygiene_pddl.planners.grounding import GroundAction, Ongoing, is_derived
from hygiene_pddl.planners.joint import unary_resources

#: Fluents that say a unary resource is free (grippers, appliances, capacities).
RESOURCES = frozenset({"idle", "appliance-free", "free"})

#: At most this many (user, earlier user) pairs get the group rule (the rule only strengthens the bound; beyond
#: it the model grows faster than it helps).
MAX_PAIRS = 4000

Point = tuple[int, str]


def _may_add(a: GroundAction, when: str) -> set[Atom]:
    p = a.phase(when)
    return {x for x, pos in (*p.effects, *(u.effect for u in p.updates)) if pos}


def _sure_deletes(a: GroundAction, when: str) -> set[Atom]:
    p = a.phase(when)
    adds = _may_add(a, when)
    return {x for x, pos in p.effects if not pos and x not in adds}


def at_most_one_groups(actions: Sequence[GroundAction], ongoing: Sequence[Ongoing], init: set[Atom]
                       ) -> list[frozenset[Atom]]:
    """Sets of atoms of which at most one holds in every state of every plan from now.

    Candidates: (predicate, argument position) pairs are linked when an action deletes an atom and adds another
    that share an object at those positions (a pick moves an item from ``(at ?o ?s)`` to ``(holding ?g ?o)``, and
    a gripper from ``(empty ?g)`` to ``(holding ?g ?o)``); a group is every atom naming one object at a linked
    position. It is kept when: at most one of its atoms holds now, counting what history actions still running
    may add at their ends; and every ground action that may add one of its atoms may add exactly one, in one
    happening, and its start needs one and surely deletes it. Then (atoms true + holders in flight between such a
    start and its adding end + pending history ends) stays at most 1 through every happening, by induction: a
    start that needs one takes it away, only such starts are followed by an adding end, and no other happening
    adds one."""
    parent: dict[tuple[str, int], tuple[str, int]] = {}

    def find(x: tuple[str, int]) -> tuple[str, int]:
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x

    atoms: set[Atom] = {x for x in init if not is_derived(x) and x[0] not in RESOURCES}
    everyone = [*actions, *(o.action for o in ongoing)]
    for a in everyone:
        adds = (_may_add(a, "start") | _may_add(a, "end"))
        dels = {x for w in ("start", "end") for x, pos in a.phase(w).effects if not pos}
        adds = {x for x in adds - dels if not is_derived(x) and x[0] not in RESOURCES}
        dels = {x for x in dels - adds if not is_derived(x) and x[0] not in RESOURCES}
        atoms |= adds | dels
        for d in dels:
            for q in adds:
                for i, x in enumerate(d[1:], 1):
                    for k, y in enumerate(q[1:], 1):
                        if x == y:
                            parent[find((d[0], i))] = find((q[0], k))
    families: dict[tuple[str, int], set[tuple[str, int]]] = {}
    for key in list(parent):
        families.setdefault(find(key), set()).add(key)
    groups: set[frozenset[Atom]] = set()
    for family in families.values():
        by_name: dict[str, set[Atom]] = {}
        for atom in atoms:
            for i, x in enumerate(atom[1:], 1):
                if (atom[0], i) in family:
                    by_name.setdefault(x, set()).add(atom)
        for group in by_name.values():
            if len(group) > 1 and _invariant(actions, ongoing, init, group):
                groups.add(frozenset(group))
    return sorted(groups, key=sorted)


def _invariant(actions: Sequence[GroundAction], ongoing: Sequence[Ongoing], init: set[Atom],
               group: set[Atom]) -> bool:
    pending = sum(len(_may_add(o.action, "end") & group) for o in ongoing)
    if len(init & group) + pending > 1:
        return False
    for a in actions:
        at_start, at_end = _may_add(a, "start") & group, _may_add(a, "end") & group
        if not at_start and not at_end:
            continue
        if len(at_start | at_end) != 1 or (at_start and at_end):
            return False
        needed = {x for x, pos in a.cond_start if pos} & _sure_deletes(a, "start") & group
        if not needed:
            return False
    return True


def add_strict_resource_order(m: cp_model.CpModel, actions: Sequence[GroundAction], ongoing: Sequence[Ongoing],
                              init: set[Atom], makes: dict, pos: Callable, used: Sequence, again: Sequence,
                              per_tu: int) -> None:
    """Occurrences holding one unary resource in happening order (module docstring): for each resource whose
    every giver-back is a holder's end (or a single history end, with the resource not free now), first and last
    occurrences of its holders are disjoint on the happening scale, and each starts after that history end."""
    holders: dict[Atom, list[int]] = {}
    for j, a in enumerate(actions):
        for r in unary_resources(a):
            holders.setdefault(r, []).append(j)
    for r, js in holders.items():
        mine = set(js)
        givers = makes.get((r, True), [])
        history = [p for p in givers if p[0] < 0]
        if any(p[0] >= 0 and (p[0] not in mine or p[1] != "end") for p in givers):
            continue
        if len(history) > 1 or (history and r in init):
            continue
        intervals = []
        for j in js:
            for first, present in ((True, used[j]), (False, again[j])):
                s, e = pos((j, "start"), first), pos((j, "end"), first)
                size = m.new_int_var(1, 10**9, "")
                m.add(size == e + 1 - s)
                intervals.append(m.new_optional_interval_var(s, size, e + 1, present, ""))
        if history:
            end = per_tu * ongoing[-1 - history[0][0]].end
            intervals.append(m.new_fixed_size_interval_var(0, end + 1, ""))
        if len(intervals) > 1:
            m.add_no_overlap(intervals)


def add_reprovision(m: cp_model.CpModel, actions: Sequence[GroundAction], groups: Sequence[frozenset[Atom]],
                    makes: dict, sure: dict, at: Callable, used: Sequence, last_time: int, init: set[Atom]) -> None:
    """The last provision before a need (module docstring: at-most-one groups, deleted supports) over first
    occurrences of users, for at most ``MAX_PAIRS`` (user, other happening) pairs: the last happening pi before the
    user that made the literal so is an occurrence of a provider, or there is none (then the literal holds now and
    held throughout until the user); no user of a group mate (first occurrence) and no happening that surely undoes
    the literal (first and last occurrence) comes strictly between pi (the beginning, when none) and the user."""
    member = {x: g for g in groups for x in g}
    needs: dict[tuple[Atom, bool], list[Point]] = {}
    for j, a in enumerate(actions):
        for w, conds in (("start", a.cond_start), ("end", a.cond_end)):
            for x, positive in conds:
                if not is_derived(x) and x[0] not in RESOURCES:
                    needs.setdefault((x, positive), []).append((j, w))
    group_needs = {x: us for (x, positive), us in needs.items() if positive}
    budget = MAX_PAIRS
    for (x, positive) in sorted(needs, key=lambda k: ((k[0] in init) == k[1], k)):  # literals false now first
        providers = makes.get((x, positive), [])
        mates = [v for y in sorted(member[x] - {x}) for v in group_needs.get(y, [])] if positive and x in member \
            else []
        undoers = sure.get((x, not positive), [])
        for u in needs[(x, positive)]:
            earlier = [v for v in mates if v != u]
            undone = [(d[0], d[1]) for d in undoers if (d[0], d[1]) != u]
            size = len(earlier) + 2 * len(undone)
            if not size or budget < size:
                continue
            budget -= size
            tau = at(u)
            pi = _last_provision(m, providers, at, used, u, last_time, (x in init) == positive)
            # the literal holds from pi to u: no user of a group mate, and no happening that surely undoes it, comes
            # strictly between
            others = [(at(v), [used[v[0]]]) for v in earlier]
            for d in undone:
                when = [used[d[0]]] if d[0] >= 0 else []
                others += [(at(d), when), (at(d, False), when)]
            for place, when in others:
                b = m.new_bool_var("")
                m.add(place <= pi).only_enforce_if(b)
                m.add(place >= tau).only_enforce_if([~b, used[u[0]], *when])


def _last_provision(m: cp_model.CpModel, providers: list, at: Callable, used: Sequence, u: Point, last_time: int,
                    holds_now: bool) -> cp_model.IntVar:
    """pi, the place of the last happening before ``u`` (when used) that made its literal so: an occurrence of a
    provider (between its first and last occurrence), or -1 when there is none, which only a literal that
    ``holds_now`` allows (it then held from now on until u)."""
    pi = m.new_int_var(-1, last_time, "")
    m.add(pi <= at(u) - 1).only_enforce_if(used[u[0]])
    options = []
    for p in providers:
        q = m.new_bool_var("")
        if p[0] >= 0:
            m.add_implication(q, used[p[0]])
        m.add(at(p) <= pi).only_enforce_if(q)
        m.add(at(p, False) >= pi).only_enforce_if(q)
        options.append(q)
    if holds_now:
        none = m.new_bool_var("")
        m.add(pi == -1).only_enforce_if(none)
        options.append(none)
    m.add_bool_or([~used[u[0]], *options])
    return pi


def add_goals_restored(m: cp_model.CpModel, goals: Sequence[Atom], sure: dict, makes: dict, at: Callable,
                       used: Sequence) -> None:
    """Goals restored (module docstring): for each goal atom and each action happening that surely makes it false,
    when that action is used, some provider's last occurrence (an ongoing end's time) comes after its last one."""
    for g in goals:
        providers = makes.get((g, True), [])
        for d, w, _ in sure.get((g, False), []):
            if d < 0:
                continue
            options = []
            for p in providers:
                q = m.new_bool_var("")
                if p[0] >= 0:
                    m.add_implication(q, used[p[0]])
                m.add(at(p, False) >= at((d, w), False) + 1).only_enforce_if(q)
                options.append(q)
            m.add_bool_or([~used[d], *options])

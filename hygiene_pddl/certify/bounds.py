"""Admissible lower bounds for the exact search (docs/certification.md, "Lower bounds").

Everything is computed on one relaxed task built from the compiled actions: facts never become false (delete
relaxation), with three kinds of relaxed facts besides the atoms: "atom is false" (achieved by deleting it),
"carrier c is free of hazard h" (achieved by a treatment) and "container c has room" (achieved by taking
something out). A contact that would bring h onto a carrier protected against h (which does not carry it yet)
needs its other side free of h, so the bound sees that a pad must be treated before it touches ready-to-eat food.
Each action is split into a start op (its cost, start and over-all conditions, start effects) and an end op (end
conditions and effects) joined by a "started" fact, so conditions achieved while it runs are not demanded before.

* cost dimensions: LM-cut (Helmert & Domshlak 2009) with lexicographic vector costs, encoded as one integer per
  block of dimensions (each dimension a base-2^20 digit, so integer order is lexicographic order). The landmark
  argument only needs costs in an ordered abelian group, so the bound is admissible for the block;
* makespan: the larger of a temporal h_max (the earliest time each relaxed fact can hold, actions taking their
  durations, a start that would break a running action's over-all condition or needs its resource waiting for
  its end) and a workload bound (the grippers must fit the remaining gripper time, itself at least LM-cut on
  active robot time).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from dataclasses import replace

from hygiene_pddl.certify.task import Cond, GroundAction, Phase, Task

DIGIT = 20  # bits per dimension in a lexicographically encoded cost
INF = float("inf")
START, END, HISTORY, GOAL_OP, AUX = 0, 1, 2, 3, 4  # AUX: a zero-cost op as early as its preconditions


def encode(values: Iterable[int]) -> int:
    out = 0
    for v in values:
        out = (out << DIGIT) + v
    return out


def decode(value: int, n: int) -> tuple[int, ...]:
    out = []
    for _ in range(n):
        out.append(value & ((1 << DIGIT) - 1))
        value >>= DIGIT
    return tuple(reversed(out))


def bits(mask: int) -> list[int]:
    out = []
    i = 0
    while mask:
        low = mask & -mask
        i = low.bit_length() - 1
        out.append(i)
        mask ^= low
    return out


class RelaxedTask:
    """The relaxed task of one search: props and split ops (parallel lists), and per-state initial props."""

    def __init__(self, task: Task, actions: Sequence[GroundAction], groups: Sequence[int] = ()):
        self.task = task
        self.actions = list(actions)
        H = task.H
        index: dict[tuple, int] = {}

        def prop(key: tuple) -> int:
            if key not in index:
                index[key] = len(index)
            return index[key]

        self.INIT, self.GOAL = prop(("init",)), prop(("goal",))
        rooms: dict[tuple[int, int], int] = {}

        def room(mask: int, cap: int) -> int:
            if (mask, cap) not in rooms:
                rooms[(mask, cap)] = prop(("room", mask, cap))
            return rooms[(mask, cap)]

        def cond_pre(cond: Cond, skip_pos: int = 0, skip_neg: int = 0) -> list[int]:
            pos, neg, tests = cond
            out = [prop(("t", i)) for i in bits(pos & ~skip_pos)] + [prop(("f", i)) for i in bits(neg & ~skip_neg)]
            return out + [room(mask, cap) for mask, cap, want in tests if want]

        def phase_adds(p: Phase) -> tuple[list[int], list[tuple[Cond, list[int]]]]:
            """The props a happening adds whatever its guards, and (guard, props) for each guarded effect."""
            out = [prop(("t", i)) for i in bits(p.adds)] + [prop(("f", i)) for i in bits(p.dels)]
            guarded: list[tuple[Cond, list[int]]] = []
            for u in p.updates:
                guarded.append((u.guard, [prop(("t", i)) for i in bits(u.adds)] + [prop(("f", i))
                                                                                   for i in bits(u.dels)]))
            for t in p.treats:
                clean = [prop(("c", t.carrier * H + h)) for h in bits(t.removes)]
                if t.guard is None:
                    out += clean
                else:
                    guarded.append((t.guard, clean))
            return out, guarded

        either: dict[tuple[int, int, int], int] = {}  # (guard pos, guard neg, bit) -> "guard false or bit clean"

        def constraints(p: Phase, guarded: bool = True) -> list[tuple[int, int]]:
            """(prop "a is free of h", contamination bit that waives it) for each contact that would bring h onto a
            carrier b protected against it; for a guarded contact (``guarded``), the prop "the guard is false, or
            a is free of h" (Reductions 9; a guard with a room test gives none)."""
            out = []
            for c in p.contacts:
                if c.guard is not None and (not guarded or c.guard[2]):
                    continue
                for src, dst, cross, prot in ((c.a, c.b, c.cross_ab, c.prot_b), (c.b, c.a, c.cross_ba, c.prot_a)):
                    for h in bits(cross & prot):
                        q = prop(("c", src * H + h))
                        if c.guard is not None:
                            key = (c.guard[0], c.guard[1], src * H + h)
                            if key not in either:
                                either[key] = prop(("either", *key))
                            q = either[key]
                        out.append((q, 1 << (dst * H + h)))
            return out

        self.op_pre: list[list[int]] = []
        self.op_cons: list[list[tuple[int, int]]] = []
        self.op_add: list[list[int]] = []
        self.op_kind: list[int] = []
        self.op_action: list[int] = []  # index into self.actions (start/end ops), else -1
        self.op_started: list[int] = []  # the "started" prop of an end op, else -1
        self.op_duration: list[int] = []
        self.op_dels: list[int] = []  # atoms an op may delete (room achievers)

        # per op, what its happening certainly requires and does (for the re-achievement rule below)
        self.op_req_true: list[int] = []
        self.op_req_false: list[int] = []
        self.op_certain_adds: list[int] = []
        self.op_resources: list[int] = []
        self.op_guard: list[int] = []  # the positive guard atoms of a guarded effect's op (0 for a happening's op)
        self.op_early: list[list[int]] = []  # props that must hold at the action's start (see _reachieve)
        self.op_pays: list[tuple[int, ...]] = []  # the actions whose costs an op carries (a start op: its own)

        def add_op(pre: list[int], cons: list[tuple[int, int]], adds: list[int], kind: int, k: int, started: int,
                   duration: int, dels: int, req: tuple[int, int] = (0, 0), certain_adds: int = 0, resources: int = 0,
                   guard: int = 0) -> None:
            self.op_pre.append(pre)
            self.op_cons.append(cons)
            self.op_add.append(adds)
            self.op_kind.append(kind)
            self.op_action.append(k)
            self.op_started.append(started)
            self.op_duration.append(duration)
            self.op_dels.append(dels)
            self.op_req_true.append(req[0])
            self.op_req_false.append(req[1])
            self.op_certain_adds.append(certain_adds)
            self.op_resources.append(resources)
            self.op_guard.append(guard)
            self.op_early.append([])
            self.op_pays.append((k,) if kind == START else ())

        def add_happening(p: Phase, pre: list[int], extra: list[int], kind: int, k: int, started: int,
                          duration: int, req: tuple[int, int], resources: int, known: int) -> None:
            """The op of one happening, and one op per guarded effect of it (its guard joins the preconditions);
            ``known``: atoms certainly true in the happening's pre-state."""
            adds, guarded = phase_adds(p)
            self._happening_of[len(self.op_pre)] = (p, known)
            add_op(pre, constraints(p), adds + extra, kind, k, started, duration, p.dels, req, p.adds, resources)
            if p.contacts:  # for the transfers of its contacts (_dirty_waivers): the props "p happened" needs
                self._contact_sites.append((p, [extra[0]] if kind == START else pre, k,
                                            extra[0] if kind == START else started, 0 if kind == START else duration))
            for guard, effect in guarded:
                cond_kind = kind if kind != START else END  # a start's guarded effect: at the start, after "started"
                g_dels = _union_dels(u.dels for u in p.updates if u.guard == guard)
                g_adds = _union_dels(u.adds for u in p.updates if u.guard == guard)
                self._happening_of[len(self.op_pre)] = (p, known | guard[0])
                add_op([*([started] if kind == START else pre), *cond_pre(guard)], [], effect, cond_kind, k,
                       extra[0] if kind == START else started, duration if kind != START else 0, p.dels | g_dels,
                       (req[0] | guard[0], req[1] | guard[1]), p.adds | g_adds, resources, guard[0])

        self._contact_sites: list[tuple[Phase, list[int], int, int, int]] = []
        self._happening_of: dict[int, tuple[Phase, int]] = {}  # op -> (its happening, atoms true in its pre-state)
        self._constraints = constraints
        self.end_op: list[int] = []  # the end op of each action
        self.started: list[int] = []
        self.start_ops: list[list[int]] = []  # the start op of each action and its copies
        for k, a in enumerate(self.actions):
            s = prop(("s", k))
            self.started.append(s)
            self.start_ops.append([len(self.op_pre)])
            add_happening(a.start, cond_pre(a.start.cond) + cond_pre(a.overall, a.start.adds, a.start.dels), [s],
                          START, k, -1, 0, (a.start.cond[0] | a.overall[0], a.start.cond[1] | a.overall[1]),
                          a.resources, a.start.cond[0] | (a.overall[0] & ~a.start.adds))
            # an end's pre-state is inside the interval: the over-all condition holds there
            self.end_op.append(len(self.op_pre))
            add_happening(a.end, [s, *cond_pre(a.end.cond)], [], END, k, s, a.duration,
                          (a.end.cond[0] | a.overall[0], a.end.cond[1] | a.overall[1]), a.resources,
                          a.end.cond[0] | a.overall[0])
        self.history_started: dict[int, int] = {}
        for ga, _ in task.ongoing:
            s = prop(("h", ga.history))
            self.history_started[ga.history] = s
            add_happening(ga.end, [s, *cond_pre(ga.end.cond)], [], HISTORY, -1, s, ga.duration,
                          (ga.end.cond[0] | ga.overall[0], ga.end.cond[1] | ga.overall[1]), ga.resources,
                          ga.end.cond[0])  # an ongoing action's over-all condition is not checked
        for (pos, neg, b), q in either.items():  # "the guard is false, or the source is free of h"
            for x in [*(prop(("f", i)) for i in bits(pos)), *(prop(("t", i)) for i in bits(neg)), prop(("c", b))]:
                self._aux_op([x], [q])
        add_op(cond_pre(task.goal) + [prop(("c", i)) for i in bits(task.unsafe)], [], [self.GOAL], GOAL_OP, -1, -1,
               0, 0)
        self.goal_op = len(self.op_pre) - 1
        self.keep_goal: dict[int, int] = {}  # goal atom -> the op "it held now, so it holds at the end" (Rule 10)
        #: started prop -> (goal atom, guard, whether nothing can change the guard while the action runs)
        self.end_deletes: dict[int, list[tuple[int, Cond | None, bool]]] = {}
        self._goal_deletions(index, prop)
        for o, dels in enumerate(self.op_dels):  # room props: achieved by taking a counted atom away
            self.op_add[o] += [p for (mask, _), p in rooms.items() if mask & dels]
        self.after: list[tuple[int, int, int]] = []  # (atom, prop L, prop "atom re-achieved after L")
        root = {p for key, p in index.items()
                if (key[0] == "t" and task.facts >> key[1] & 1) or (key[0] == "f" and not task.facts >> key[1] & 1)
                or (key[0] == "c" and not task.contam >> key[1] & 1)}
        self._reachieve(index, prop, groups, root)
        self._last_goal(index, prop)
        self.kept_start: dict[int, list[tuple[int, int]]] = {}  # per action: (prop X, prop "started keeping X")
        self._kept_clean(index, prop)
        self.dirty_props: list[tuple[int, int]] = []  # (contamination bit, prop "carrier carries h")
        self.paid_by_start: dict[int, list[int]] = {}  # per action: the "paid" props its start adds (Reductions 7)
        self._dirty_waivers(prop, cond_pre)
        self._prune(len(index))
        self.n_props = len(index)
        self.prop_keys = {p: key for key, p in index.items()}  # for diagnostics
        self.n_ops = len(self.op_pre)
        self.atom_props = [(key[1], p) for key, p in index.items() if key[0] == "t"]
        self.neg_props = [(key[1], p) for key, p in index.items() if key[0] == "f"]
        self.clean_props = [(key[1], p) for key, p in index.items() if key[0] == "c"]
        self.room_props = [(mask, cap, p) for (mask, cap), p in rooms.items()]
        self.adders: list[list[int]] = [[] for _ in range(self.n_props)]
        for o, adds in enumerate(self.op_add):
            for q in adds:
                self.adders[q].append(o)
        self.waivers = 0
        for cons in self.op_cons:
            for _, w in cons:
                self.waivers |= w
        self._pre_cache: dict[int, tuple[list[list[int]], list[list[int]]]] = {}
        self._enabled_cache: dict[tuple[int, ...], list[bool]] = {}

    def _goal_deletions(self, index: dict[tuple, int], prop) -> None:  # noqa: ANN001
        """A goal atom that the end of a running action deletes (docs/certification.md, "Reductions" 10).

        The goal also needs G' ("G holds at the end although a running end may delete it"), added by every op that
        adds G and by a zero-cost op from G (``keep_goal``). Per state, the search disables that op where a running
        action's end deletes G for certain: unguarded, or under a guard that holds now and that no happening can
        change while the action runs (``stable``)."""
        goal = self.task.goal[0]
        ends = [(self.started[k], a) for k, a in enumerate(self.actions)]
        ends += [(self.history_started[ga.history], ga) for ga, _ in self.task.ongoing]
        for s, a in ends:
            p = a.end
            out: list[tuple[int, Cond | None, bool]] = []
            for x in bits(p.dels & goal & ~p.adds):
                out.append((x, None, True))
            for u in p.updates:
                for x in bits(u.dels & goal & ~p.adds):
                    out.append((x, u.guard, self._stable(u.guard, a)))
            if out:
                self.end_deletes.setdefault(s, []).extend(out)
        atoms = sorted({d[0] for ds in self.end_deletes.values() for d in ds})
        for x in atoms:
            px, kept = prop(("t", x)), prop(("kept-goal", x))
            for o, adds in enumerate(self.op_add):
                if px in adds:
                    self.op_add[o] = [*adds, kept]
            self._aux_op([px], [kept])
            self.keep_goal[x] = len(self.op_pre) - 1
            self.op_pre[self.goal_op].append(kept)

    def _stable(self, guard: Cond, e: GroundAction) -> bool:
        """No happening can change a literal of ``guard`` while ``e`` runs (before its end): every continuation
        happening that may delete a positive literal or add a negative one has a condition contrary to e's over-all
        condition (which holds in the pre-state of every happening while e runs), or is a start needing e's
        resource; and no ongoing history end may (their over-all conditions are left out). Room tests: never."""
        pos, neg, tests = guard
        if tests:
            return False
        need, forbid = e.overall[0], e.overall[1]
        for ga, _ in self.task.ongoing:
            if ga.end.may_del & pos or ga.end.may_add & neg:
                return False
        for b in self.actions:
            for ph, cond in ((b.start, b.start.cond), (b.end, (b.end.cond[0] | b.overall[0],
                                                               b.end.cond[1] | b.overall[1], ()))):
                if not (ph.may_del & pos or ph.may_add & neg):
                    continue
                if cond[1] & need or cond[0] & forbid:
                    continue
                if ph is b.start and b.resources & e.resources:
                    continue
                return False
        return True

    def _reachieve(self, index: dict[tuple, int], prop, groups: Sequence[int], root_props: set[int]) -> None:  # noqa: ANN001
        """Re-achievement after a landmark (docs/certification.md, "Lower bounds").

        When prop X must hold at some moment at which prop L holds too, L must be achieved before that moment
        (or already holds), and every achiever of L leaves X false (deletes it, needs it false, or needs an atom
        that excludes it: ``groups`` are at-most-one groups), then X is achieved after the last achievement of L:
        the requirement becomes "X after L", achieved by copies of X's achievers that need L, and whose own
        preconditions that every achiever of L falsifies become "after L" in turn (a shirt on the rack after its
        wash needs a gripper holding it after the wash, so an unload from the washer, so the door opened after the
        wash). Two such moments: the end (X and L goals, L false now), and the start of an action whose guarded
        end effect needs L there (L is early: none of its achievers can happen while the action runs, as each
        breaks its over-all condition or needs its resource) while its start needs X (the door is closed after
        loading)."""
        adders: dict[int, list[int]] = {}
        for o, adds in enumerate(self.op_add):
            for q in adds:
                adders.setdefault(q, []).append(o)
        in_groups: dict[int, int] = {}
        for g in groups:
            for x in bits(g):
                in_groups[x] = in_groups.get(x, 0) | g
        kind_of = {p: key for key, p in index.items() if key[0] in ("t", "f")}
        adds_atoms = []
        for adds in self.op_add:
            m = 0
            for q in adds:
                key = kind_of.get(q)
                if key is not None and key[0] == "t":
                    m |= 1 << key[1]
            adds_atoms.append(m)
        falsified_cache: dict[int, tuple[int, int]] = {}

        def falsified(o: int) -> tuple[int, int]:
            """(atoms false, atoms true) right after op o's happening."""
            if o not in falsified_cache:
                true_after = (self.op_req_true[o] & ~self.op_dels[o]) | self.op_certain_adds[o]
                false_after = self.op_req_false[o] | self.op_dels[o]
                for y in bits(self.op_req_true[o]):
                    false_after |= in_groups.get(y, 0) & ~(1 << y)
                falsified_cache[o] = (false_after & ~adds_atoms[o], true_after)
            return falsified_cache[o]

        started_of = {p: k for k, p in enumerate(self.started)}

        def excludes(o: int, b: GroundAction) -> bool:
            """o is the end of an action A that b cannot start during (b's start breaks A's over-all condition or
            needs A's resource) and that outlasts b: so b, ending after o, also starts after o."""
            if self.op_kind[o] != END or self.op_action[o] < 0:
                return False
            a = self.actions[self.op_action[o]]
            need, forbid = a.overall[0], a.overall[1]
            st = b.start
            return b.duration < a.duration and bool(
                (st.cond[1] | st.dels) & need or (st.cond[0] | st.adds) & forbid or b.resources & a.resources)

        def always(q: int, lp: int) -> bool:
            if not adders.get(lp):
                return False
            if q in started_of:  # the start of an action whose end comes after every achiever of lp
                b = self.actions[started_of[q]]
                return all(excludes(o, b) for o in adders[lp])
            key = kind_of.get(q)
            if key is None:
                return False
            return all(falsified(o)[0 if key[0] == "t" else 1] >> key[1] & 1 for o in adders[lp])

        made: dict[tuple[int, int], int] = {}
        work: list[tuple[int, int, int]] = []

        def after(q: int, lp: int) -> int:
            if (q, lp) not in made:
                xl = prop(("after", q, lp))
                made[(q, lp)] = xl
                self.after.append((q, lp, xl))
                work.append((q, lp, xl))
            return made[(q, lp)]

        def lifted(props: list[int], lp: int) -> list[int]:
            return [after(q, lp) if always(q, lp) else q for q in props]

        for o in range(len(self.op_pre)):  # early guards of guarded end effects, and the start conditions they force
            k = self.op_action[o]
            if self.op_kind[o] != END or k < 0 or not self.op_guard[o]:
                continue
            a = self.actions[k]
            need, forbid = a.overall[0], a.overall[1]
            early = []
            for g in bits(self.op_guard[o]):
                gp = index[("t", g)]
                if all(self.op_kind[b] != HISTORY and (
                        (self.op_req_false[b] | self.op_dels[b]) & need or (self.op_req_true[b]
                                                                            | self.op_certain_adds[b]) & forbid
                        or self.op_resources[b] & a.resources) for b in adders.get(gp, [])):
                    early.append(gp)
            at_start = [index[("t", x)] for x in bits((a.start.cond[0] | a.overall[0]) & ~a.start.adds)
                        if ("t", x) in index]
            for gp in list(early):
                for xp in at_start:
                    if always(xp, gp):
                        xl = after(xp, gp)
                        self.op_pre[o].append(xl)
                        early.append(xl)
            self.op_early[o] = early
        goal_props = list(self.op_pre[self.goal_op])
        for xp in goal_props:
            for lp in goal_props:
                if lp != xp and lp not in root_props and always(xp, lp):
                    self.op_pre[self.goal_op].append(after(xp, lp))
        while work:
            q, lp, xl = work.pop()
            for o in adders.get(q, []):
                self._copy(o, [*lifted(self.op_pre[o], lp), lp], [*self.op_add[o], xl], lifted(self.op_early[o], lp))

    def _last_goal(self, index: dict[tuple, int], prop) -> None:  # noqa: ANN001
        """The later of two goals is achieved while the other holds (docs/certification.md, "Reductions" 8).

        For goal atoms G1 and G2, the goal needs "ordered(G1, G2)": it holds now when both hold, and is added by
        every op adding both and by a zero-cost copy of each op adding G1 (resp. G2) that also needs G2 (G1). In the
        copy, a guarded contact whose guard is certain once the other goal holds (with the atoms the happening
        certainly needs) fires, so its protection constraints join the copy's (the muddy potatoes put into the
        basket after the grapes touch them). Only pairs where some copy gains a constraint are kept."""
        goal_atoms = bits(self.task.goal[0])
        adders: dict[int, list[int]] = {}
        for o, adds in enumerate(self.op_add):
            for q in adds:
                adders.setdefault(q, []).append(o)
        happenings: dict[int, list[int]] = {}  # the ops of one happening (its own and its guarded effects')
        for o, (p, _) in self._happening_of.items():
            happenings.setdefault(id(p), []).append(o)

        def split(q1: int, q2: int) -> bool:
            """Some happening adds both props, but through different ops (a guarded effect adds one of them)."""
            return any(any(q1 in self.op_add[o] for o in ops) and any(q2 in self.op_add[o] for o in ops)
                       and not any(q1 in self.op_add[o] and q2 in self.op_add[o] for o in ops)
                       for ops in happenings.values())

        def gained(o: int, other: int) -> list[tuple[int, int]]:
            """The protection constraints of op o's guarded contacts that the other goal atom makes certain."""
            if o not in self._happening_of:
                return []
            p, known = self._happening_of[o]
            sure = [c for c in p.contacts if c.guard is not None and not c.guard[1] and not c.guard[2]
                    and c.guard[0] & ~known and not c.guard[0] & ~(known | 1 << other)]
            if not sure:
                return []
            return self._constraints(Phase(p.cond, 0, 0, (), tuple(replace(c, guard=None) for c in sure), (), (), 0,
                                           0, 0), False)

        for i, g1 in enumerate(goal_atoms):
            for g2 in goal_atoms[i + 1:]:
                p1, p2 = index.get(("t", g1)), index.get(("t", g2))
                if p1 is None or p2 is None:
                    continue
                plan = [(o, p2, gained(o, g2)) for o in adders.get(p1, [])] + [
                    (o, p1, gained(o, g1)) for o in adders.get(p2, [])]
                if not any(extra for _, _, extra in plan) or split(p1, p2):
                    continue
                ordered = prop(("ordered", g1, g2))
                self.after.append((p1, p2, ordered))
                both = set(adders.get(p1, [])) & set(adders.get(p2, []))
                for o in both:
                    self.op_add[o] = [*self.op_add[o], ordered]
                for o, other, extra in plan:
                    if o in both:
                        continue
                    self._copy(o, [*self.op_pre[o], other], [ordered], list(self.op_early[o]))
                    self.op_pays[-1] = ()
                    self.op_cons[-1] = [*self.op_cons[o], *extra]
                self.op_pre[self.goal_op].append(ordered)

    def _kept_clean(self, index: dict[tuple, int], prop) -> None:  # noqa: ANN001
        """Cleanliness that cannot be restored, kept through a landmark (docs/certification.md, "Lower bounds").

        Let a contact happening P need X = "carrier c is free of h" (a protection constraint) and L (a condition or
        another constraint of P). When nothing can remove h from c (X has no achiever), X holds at P only if it
        holds from now on. When moreover every achiever of L is a happening of a continuation action, the last
        achievement of L before P (L false now) is a happening of some action A, and A's start happens before it.
        An unguarded contact of A's start that lets h cross from a carrier s onto c would have put h on c for good
        unless s was free of h then. So P needs "X kept through L" (XL), achieved by zero-cost copies of L's
        achievers that also need "A started while X held and every such s was free of h" (SK), itself achieved
        after A's start by a zero-cost op needing those props. XL holds now when X and L do (as for "X after L");
        SK holds now for a running A when X does (X held at A's start and c did not get h from any s, so every s
        was free of h). Zero-cost copies with more preconditions than their originals keep every bound a lower
        bound: each real plan maps to a relaxed plan of the same cost that uses them."""
        H = self.task.H
        if not H:
            return
        key_of = {p: key for key, p in index.items()}
        adders: dict[int, list[int]] = {}
        for o, adds in enumerate(self.op_add):
            for q in adds:
                adders.setdefault(q, []).append(o)
        made: dict[tuple[int, int], int | None] = {}
        started_keeping: dict[tuple[int, int], int] = {}

        def sources(k: int, c: int, h: int) -> list[int]:
            """The props "s is free of h" for the unguarded contacts of action k's start that let h cross onto c."""
            out = []
            for ct in self.actions[k].start.contacts:
                if ct.guard is not None:
                    continue
                if ct.b == c and ct.cross_ab >> h & 1:
                    out.append(prop(("c", ct.a * H + h)))
                if ct.a == c and ct.cross_ba >> h & 1:
                    out.append(prop(("c", ct.b * H + h)))
            return out

        def keeping_start(k: int, xp: int, c: int, h: int) -> int:
            if (k, xp) not in started_keeping:
                sk = prop(("kept-start", k, xp))
                started_keeping[(k, xp)] = sk
                self.kept_start.setdefault(k, []).append((xp, sk))
                self._zero_op([self.started[k], xp, *sources(k, c, h)], [sk], k, self.started[k], 0, [])
            return started_keeping[(k, xp)]

        def kept(xp: int, lp: int) -> int | None:
            if (xp, lp) not in made:
                made[(xp, lp)] = None
                ach = adders.get(lp, [])
                c, h = divmod(key_of[xp][1], H)
                if ach and all(self.op_action[o] >= 0 and self.op_kind[o] in (START, END) for o in ach) and any(
                        sources(self.op_action[o], c, h) for o in ach):
                    xl = prop(("kept", xp, lp))
                    made[(xp, lp)] = xl
                    self.after.append((xp, lp, xl))
                    for o in ach:
                        k = self.op_action[o]
                        end = self.op_kind[o] == END
                        self._zero_op([*self.op_pre[o], keeping_start(k, xp, c, h)], [xl], k, self.started[k],
                                      self.op_duration[o] if end else 0, list(self.op_early[o]) if end else [])
            return made[(xp, lp)]

        for o in range(len(self.op_pre)):
            cons = self.op_cons[o]
            extra = []
            for xp, waive in cons:
                if key_of[xp][0] != "c" or adders.get(xp):
                    continue
                for lp, l_waive in [*((q, 0) for q in self.op_pre[o]), *cons]:
                    if lp != xp and key_of.get(lp, ("",))[0] in ("t", "f", "c"):
                        xl = kept(xp, lp)
                        if xl is not None:  # waived where either constraint is (then L need not hold at P)
                            extra.append((xl, waive | l_waive))
            if extra:
                self.op_cons[o] = [*cons, *extra]

    def _dirty_waivers(self, prop, cond_pre) -> None:  # noqa: ANN001
        """Protection waived by a hazard that arrived legally first (docs/certification.md, "Reductions" 7).

        A contact that would bring h onto a protected carrier d breaks no rule when d already carries h, and d can
        get h without a violation through an exempt contact (a place in a for-dirty place, a washer load) from a
        source that got h earlier (through a contact onto a carrier not protected against h, or an exempt one). So
        a protection constraint "s is free of h" waived by (d, h) becomes "s is free of h, or d carries h", the
        latter a relaxed fact D(d, h) achieved, after the happening of each such contact, from D(source, h)
        (initially: the state's contamination, whose waivers the state gives anyway). When a (safe x) goal forbids
        (d, h): if no action can treat it, it is never reached legally (once there it stays and the goal fails); if
        only continuation actions can, d, dirty at the waived contact, is treated later by some action A, and the
        waiver also needs P(d, h). A's start adds it (A started before the waived contact), and so does a copy of A
        that needs only "some carrier A treats got dirty after now" (D′) and has every unguarded effect of A's start
        and end (A starts after it): a completion maps to a relaxed plan in which that copy replaces A, placed right
        after the first D′ it needs (effects earlier, A's cost once)."""
        task = self.task
        H = task.H
        if not H or not self._contact_sites:
            return
        treaters: dict[int, list[int]] = {}
        for k, a in enumerate(self.actions):
            for p in (a.start, a.end):
                for t in p.treats:
                    for h in bits(t.removes):
                        treaters.setdefault(t.carrier * H + h, []).append(k)
        by_history = 0
        for ga, _ in task.ongoing:
            for p in (ga.start, ga.end):
                for t in p.treats:
                    by_history |= t.removes << (t.carrier * H)
        never = _mask_of(b for b in bits(task.unsafe) if b not in treaters) & ~by_history
        paid = task.unsafe & ~never & ~by_history
        transfers: dict[int, list[tuple[int, list[int], int, int, int]]] = {}  # dst bit -> (src bit, pre, k, ...)
        for p, pre, k, started, duration in self._contact_sites:
            for c in p.contacts:
                guard = cond_pre(c.guard) if c.guard is not None else []
                for src, dst, cross, prot in ((c.a, c.b, c.cross_ab, c.prot_b), (c.b, c.a, c.cross_ba, c.prot_a)):
                    for h in bits(cross & ~prot):  # onto a carrier protected against h: a violation, never legal
                        if not never >> (dst * H + h) & 1:
                            transfers.setdefault(dst * H + h, []).append(
                                (src * H + h, [*pre, *guard], k, started, duration))
        waive_all = 0
        for cons in self.op_cons:
            for _, w in cons:
                waive_all |= w
        needed = [b for b in bits(waive_all) if b in transfers]
        if not needed:
            return
        dirty: dict[int, int] = {}

        def carries(b: int) -> int:
            if b not in dirty:
                dirty[b] = prop(("d", b))
                self.dirty_props.append((b, dirty[b]))
                needed.append(b)
            return dirty[b]

        waivable = [b for b in needed]
        for b in waivable:
            carries(b)
        done: set[int] = set()
        while needed:
            b = needed.pop()
            if b in done:
                continue
            done.add(b)
            adds = [dirty[b], prop(("d-new", b))] if paid >> b & 1 else [dirty[b]]
            for src, pre, k, started, duration in transfers.get(b, ()):
                self._zero_op([*pre, carries(src)], adds, k, started, duration, [])
        paid_props: dict[int, int] = {}
        copies: dict[int, list[int]] = {}  # action -> the paid waivable bits it treats
        for b in waivable:
            if paid >> b & 1:
                paid_props[b] = prop(("paid", b))
                for k in dict.fromkeys(treaters[b]):
                    copies.setdefault(k, []).append(b)
        for k, bs in copies.items():  # A started before the waived contact: its start (or a copy of it) pays
            for o in self.start_ops[k]:
                self.op_add[o] = [*self.op_add[o], *(paid_props[b] for b in bs)]
            self.paid_by_start[k] = [paid_props[b] for b in bs]
        helpers = {k: self._helpers(k) for k in copies}
        absorbed = sorted(set(copies) | {j for h in helpers.values() if h is not None for j in h[1]})
        prepaid = {k: prop(("prepaid", k)) for k in absorbed}
        for k in absorbed:  # A's start at its real time, free once a paid copy has paid for it
            for o in list(self.start_ops[k]):
                self._copy(o, [*self.op_pre[o], prepaid[k]], list(self.op_add[o]), list(self.op_early[o]))
                self.op_pays[-1] = ()
        for k, bs in copies.items():
            any_new = prop(("d-new-any", k))
            for b in bs:
                self._aux_op([prop(("d-new", b))], [any_new])
            pays = [*(paid_props[b] for b in bs), prepaid[k]]
            helper = helpers[k]
            if helper is None:
                self._paid_copy([any_new], pays, (k,))
                continue
            q, makers = helper
            enabled = prop(("enabled", k))  # q holds, or an action that may make it true has started or is paid
            for x in [prop(("t", q)), *(self.started[j] for j in makers), *(prepaid[j] for j in makers)]:
                self._aux_op([x], [enabled])
            self._paid_copy([any_new, enabled], pays, (k,))
            for j in makers:  # A and the last achiever B of q, paid together (B starts after the copy)
                self._paid_copy([any_new], [*pays, prepaid[j], *(paid_props[b] for b in copies.get(j, ()))], (k, j))
        made: dict[tuple[int, int], int] = {}
        for o, cons in enumerate(self.op_cons):
            out = []
            for q, w in cons:
                reach = [b for b in bits(w) if b in dirty and transfers.get(b)]
                if reach:
                    if (q, w) not in made:
                        made[(q, w)] = ok = prop(("ok", q, w))
                        self._aux_op([q], [ok])
                        for b in reach:
                            self._aux_op([prop(("d-new", b)), paid_props[b]] if b in paid_props else [dirty[b]], [ok])
                    q = made[(q, w)]
                out.append((q, w))
            self.op_cons[o] = out

    def _helpers(self, k: int) -> tuple[int, list[int]] | None:
        """A start condition q of action k (for its paid copies, docs/certification.md, "Reductions" 7) that no
        ongoing action adds and that only actions costing more than active time can make true, and those actions;
        None when there is none."""
        a = self.actions[k]
        ongoing = 0
        for ga, _ in self.task.ongoing:
            ongoing |= ga.start.may_add | ga.end.may_add
        best: tuple | None = None
        for x in bits((a.start.cond[0] | a.overall[0]) & ~a.start.adds & ~ongoing):
            makers = [j for j, b in enumerate(self.actions) if (b.start.may_add | b.end.may_add) >> x & 1]
            cheapest = min((sum(self.actions[j].additive[:-1]) for j in makers), default=None)
            if cheapest == 0:
                continue
            score = (cheapest is None, cheapest or 0, -len(makers), -x)
            if best is None or score > best[0]:
                best = (score, x, makers)
        return None if best is None else (best[1], best[2])

    def _paid_copy(self, pre: list[int], adds: list[int], pays: tuple[int, ...]) -> None:
        """An op paying for the actions ``pays`` ahead of their starts (a start op of each, for the landmark reuse)."""
        self._aux_op(pre, adds, pays)
        for k in pays:
            self.start_ops[k].append(len(self.op_pre) - 1)

    def _aux_op(self, pre: list[int], adds: list[int], pays: tuple[int, ...] = ()) -> None:
        """An op of no happening, as early as its preconditions (zero-cost, or paying for ``pays``)."""
        for name, value in (("op_pre", pre), ("op_cons", []), ("op_add", adds), ("op_kind", AUX), ("op_action", -1),
                            ("op_started", -1), ("op_duration", 0), ("op_dels", 0), ("op_req_true", 0),
                            ("op_req_false", 0), ("op_certain_adds", 0), ("op_resources", 0), ("op_guard", 0),
                            ("op_early", []), ("op_pays", pays)):
            getattr(self, name).append(value)

    def _zero_op(self, pre: list[int], adds: list[int], k: int, started: int, duration: int, early: list[int]
                 ) -> None:
        """A zero-cost op of action k that happens no earlier than ``duration`` after its start."""
        for name, value in (("op_pre", pre), ("op_cons", []), ("op_add", adds), ("op_kind", END), ("op_action", k),
                            ("op_started", started), ("op_duration", duration), ("op_dels", 0),
                            ("op_req_true", 0), ("op_req_false", 0), ("op_certain_adds", 0), ("op_resources", 0),
                            ("op_guard", 0), ("op_early", early), ("op_pays", ())):
            getattr(self, name).append(value)

    def _copy(self, o: int, pre: list[int], adds: list[int], early: list[int]) -> None:
        """A copy of op o with other preconditions, effects and early props (same kind, action and cost)."""
        for field in ("op_cons", "op_kind", "op_action", "op_started", "op_duration", "op_dels", "op_req_true",
                      "op_req_false", "op_certain_adds", "op_resources", "op_guard", "op_pays"):
            getattr(self, field).append(getattr(self, field)[o])
        self.op_pre.append(pre)
        self.op_add.append(adds)
        self.op_early.append(early)
        if self.op_kind[o] == START:
            self.start_ops[self.op_action[o]].append(len(self.op_pre) - 1)

    def _prune(self, n_props: int) -> None:
        """Keep the props the goal can need (backward from it through preconditions and protection constraints)
        and the ops that add one of them; the others cannot change any bound. Ops keep their positions (an op
        without useful effects just adds nothing)."""
        adders: list[list[int]] = [[] for _ in range(n_props)]
        for o, adds in enumerate(self.op_add):
            for q in adds:
                adders[q].append(o)
        needed = {self.GOAL}
        stack = [self.GOAL]
        used = set()
        while stack:
            q = stack.pop()
            for o in adders[q]:
                if o in used:
                    continue
                used.add(o)
                for p in (*self.op_pre[o], *(c for c, _ in self.op_cons[o]), *(
                        [self.op_started[o]] if self.op_started[o] >= 0 else [])):
                    if p not in needed:
                        needed.add(p)
                        stack.append(p)
        for o in range(len(self.op_add)):
            if o not in used and o != self.goal_op:
                self.op_add[o] = []
            else:
                self.op_add[o] = [q for q in self.op_add[o] if q in needed]

    def action_costs(self, values: Sequence[int]) -> list[int]:
        """A cost per op: the sum of ``values[k]`` over the actions k it pays for (a start op: its action; a paid
        copy: one or two actions; every other op, a twin included: none)."""
        return [sum(values[k] for k in pays) for pays in self.op_pays]

    # --- per state ------------------------------------------------------------------------------------------
    def preconditions(self, contam: int) -> tuple[list[list[int]], list[list[int]]]:
        """Each op's preconditions in a state (a protection constraint is waived when the protected side already
        carries the hazard: no new violation can happen there), and for each prop the ops it is a precondition of."""
        key = contam & self.waivers
        if key not in self._pre_cache:
            pre = [(p + [c for c, waive in cons if not contam & waive]) or [self.INIT]
                   for p, cons in zip(self.op_pre, self.op_cons, strict=True)]
            pre_of: list[list[int]] = [[] for _ in range(self.n_props)]
            for o, ps in enumerate(pre):
                for p in ps:
                    pre_of[p].append(o)
            self._pre_cache[key] = (pre, pre_of)
        return self._pre_cache[key]

    def initial(self, facts: int, contam: int, started: Iterable[int], history: Iterable[int]) -> list[int]:
        out = [self.INIT]
        out += [p for i, p in self.atom_props if facts >> i & 1]
        out += [p for i, p in self.neg_props if not facts >> i & 1]
        out += [p for i, p in self.clean_props if not contam >> i & 1]
        out += [p for i, p in self.dirty_props if contam >> i & 1]
        out += [p for mask, cap, p in self.room_props if (facts & mask).bit_count() < cap]
        out += [self.started[k] for k in started]
        out += [q for k in started for q in self.paid_by_start.get(k, ())]  # it started before any waived contact
        out += [self.history_started[h] for h in history]
        if self.kept_start:  # a running action started keeping X when X still holds
            present = set(out)
            out += [sk for k in started for xp, sk in self.kept_start.get(k, ()) if xp in present]
        if self.after:  # "X after L" holds now when X and L both hold now
            present = set(out)
            out += [xl for q, lp, xl in self.after if q in present and lp in present]
        return out

    def enabled(self, stocks: Sequence[int]) -> list[bool]:
        """Ops whose paid actions' stock use fits the stocks left (stocks only decrease in a continuation); the
        caller may change its copy."""
        key = tuple(stocks)
        if key not in self._enabled_cache:
            self._enabled_cache[key] = [all(stocks[s] >= n for k in pays for s, n in self.actions[k].consumes)
                                        for pays in self.op_pays]
        return list(self._enabled_cache[key])


def _mask_of(positions: Iterable[int]) -> int:
    out = 0
    for i in positions:
        out |= 1 << i
    return out


def _union_dels(masks: Iterable[int]) -> int:
    out = 0
    for m in masks:
        out |= m
    return out


def hmax(rt: RelaxedTask, pre: list[list[int]], pre_of: list[list[int]], init: Iterable[int], costs: list[int],
         enabled: list[bool]) -> tuple[list[float], list[int]]:
    """h_max of every prop (Dijkstra) and each reached op's precondition choice (its costliest precondition)."""
    h: list[float] = [INF] * rt.n_props
    unsat = [len(p) for p in pre]
    pcf = [-1] * rt.n_ops
    heap = []
    for p in init:
        if h[p] != 0:
            h[p] = 0
            heap.append((0, p))
    op_add = rt.op_add
    while heap:
        v, p = heapq.heappop(heap)
        if v > h[p]:
            continue
        for o in pre_of[p]:
            unsat[o] -= 1
            if unsat[o] == 0 and enabled[o]:
                pcf[o] = p
                val = v + costs[o]
                for q in op_add[o]:
                    if val < h[q]:
                        h[q] = val
                        heapq.heappush(heap, (val, q))
    return h, pcf


def lmcut(rt: RelaxedTask, pre: list[list[int]], pre_of: list[list[int]], init: list[int], base_costs: list[int],
          enabled: list[bool]) -> tuple[float, list[list[int]]]:
    """LM-cut: the sum of the landmark cuts' costs (INF when the goal is relaxed-unreachable), and the cuts (each a
    disjunctive action landmark of the state: every relaxed plan, so every real completion, uses one of its ops).

    After a cut, h_max is updated incrementally (only values that drop are propagated, as costs only decrease),
    as in Fast Downward's implementation."""
    costs = list(base_costs)
    h, pcf = hmax(rt, pre, pre_of, init, costs, enabled)
    goal = rt.GOAL
    if h[goal] == INF:
        return INF, []
    adders, op_add = rt.adders, rt.op_add
    pcf_of: list[set[int]] = [set() for _ in range(rt.n_props)]  # ops whose costliest precondition is the prop
    for o, p in enumerate(pcf):
        if p >= 0:
            pcf_of[p].add(o)
    total = 0
    cuts: list[list[int]] = []
    heappush, heappop = heapq.heappush, heapq.heappop
    while h[goal] != 0:
        zone = {goal}  # props from which the goal is reached through zero-cost justification edges
        stack = [goal]
        while stack:
            q = stack.pop()
            for o in adders[q]:
                p = pcf[o]
                if p >= 0 and p not in zone and costs[o] == 0:
                    zone.add(p)
                    stack.append(p)
        seen = set(init)  # props reached from the initial ones without entering the goal zone
        stack = list(seen)
        cut = []
        while stack:
            p = stack.pop()
            for o in pcf_of[p]:
                hits = False
                for q in op_add[o]:
                    if q in zone:
                        hits = True
                    elif q not in seen:
                        seen.add(q)
                        stack.append(q)
                if hits:
                    cut.append(o)
        m = min(costs[o] for o in cut)
        total += m
        cuts.append(cut)
        heap = []
        for o in cut:
            costs[o] -= m
            val = h[pcf[o]] + costs[o]
            for q in op_add[o]:
                if val < h[q]:
                    h[q] = val
                    heap.append((val, q))
        heapq.heapify(heap)
        while heap:
            v, q = heappop(heap)
            if v > h[q]:
                continue
            for o in list(pcf_of[q]):  # only an op whose costliest precondition dropped can get cheaper
                best, arg = -1.0, q
                for p in pre[o]:
                    if h[p] > best:
                        best, arg = h[p], p
                if arg != q:
                    pcf_of[q].discard(o)
                    pcf_of[arg].add(o)
                    pcf[o] = arg
                val = best + costs[o]
                for r in op_add[o]:
                    if val < h[r]:
                        h[r] = val
                        heappush(heap, (val, r))
    return total, cuts


def saturated(cuts: Iterable[list[int]], costs: Sequence[int], allowed: Sequence[bool]) -> int:
    """An admissible bound for another cost function from given landmarks: each landmark in turn takes the least
    remaining cost of its allowed ops, which is then used up (saturated cost partitioning; ops not allowed cannot
    occur in the completions this bound is for, so they leave a landmark)."""
    left = list(costs)
    total = 0
    for cut in cuts:
        ops = [o for o in cut if allowed[o]]
        if not ops:
            continue  # no completion of interest can hit this landmark: none exists (the caller checks reachability)
        m = min(left[o] for o in ops)
        if m:
            total += m
            for o in ops:
                left[o] -= m
    return total


def earliest_makespan(rt: RelaxedTask, pre: list[list[int]], pre_of: list[list[int]], init: list[int],
                      enabled: list[bool], t: int, not_before: dict[int, int], seeds: dict[int, int]) -> float:
    """A lower bound on the final makespan by a temporal h_max.

    A start op happens at the latest of its preconditions, ``t`` and ``not_before`` (a start or end that would
    break a running action's over-all condition, or a resource it holds, waits for its end); an end op
    ``duration`` after its "started" prop (``seeds``: the known starts of running actions). Only goals not true
    already count, and only when no ongoing history end achieves them (makespan counts continuation actions)."""
    when: list[float] = [INF] * rt.n_props
    heap = []
    for p in init:
        if when[p] != 0:
            when[p] = 0
            heap.append((0, p))
    for p, v in seeds.items():
        if v < when[p]:
            when[p] = v
            heap.append((v, p))
    heapq.heapify(heap)
    unsat = [len(p) for p in pre]
    op_add, op_kind, op_action, op_started, op_duration = (rt.op_add, rt.op_kind, rt.op_action, rt.op_started,
                                                          rt.op_duration)
    op_early = rt.op_early
    by_history: set[int] = set()
    heappush, heappop = heapq.heappush, heapq.heappop
    while heap:
        v, p = heappop(heap)
        if v > when[p]:
            continue
        for o in pre_of[p]:
            unsat[o] -= 1
            if unsat[o] or not enabled[o]:
                continue
            kind = op_kind[o]
            if kind == GOAL_OP:
                continue
            val = v  # props are taken in nondecreasing order: the last precondition is the latest
            if kind == AUX:
                pass
            elif kind == START:
                nb = not_before.get(op_action[o], 0)
                val = max(val, t, nb)
            else:
                begin = when[op_started[o]]
                for e in op_early[o]:  # props that hold at the action's start: it starts no earlier
                    if when[e] > begin:
                        begin = when[e]
                end = begin + op_duration[o]
                if end > val:
                    val = end
                if kind == HISTORY:
                    by_history.update(op_add[o])
            for q in op_add[o]:
                if val < when[q]:
                    when[q] = val
                    heappush(heap, (val, q))
    init_set = set(init)
    mk = 0.0
    for p in pre[rt.goal_op]:
        if p in init_set:
            continue
        if when[p] == INF:
            return INF
        if p not in by_history:
            mk = max(mk, when[p])
    return mk


def workload_makespan(available: Sequence[int], work: int) -> int:
    """The least makespan at which grippers free from ``available`` can fit ``work`` TU of gripper time (the least
    m with sum over grippers of max(0, m - free time) >= work)."""
    if work <= 0 or not available:
        return 0
    mk = min(available) + 1
    while sum(max(0, mk - a) for a in available) < work:
        mk += 1
    return mk


__all__ = ["DIGIT", "INF", "RelaxedTask", "bits", "decode", "earliest_makespan", "encode", "hmax", "lmcut",
           "saturated", "workload_makespan"]

"""The relevance filter on ground actions (docs/certification.md, "Reductions" 3) and the possible-contamination
closure it uses. Both work on the compiled task (:mod:`hygiene_pddl.certify.task`)."""

from __future__ import annotations

from collections.abc import Iterable

from hygiene_pddl.certify.task import Cond, GroundAction, Phase, Task


def possible_contamination(task: Task, actions: Iterable[GroundAction]) -> list[int]:
    """Per carrier, the hazards (mask) any execution of ``actions`` (and the ongoing ends) could put there: transfer
    only adds, so the closure of the current contamination over every contact, guard or not, over-approximates
    every schedule."""
    H = task.H
    full = (1 << H) - 1
    carried = [(task.contam >> (c * H)) & full for c in range(len(task.carriers))]
    contacts = [c for a in (*actions, *(g for g, _ in task.ongoing)) for p in (a.start, a.end) for c in p.contacts]
    changed = True
    while changed:
        changed = False
        for c in contacts:
            nb = carried[c.a] & c.cross_ab & ~carried[c.b]
            na = carried[c.b] & c.cross_ba & ~carried[c.a]
            if nb:
                carried[c.b] |= nb
                changed = True
            if na:
                carried[c.a] |= na
                changed = True
    return carried


def _needs(cond: Cond) -> tuple[int, int]:
    """(atoms needed true, atoms needed false) by a condition; a room test needs its counted atoms false (room)
    or true (no room)."""
    pos, neg, rooms = cond
    for mask, _, want in rooms:
        if want:
            neg |= mask
        else:
            pos |= mask
    return pos, neg


def _guard_atoms(p: Phase) -> int:
    out = 0
    for guard in (*(u.guard for u in p.updates), *(c.guard for c in p.contacts), *(t.guard for t in p.treats),
                  *p.broken):
        if guard is not None:
            pos, neg = _needs(guard)
            out |= pos | neg
    return out


def _contact_carriers(p: Phase) -> int:
    out = 0
    for c in p.contacts:
        out |= 1 << c.a | 1 << c.b
    return out


def _transfers(a: GroundAction, H: int) -> Iterable[tuple[int, int, int]]:
    """(source carrier, target carrier, hazards) of each contact direction of ``a`` that can bring hazards onto
    the target without a violation (an exempt contact, or hazards the target is not protected against)."""
    for p in (a.start, a.end):
        for c in p.contacts:
            for src, dst, cross, prot in ((c.a, c.b, c.cross_ab, c.prot_b), (c.b, c.a, c.cross_ba, c.prot_a)):
                if cross & ~prot:
                    yield src, dst, cross & ~prot


def _sources(a: GroundAction, wanted: int, H: int) -> int:
    """The (source, hazard) bits that ``a``'s legal transfers onto ``wanted`` bits read (0: none reach them)."""
    out = 0
    for src, dst, hs in _transfers(a, H):
        hit = (wanted >> (dst * H)) & hs
        out |= hit << (src * H)
    return out


def _protected_sides(task: Task, actions: Iterable[GroundAction], carried: list[int]) -> int:
    """The (carrier, hazard) bits where a non-exempt contact of ``actions`` meets a carrier protected against a
    hazard it may carry (a hazard already there waives that contact's protection)."""
    H = task.H
    out = 0
    for a in actions:
        for p in (a.start, a.end):
            for c in p.contacts:
                out |= (c.prot_b & carried[c.b]) << (c.b * H) | (c.prot_a & carried[c.a]) << (c.a * H)
    return out


def relevant_actions(task: Task) -> list[GroundAction]:
    """The ground actions that can matter for a valid plan.

    An action is relevant when it may add an atom some relevant condition (or a goal) needs true, may delete one
    some relevant condition needs false, or treats a carrier that a relevant contact (or an ongoing end, or a
    (safe x) goal) touches and that may carry a hazard the treatment removes. Its conditions then become needed,
    the atoms its guards read become needed both ways (so every writer of a guard atom is kept and guards read the
    same in the reduced plan), and the carriers its contacts touch become touched. Dropping every other action
    from a valid plan keeps it valid and makes no cost larger (docs/certification.md). An action is relevant, too,
    when a contact of it can legally bring a hazard onto a carrier where a relevant contact may need it (the
    protected side of a relevant contact: one that already carries the hazard is not violated), or onto the source
    of such a transfer: dropping it could make that later contact a violation."""
    need_true, need_false = _needs(task.goal)
    H = task.H
    touched = 0
    unsafe = task.unsafe
    c = 0
    while unsafe:
        if unsafe & ((1 << H) - 1):
            touched |= 1 << c
        unsafe >>= H
        c += 1
    for ga, _ in task.ongoing:
        for cond in (ga.overall, ga.end.cond):
            t, f = _needs(cond)
            need_true, need_false = need_true | t, need_false | f
        g = _guard_atoms(ga.end)
        need_true, need_false = need_true | g, need_false | g
        touched |= _contact_carriers(ga.end)
    carried = possible_contamination(task, task.actions)
    # hazards a kept contact may need on a carrier (a protected side that already carries h breaks no rule there):
    # (carrier, hazard) bits, grown from the protected sides of kept contacts back through the legal transfers
    wanted = _protected_sides(task, (ga for ga, _ in task.ongoing), carried)
    keep: set[int] = set()
    changed = True
    while changed:
        changed = False
        for a in task.actions:
            if a.index in keep:
                continue
            adds = a.start.may_add | a.end.may_add
            dels = a.start.may_del | a.end.may_del
            treats = any(touched >> t.carrier & 1 and carried[t.carrier] & t.removes
                         for p in (a.start, a.end) for t in p.treats)
            if not (adds & need_true or dels & need_false or treats or _sources(a, wanted, H)):
                continue
            keep.add(a.index)
            changed = True
            wanted |= _protected_sides(task, [a], carried)
            grown = wanted
            while True:  # what the kept transfers onto wanted bits need on their sources, through every kept action
                for k in keep:
                    grown |= _sources(task.actions[k], grown, H)
                if grown == wanted:
                    break
                wanted = grown
            for cond in (a.start.cond, a.overall, a.end.cond):
                t, f = _needs(cond)
                need_true, need_false = need_true | t, need_false | f
            g = _guard_atoms(a.start) | _guard_atoms(a.end)
            need_true, need_false = need_true | g, need_false | g
            touched |= _contact_carriers(a.start) | _contact_carriers(a.end)
    return [a for a in task.actions if a.index in keep]


__all__ = ["possible_contamination", "relevant_actions"]

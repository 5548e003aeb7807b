"""Ground happenings applied to a state, exactly as ``replay.World.happen`` applies them (docs/world-model-v2.md §1).

Everything a happening does is read from its pre-state: its conditions, the guards of its contacts, treatments
and updates, what each contact carries across; then literal deletes, then adds; treatment removals, then contact
arrivals (so a hazard a contact brings survives a treatment of the same happening). A checked contact that brings
a hazard onto a carrier protected against it, which the carrier did not carry before, is a violation. The
planners' searches (planners/greedy.py) and the tests use this; the CP-SAT models encode the same rules.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from hygiene_pddl.hygiene import HygieneRules
from hygiene_pddl.instances.model import Carrier
from hygiene_pddl.literals import Atom
from hygiene_pddl.planners.grounding import Cond, GroundAction, Phase, holds

Contamination = set[tuple[Carrier, str]]


class Blocked(Exception):
    """The happening cannot take place here (the message says why)."""


def check(conds: Iterable[Cond], facts: set[Atom], what: str) -> None:
    for cond in conds:
        if not holds(cond, facts):
            raise Blocked(f"{what}: {'' if cond[1] else 'not '}{cond[0]} does not hold")


def apply(rules: HygieneRules, phase: Phase, facts: set[Atom], contam: Contamination, what: str = "") -> set:
    """Apply one happening in place; return the (carrier, hazard) arrivals. :class:`Blocked` when a condition
    fails or a checked contact brings a hazard onto a carrier protected against it."""
    check(phase.conds, facts, what)
    before = frozenset(contam)
    arrivals: set[tuple[Carrier, str]] = set()
    for c in phase.contacts:
        if not all(holds(g, facts) for g in c.guard):
            continue
        for src, dst in ((c.a, c.b), (c.b, c.a)):
            for h in rules.hazards:
                if (src, h) in before and (dst, h) not in before and rules.crosses(h, src, dst):
                    if c.checked and rules.violates(dst, h):
                        raise Blocked(f"{what}: {dst[0]} {dst[1]} would receive {h}")
                    arrivals.add((dst, h))
    removed = {(t.target, h) for t in phase.treats if all(holds(g, facts) for g in t.guard)
               for h in rules.hazards if (t.target, h) in before and rules.removes(t.treatment, t.target, h)}
    effects = list(phase.effects) + [u.effect for u in phase.updates if all(holds(g, facts) for g in u.guard)]
    facts.difference_update(a for a, pos in effects if not pos)
    facts.update(a for a, pos in effects if pos)
    contam.difference_update(removed)
    contam.update(arrivals)
    return arrivals


def run(rules: HygieneRules, facts: set[Atom], contam: Contamination,
        happenings: Sequence[tuple[GroundAction, str]], running: Iterable[GroundAction] = ()) -> None:
    """Apply happenings in order (in place), checking the over-all conditions of every action running in the
    state after each happening: the actions started and not yet ended, and ``running`` ones (history actions
    still running, until their end happening). :class:`Blocked` on the first failure."""
    active = {id(a): a for a in running}
    for a, phase in happenings:
        apply(rules, a.phase(phase), facts, contam, f"{phase} of {a.text()}")
        if phase == "start":
            active[id(a)] = a
        else:
            active.pop(id(a), None)
        for other in active.values():
            check(other.cond_overall, facts, f"over all of {other.text()}")

"""Symmetry reduction for the exact search (docs/certification.md, "Symmetric objects").

Two objects of one type are interchangeable when swapping their names maps the task to itself: the goals, the
static facts and the ground actions (every ground action's image is a ground action with the same costs), and
neither is named by an action still running from the history. The grippers are interchangeable under the same
conditions. Such swaps generate a group of task automorphisms: a state and its image have the same futures up to
renaming, with the same costs. The search keys its closed list by a representative of the state's orbit (objects
of a class sorted by what holds of them), so a state whose image was already expanded with no larger cost is not
expanded again. The initial state need not be symmetric.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from hygiene_pddl.certify.bounds import bits
from hygiene_pddl.certify.task import GroundAction, Task
from hygiene_pddl.literals import Atom


class Symmetry:
    """The interchangeable classes of one task and the renaming of atoms, carriers and actions they induce."""

    def __init__(self, task: Task, actions: Sequence[GroundAction], classes: list[list[str]]):
        self.task = task
        self.classes = classes
        self.symbolic = {o: f"#{i}" for i, cls in enumerate(classes) for o in cls}
        for cls in classes:  # every image of an atom gets a bit (one that is never true if nothing adds it)
            for x in cls:
                for y in cls:
                    ren = {x: y, y: x}
                    for a in list(task.atoms):
                        task.index_atom((a[0], *(ren.get(v, v) for v in a[1:])))
        self.atom_index = {a: i for i, a in enumerate(task.atoms)}
        self.carrier_index = {c: i for i, c in enumerate(task.carriers)}
        self.action_index = {(a.name, a.args): a.index for a in actions}
        self.n_actions = len(actions)
        self.actions = actions
        # per atom / carrier / action: the class members it names (for the per-object keys)
        self.atom_members = [[x for x in a[1:] if x in self.symbolic] for a in task.atoms]
        self.carrier_members = [c[0] if c[0] in self.symbolic else None for c in task.carriers]
        self.action_members = [[x for x in a.args if x in self.symbolic] for a in actions]
        self._maps: dict[tuple, tuple[list[int], list[int], list[int]]] = {}

    def _name(self, x: str) -> str:
        return self.symbolic.get(x, x)

    def renaming(self, facts: int, contam: int, running: Sequence[tuple], now: Sequence[tuple], t: int) -> tuple:
        """The renaming (pairs of old and new names) that sorts each class by what holds of its members in this
        state; the image of the state under it is the state's representative."""
        keys: dict[str, list] = {o: [] for cls in self.classes for o in cls}
        atoms, H = self.task.atoms, self.task.H
        for i in bits(facts):
            for o in self.atom_members[i]:
                keys[o].append(("f", tuple(self._name(x) if x != o else "*" for x in atoms[i])))
        for b in bits(contam):
            c = b // H if H else 0
            o = self.carrier_members[c]
            if o is not None:
                keys[o].append(("c", self.task.carriers[c][1], b % H))
        for r in running:
            key = r[3]
            if key < self.n_actions:
                a = self.actions[key]
                for o in self.action_members[key]:
                    keys[o].append(("r", r[0] - t, a.name, tuple(self._name(x) if x != o else "*" for x in a.args)))
        for ph, key, *_ in now:
            if key < self.n_actions:
                a = self.actions[key]
                for o in self.action_members[key]:
                    keys[o].append(("n", ph, a.name, tuple(self._name(x) if x != o else "*" for x in a.args)))
        renaming = []
        for cls in self.classes:
            order = sorted(cls, key=lambda o: (sorted(keys[o]), o))
            renaming += [(old, new) for old, new in zip(order, cls, strict=True) if old != new]
        return tuple(renaming)

    def image(self, renaming: tuple, facts: int, contam: int, running: Sequence[tuple], now: Sequence[tuple]
              ) -> tuple[int, int, tuple, tuple]:
        """The state's facts, contamination, running and current happenings under a renaming."""
        if not renaming:
            return facts, contam, tuple(running), tuple(now)
        atoms, carriers, acts = self.maps(renaming)
        H = self.task.H
        f = 0
        for i in bits(facts):
            f |= 1 << atoms[i]
        c = 0
        for b in bits(contam):
            c |= 1 << (carriers[b // H] * H + b % H)
        n = self.n_actions
        run = tuple((*r[:3], acts[r[3]] if r[3] < n else r[3], *r[4:]) for r in running)
        cur = tuple((ph, acts[k] if k < n else k, *rest) for ph, k, *rest in now)
        return f, c, run, cur

    def maps(self, renaming: tuple) -> tuple[list[int], list[int], list[int]]:
        """The images of every atom, carrier and action index under a renaming of objects."""
        if renaming not in self._maps:
            ren = dict(renaming)

            def image(a: Atom) -> Atom:
                return (a[0], *(ren.get(x, x) for x in a[1:]))

            atoms = [self.atom_index[image(a)] for a in self.task.atoms]
            carriers = [self.carrier_index[(ren.get(c[0], c[0]), c[1])] for c in self.task.carriers]
            acts = [self.action_index[(a.name, tuple(ren.get(x, x) for x in a.args))] for a in self.actions]
            self._maps[renaming] = (atoms, carriers, acts)
        return self._maps[renaming]


def _image(a: GroundAction, ren: dict[str, str]) -> tuple[str, tuple[str, ...]]:
    return a.name, tuple(ren.get(x, x) for x in a.args)


def interchangeable(task: Task, goals: Iterable[Atom], objects: dict[str, str], grippers: Sequence[str],
                    actions: Sequence[GroundAction], fixed: Iterable[str]) -> list[list[str]]:
    """Classes of interchangeable names (objects of one type, and the grippers), each sorted, of size >= 2.

    A swap of two names is kept when it maps the goals, the static facts and the ground actions (with their costs
    and durations) onto themselves; ``fixed`` names (those an ongoing history action names) are never swapped."""
    goals = set(goals)
    statics = set(task.static)
    by_key = {(a.name, a.args): a for a in actions}
    fixed = set(fixed)

    def swap_ok(x: str, y: str) -> bool:
        ren = {x: y, y: x}

        def image(a: Atom) -> Atom:
            return (a[0], *(ren.get(v, v) for v in a[1:]))

        if {image(g) for g in goals} != goals or {image(s) for s in statics} != statics:
            return False
        for a in actions:
            b = by_key.get(_image(a, ren))
            if b is None or b.additive != a.additive or b.duration != a.duration:
                return False
        return True

    candidates: dict[str, list[str]] = {}
    for o, ty in sorted(objects.items()):
        if o not in fixed:
            candidates.setdefault(ty, []).append(o)
    groups = [members for members in candidates.values() if len(members) > 1]
    if len(grippers) > 1 and not fixed & set(grippers):
        groups.append(sorted(grippers))
    out: list[list[str]] = []
    for members in groups:
        left = list(members)
        while left:
            first, rest = left[0], left[1:]
            cls = [first] + [y for y in rest if swap_ok(first, y)]
            left = [y for y in rest if y not in cls]
            if len(cls) > 1:
                out.append(sorted(cls))
    return out


def close_under(actions: list[GroundAction], every: Sequence[GroundAction], classes: list[list[str]]
                ) -> list[GroundAction]:
    """``actions`` with the image of each under every swap within a class (a superset of relevant actions keeps
    the filter's argument; the closed set lets the renaming map actions to actions)."""
    by_key = {(a.name, a.args): a for a in every}
    keep = {(a.name, a.args) for a in actions}
    changed = True
    while changed:
        changed = False
        for cls in classes:
            for x in cls:
                for y in cls:
                    if x >= y:
                        continue
                    ren = {x: y, y: x}
                    for key in list(keep):
                        img = (key[0], tuple(ren.get(v, v) for v in key[1]))
                        if img not in keep and img in by_key:
                            keep.add(img)
                            changed = True
    return [a for a in every if (a.name, a.args) in keep]


__all__ = ["Symmetry", "close_under", "interchangeable"]

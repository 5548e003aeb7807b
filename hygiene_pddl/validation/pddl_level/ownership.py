"""VAL's mutex rule for one happening: who reads, adds, deletes or updates each fact/fluent.

Every member of a happening (an instantaneous action, a start or end of a durative action, a
timed initial literal, a conditional-effect monitor) is an *actor*. Preconditions are marked
first for all actors, then effects are claimed actor by actor; a claim that clashes with
another actor's use is a mutex violation. `owner None` means "shared by several readers".
"""

from __future__ import annotations

PRE, PPRE, NPRE, ADD, DEL, ASSIGNMENT, DELPRE, ADDNPRE = range(8)
_READ = (PRE, PPRE, NPRE)
_INC_DEC = ("increase", "decrease")


class Ownership:
    """Claims on facts and fluents within one happening; remembers the last conflict."""

    __slots__ = ("props", "fluents", "conflict", "readers")

    def __init__(self) -> None:
        self.props: dict[tuple, tuple[object | None, int]] = {}
        self.fluents: dict[tuple, tuple[object | None, int]] = {}
        self.conflict: tuple[tuple, object | None, str] | None = None
        self.readers: dict[tuple, list[object]] = {}  # for reports only

    def _clash(self, key: tuple, other: object | None, what: str, actor: object) -> bool:
        if other is None:  # shared by readers: name one that is not `actor`
            other = next((r for r in self.readers.get(key, ()) if r is not actor), None)
        self.conflict = (key, other, what)
        return False

    def mark_pre(self, actor: object, key: tuple, kind: int) -> bool:
        """`actor` reads literal `key` (positively PPRE, negatively NPRE, inside or/imply PRE)."""
        self.readers.setdefault(key, []).append(actor)
        cur = self.props.get(key)
        if cur is None:
            self.props[key] = (actor, kind)
            return True
        owner, held = cur
        if held in _READ:
            if owner is not actor:
                self.props[key] = (None, kind)
            return True
        return owner is actor or self._clash(key, owner, "requires", actor)

    def mark_pre_fe(self, actor: object, key: tuple) -> bool:
        """`actor` reads fluent `key`."""
        self.readers.setdefault(key, []).append(actor)
        cur = self.fluents.get(key)
        if cur is None:
            self.fluents[key] = (actor, PRE)
            return True
        owner, held = cur
        if owner is actor:
            return True
        if held == PRE:
            self.fluents[key] = (None, PRE)
            return True
        return self._clash(key, owner, "reads", actor)

    def add(self, actor: object, key: tuple) -> bool:
        """`actor` adds literal `key`."""
        cur = self.props.get(key)
        if cur is None:
            self.props[key] = (actor, ADD)
            return True
        owner, held = cur
        if owner is not actor and held != ADD:
            return self._clash(key, owner, "adds", actor)
        if held in _READ:
            self.props[key] = (owner, ADDNPRE)
            return True
        return held in (DEL, ADD) or self._clash(key, owner, "adds", actor)

    def delete(self, actor: object, key: tuple) -> bool:
        """`actor` deletes literal `key`."""
        cur = self.props.get(key)
        if cur is None:
            self.props[key] = (actor, DEL)
            return True
        owner, held = cur
        if owner is not actor and held != DEL:
            return self._clash(key, owner, "deletes", actor)
        if held in _READ:
            self.props[key] = (owner, DELPRE)
            return True
        return held in (DEL, DELPRE, ADD, ADDNPRE) or self._clash(key, owner, "deletes", actor)

    def update(self, actor: object, key: tuple, op: str) -> bool:
        """`actor` updates fluent `key` with `op` (increase/decrease commute, others do not)."""
        incdec = op in _INC_DEC
        cur = self.fluents.get(key)
        if cur is None:
            self.fluents[key] = (actor, ADD if incdec else ASSIGNMENT)
            return True
        owner, held = cur
        if owner is not actor:
            if held == ADD and incdec:
                self.fluents[key] = (None, ADD)
                return True
            return self._clash(key, owner, "updates", actor)
        if held == PRE:
            self.fluents[key] = (owner, ADD if incdec else ASSIGNMENT)
            return True
        if held == ADD and incdec:
            return True
        return self._clash(key, owner, "updates", actor)

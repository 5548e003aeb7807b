"""Operators compiled into VAL's shape: effect lists per time point, conditions per time point.

VAL keeps effects as lists (adds, deletes, conditional, numeric, forall) and splits a durative
action into a start part, an end part and "conditional effect monitors" for conditional
effects whose condition and effect lie at different time points. We mirror that split,
including its known quirks (documented in docs/validate-json.md, "Known differences").
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hygiene_pddl.pddl import ast

from .world import UnsupportedError


@dataclass
class EffectLists:
    """Effects of one time point in VAL's processing order."""

    adds: list[ast.Atom] = field(default_factory=list)
    dels: list[ast.Atom] = field(default_factory=list)
    conds: list[tuple[ast.Cond, EffectLists]] = field(default_factory=list)
    updates: list[ast.Update] = field(default_factory=list)
    foralls: list[tuple[tuple[ast.Typed, ...], EffectLists]] = field(default_factory=list)
    timed: list[tuple[str, EffectLists]] = field(default_factory=list)

    def plain(self) -> bool:
        """VAL's emptiness test: adds, deletes, foralls or updates (conditionals ignored)."""
        return bool(self.adds or self.dels or self.foralls or self.updates)

    def prepend(self, other: EffectLists) -> None:
        self.adds[:0] = other.adds
        self.dels[:0] = other.dels
        self.foralls[:0] = other.foralls
        self.conds[:0] = other.conds
        self.updates[:0] = other.updates


def compile_effect(e: ast.Effect | None, out: EffectLists | None = None) -> EffectLists:
    """Flatten an effect tree into effect lists (timed parts kept aside in `timed`)."""
    out = out if out is not None else EffectLists()
    if e is None:
        return out
    if isinstance(e, ast.AndEffect):
        for part in e.parts:
            compile_effect(part, out)
    elif isinstance(e, ast.Add):
        out.adds.append(e.atom)
    elif isinstance(e, ast.Delete):
        out.dels.append(e.atom)
    elif isinstance(e, ast.When):
        out.conds.append((e.cond, compile_effect(e.effect)))
    elif isinstance(e, ast.Update):
        if _has_hash_t(e.expr):
            raise UnsupportedError("continuous effects (#t) are not supported")
        out.updates.append(e)
    elif isinstance(e, ast.ForallEffect):
        out.foralls.append((e.params, compile_effect(e.effect)))
    elif isinstance(e, ast.TimedEffect):
        out.timed.append((e.when, compile_effect(e.effect)))
    return out


def _has_hash_t(e: ast.NExpr) -> bool:
    if isinstance(e, ast.HashT):
        return True
    if isinstance(e, ast.BinOp):
        return any(_has_hash_t(a) for a in e.args)
    return isinstance(e, ast.Neg) and _has_hash_t(e.expr)


@dataclass
class Monitor:
    """A conditional effect spanning the action: condition at start/over all, effect at end.

    `quantified` monitors come from a ``forall`` around such a ``when``; VAL leaves their
    conditions unset, so their effects fire for every binding (reproduced here).
    """

    start: list[ast.Cond]
    during: list[ast.Cond]
    end_effects: EffectLists
    params: tuple[ast.Typed, ...] = ()
    quantified: bool = False


@dataclass
class DurativeShape:
    """A durative action split into its two time points."""

    start_conds: list[ast.Cond]
    invariant: list[ast.Cond]
    end_conds: list[ast.Cond]
    start_durations: list[ast.DurationConstraint]
    end_durations: list[ast.DurationConstraint]
    start_effects: EffectLists
    end_effects: EffectLists
    monitors: list[Monitor]


def _split_goals(c: ast.Cond | None, what: str) -> tuple[list, list, list]:
    start: list[ast.Cond] = []
    during: list[ast.Cond] = []
    end: list[ast.Cond] = []
    parts = [c] if c is not None else []
    while parts:
        p = parts.pop(0)
        if isinstance(p, ast.And):
            parts[:0] = list(p.parts)
        elif isinstance(p, ast.TimedCond):
            {ast.AT_START: start, ast.OVER_ALL: during, ast.AT_END: end}[p.when].append(p.cond)
        else:
            raise UnsupportedError(f"untimed condition in {what} (VAL rejects it too)")
    return start, during, end


def _split_timed(raw: EffectLists) -> tuple[EffectLists, EffectLists]:
    """VAL's handleDAeffects: timed blocks to start/end; foralls split recursively."""
    if raw.adds or raw.dels or raw.updates:
        raise UnsupportedError("untimed effect in a durative action (continuous effects "
                               "are not supported)")
    start, end = EffectLists(), EffectLists()
    for when, block in raw.timed:
        (start if when == ast.AT_START else end).prepend(block)
    for params, inner in raw.foralls:
        s, e = _split_timed(inner)
        if s.plain():
            start.foralls.append((params, s))
        if e.plain():
            end.foralls.append((params, e))
    return start, end


def _conditional(cond: ast.Cond, effect: EffectLists, start: EffectLists, end: EffectLists,
                 monitors: list[Monitor], params: tuple[ast.Typed, ...] = ()) -> None:
    """VAL's handleDAConditionalEffects for one ``when`` of a durative action."""
    s_eff, e_eff = _split_timed(effect)
    gs, gi, ge = _split_goals(cond, "a conditional effect")
    if (gi or ge) and s_eff.plain():
        raise UnsupportedError("conditional effect with an over all/at end condition and an "
                               "at start effect (VAL rejects it too)")
    if not e_eff.plain() and not gi and not ge:
        start.conds.append((ast.And(tuple(gs)), s_eff))
        return
    if s_eff.plain():
        start.conds.append((ast.And(tuple(gs)), s_eff))
    if not gs and not gi:
        end.conds.append((ast.And(tuple(ge)), e_eff))
        return
    monitors.append(Monitor(gs, gi, e_eff, params, quantified=bool(params)))


def shape_durative(op: ast.DurativeAction) -> DurativeShape:
    """Split a durative action as VAL does."""
    gs, gi, ge = _split_goals(op.condition, f"durative action '{op.name}'")
    raw = compile_effect(op.effect)
    start, end = _split_timed(raw)
    monitors: list[Monitor] = []
    for cond, eff in raw.conds:
        _conditional(cond, eff, start, end, monitors)
    for params, inner in raw.foralls:
        if not inner.conds:
            continue
        fs, fe = EffectLists(), EffectLists()
        for cond, eff in inner.conds:
            _conditional(cond, eff, fs, fe, monitors, params)
        if fs.conds:
            start.foralls.append((params, fs))
        if fe.conds:
            end.foralls.append((params, fe))
    sd = [d for d in op.duration if d.when != ast.AT_END]
    ed = [d for d in op.duration if d.when == ast.AT_END]
    return DurativeShape(gs, gi, ge, sd, ed, start, end, monitors)


def shape_action(op: ast.Action) -> EffectLists:
    """Effect lists of an instantaneous action (timed effects are not allowed there)."""
    lists = compile_effect(op.effect)
    if lists.timed:
        raise UnsupportedError(f"timed effect in instantaneous action '{op.name}'")
    return lists

"""Execute a plan's happenings with VAL's semantics and report the first failure."""

from __future__ import annotations

from fractions import Fraction

from hygiene_pddl.pddl import ast
from hygiene_pddl.pddl.printer import nexpr as nexpr_text
from hygiene_pddl.plans import Plan

from .effects import EffectLists
from .formulas import Evaluator, State, substitute
from .numeric import Arith, Num, UndefinedValue, decimal_text, val_format
from .ownership import Ownership
from .result import Failure, Reason, Status, TraceEntry, ValidationResult
from .timeline import (
    Actor,
    Event,
    Happening,
    Instance,
    MonitorRun,
    Shapes,
    group,
    til_effects,
    til_label,
)
from .world import World, ground, key_text


def _step(actor: Actor) -> str:
    return f"step {actor.step_index + 1} " if actor.step_index is not None else ""


class _Stop(Exception):
    """Execution stops with this failure."""

    def __init__(self, failure: Failure):
        super().__init__(failure.message)
        self.failure = failure


class _Record:
    __slots__ = ("adds", "dels", "updates")

    def __init__(self) -> None:
        self.adds: list[tuple] = []
        self.dels: list[tuple] = []
        self.updates: list[tuple[tuple, str, Num]] = []


class Engine:
    """Validates plans against one world at one tolerance and arithmetic."""

    def __init__(self, world: World, shapes: Shapes, arith: Arith, tolerance: Fraction):
        self.world = world
        self.shapes = shapes
        self.arith = arith
        self.tolerance = Fraction(tolerance)
        self.tol = arith.num(self.tolerance)
        self.ev = Evaluator(world, arith)

    # ---- building ----------------------------------------------------------------------
    def events(self, plan: Plan, file: str | None = None) -> list[Event]:
        out: list[Event] = []
        for index, (step, exact) in enumerate(zip(plan.steps, plan.start_times(), strict=True)):
            op, binding = self.world.resolve(step, index, file)
            t = self.arith.num(exact)
            label = step.text()
            shape = self.shapes.of(op)
            if isinstance(op, ast.Action):
                conds = [op.precondition] if op.precondition is not None else []
                out.append(Event(Actor(label, "", index), "action", t, exact, len(out),
                                 binding, conds, shape))
                continue
            d_exact = step.duration if step.duration is not None else Fraction(0)
            binding["?duration"] = self.arith.num(d_exact)
            start_actor = Actor(label, "start", index)
            inst = Instance(shape, binding, start_actor, start_time=exact)
            out.append(Event(start_actor, "start", t, exact, len(out), binding,
                             shape.start_conds, shape.start_effects, shape.start_durations,
                             inst))
            out.append(Event(Actor(label, "end", index), "end", t + binding["?duration"],
                             exact + d_exact, len(out), binding, shape.end_conds,
                             shape.end_effects, shape.end_durations, inst))
        for til in self.world.tils:
            out.append(Event(Actor(til_label(til)), "til", self.arith.num(til.time), til.time,
                             len(out), {}, [], til_effects(til.item)))
        return out

    def _monitors(self, inst: Instance) -> list[MonitorRun]:
        runs = []
        for spec in inst.shape.monitors:
            actor = Actor(inst.start_actor.label, "conditional effect",
                          inst.start_actor.step_index)
            if spec.quantified:
                runs += [MonitorRun(spec, {**inst.binding, **q}, actor)
                         for q in self.world.bindings(spec.params)]
            else:
                runs.append(MonitorRun(spec, inst.binding, actor))
        return runs

    # ---- running -----------------------------------------------------------------------
    def run(self, plan: Plan, file: str | None = None, trace: bool = False) -> ValidationResult:
        """Validate `plan`; InputError for steps that do not resolve (unknown action, ...)."""
        happenings = group(self.events(plan, file), self.arith, self.tolerance)
        state = State(set(self.world.init_facts),
                      {k: self.arith.num(v) for k, v in self.world.init_fluents.items()},
                      self.arith.num(0))
        steps = len(plan.steps) + len(self.world.tils)
        log: list[TraceEntry] = []
        snapshot: State | None = None
        active: list[Instance] = []
        makespan = max((h.exact for h in happenings if not h.after_plan), default=None)
        try:
            for i, h in enumerate(happenings):
                self._adjust(h, active)
                self._check(h, state)
                self._apply(h, state, log if trace else None)
                nxt = happenings[i + 1] if i + 1 < len(happenings) else None
                if nxt is not None and active:
                    self._invariants(active, state, h, nxt)
                if nxt is not None and nxt.after_plan and snapshot is None:
                    snapshot = state.copy()
            goal = self.world.problem.goal
            if goal is not None and not self._holds(goal, {}, state, None, "the goal"):
                items = tuple(self.ev.explain(goal, {}, state))
                raise _Stop(Failure(Reason.GOAL, "Goal not satisfied: " + "; ".join(items),
                                    condition=self.ev.text(goal, {}), unsatisfied=items))
            value = self._final_value(snapshot or state, steps)
        except _Stop as stop:
            return ValidationResult(Status.INVALID, self.tolerance, stop.failure, steps=steps,
                                    happenings=len(happenings), trace=tuple(log),
                                    declared_status=plan.status, arithmetic=self.arith.mode,
                                    makespan=makespan)
        metric = self.world.problem.metric
        return ValidationResult(
            Status.VALID, self.tolerance, None, self._metric_fraction(value), val_format(value),
            metric.direction if metric else None, makespan, steps, len(happenings),
            trace=tuple(log), declared_status=plan.status, arithmetic=self.arith.mode)

    def _metric_fraction(self, value: Num) -> Fraction | None:
        """Exact value (exact mode), or the decimal VAL prints (val mode)."""
        if isinstance(value, Fraction):
            return value
        text = val_format(value)
        return None if text in ("nan", "inf", "-inf") else Fraction(text)

    def _final_value(self, state: State, steps: int) -> Num:
        metric = self.world.problem.metric
        if metric is None:
            return self.arith.num(steps)
        total = state.time if self.world.durative else self.arith.num(steps)
        try:
            return self.ev.value(metric.expr, {"total-time": total}, state)
        except UndefinedValue as exc:
            raise _Stop(Failure(Reason.NUMERIC_ERROR, "the metric reads "
                                f"{key_text(exc.key)}, which has no value")) from None
        except ZeroDivisionError:
            raise _Stop(Failure(Reason.NUMERIC_ERROR, "the metric divides by zero")) from None

    def _adjust(self, h: Happening, active: list[Instance]) -> None:
        for e in h.events:
            if e.kind == "start":
                e.instance.monitors = self._monitors(e.instance)
                active.append(e.instance)
            elif e.kind == "end" and e.instance in active:
                active.remove(e.instance)

    def _holds(self, c: ast.Cond, b: dict, state: State, e: Event | None, what: str) -> bool:
        try:
            return self.ev.holds(c, b, state)
        except ZeroDivisionError:
            raise _Stop(Failure(
                Reason.NUMERIC_ERROR, f"{what} divides by zero", e.actor.step_index if e else None,
                e.exact if e else None, e.actor.describe() if e else None,
                self.ev.text(c, b))) from None
        except UndefinedValue as exc:
            raise _Stop(Failure(
                Reason.NUMERIC_ERROR, f"{what} reads {key_text(exc.key)}, which has no value",
                e.actor.step_index if e else None, e.exact if e else None,
                e.actor.describe() if e else None, self.ev.text(c, b))) from None

    def _value(self, x: ast.NExpr, b: dict, state: State, e: Event) -> Num:
        try:
            return self.ev.value(x, b, state)
        except UndefinedValue as exc:
            raise _Stop(Failure(
                Reason.NUMERIC_ERROR, f"{e.actor.describe()} reads {key_text(exc.key)}, "
                "which has no value", e.actor.step_index, e.exact,
                e.actor.describe())) from None
        except ZeroDivisionError:
            raise _Stop(Failure(Reason.NUMERIC_ERROR, f"{e.actor.describe()} divides by zero",
                                e.actor.step_index, e.exact, e.actor.describe())) from None

    # ---- checks ------------------------------------------------------------------------
    def _check(self, h: Happening, state: State) -> None:
        """VAL's canHappen: every member's conditions in the state before the happening. The first failing
        member is VAL's; the advice lists every failing condition of every member (VAL -v lists the first
        member's)."""
        failed: list[tuple[Event, ast.Cond]] = []
        for e in h.events:
            if e.kind == "start":
                for run in e.instance.monitors:
                    if run.spec.start and not run.spec.quantified:
                        run.status = self._holds(ast.And(tuple(run.spec.start)), run.binding,
                                                 state, e, "a conditional effect")
            if not failed:
                for dc in e.durations:
                    self._duration(e, dc, state)
            for c in e.conds:
                if not self._holds(c, e.binding, state, e, "a precondition"):
                    failed.append((e, c))
        if not failed:
            return
        first = failed[0][0]
        several = any(e is not first for e, _ in failed)
        items = tuple(f"{_step(e.actor)}{e.actor.describe()}: {item}" if several else item
                      for e, c in failed for item in self.ev.explain(c, e.binding, state))
        raise _Stop(Failure(
            Reason.PRECONDITION,
            f"Plan failed because of unsatisfied precondition in: {first.actor.describe()}",
            first.actor.step_index, first.exact, first.actor.describe(),
            " and ".join(self.ev.text(c, e.binding) for e, c in failed if e is first), items))

    def _duration(self, e: Event, dc: ast.DurationConstraint, state: State) -> None:
        dur = e.binding["?duration"]
        d = self._value(dc.expr, e.binding, state, e)
        tol = self.tol
        if dc.op == ">=":
            ok = tol >= d - dur
        elif dc.op == "<=":
            ok = dur - d <= tol
        else:
            ok = (dur - d if dur > d else d - dur) < tol
        if ok:
            return
        need = self.arith.to_fraction(d)
        text = f"({dc.op} ?duration {nexpr_text(substitute(dc.expr, e.binding))})"
        verb = {"=": "set the duration to", ">=": "make the duration at least",
                "<=": "make the duration at most"}[dc.op]
        verb = verb.replace("the duration", f"the duration of {_step(e.actor)}{e.actor.label}")
        raise _Stop(Failure(
            Reason.DURATION,
            f"duration {decimal_text(self.arith.to_fraction(dur))} of {e.actor.label} violates "
            f"{text} = {decimal_text(need)} (tolerance {decimal_text(self.tolerance)})",
            e.actor.step_index, e.exact, e.actor.describe(), text,
            (f"{verb} {decimal_text(need)}",)))

    def _invariants(self, active: list[Instance], state: State, h: Happening,
                    nxt: Happening) -> None:
        for inst in active:
            if inst.shape.invariant:
                parts = inst.shape.invariant
                inv = parts[0] if len(parts) == 1 else ast.And(tuple(parts))
                fake = Event(inst.start_actor, "invariant", h.time, h.exact, -1, inst.binding,
                             [], EffectLists())
                if not self._holds(inv, inst.binding, state, fake, "an over all condition"):
                    items = tuple(f"{item} from {decimal_text(h.exact)} to "
                                  f"{decimal_text(nxt.exact)}"
                                  for item in self.ev.explain(inv, inst.binding, state))
                    raise _Stop(Failure(
                        Reason.INVARIANT,
                        f"over all condition of {inst.start_actor.label} (started at "
                        f"{decimal_text(inst.start_time)}) fails between "
                        f"{decimal_text(h.exact)} and {decimal_text(nxt.exact)}",
                        inst.start_actor.step_index, h.exact,
                        f"{inst.start_actor.label} - invariant", self.ev.text(inv, inst.binding),
                        items))
            for run in inst.monitors:
                if run.status and run.spec.during and not run.spec.quantified:
                    fake = Event(run.actor, "invariant", h.time, h.exact, -1, run.binding, [],
                                 EffectLists())
                    run.status = self._holds(ast.And(tuple(run.spec.during)), run.binding,
                                             state, fake, "a conditional effect")

    # ---- effects -----------------------------------------------------------------------
    def _apply(self, h: Happening, state: State, log: list[TraceEntry] | None) -> None:
        """VAL's applyTo: mark preconditions, claim effects (mutex), then enact."""
        own = Ownership()
        mark = len(h.events) > 1
        if mark:
            for e in h.events:
                self._mark(e, own)
        rec = _Record()
        for e in h.events:
            ok = self._effects(e.effects, e.binding, e.actor, own, rec, state, mark, e)
            if ok and e.kind == "end":
                for run in e.instance.monitors:
                    if run.status and not self._effects(run.spec.end_effects, run.binding,
                                                        run.actor, own, rec, state, True, e):
                        ok = False
                        break
            if not ok:
                raise _Stop(self._mutex(e, own, h))
        self._enact(rec, state, h, log)

    def _mark(self, e: Event, own: Ownership) -> None:
        if e.kind == "start":
            for run in e.instance.monitors:
                if run.spec.start and not run.spec.quantified:
                    self.ev.mark(ast.And(tuple(run.spec.start)), run.binding, run.actor, own)
        for c in e.conds:
            self.ev.mark(c, e.binding, e.actor, own)
        for dc in e.durations:
            self.ev.mark_fe(dc.expr, e.binding, e.actor, own)

    def _effects(self, lists: EffectLists, b: dict, actor: Actor, own: Ownership, rec: _Record,
                 state: State, mark: bool, e: Event) -> bool:
        for atom in lists.adds:
            key = ground(atom, b)
            if not own.add(actor, key):
                return False
            rec.adds.append(key)
        for atom in lists.dels:
            key = ground(atom, b)
            if not own.delete(actor, key):
                return False
            rec.dels.append(key)
        for cond, sub in lists.conds:
            if self._holds(cond, b, state, e, "a conditional effect"):
                if (mark and not self.ev.mark(cond, b, actor, own)) or not self._effects(
                        sub, b, actor, own, rec, state, mark, e):
                    return False
        for upd in lists.updates:
            key = ground(upd.fluent, b)
            value = self._value(upd.expr, b, state, e)
            if not self.ev.mark_fe(upd.expr, b, actor, own) or not own.update(actor, key,
                                                                              upd.op):
                return False
            rec.updates.append((key, upd.op, value))
        for params, sub in lists.foralls:
            for q in self.world.bindings(params):
                if not self._effects(sub, {**b, **q}, actor, own, rec, state, mark, e):
                    return False
        return True

    def _mutex(self, e: Event, own: Ownership, h: Happening) -> Failure:
        key, other, what = own.conflict or ((), None, "uses")
        fact = key_text(key) if key else "a shared fact"
        margin = decimal_text(self.tolerance / 10)
        other_event = next((x for x in h.events if x.actor is other), None)
        if isinstance(other, Actor):
            when = f" at {decimal_text(other_event.exact)}" if other_event else ""
            other_desc = f"{_step(other)}{other.describe()}{when}"
        else:
            other_desc = "another member of the happening"
        spread = ""
        if len({x.exact for x in h.events}) > 1:
            spread = (f"; happenings at most tolerance/10 = {margin} apart count as "
                      "simultaneous")
        this = f"{_step(e.actor)}{e.actor.describe()} at {decimal_text(e.exact)}"
        return Failure(
            Reason.MUTEX,
            f"Mutex violation at {decimal_text(h.exact)}: {this} {what} {fact}, which "
            f"{other_desc} also uses{spread}",
            e.actor.step_index, h.exact, e.actor.describe(), key_text(key) if key else None,
            (f"separate {this} from {other_desc} by more than {margin}",),
            other.step_index if isinstance(other, Actor) else None,
            other.describe() if isinstance(other, Actor) else None)

    def _enact(self, rec: _Record, state: State, h: Happening,
               log: list[TraceEntry] | None) -> None:
        facts, fluents = state.facts, state.fluents
        before_facts = set(rec.dels) & facts if log is not None else set()
        before_vals = {k: fluents.get(k) for k, _, _ in rec.updates} if log is not None else {}
        for k in rec.dels:
            facts.discard(k)
        had = {k for k in rec.adds if k in facts} if log is not None else set()
        for k in rec.adds:
            facts.add(k)
        zero = self.arith.num(0)
        for k, op, v in rec.updates:
            cur = fluents.get(k, zero)
            if op == "assign":
                fluents[k] = v
            elif op == "increase":
                fluents[k] = cur + v
            elif op == "decrease":
                fluents[k] = cur - v
            elif op == "scale-up":
                fluents[k] = cur * v
            else:
                fluents[k] = self.arith.div(cur, v)
        state.time = h.time
        if log is None:
            return
        added = sorted(key_text(k) for k in set(rec.adds) - had - before_facts)
        deleted = sorted(key_text(k) for k in before_facts - facts)
        changed = tuple(sorted((key_text(k), self.arith.to_fraction(fluents[k]))
                               for k, old in before_vals.items() if fluents[k] != old))
        log.append(TraceEntry(h.exact, tuple(e.actor.describe() for e in h.events),
                              tuple(added), tuple(deleted), changed))

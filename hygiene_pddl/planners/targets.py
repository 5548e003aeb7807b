"""PDDL for one external planner as shipped: ``hygiene-pddl compile INSTANCE --for PLANNER``.

Each target starts from one of the flavours :mod:`hygiene_pddl.planners.external` gives its engines
(temporal, classical-numeric, classical) and applies the adaptations that planner needs. The planners that
read no conditional effects (LPG-td, TAMER, Aries, OPTIC/POPF) get hygiene-pddl's own lowering
(:mod:`hygiene_pddl.planners.lowering`: conditional effects split into action variants, quantifiers expanded,
the makespan ticks rewritten or left out), and ``optic`` its continuation (:mod:`hygiene_pddl.planners.positive`:
disjunctions split into variants, negative conditions as complement predicates), written by our printer in
about a second; no target goes through unified-planning's compilers. Every adaptation is written in the files'
header comment; docs/external-planners.md has the table and how each was checked.

Variants are named ``pick_0``, ``pick_1``, ...; :meth:`Export.map_back` turns a plan step on those files back
into the compiler's action and arguments, which is what ``hygiene-pddl plan --planner 'cmd:...'`` does with the
planner's plan file.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from compiler.domain import build_domain
from compiler.problem import build_problem, instance_weights
from compiler.render import _env, render_classical, render_instance_domain, render_problem
from compiler.ticks import FINISH
from hygiene_pddl.errors import InputError
from hygiene_pddl.instances.model import Instance
from hygiene_pddl.planners.external import drop_level_args, render_numeric
from hygiene_pddl.planners.lowering import joined_processes, lower
from hygiene_pddl.planners.positive import positive
from hygiene_pddl.registries import Registries
from hygiene_pddl.replay import replay


@dataclass(frozen=True)
class Lowering:
    """How :func:`hygiene_pddl.planners.lowering.lower` treats one target's files."""

    ticks: str  # rewrite | drop
    expand_conditions: bool  # quantifiers in conditions expanded too (those in conditional effects always are)
    binary_sums: bool = False  # the metric's sums nested two terms at a time
    positive: bool = False  # disjunctions split and negative conditions complemented (planners/positive.py)

    def sentences(self) -> list[str]:
        out = ["conditional effects (hazard transfer, treatments, marks) compiled away by hygiene-pddl's own "
               "lowering: each action is split by a decision tree over the literals of its effect conditions, one "
               "variant ACTION_N per leaf with the path's literals as extra conditions and the effects that fire "
               "there; exactly one variant is executable wherever the action is, with the same effects (sound and "
               "complete)",
               "quantifiers inside conditional effects" + (" and conditions" if self.expand_conditions else "")
               + " expanded over the instance's objects, static facts evaluated; objects the domain then names "
               "are its constants"]
        if self.ticks == "rewrite":
            out.append("where the instance declares its makespan with ticks, (finish ?k) needs the tick after ?k "
                       "not yet passed when it happens (every action has ended by then) instead of the "
                       "(tick-marked) effects: the same bound K >= round(last end), without conditional effects")
        else:
            out.append("the makespan ticks and (finish ?k) are left out (they serve the metric only); `hygiene-pddl "
                       "plan` writes the finish step back")
        if self.positive:
            out += ["disjunctive conditions (the protection guards) split into action variants, one per term of the "
                    "condition's disjunctive normal form, contradictory, statically false and contained terms dropped "
                    "(exact at start and at end; an over-all disjunction, where there is one, keeps one disjunct for "
                    "the whole action: sound, not complete, and a lowering line says so)",
                    "negative conditions written as complement predicates not-P (for a fluent P kept up to date by "
                    "every effect and timed literal on P), (not (= a b)) as (distinct a b), listed in the initial "
                    "state for every object tuple P does not hold; no not, or or when is left in any condition"]
        if self.binary_sums:
            out.append("the metric written as nested binary sums (LPG-td reads a + of two terms only)")
        return out


@dataclass(frozen=True)
class Target:
    """One planner's PDDL: the flavour it starts from and what is changed for it."""

    key: str
    reads: str  # who reads the files, as shipped
    flavour: str  # temporal | numeric | classical
    lowering: Lowering | None = None  # hygiene-pddl's own lowering (no target uses unified-planning's compilers)
    metric: str = "no-total-time"  # total-time | no-total-time | drop
    levels: bool = False  # numeric fluents replaced: stocks as discrete levels, cost fluents dropped
    checked: str = ""  # how this target was checked (docs/external-planners.md)
    notes: tuple[str, ...] = field(default=())

    @property
    def plan_kind(self) -> str:
        return "temporal" if self.flavour == "temporal" else "sequential"

    def adaptations(self) -> list[str]:
        """The changes from the committed temporal files, one sentence each."""
        out = list(self.notes)
        if self.lowering:
            out += self.lowering.sentences()
        if self.flavour == "temporal" and self.metric == "no-total-time":
            out.append("the makespan term (total-time) is left out of the metric (the reader cannot take "
                       "(total-time) inside a sum); the other cost terms keep their lexicographic weights")
        if self.levels:
            out.append("stocks are discrete levels (level-STOCK ?n), (minus-N ?a ?b), not numeric fluents; the "
                       "cost fluents are dropped with the metric (the reader makes every fluent real, which "
                       "the planner rejects)")
        if self.metric == "drop":
            out.append("no :metric (the planner rejects this metric): any plan it finds is satisficing")
        if self.lowering:
            out.append("`hygiene-pddl plan --planner cmd:...` maps the variants back to their actions")
        return out


_TEMPORAL = "durative actions, timed initial literals and the deadline as committed"
TARGETS: dict[str, Target] = {t.key: t for t in (
    Target("val", "VAL's Validate and PDDL 2.1 planners that read (total-time) in a metric sum", "temporal",
           metric="total-time", checked="VAL's Parser reads every committed file with zero errors",
           notes=("none: the committed temporal files (" + _TEMPORAL + ")",)),
    Target("up", "unified-planning's PDDLReader (then any UP engine that takes the problem kind)", "temporal",
           checked="PDDLReader reads it and OneshotPlanner(name='hygiene-nsp') solves it: tests/test_up_engines.py"),
    Target("kairos", "Kairos (the kairos command of kairos-planner; up-kairos reads --for up)", "temporal",
           metric="total-time", notes=("none: the kairos command reads the committed temporal files, (total-time) "
                                       "in the metric included",),
           checked="`kairos solve D P` on the file; tests/planners/test_targets.py"),
    Target("lpg", "LPG-td 1.4 (the lpg binary shipped in up-lpg)", "temporal", metric="total-time",
           lowering=Lowering("rewrite", expand_conditions=False, binary_sums=True),
           notes=("the metric is kept, (total-time) included; disjunctions, negative and quantified conditions are "
                  "kept: LPG-td reads them",),
           checked="the up-lpg binary run directly: `lpg -o D -f P -n 1 -out PLAN`; tests/planners/test_targets.py"),
    Target("optic", "OPTIC and POPF2-family temporal planners", "temporal",
           lowering=Lowering("rewrite", expand_conditions=True, binary_sums=True, positive=True),
           notes=("POPF's documentation: no negative or disjunctive preconditions, no conditional effects",),
           checked="OPTIC/POPF not run here (no package on PyPI or Debian); tests/planners/test_positive.py: exact "
                   "per state on a small domain, both readers, a plan carried through the variants and back"),
    Target("tamer", "TAMER (pytamer, through unified-planning's PDDLReader and OneshotPlanner)", "temporal",
           metric="drop", lowering=Lowering("drop", expand_conditions=True),
           notes=("TAMER reads no conditional effects, forall effects or quantified conditions",),
           checked="PDDLReader + OneshotPlanner(name='tamer') with no compiler: tests/planners/test_targets.py"),
    Target("aries", "Aries (up-aries, through unified-planning's PDDLReader and OneshotPlanner)", "temporal",
           metric="drop", levels=True, lowering=Lowering("drop", expand_conditions=True),
           notes=("Aries reads no conditional effects, forall effects, quantified conditions or real fluents",),
           checked="PDDLReader + OneshotPlanner(name='aries') with no compiler: tests/planners/test_targets.py"),
    Target("enhsp", "ENHSP (the enhsp jar shipped in up-enhsp: java -jar enhsp.jar -o D -f P)", "numeric",
           notes=("classical-numeric flavour: instantaneous actions (processes others join are split into "
                  "-start/-end), stocks as numeric fluents, action costs for the lexicographic non-time "
                  "dimensions",),
           checked="the up-enhsp jar run directly; tests/planners/test_targets.py"),
    Target("fast-downward", "Fast Downward and SymK (the fast-downward.py driver shipped in up-fast-downward)",
           "classical",
           notes=("classical flavour: instantaneous actions (processes others join are split into "
                  "-start/-end), stocks as discrete levels, action costs for the lexicographic non-time "
                  "dimensions",),
           checked="the up-fast-downward driver run directly: `fast-downward.py --alias lama-first D P`; "
                   "tests/planners/test_targets.py"),
)}
ALIASES = {"temporal": "val", "popf": "optic", "classical": "fast-downward", "symk": "fast-downward",
           "lama": "fast-downward", "enhsp-opt": "enhsp"}


def target(key: str) -> Target:
    """The target called ``key`` (or an alias such as ``popf``, ``classical``); exit 2 for an unknown one."""
    key = ALIASES.get(key.lower(), key.lower())
    if key not in TARGETS:
        raise InputError(f"unknown PDDL target {key!r}; targets: {', '.join([*TARGETS, *ALIASES])}")
    return TARGETS[key]


@dataclass
class Export:
    """The domain and problem text for one target, and the way back from its plans."""

    target: Target
    domain: str
    problem: str
    adaptations: tuple[str, ...]
    _back: Callable[[str, tuple[str, ...]], tuple[str, tuple[str, ...]]] | None = None

    def map_back(self, name: str, args: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
        """A plan step on these files → the compiler's PDDL action and arguments (``StepMapper`` terms)."""
        return self._back(name, args) if self._back else (name.lower(), tuple(a.lower() for a in args))

    def write(self, out: Path) -> tuple[Path, Path]:
        out.mkdir(parents=True, exist_ok=True)
        paths = out / "domain.pddl", out / "problem.pddl"
        paths[0].write_text(self.domain, encoding="utf-8")
        paths[1].write_text(self.problem, encoding="utf-8")
        return paths


def _header(t: Target, inst: Instance, extra: list[str]) -> str:
    lines = [f"hygiene-pddl compile --for {t.key}: for {t.reads}",
             f"instance {inst.id} (family {inst.family}); decision time t={inst.decision_time} is PDDL time 0",
             *[f"adaptation: {a}" for a in t.adaptations()], f"checked: {t.checked}", *extra]
    return "".join(f"; {line}\n" for line in lines)


def _classical_drops(reg: Registries, inst: Instance) -> list[str]:
    """What the classical flavours leave out of the temporal problem, and why (their header says it)."""
    state = replay(inst, reg)
    view, _, _ = build_problem(reg, inst, state, "temporal")
    timed = len(view.tils) - 1  # the last one ends the deadline
    drops: list[str] = []  # the deadline and durations: compiler.problem.classical_drops, in every classical file
    if timed:
        drops.append(f"dropped: {timed} timed initial literal(s) (a gripper or appliance still busy, a history "
                     "process that ends after t)")
    return drops


def _level_flavour(reg: Registries, inst: Instance) -> tuple[str, str]:
    """The temporal flavour without numeric fluents: stocks as the classical flavour's discrete levels,
    cost fluents and the metric dropped (Aries reads no real fluent and unified-planning reads no integer)."""
    state = replay(inst, reg)
    weights = instance_weights(reg, inst, state)
    classical = build_domain(reg, inst.family, "classical", weights)
    view = build_domain(reg, inst.family, "temporal")
    for a in view.actions:
        if a.name == FINISH:  # the makespan ticks: left out by the lowering with the metric
            continue
        levels, conditions, effects = [], [], []
        for c in a.conditions:
            if m := _STOCK_AT_LEAST.fullmatch(c):
                s, n = m.groups()
                levels += [f"?{s}-before - level", f"?{s}-after - level"]
                conditions += [f"(at start (level-{s} ?{s}-before))", f"(at start (minus-{n} ?{s}-before ?{s}-after))"]
            else:
                conditions.append(c)
        for e in a.effects:
            if m := _STOCK_DECREASE.fullmatch(e):
                s = m.group(1)
                effects += [f"(at start (not (level-{s} ?{s}-before)))", f"(at start (level-{s} ?{s}-after))"]
            elif not _COST_INCREASE.fullmatch(e):
                effects.append(e)
        a.parameters, a.conditions, a.effects = [*a.parameters, *levels], conditions, effects
        if any("(stock-" in x or "(cost-" in x for x in (*a.conditions, *a.effects)):
            raise ValueError(f"{a.name}: a numeric fluent is left in the level flavour")
    view.requirements = [r for r in view.requirements if r != ":numeric-fluents"]
    view.types = [*view.types, "level - object"]
    view.predicates = [*view.predicates, *(p for p in classical.predicates if p.startswith(("(level-", "(minus-")))]
    view.functions = []
    domain = _env().get_template("domain_temporal.pddl.j2").render(d=view)
    problem, _, _ = build_problem(reg, inst, state, "temporal", metric_total_time=False)
    levels_problem, _, _ = build_problem(reg, inst, state, "classical")
    problem.objects += [o for o in levels_problem.objects if o.endswith(" - level")]
    problem.init = ([f for f in problem.init if not f.startswith("(= ")]
                    + [f for f in levels_problem.init if f.startswith(("(level-", "(minus-"))])
    problem.metric = None
    return domain, _env().get_template("problem.pddl.j2").render(p=problem)


_STOCK_AT_LEAST = re.compile(r"\(at start \(>= \(stock-([\w-]+)\) (\d+)\)\)")
_STOCK_DECREASE = re.compile(r"\(at start \(decrease \(stock-([\w-]+)\) \d+\)\)")
_COST_INCREASE = re.compile(r"\(at start \(increase \(cost-[\w-]+\) \d+\)\)")


def _base_text(t: Target, reg: Registries, inst: Instance) -> tuple[str, str]:
    if t.levels:
        return _level_flavour(reg, inst)
    if t.flavour == "temporal":
        problem = render_problem(reg, inst, metric_total_time=t.metric == "total-time")[0]
        return render_instance_domain(reg, inst), problem
    if t.flavour == "numeric":
        return render_numeric(reg, inst)
    domain, problem, _ = render_classical(reg, inst)
    return domain, problem


def _lowered(t: Target, inst: Instance, domain: str, problem: str):  # noqa: ANN202 - (texts, variants, notes)
    from hygiene_pddl.pddl import parse_domain, parse_problem, print_domain, print_problem

    low = lower(parse_domain(domain), parse_problem(problem), t.lowering.ticks, t.lowering.expand_conditions,
                "drop" if t.metric == "drop" else "binary" if t.lowering.binary_sums else "keep")
    if t.lowering.positive:
        low = positive(low)
    notes = [f"lowering: {n}" for n in low.notes]
    joined = joined_processes(low.domain)
    if t.key == "lpg" and joined:
        notes.append(f"warning: {', '.join(joined)} hold an over-all condition on what another durative action adds "
                     "at its start and deletes at its end; LPG-td then splits that action ('USE SPLITTED ACTIONS') "
                     "and prints it under another action's name and arguments (hot_cocoa: a cook printed as a "
                     "pour), which `hygiene-pddl plan` and the validator reject")
    return print_domain(low.domain), print_problem(low.problem), low, notes


def export(key: str, reg: Registries, inst: Instance) -> Export:
    """Domain and problem text for target ``key`` (see :data:`TARGETS`), header comment included."""
    t = target(key)
    domain, problem = _base_text(t, reg, inst)
    extra = _classical_drops(reg, inst) if t.flavour in ("classical", "numeric") else []
    low = None
    if t.lowering:
        domain, problem, low, notes = _lowered(t, inst, domain, problem)
        extra += notes
    consuming = {a.name: len(a.consumes) for a in reg.actions.values()}

    def original(name: str, args: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
        name, args = name.lower(), tuple(a.lower() for a in args)
        if low is not None:
            if name not in low.variants:
                raise InputError(f"the plan step ({name} {' '.join(args)}) names no action of the {t.key} files")
            name, args = low.original(name, args)
        return (name, drop_level_args(args, consuming.get(name, 0))) if t.levels else (name, args)

    head = _header(t, inst, extra)
    return Export(t, head + domain, head + problem, tuple(t.adaptations()) + tuple(extra),
                  original if t.lowering else None)

"""Rule-SAT (paper §V-A): goals read from the natural-language request by fixed rules, then CP-SAT.

The rules never look at the instance's grounded goals. They are a small, fixed grammar over the request
text and the instance's object names and types (docs/planners-compared.md lists them):

* **clauses** (:mod:`hygiene_pddl.planners.request_rules`): ``VERB NP-list [PREP NP]`` with a verb of a
  fixed table (placement verbs, and verbs with a resulting state: "slice" → ``sliced``, "wash" → ``safe``)
  and a destination → ``(at|in|inside X Y)``; "NP must ... clean" and "keep NP clean" → ``(safe X)``;
* **product**: ``[a] V of [hot] P`` or ``P in [the] V`` with a product phrase from :data:`PRODUCTS`
  → that product's predicate on the vessel V ("a mug of hot cocoa" → ``(has-cocoa mug)``);
* **state**: an adjective from :data:`STATES` before a noun ("melted marshmallows" → ``(melted marshmallows)``).

A noun resolves to the instance object with that name, or to the objects whose type has it as a word;
multi-word names are read with spaces ("fruit basket" is ``fruit_basket``). When no rule fires, or a rule
names something that is not an object of the instance (or could be several), or the goal does not type-check
against the registry's predicates, Rule-SAT answers *undetermined* with a note, as the paper's Rule-SAT
does on most instances (no plan). Otherwise the goals replace the grounded
ones and the continuation is planned with the joint CP-SAT model on the fully replayed state, with plain
(unfocused) grounding and no state projection.
"""

from __future__ import annotations

import dataclasses
import re
import time
from dataclasses import dataclass

from hygiene_pddl.hygiene import HygieneRules
from hygiene_pddl.instances.model import Instance
from hygiene_pddl.literals import Atom, atom_text
from hygiene_pddl.planners.base import (
    PlannerInfo,
    PlannerResult,
    PlanStatus,
    no_plan_result,
    register,
    timings_since,
)
from hygiene_pddl.planners.baselines import joint_plan
from hygiene_pddl.planners.goal_grounding import grounding_usage
from hygiene_pddl.planners.request_rules import Unreadable, read_request
from hygiene_pddl.registries import Registries, load_registries
from hygiene_pddl.replay import replay

#: product phrase → predicate that holds of the vessel containing it
PRODUCTS = {"hot cocoa": "has-cocoa", "hot chocolate": "has-cocoa", "cocoa": "has-cocoa"}
#: adjective → predicate that holds of the noun it modifies
STATES = {"melted": "melted", "cooked": "cooked", "filled": "filled"}

_DET = r"(?:(?:the|a|an|my|our|your|this|that|some)\s+)?"
_NOUN = r"([a-z][a-z_-]*)"
_PRODS = "|".join(sorted((re.escape(p) for p in PRODUCTS), key=len, reverse=True))
PRODUCT_OF = re.compile(rf"\b{_NOUN}\s+of\s+(?:hot\s+)?({_PRODS})\b")
PRODUCT_IN = re.compile(rf"\b({_PRODS})\s+(?:in|into)\s+{_DET}{_NOUN}")
STATE = re.compile(rf"\b({'|'.join(STATES)})\s+{_NOUN}")


@dataclass(frozen=True)
class Reading:
    goals: tuple[Atom, ...]
    rules: tuple[str, ...]  # which rule produced each goal, for the notes


def _resolve(reg: Registries, inst: Instance, noun: str) -> str:
    objects = dict(inst.objects)
    for form in (noun, noun[:-1] if noun.endswith("s") else None, noun[:-2] if noun.endswith("es") else None):
        if not form:
            continue
        if form in objects:
            return form
        typed = [o for o, ty in inst.objects if ty == form]
        if len(typed) == 1:
            return typed[0]
        if len(typed) > 1:
            raise Unreadable(f"'{noun}' could be any of {', '.join(typed)}")
    raise Unreadable(f"'{noun}' names no object of this instance (objects: {', '.join(sorted(objects))})")


def _check(reg: Registries, inst: Instance, atom: Atom) -> None:
    kinds = dict(reg.predicates).get(atom[0])
    if kinds is None:
        raise Unreadable(f"predicate {atom[0]} is not in the registry")
    for arg, kind in zip(atom[1:], kinds, strict=True):
        otype = reg.object_types[inst.object_type(arg)]
        if (kind == "item" and not otype.is_item) or (kind == "place" and not otype.is_place):
            raise Unreadable(f"({' '.join(atom)}): {arg} is not a{'n' if kind == 'item' else ''} {kind}")


def read_goals(reg: Registries, inst: Instance) -> Reading:
    """The goals the fixed rules read from ``inst.request`` (raises :class:`Unreadable`)."""
    text = re.sub(r"\s+", " ", inst.request.lower().replace("’", "'"))
    # multi-word names of the instance's objects and types are read as one noun: "fruit basket" → fruit_basket
    for name in sorted({n for pair in inst.objects for n in pair if "_" in n}, key=len, reverse=True):
        text = re.sub(rf"\b{re.escape(name.replace('_', ' '))}\b", name, text)
    found: list[tuple[Atom, str]] = []
    for m in PRODUCT_OF.finditer(text):
        found.append(((PRODUCTS[m.group(2)], _resolve(reg, inst, m.group(1))), f"product '{m.group(0)}'"))
    for m in PRODUCT_IN.finditer(text):
        found.append(((PRODUCTS[m.group(1)], _resolve(reg, inst, m.group(2))), f"product '{m.group(0)}'"))
    for m in STATE.finditer(text):
        found.append(((STATES[m.group(1)], _resolve(reg, inst, m.group(2))), f"state '{m.group(0)}'"))
    found.extend(read_request(reg, inst, text))
    if not found:
        raise Unreadable("no rule matches the request")
    goals: list[Atom] = []
    rules: list[str] = []
    for atom, rule in found:
        _check(reg, inst, atom)
        if atom not in goals:
            goals.append(atom)
            rules.append(rule)
    # deliveries are safe (docs/world-model-v2.md): a delivered item protected against a hazard must be clean
    for atom in HygieneRules(reg, dict(inst.objects), inst.hazards).implied_safe_goals(goals):
        goals.append(atom)
        rules.append("deliveries are safe")
    return Reading(tuple(goals), tuple(rules))


@dataclass
class RuleSat:
    """The paper's rule-based baseline: rule-read goals, full replay, joint CP-SAT (lexicographic)."""

    max_actions: int | None = None  # None: hygiene-nsp's per-instance bound (baselines.joint_plan)
    name: str = "rule-sat"

    def solve(self, inst: Instance, time_limit: float = 30.0, reg: Registries | None = None) -> PlannerResult:
        reg = reg or load_registries()
        t0 = time.perf_counter()
        try:
            reading = read_goals(reg, inst)
        except Unreadable as exc:
            failed = no_plan_result(self.name, reg, inst, PlanStatus.UNDETERMINED,
                                    timings_since(t0, time.perf_counter() - t0),
                                    (f"the rules cannot read the request {inst.request!r}: {exc}",))
            return dataclasses.replace(failed, usage={"grounding": grounding_usage("rules", None, str(exc)),
                                                      "outcome": "failed grounding"})
        note = "goals read from the request: " + ", ".join(
            f"{atom_text(g)} ({r})" for g, r in zip(reading.goals, reading.rules, strict=True))
        read = dataclasses.replace(inst, goals=reading.goals)
        result = joint_plan(self.name, reg, read, replay(inst, reg), time_limit, max_actions=self.max_actions,
                            project=False, focus=False, proves=False, notes=(note,), t0=t0)
        return dataclasses.replace(result, usage={"grounding": grounding_usage("rules", reading.goals)})


register(PlannerInfo("rule-sat", "paper baseline: goals read from the request text by fixed rules (grounded goals "
                     "ignored), full replay, joint CP-SAT (lexicographic)", RuleSat))

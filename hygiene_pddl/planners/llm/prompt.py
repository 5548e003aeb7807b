"""The prompts: Jinja2 templates in ``templates/``, rendered from the public input I_t only (paper eq. 1).

``plan-v1`` asks for a continuation in the VAL plan format (registry action names, each step with its gripper
among its arguments, start time and duration) or an explicit infeasibility judgement, and the estimated cost
vector (paper §I-A). ``ground-v1`` asks for the request's goals as atoms (paper §IV-A). Neither shows the
instance's grounded goals, its id or family, or anything only a replay of the history would reveal.

K is rendered generically from the registry values the instance names (its actions, events, hazards and
treatments, and the object types, protection classes, predicates and stocks they use): every non-empty field
of an entry becomes one line, so a registry entry with new fields reaches the model without a code change.

A template is versioned by its file name; :data:`TEMPLATE_DIGESTS` pins each file's SHA-256, so that editing a
template without giving it a new version fails the tests (cached answers are keyed by the prompt's text, so a
changed template never reuses old answers either way).
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterable
from fractions import Fraction
from functools import cache
from importlib import resources

from hygiene_pddl.costs import DIMENSIONS
from hygiene_pddl.hygiene import HygieneRules
from hygiene_pddl.instances.model import Instance
from hygiene_pddl.literals import atom_text
from hygiene_pddl.registries.model import Registries

#: purpose → the template version in use
TEMPLATES = {"plan": "plan-v1", "ground": "ground-v1"}
#: template version → SHA-256 of its file (a changed template needs a new version)
TEMPLATE_DIGESTS = {
    "plan-v1": "d0479d22f2e9608a9a0fded4b81f7bb731bc1db098a78a8dbf3d85dae9016dff",
    "ground-v1": "10ed18f9e2982902e38c4813df514ad3943f2d1f9aca8ce3a7140c219a7ac607",
}


@cache
def template_source(version: str) -> str:
    return resources.files("hygiene_pddl.planners.llm").joinpath("templates", f"{version}.j2").read_text("utf-8")


def template_digest(version: str) -> str:
    return hashlib.sha256(template_source(version).encode("utf-8")).hexdigest()


@cache
def _template(version: str):  # noqa: ANN202 - a jinja2.Template
    import jinja2

    env = jinja2.Environment(undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True, autoescape=False)
    return env.from_string(template_source(version))


# ------------------------------------------------------------------------------------------ K as text

_SKIP = {"name", "description", "source", "tag"}
#: Fields that name parameters (shown as ?x).
_PARAMETER_FIELDS = {"occupies", "appliances", "sets_horizon", "aborts"}
#: Readable labels for registry fields (others are shown under their own name).
LABELS = {
    "parameters": "parameters", "duration": "duration (TU)", "occupies": "occupies gripper",
    "appliances": "occupies appliance", "capacities": "uses capacity", "cond_start": "condition at start",
    "cond_overall": "condition over all", "cond_end": "condition at end", "eff_start": "effect at start",
    "eff_end": "effect at end", "contacts": "contacts", "treats": "treats", "consumes": "consumes from stock",
    "costs": "costs", "consumes_param": "consumes from stock", "sets_horizon": "sets the deadline to",
    "hazard_class": "class", "transfers": "transfers (from material -> to material)", "removes": "removes",
    "removes_all": "removes every hazard", "aborts": "aborts the action running on",
    "adds_hazard": "adds hazard", "effects": "effect",
}


def _conditions(value: object) -> str:
    """`` if G1 and G2`` and `` for every ?x - kind`` of a guarded, quantified contact or treatment."""
    out = ""
    if getattr(value, "guard", ()):
        out += " if " + " and ".join(str(g) for g in value.guard)  # type: ignore[attr-defined]
    if getattr(value, "forall", ()):
        out += " for every " + ", ".join(f"?{v} - {k}" for v, k in value.forall)  # type: ignore[attr-defined]
    return out


def _text(value: object) -> str:
    """One registry value as compact text (literals, endpoints and contacts by their own notation)."""
    if dataclasses.is_dataclass(value) and type(value).__name__ == "ContactSpec":
        return f"at {value.when}: {value.a} touches {value.b}{_conditions(value)}"  # type: ignore[attr-defined]
    if dataclasses.is_dataclass(value) and type(value).__name__ == "TreatmentUse":
        when = f" at {value.when}" if getattr(value, "when", None) else ""  # type: ignore[attr-defined]
        return f"{value.treatment} on {value.target}{when}{_conditions(value)}"  # type: ignore[attr-defined]
    if dataclasses.is_dataclass(value) and type(value).__name__ == "HazardAddition":
        return f"{value.hazard} appears on {value.target}"  # type: ignore[attr-defined]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if hasattr(value, "__str__") and type(value).__str__ is not object.__str__:
            return str(value)
        return "; ".join(f"{f.name}={_text(getattr(value, f.name))}" for f in dataclasses.fields(value)
                         if getattr(value, f.name) not in ((), None, "", frozenset()))
    if isinstance(value, frozenset | set):
        return ", ".join(sorted(_text(v) for v in value))
    if isinstance(value, tuple | list):
        if value and all(isinstance(v, tuple) and len(v) == 2 for v in value):
            return ", ".join(f"{_text(a)} {_text(b)}" for a, b in value)
        return ", ".join(_text(v) for v in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "any" if value == "*" else str(value)


def entry_lines(entry: object, skip: Iterable[str] = ()) -> list[tuple[str, str]]:
    """(label, text) for every non-empty field of a registry entry, in the entry's field order."""
    out = []
    for f in dataclasses.fields(entry):  # type: ignore[arg-type]
        value = getattr(entry, f.name)
        if f.name in _SKIP or f.name in skip or value in ((), None, "", frozenset(), False):
            continue
        if f.name == "parameters":
            text = " ".join(f"?{p} - {kind}" for p, kind in value)
        elif f.name == "transfers":
            text = ", ".join(f"{_text(a)} -> {_text(b)}" for a, b in sorted(value))
        elif f.name == "removes":
            text = "; ".join(f"{h} from {_text(m)}" for h, m in value)
        elif f.name in _PARAMETER_FIELDS:
            text = ", ".join(f"?{v}" for v in ((value,) if isinstance(value, str) else value))
        elif f.name == "consumes_param":
            text = f"?{value[0]} by ?{value[1]}"
        else:
            text = _text(value)
        out.append((LABELS.get(f.name, f.name.replace("_", " ")), text))
    return out


def _entry(name: str, entry: object, skip: Iterable[str] = ()) -> dict:
    return {"name": name, "description": getattr(entry, "description", ""), "lines": entry_lines(entry, skip)}


def _event_entry(name: str, entry: object) -> dict:
    """An event's entry: its contacts happen at the instant it is observed (no start or end)."""
    out = _entry(name, entry)
    out["lines"] = [(label, text.replace("at start: ", "").replace("at end: ", "") if label == "contacts" else text)
                    for label, text in out["lines"]]
    return out


KIND_TEXT = {"item": "item", "place": "place", "both": "item and place"}


def _t(value: int | Fraction) -> str:
    return str(value) if Fraction(value).denominator == 1 else f"{float(value):.3f}"


def prompt_context(reg: Registries, inst: Instance) -> dict:
    """Everything a template may show, from the public input and the registry entries it names (K)."""
    rules = HygieneRules(reg, dict(inst.objects), inst.hazards)
    known = set(inst.hazards)
    objects, tags = [], set()
    for name, type_name in inst.objects:
        otype = reg.object_types[type_name]
        tags |= set(otype.tags)
        regions = []
        for r in otype.regions:
            tags |= set(r.tags)
            regions.append({"name": r.name, "material": r.material,
                            "protected": sorted(rules.protected((name, r.name)) & known)})
        objects.append({"name": name, "type": type_name, "kind": KIND_TEXT.get(otype.kind, otype.kind),
                        "tags": sorted(otype.tags),
                        "regions": regions, "grasp": list(otype.grasp), "base": otype.base,
                        "surface": otype.surface, "static": list(otype.static),
                        "roles": [{"role": r, "region": g} for r, g in getattr(otype, "roles", ())],
                        "capacity": getattr(otype, "capacity", None),
                        "receives_contaminated": getattr(otype, "receives_contaminated", False)})
    # treatment efficacy restricted to the hazards of this task
    treatments = [_entry(t, dataclasses.replace(reg.treatments[t], removes=tuple(
        (h, mats) for h, mats in reg.treatments[t].removes if h in known))) for t in sorted(inst.treatments)]
    known_events = set(inst.known_events)
    return {
        "request": inst.request,
        "decision_time": inst.decision_time,
        "horizon": inst.horizon,
        "remaining_time": inst.horizon - inst.decision_time,
        "grippers": list(reg.grippers),
        "parts": [{"name": p, "material": m} for p, m in reg.parts],
        "objects": objects,
        "initial_facts": sorted(atom_text(a) for a in inst.initial_facts),
        "initial_hazards": sorted(({"carrier": f"{h.carrier[0]}.{h.carrier[1]}", "hazard": h.hazard}
                                   for h in inst.initial_hazards), key=lambda h: (h["carrier"], h["hazard"])),
        "initial_stocks": [{"stock": s, "amount": n} for s, n in inst.initial_stocks],
        "history": [{"index": r.index, "kind": r.kind, "text": r.text(), "start": _t(r.start), "end": _t(r.end),
                     "duration": _t(r.duration), "note": r.note, "known": r.index in known_events}
                    for r in inst.history],
        "known_events": sorted(known_events),
        "observations": sorted(atom_text(a) for a in inst.observations),
        "resources": [{"stock": s, "amount": n} for s, n in inst.resources],
        "profile": {"name": inst.profile.name, "order": list(inst.profile.order)},
        "dimensions": list(DIMENSIONS),
        "predicates": [{"name": p, "kinds": list(kinds)} for p, kinds in reg.predicates],
        "stocks": list(reg.stocks),
        "actions": [_entry(a, reg.actions[a]) for a in sorted(inst.actions)],
        "events": [_event_entry(e, reg.events[e]) for e in sorted(inst.events)],
        "hazards": [_entry(h, reg.hazards[h]) for h in sorted(inst.hazards)],
        "treatments": treatments,
        "protection": [_entry(tag, reg.protection[tag]) for tag in sorted(tags) if tag in reg.protection],
        "world_rules": world_rules(reg),
    }


def world_rules(reg: Registries) -> list[str]:
    """The registry's robot-wide rules beyond single entries (covering parts, counted capacities, contact
    blockers, delivery predicates), one sentence each."""
    out = [f"While ({worn} ?g) holds, gripper ?g's {cover} covers its {covered}: contacts of ?g.{covered} touch "
           f"its {cover} instead." for cover, covered, worn in getattr(reg, "covers", ())]
    out += [f"({derived} ?c) holds while fewer items ?x are ({counted} ?x ?c) than ?c's capacity."
            for derived, counted in getattr(reg, "counted", ())]
    out += [f"While ({p} ?x) holds, no region of ?x can be touched." for p in getattr(reg, "blocked_by", ())]
    deliveries = getattr(reg, "deliveries", ())
    if deliveries:
        out.append("Delivering an item with a goal " + " or ".join(f"({d} ?x ?d)" for d in deliveries)
                   + " also requires (safe ?x), unless ?d takes contaminated things (listed with the object).")
    return out


def render_prompt(reg: Registries, inst: Instance, purpose: str = "plan") -> str:
    """The prompt text for ``purpose`` (``plan`` or ``ground``); the same input gives the same bytes."""
    version = TEMPLATES[purpose]
    return _template(version).render(version=version, **prompt_context(reg, inst))


def messages(prompt: str) -> list[dict]:
    """The chat messages sent: the whole prompt as one user message (what `hygiene-pddl prompt` prints)."""
    return [{"role": "user", "content": prompt}]

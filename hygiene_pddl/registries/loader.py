"""Load the five registries from YAML, validate them against their JSON Schemas, cross-check names.

Everything is built before anything is returned: a registry with an error is never half-used.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from hygiene_pddl.costs import DIMENSIONS, Profile
from hygiene_pddl.errors import RegistryError
from hygiene_pddl.lexical import TEMPORAL_WORDS, VAL_KEYWORDS
from hygiene_pddl.literals import Literal, parse_literal
from hygiene_pddl.registries.model import (
    WILDCARD,
    ActionSchema,
    ContactSpec,
    Endpoint,
    EventSchema,
    Family,
    Hazard,
    ObjectType,
    Protection,
    RegionSpec,
    Registries,
    Treatment,
    TreatmentUse,
)
from hygiene_pddl.yamlpos import PositionedDocument, StrictValidator

DATA_DIR = Path(__file__).parent / "data"
SCHEMA_DIR = Path(__file__).parent.parent / "schemas"
FILES = ("task_sources", "hygiene_rules", "actions", "events", "profiles")


@functools.cache
def _schema(name: str) -> dict[str, Any]:
    return json.loads((SCHEMA_DIR / f"registry.{name}.schema.json").read_text())


class _Ctx:
    """Error helper bound to one document."""

    def __init__(self, doc: PositionedDocument):
        self.doc = doc

    def fail(self, path: Sequence[str | int], message: str) -> RegistryError:
        return RegistryError(message, self.doc.location(path))


def _validate_schema(doc: PositionedDocument, name: str) -> None:
    validator = StrictValidator(_schema(name))
    errors = sorted(validator.iter_errors(doc.data), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        err = errors[0]
        path = list(err.absolute_path)
        raise RegistryError(f"{err.message} (schema: {err.validator} {err.validator_value!r})"
                            if err.validator not in ("required", "additionalProperties", "enum", "type")
                            else err.message + doc.reading_hint(path), doc.location(path))
    doc.check_magnitudes()


def _literals(ctx: _Ctx, path: list, items: Sequence[str], params: set[str], preds: Mapping) -> tuple:
    out: list[Literal] = []
    for i, text in enumerate(items):
        try:
            lit = parse_literal(text)
        except ValueError as exc:
            raise ctx.fail([*path, i], str(exc)) from None
        if lit.predicate not in preds:
            raise ctx.fail([*path, i], f"unknown predicate {lit.predicate!r}; declared: {sorted(preds)}")
        if len(lit.args) != len(preds[lit.predicate]):
            raise ctx.fail([*path, i], f"{lit.predicate} takes {len(preds[lit.predicate])} arguments, "
                                       f"found {len(lit.args)} in {text!r}")
        for a in lit.args:
            if a.startswith("?") and a[1:] not in params:
                raise ctx.fail([*path, i], f"variable {a} in {text!r} is not a parameter")
        out.append(lit)
    return tuple(out)


def _endpoint(ctx: _Ctx, path: list, text: str, params: Mapping[str, str], parts: set[str]) -> Endpoint:
    try:
        ep = Endpoint.parse(text)
    except ValueError as exc:
        raise ctx.fail(path, str(exc)) from None
    if ep.var not in params:
        raise ctx.fail(path, f"?{ep.var} in {text!r} is not a parameter")
    kind = params[ep.var]
    if kind == "gripper":
        if ep.part not in parts:
            raise ctx.fail(path, f"a gripper endpoint names a part {sorted(parts)}, found {ep.part!r}")
    elif ep.part.startswith("?"):
        if params.get(ep.part[1:]) != "region":
            raise ctx.fail(path, f"{ep.part} in {text!r} must be a region parameter")
    elif not ep.part.startswith("@"):
        raise ctx.fail(path, f"an object endpoint names ?region or @base/@surface, found {ep.part!r}")
    return ep


def _contacts(ctx: _Ctx, path: list, items: Sequence[Mapping], params: Mapping[str, str],
              parts: set[str]) -> tuple[ContactSpec, ...]:
    return tuple(
        ContactSpec(_endpoint(ctx, [*path, i, "a"], c["a"], params, parts),
                    _endpoint(ctx, [*path, i, "b"], c["b"], params, parts), c.get("when", "start"))
        for i, c in enumerate(items))


def _amounts(ctx: _Ctx, path: list, amounts: Mapping[str, int], allowed: Sequence[str]) -> tuple:
    for key in amounts:
        if key not in allowed:
            raise ctx.fail([*path, key], f"unknown name {key!r}; expected one of {list(allowed)}")
    return tuple(sorted(amounts.items()))


def _not_keywords(ctx: _Ctx, data: Mapping, keys: Sequence[str], words: frozenset[str]) -> None:
    """Names that the compiler writes into PDDL must not read as keywords there (VAL's lexer)."""
    for key in keys:
        for name in data[key]:
            if name in words:
                raise ctx.fail([key, name], f"{name!r} is a PDDL keyword (or part of one, as in `at start`); "
                                            f"it cannot name one of the {key}")


def load_registries(data_dir: Path | str | None = None) -> Registries:
    """Load, validate and cross-check the five registries (cached for the packaged data)."""
    if data_dir is None:
        return _load_default()
    return _load(Path(data_dir))


@functools.cache
def _load_default() -> Registries:
    return _load(DATA_DIR)


def _load(data_dir: Path) -> Registries:
    docs: dict[str, PositionedDocument] = {}
    for name in FILES:
        path = data_dir / f"{name}.yaml"
        if not path.exists():
            raise RegistryError(f"missing registry file (expected {FILES})", None)
        doc = PositionedDocument.read(path)
        _validate_schema(doc, name)
        docs[name] = doc

    hyg, hc = docs["hygiene_rules"].data, _Ctx(docs["hygiene_rules"])
    materials = tuple(hyg["materials"])
    mats_ok = set(materials) | {WILDCARD}
    sources = hyg["sources"]
    _not_keywords(hc, hyg, ("hazards", "treatments"), VAL_KEYWORDS | TEMPORAL_WORDS)  # constants in atoms
    hazards: dict[str, Hazard] = {}
    for name, h in hyg["hazards"].items():
        for i, pair in enumerate(h["transfers"]):
            for m in pair:
                if m not in mats_ok:
                    raise hc.fail(["hazards", name, "transfers", i], f"unknown material {m!r}")
        if h["source"] not in sources:
            raise hc.fail(["hazards", name, "source"],
                          f"unknown source {h['source']!r}; expected one of {sorted(sources)}")
        hazards[name] = Hazard(name, h["class"], frozenset(tuple(p) for p in h["transfers"]),
                               h["source"], h.get("description", ""))
    treatments: dict[str, Treatment] = {}
    for name, t in hyg["treatments"].items():
        removes = []
        for hz, mats in t.get("removes", {}).items():
            if hz not in hazards:
                raise hc.fail(["treatments", name, "removes", hz], f"unknown hazard {hz!r}")
            for m in mats:
                if m not in mats_ok:
                    raise hc.fail(["treatments", name, "removes", hz], f"unknown material {m!r}")
            removes.append((hz, frozenset(mats)))
        if t["source"] not in sources:
            raise hc.fail(["treatments", name, "source"], f"unknown source {t['source']!r}")
        treatments[name] = Treatment(name, tuple(sorted(removes, key=lambda r: r[0])),
                                     bool(t.get("removes_all", False)), t["source"], t.get("description", ""))
    protection: dict[str, Protection] = {}
    for tag, p in hyg["protection"].items():
        for i, hz in enumerate(p["against"]):
            if hz not in hazards:
                raise hc.fail(["protection", tag, "against", i], f"unknown hazard {hz!r}")
        if p["source"] not in sources:
            raise hc.fail(["protection", tag, "source"], f"unknown source {p['source']!r}")
        protection[tag] = Protection(tag, frozenset(p["against"]), p["source"], p.get("description", ""))

    act, ac = docs["actions"].data, _Ctx(docs["actions"])
    grippers = tuple(act["robot"]["grippers"])
    parts = tuple((p, v["material"]) for p, v in act["robot"]["parts"].items())
    for p, m in parts:
        if m not in materials:
            raise ac.fail(["robot", "parts", p, "material"], f"unknown material {m!r}")
    part_names = {p for p, _ in parts}
    preds = {k: tuple(v) for k, v in act["predicates"].items()}
    _not_keywords(ac, act, ("predicates", "actions"), VAL_KEYWORDS)  # written into PDDL as they are
    stocks = tuple(act["stocks"])
    actions: dict[str, ActionSchema] = {}
    for name, a in act["actions"].items():
        base = ["actions", name]
        params = {p: t for p, t in a["parameters"]}
        if len(params) != len(a["parameters"]):
            raise ac.fail([*base, "parameters"], "parameter names must be distinct")
        for key, kind in (("occupies", "gripper"), ("appliances", "place")):
            for i, v in enumerate(a.get(key, [])):
                if params.get(v) != kind:
                    raise ac.fail([*base, key, i], f"{v!r} must be a {kind} parameter")
        cond, eff = a.get("condition", {}), a.get("effect", {})
        treats = None
        if "treats" in a:
            if a["treats"]["treatment"] not in treatments:
                raise ac.fail([*base, "treats", "treatment"],
                              f"unknown treatment {a['treats']['treatment']!r}; expected one of {sorted(treatments)}")
            treats = TreatmentUse(_endpoint(ac, [*base, "treats", "target"], a["treats"]["target"], params,
                                            part_names), a["treats"]["treatment"])
        actions[name] = ActionSchema(
            name=name, parameters=tuple((p, t) for p, t in a["parameters"]), duration=a["duration"],
            occupies=tuple(a.get("occupies", [])), appliances=tuple(a.get("appliances", [])),
            capacities=tuple(a.get("capacities", [])),
            cond_start=_literals(ac, [*base, "condition", "at_start"], cond.get("at_start", []), set(params), preds),
            cond_overall=_literals(ac, [*base, "condition", "over_all"], cond.get("over_all", []), set(params), preds),
            cond_end=_literals(ac, [*base, "condition", "at_end"], cond.get("at_end", []), set(params), preds),
            eff_start=_literals(ac, [*base, "effect", "at_start"], eff.get("at_start", []), set(params), preds),
            eff_end=_literals(ac, [*base, "effect", "at_end"], eff.get("at_end", []), set(params), preds),
            contacts=_contacts(ac, [*base, "contacts"], a.get("contacts", []), params, part_names),
            treats=treats,
            consumes=_amounts(ac, [*base, "consumes"], a.get("consumes", {}), stocks),
            costs=_amounts(ac, [*base, "costs"], a.get("costs", {}), DIMENSIONS[:8]),
            description=a.get("description", ""))

    ev, ec = docs["events"].data, _Ctx(docs["events"])
    events: dict[str, EventSchema] = {}
    for name, e in ev["events"].items():
        params = {p: t for p, t in e["parameters"]}
        for key in ("consumes_param",):
            for v in e.get(key, []):
                if v not in params:
                    raise ec.fail(["events", name, key], f"{v!r} is not a parameter")
        if "sets_horizon" in e and params.get(e["sets_horizon"]) != "time":
            raise ec.fail(["events", name, "sets_horizon"], "must name a time parameter")
        events[name] = EventSchema(
            name, tuple((p, t) for p, t in e["parameters"]),
            _contacts(ec, ["events", name, "contacts"], e.get("contacts", []), params, part_names),
            tuple(e["consumes_param"]) if "consumes_param" in e else None, e.get("sets_horizon"),
            e.get("description", ""))

    pc = _Ctx(docs["profiles"])
    profiles: dict[str, Profile] = {}
    for name, p in docs["profiles"].data["profiles"].items():
        try:
            profiles[name] = Profile.from_prefix(name, p["order"])
        except ValueError as exc:
            raise pc.fail(["profiles", name, "order"], str(exc)) from None

    ts, tc = docs["task_sources"].data, _Ctx(docs["task_sources"])
    object_types: dict[str, ObjectType] = {}
    for name, o in ts["object_types"].items():
        base = ["object_types", name]
        regions = []
        for r, spec in o["regions"].items():
            if spec["material"] not in materials:
                raise tc.fail([*base, "regions", r, "material"], f"unknown material {spec['material']!r}")
            for tag in spec.get("tags", []):
                if tag not in protection:
                    raise tc.fail([*base, "regions", r, "tags"], f"unknown protection tag {tag!r}")
            regions.append(RegionSpec(r, spec["material"], frozenset(spec.get("tags", []))))
        for tag in o.get("tags", []):
            if tag not in protection:
                raise tc.fail([*base, "tags"], f"unknown protection tag {tag!r}; expected one of {sorted(protection)}")
        for key in ("base", "surface"):
            if key in o and o[key] not in o["regions"]:
                raise tc.fail([*base, key], f"{o[key]!r} is not a region of {name}")
        for i, g in enumerate(o.get("grasp", [])):
            if g not in o["regions"]:
                raise tc.fail([*base, "grasp", i], f"{g!r} is not a region of {name}")
        if o["kind"] in ("item", "both") and (not o.get("grasp") or "base" not in o):
            raise tc.fail(base, "an item needs grasp regions and a base region")
        if o["kind"] in ("place", "both") and "surface" not in o:
            raise tc.fail(base, "a place needs a surface region")
        for i, pred in enumerate(o.get("static", [])):
            if len(preds.get(pred, ())) != 1:
                raise tc.fail([*base, "static", i], f"{pred!r} must be a declared one-argument predicate")
        object_types[name] = ObjectType(name, o["kind"], tuple(regions), frozenset(o.get("tags", [])),
                                        tuple(o.get("grasp", [])), o.get("base"), o.get("surface"),
                                        tuple(o.get("static", [])))
    families: dict[str, Family] = {}
    for name, f in ts["families"].items():
        base = ["families", name]
        if f["activity_group"] not in ts["activity_groups"]:
            raise tc.fail([*base, "activity_group"], f"unknown activity group; expected one of {ts['activity_groups']}")
        if f["household_area"] not in ts["household_areas"]:
            raise tc.fail([*base, "household_area"], f"unknown household area; expected one of {ts['household_areas']}")
        for key, known in (("actions", actions), ("hazards", hazards), ("events", events)):
            for i, v in enumerate(f.get(key, [])):
                if v not in known:
                    raise tc.fail([*base, key, i], f"unknown {key[:-1]} {v!r}")
        for role, otype in f["object_roles"].items():
            if otype not in object_types:
                raise tc.fail([*base, "object_roles", role], f"unknown object type {otype!r}")
        families[name] = Family(name, f["source_activity"], f["service_goal"], f["activity_group"],
                                f["household_area"], tuple(sorted(f["object_roles"].items())),
                                tuple(f["actions"]), tuple(f.get("hazards", [])), tuple(f.get("events", [])),
                                f.get("kind", "first_family"), tuple(f.get("requests", [])))

    return Registries(
        grippers=grippers, parts=parts, predicates=tuple(sorted(preds.items())), stocks=stocks,
        materials=materials, sources=tuple(sorted(sources.items())), hazards=hazards, treatments=treatments,
        protection=protection, object_types=object_types, actions=actions, events=events, profiles=profiles,
        families=families, activity_groups=tuple(ts["activity_groups"]),
        household_areas=tuple(ts["household_areas"]))

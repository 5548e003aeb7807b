"""Load the five registries from YAML, validate them against their JSON Schemas, cross-check names.

Everything is built before anything is returned: a registry with an error is never half-used.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from hygiene_pddl.costs import DIMENSIONS, Profile
from hygiene_pddl.errors import RegistryError
from hygiene_pddl.lexical import TEMPORAL_WORDS, VAL_KEYWORDS
from hygiene_pddl.literals import Literal, parse_literal
from hygiene_pddl.registries.model import (
    ROLES,
    WILDCARD,
    ActionSchema,
    ContactSpec,
    Endpoint,
    EventSchema,
    Family,
    Hazard,
    HazardAddition,
    ObjectType,
    Protection,
    RegionSpec,
    Registries,
    Treatment,
    TreatmentUse,
    Update,
)
from hygiene_pddl.yamlpos import PositionedDocument, StrictValidator

DATA_DIR = Path(__file__).parent / "data"
SCHEMA_DIR = Path(__file__).parent.parent / "schemas"
FILES = ("task_sources", "hygiene_rules", "actions", "events", "profiles")


@functools.cache
def _schema(name: str) -> dict[str, Any]:
    return json.loads((SCHEMA_DIR / f"registry.{name}.schema.json").read_text())


class _Ctx:
    """Error helper bound to one document; ``grippers``: the robot's grippers, which its literals may name."""

    def __init__(self, doc: PositionedDocument, grippers: Sequence[str] = ()):
        self.doc = doc
        self.grippers = tuple(grippers)

    def fail(self, path: Sequence[str | int], message: str) -> RegistryError:
        return RegistryError(message, self.doc.location(path))


def _validate_schema(doc: PositionedDocument, name: str) -> None:
    _validate(doc, _schema(name))


def _validate_object_types(doc: PositionedDocument) -> None:
    """An object-type catalogue file: a mapping of names to task_sources.yaml's object-type schema."""
    _validate(doc, _schema("task_sources")["properties"]["object_types"])


def _validate(doc: PositionedDocument, schema: Mapping[str, Any]) -> None:
    validator = StrictValidator(schema)
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
        for a, kind in zip(lit.args, preds[lit.predicate], strict=True):
            if a.startswith("?") and a[1:] not in params:
                raise ctx.fail([*path, i], f"variable {a} in {text!r} is not a parameter")
            if kind == "gripper" and not a.startswith("?") and a not in ctx.grippers:
                raise ctx.fail([*path, i], f"{lit} names {a!r}, which is not one of the robot's grippers "
                                           f"{list(ctx.grippers)}")
        out.append(lit)
    return tuple(out)


OBJECT_KINDS = ("item", "place", "thing")


def _endpoint(ctx: _Ctx, path: list, text: str, params: Mapping[str, str], parts: set[str],
              every: bool = False) -> Endpoint:
    """Check one endpoint against the parameters (and quantified variables) in scope; ``every`` allows ``?x.*``."""
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
    elif kind not in OBJECT_KINDS:
        raise ctx.fail(path, f"?{ep.var} in {text!r} must be a gripper or object parameter, not a {kind}")
    elif ep.every_region:
        if not every:
            raise ctx.fail(path, f"?{ep.var}.* (every region) is only a treatment target, found in {text!r}")
    elif ep.part.startswith("?"):
        if params.get(ep.part[1:]) != "region":
            raise ctx.fail(path, f"{ep.part} in {text!r} must be a region parameter")
    elif not ep.part.startswith("@"):
        raise ctx.fail(path, f"an object endpoint names ?region, @role or *, found {ep.part!r}")
    return ep


def _binder(ctx: _Ctx, path: list, items: Sequence[Sequence[str]], params: Mapping[str, str]) -> tuple:
    """Quantified variables ``[[y, item], ...]``: object kinds, names distinct from the parameters."""
    out = []
    for i, (var, kind) in enumerate(items):
        if kind not in OBJECT_KINDS:
            raise ctx.fail([*path, i], f"a quantified variable ranges over {list(OBJECT_KINDS)}, found {kind!r}")
        if var in params or var in dict(out):
            raise ctx.fail([*path, i], f"quantified variable {var!r} repeats a parameter or another variable")
        out.append((var, kind))
    return tuple(out)


def _contacts(ctx: _Ctx, path: list, items: Sequence[Mapping], params: Mapping[str, str],
              parts: set[str], preds: Mapping) -> tuple[ContactSpec, ...]:
    out = []
    for i, c in enumerate(items):
        forall = _binder(ctx, [*path, i, "forall"], c.get("forall", []), params)
        scope = {**params, **dict(forall)}
        out.append(ContactSpec(_endpoint(ctx, [*path, i, "a"], c["a"], scope, parts),
                               _endpoint(ctx, [*path, i, "b"], c["b"], scope, parts), c.get("when", "start"),
                               _literals(ctx, [*path, i, "if"], c.get("if", []), set(scope), preds), forall,
                               bool(c.get("exempt", False))))
    return tuple(out)


def _no_contact_on_treated(ctx: _Ctx, base: list, contacts: Sequence[ContactSpec],
                           treats: Sequence[TreatmentUse]) -> None:
    """A contact and a treatment on one carrier at one time point would clean a carrier that was already dirty and
    leave dirty one that was clean (a contact adds only what the target lacks; docs/world-model-v2.md §1)."""
    for t in treats:
        for c in contacts:
            if c.when == t.when and any((e.var, e.part) == (t.target.var, t.target.part) for e in (c.a, c.b)):
                raise ctx.fail([*base, "treats"], f"treats {t.target.var}.{t.target.part} at its {t.when}, when a "
                               "contact touches it too: put the contact at the other time point")


def _treats(ctx: _Ctx, path: list, spec: Mapping | Sequence[Mapping] | None, params: Mapping[str, str],
            parts: set[str], preds: Mapping, treatments: Mapping) -> tuple[TreatmentUse, ...]:
    """``treats``: one mapping (the v1 form) or a list of them."""
    if spec is None:
        return ()
    items, paths = ([spec], [path]) if isinstance(spec, Mapping) else (list(spec), [[*path, i] for i in
                                                                                   range(len(spec))])
    out = []
    for t, where in zip(items, paths, strict=True):
        if t["treatment"] not in treatments:
            raise ctx.fail([*where, "treatment"],
                           f"unknown treatment {t['treatment']!r}; expected one of {sorted(treatments)}")
        forall = _binder(ctx, [*where, "forall"], t.get("forall", []), params)
        scope = {**params, **dict(forall)}
        out.append(TreatmentUse(_endpoint(ctx, [*where, "target"], t["target"], scope, parts, every=True),
                                t["treatment"], t.get("when", "end"),
                                _literals(ctx, [*where, "if"], t.get("if", []), set(scope), preds), forall))
    return tuple(out)


def _updates(ctx: _Ctx, path: list, items: Sequence[Mapping], params: Mapping[str, str],
             preds: Mapping) -> tuple[Update, ...]:
    out = []
    for i, u in enumerate(items):
        forall = _binder(ctx, [*path, i, "forall"], u.get("forall", []), params)
        scope = set(params) | {v for v, _ in forall}
        out.append(Update(_literals(ctx, [*path, i, "effect"], u["effect"], scope, preds), u.get("when", "end"),
                          _literals(ctx, [*path, i, "if"], u.get("if", []), scope, preds), forall))
    return tuple(out)


def _covered(contacts: Sequence[ContactSpec], params: Mapping[str, str],
             covers: Sequence[tuple[str, str, str]]) -> tuple[ContactSpec, ...]:
    """M3: a contact through a covered gripper part becomes two guarded contacts, through the part while the
    cover is off and through the covering part while it is on (docs/world-model-v2.md)."""
    out = list(contacts)
    for covering, covered, worn in covers:
        for side in ("a", "b"):
            nxt = []
            for c in out:
                ep = getattr(c, side)
                if params.get(ep.var) != "gripper" or ep.part != covered:
                    nxt.append(c)
                    continue
                flag = Literal((worn, f"?{ep.var}"))
                nxt.append(replace(c, guard=(*c.guard, Literal(flag.atom, False))))
                nxt.append(replace(c, **{side: Endpoint(ep.var, covering)}, guard=(*c.guard, flag)))
            out = nxt
    return tuple(out)


def _blocking(contacts: Sequence[ContactSpec], params: Mapping[str, str], blockers: Sequence[str],
              when: str) -> tuple[Literal, ...]:
    """M4: ``(not (b ?o))`` for every blocker b and object parameter ?o a contact at ``when`` touches."""
    out: list[Literal] = []
    for c in contacts:
        if c.when != when:
            continue
        for ep in (c.a, c.b):
            if params.get(ep.var) in OBJECT_KINDS:
                for b in blockers:
                    lit = Literal((b, f"?{ep.var}"), False)
                    if lit not in out:
                        out.append(lit)
    return tuple(out)


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


#: Environment variable naming the registry folder every command uses when none is given (``--data DIR`` sets it,
#: so that bench workers and other child processes see the same registries).
DATA_ENV = "HYGIENE_PDDL_DATA"


def default_data_dir() -> Path:
    """The registry folder used when none is given: $HYGIENE_PDDL_DATA, else the packaged data."""
    return Path(os.environ.get(DATA_ENV) or DATA_DIR)


def load_registries(data_dir: Path | str | None = None) -> Registries:
    """Load, validate and cross-check the five registries (cached per folder)."""
    return _load_cached(Path(data_dir).resolve() if data_dir is not None else default_data_dir().resolve())


@functools.cache
def _load_cached(data_dir: Path) -> Registries:
    return _load(data_dir)


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

    act = docs["actions"].data
    grippers = tuple(act["robot"]["grippers"])
    ac = _Ctx(docs["actions"], grippers)
    parts = tuple((p, v["material"]) for p, v in act["robot"]["parts"].items())
    for p, m in parts:
        if m not in materials:
            raise ac.fail(["robot", "parts", p, "material"], f"unknown material {m!r}")
    part_names = {p for p, _ in parts}
    preds = {k: tuple(v) for k, v in act["predicates"].items()}
    _not_keywords(ac, act, ("predicates", "actions"), VAL_KEYWORDS)  # written into PDDL as they are
    covers = []
    for p, v in act["robot"]["parts"].items():
        if ("covers" in v) != ("while" in v):
            raise ac.fail(["robot", "parts", p], "a covering part names both the part it `covers` and `while`")
        if "covers" in v:
            if v["covers"] not in part_names or v["covers"] == p:
                raise ac.fail(["robot", "parts", p, "covers"], f"{v['covers']!r} is not another gripper part")
            if preds.get(v["while"]) != ("gripper",):
                raise ac.fail(["robot", "parts", p, "while"], f"{v['while']!r} must be a predicate of one gripper")
            covers.append((p, v["covers"], v["while"]))
    counted = []
    for derived, pred in act.get("counted", {}).items():
        if len(preds.get(derived, ())) != 1 or len(preds.get(pred, ())) != 2:
            raise ac.fail(["counted", derived], f"{derived!r} must be a declared one-argument predicate and "
                                                f"{pred!r} a declared two-argument one (what it counts)")
        counted.append((derived, pred))
    blockers = tuple(act.get("blocked_by", []))
    for i, b in enumerate(blockers):
        if len(preds.get(b, ())) != 1:
            raise ac.fail(["blocked_by", i], f"{b!r} must be a declared one-argument predicate")
    deliveries = tuple(act.get("deliveries", ["at"]))
    for i, d in enumerate(deliveries):
        if len(preds.get(d, ())) != 2:
            raise ac.fail(["deliveries", i], f"{d!r} must be a declared two-argument predicate")
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
        contacts = _covered(_contacts(ac, [*base, "contacts"], a.get("contacts", []), params, part_names, preds),
                            params, covers)

        treats = _treats(ac, [*base, "treats"], a.get("treats"), params, part_names, preds, treatments)
        _no_contact_on_treated(ac, base, contacts, treats)

        def literals(key: str, group: Mapping, sub: str) -> tuple:
            return _literals(ac, [*base, key, sub], group.get(sub, []), set(params), preds)  # noqa: B023

        actions[name] = ActionSchema(
            name=name, parameters=tuple((p, t) for p, t in a["parameters"]), duration=a["duration"],
            occupies=tuple(a.get("occupies", [])), appliances=tuple(a.get("appliances", [])),
            capacities=tuple(a.get("capacities", [])),
            cond_start=literals("condition", cond, "at_start") + _blocking(contacts, params, blockers, "start"),
            cond_overall=literals("condition", cond, "over_all"),
            cond_end=literals("condition", cond, "at_end") + _blocking(contacts, params, blockers, "end"),
            eff_start=literals("effect", eff, "at_start"), eff_end=literals("effect", eff, "at_end"),
            contacts=contacts,
            treats=treats,
            updates=_updates(ac, [*base, "updates"], a.get("updates", []), params, preds),
            consumes=_amounts(ac, [*base, "consumes"], a.get("consumes", {}), stocks),
            costs=_amounts(ac, [*base, "costs"], a.get("costs", {}), DIMENSIONS[:8]),
            description=a.get("description", ""))

    ev, ec = docs["events"].data, _Ctx(docs["events"], grippers)
    events: dict[str, EventSchema] = {}
    for name, e in ev["events"].items():
        base = ["events", name]
        params = {p: t for p, t in e["parameters"]}
        for key in ("consumes_param",):
            for v in e.get(key, []):
                if v not in params:
                    raise ec.fail([*base, key], f"{v!r} is not a parameter")
        if "sets_horizon" in e and params.get(e["sets_horizon"]) != "time":
            raise ec.fail([*base, "sets_horizon"], "must name a time parameter")
        if "aborts" in e and params.get(e["aborts"]) != "place":
            raise ec.fail([*base, "aborts"], "must name a place parameter (the appliance whose action is aborted)")
        additions = []
        for i, add in enumerate(e.get("adds_hazard", [])):
            hz = add["hazard"]
            if (hz.startswith("?") and params.get(hz[1:]) != "hazard") or (not hz.startswith("?") and hz not in
                                                                              hazards):
                raise ec.fail([*base, "adds_hazard", i, "hazard"], f"{hz!r} must be a hazard or a hazard parameter")
            additions.append(HazardAddition(_endpoint(ec, [*base, "adds_hazard", i, "target"], add["target"], params,
                                                      part_names), hz))
        events[name] = EventSchema(
            name, tuple((p, t) for p, t in e["parameters"]),
            _covered(_contacts(ec, [*base, "contacts"], e.get("contacts", []), params, part_names, preds), params,
                     covers),
            tuple(e["consumes_param"]) if "consumes_param" in e else None, e.get("sets_horizon"),
            e.get("description", ""), e.get("aborts"), tuple(additions),
            _literals(ec, [*base, "effect"], e.get("effect", []), set(params), preds))

    pc = _Ctx(docs["profiles"])
    profiles: dict[str, Profile] = {}
    for name, p in docs["profiles"].data["profiles"].items():
        try:
            profiles[name] = Profile.from_prefix(name, p["order"])
        except ValueError as exc:
            raise pc.fail(["profiles", name, "order"], str(exc)) from None

    ts, tc0 = docs["task_sources"].data, _Ctx(docs["task_sources"])
    object_types: dict[str, ObjectType] = {}
    # object types: task_sources.yaml's, then one file per catalogue in object_types/ (name -> type spec)
    catalogues = [(tc0, ["object_types"], ts["object_types"])]
    for path in sorted((data_dir / "object_types").glob("*.yaml")) if (data_dir / "object_types").is_dir() else []:
        doc = PositionedDocument.read(path)
        _validate_object_types(doc)
        catalogues.append((_Ctx(doc), [], doc.data or {}))
    for tc, prefix, name, o in ((c, pre, n, o) for c, pre, items in catalogues for n, o in items.items()):
        base = [*prefix, name]
        if name in object_types:
            raise tc.fail(base, f"object type {name!r} is defined twice")
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
        for role, region in o.get("roles", {}).items():
            if role not in ROLES or role in ("base", "surface"):
                raise tc.fail([*base, "roles", role], f"unknown region role {role!r}; further roles are "
                                                      f"{[r for r in ROLES if r not in ('base', 'surface')]}")
            if region not in o["regions"]:
                raise tc.fail([*base, "roles", role], f"{region!r} is not a region of {name}")
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
        # a declared one-argument predicate named after a protection tag is static: true of every object whose
        # type carries the tag (cook-food's (ingestible ?f))
        tag_static = tuple(t for t in sorted(o.get("tags", [])) if len(preds.get(t, ())) == 1)
        object_types[name] = ObjectType(name, o["kind"], tuple(regions), frozenset(o.get("tags", [])),
                                        tuple(o.get("grasp", [])), o.get("base"), o.get("surface"),
                                        (*o.get("static", []), *tag_static), tuple(sorted(o.get("roles", {}).items())),
                                        o.get("capacity"))
    families: dict[str, Family] = {}
    for name, f in ts["families"].items():
        base = ["families", name]
        if f["activity_group"] not in ts["activity_groups"]:
            raise tc0.fail([*base, "activity_group"],
                           f"unknown activity group; expected one of {ts['activity_groups']}")
        if f["household_area"] not in ts["household_areas"]:
            raise tc0.fail([*base, "household_area"],
                           f"unknown household area; expected one of {ts['household_areas']}")
        for key, known in (("actions", actions), ("hazards", hazards), ("events", events)):
            for i, v in enumerate(f.get(key, [])):
                if v not in known:
                    raise tc0.fail([*base, key, i], f"unknown {key[:-1]} {v!r}")
        for role, otype in f["object_roles"].items():
            if otype not in object_types:
                raise tc0.fail([*base, "object_roles", role], f"unknown object type {otype!r}")
        families[name] = Family(name, f["source_activity"], f["service_goal"], f["activity_group"],
                                f["household_area"], tuple(sorted(f["object_roles"].items())),
                                tuple(f["actions"]), tuple(f.get("hazards", [])), tuple(f.get("events", [])),
                                f.get("kind", "first_family"), tuple(f.get("requests", [])))

    from hygiene_pddl.registries.families import load_families

    known = {"grippers": grippers, "parts": dict(parts), "predicates": preds, "stocks": stocks, "hazards": hazards,
             "object_types": object_types, "actions": actions, "events": events, "profiles": profiles,
             "activity_groups": tuple(ts["activity_groups"]), "household_areas": tuple(ts["household_areas"])}
    for fname, fam in load_families(data_dir / "families", known).items():
        if fname in families:
            raise RegistryError(f"family {fname!r} is defined twice (task_sources.yaml and families/{fname}.yaml)",
                                None)
        families[fname] = fam

    return Registries(
        grippers=grippers, parts=parts, predicates=tuple(sorted(preds.items())), stocks=stocks,
        materials=materials, sources=tuple(sorted(sources.items())), hazards=hazards, treatments=treatments,
        protection=protection, object_types=object_types, actions=actions, events=events, profiles=profiles,
        families=families, activity_groups=tuple(ts["activity_groups"]),
        household_areas=tuple(ts["household_areas"]), covers=tuple(covers), counted=tuple(counted),
        blocked_by=blockers, deliveries=deliveries)

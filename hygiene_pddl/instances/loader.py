"""Load instance and reference JSON files: schema check, then every name resolved against the registries.

Physical consistency of the history with the observations is checked by the replay
(:func:`hygiene_pddl.replay.replay`), which owns the rules.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hygiene_pddl.costs import CostVector, Profile
from hygiene_pddl.errors import InstanceError
from hygiene_pddl.instances.model import HazardSource, HistoryRecord, Instance, PairLink, Reference, ReferenceStep
from hygiene_pddl.literals import Atom, atom_text, parse_literal
from hygiene_pddl.registries import Registries, load_registries
from hygiene_pddl.yamlpos import PositionedDocument, StrictValidator

SCHEMA_DIR = Path(__file__).parent.parent / "schemas"


@functools.cache
def _schema(name: str) -> dict[str, Any]:
    return json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text())


@functools.cache
def _validator(name: str) -> Any:
    return StrictValidator(_schema(name))


def _check_schema(doc: PositionedDocument, name: str) -> None:
    validator = _validator(name)
    errors = sorted(validator.iter_errors(doc.data), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        raise InstanceError(f"{errors[0].message} (expected by {name}.schema.json)",
                            doc.location(list(errors[0].absolute_path)))
    doc.check_magnitudes()


class _Resolver:
    """Checks names in one instance document against the registries."""

    def __init__(self, doc: PositionedDocument, reg: Registries):
        self.doc, self.reg, self.data = doc, reg, doc.data
        self.objects: dict[str, str] = dict(self.data["objects"])

    def fail(self, path: Sequence[str | int], message: str) -> InstanceError:
        return InstanceError(message, self.doc.location(path))

    def check_objects(self) -> None:
        for name, otype in self.objects.items():
            if otype not in self.reg.object_types:
                raise self.fail(["objects", name], f"unknown object type {otype!r}; "
                                f"expected one of {sorted(self.reg.object_types)}")
            if name in self.reg.grippers:
                raise self.fail(["objects", name], f"{name!r} is a gripper name and cannot name an object")

    def is_type(self, value: str, kind: str) -> bool:
        if kind == "gripper":
            return value in self.reg.grippers
        if kind in ("item", "place", "thing"):
            otype = self.objects.get(value)
            return otype is not None and self.reg.object_types[otype].is_kind(kind)
        if kind == "hazard":
            return value in self.reg.hazards
        if kind == "region":
            return any(value in {r.name for r in self.reg.object_types[t].regions} for t in self.objects.values())
        if kind == "stock":
            return value in self.reg.stocks
        if kind in ("amount", "time"):
            return str(value).isdigit()
        return False

    def atom(self, path: list, text: str) -> Atom:
        try:
            lit = parse_literal(text)
        except ValueError as exc:
            raise self.fail(path, str(exc)) from None
        preds = dict(self.reg.predicates)
        if not lit.positive or any(a.startswith("?") for a in lit.args):
            raise self.fail(path, f"expected a positive ground atom, found {text!r}")
        if lit.predicate not in preds:
            raise self.fail(path, f"unknown predicate {lit.predicate!r}; expected one of {sorted(preds)}")
        kinds = preds[lit.predicate]
        if len(kinds) != len(lit.args):
            raise self.fail(path, f"{lit.predicate} takes {len(kinds)} arguments, found {len(lit.args)}")
        for arg, kind in zip(lit.args, kinds, strict=True):
            if not self.is_type(arg, kind):
                raise self.fail(path, f"{arg!r} in {text} is not a known {kind}")
        return lit.atom

    def carrier(self, path: list, carrier: Sequence[str]) -> tuple[str, str]:
        owner, part = carrier
        if owner in self.reg.grippers:
            if part not in dict(self.reg.parts):
                raise self.fail(path, f"{part!r} is not a gripper part; expected one of {sorted(dict(self.reg.parts))}")
        elif owner in self.objects:
            regions = {r.name for r in self.reg.object_types[self.objects[owner]].regions}
            if part not in regions:
                raise self.fail(path, f"{part!r} is not a region of {owner}; expected one of {sorted(regions)}")
        else:
            raise self.fail(path, f"unknown object or gripper {owner!r}")
        return (owner, part)

    def record(self, i: int, raw: dict, known: dict[str, tuple]) -> HistoryRecord:
        path = ["history", i]
        kind, name = raw["kind"], raw["name"]
        table = self.reg.actions if kind == "action" else self.reg.events
        if name not in table:
            raise self.fail([*path, "name"], f"unknown {kind} {name!r}; expected one of {sorted(table)}")
        if name not in known[kind]:
            raise self.fail([*path, "name"], f"{kind} {name!r} is not among the instance's registry entries (K)")
        schema = table[name]
        args = tuple(str(a) for a in raw["args"])
        if len(args) != len(schema.parameters):
            params = " ".join(f"?{p} - {t}" for p, t in schema.parameters)
            raise self.fail([*path, "args"], f"{name} takes {len(schema.parameters)} arguments ({params}), "
                                             f"found {len(args)}")
        for j, (arg, (pname, kind_)) in enumerate(zip(args, schema.parameters, strict=True)):
            if not self.is_type(arg, kind_):
                raise self.fail([*path, "args", j], f"argument ?{pname} of {name} must be a {kind_}, found {arg!r}")
        binding = dict(zip(schema.param_names, args, strict=True))
        for c in schema.contacts:
            for ep in (c.a, c.b):
                if ep.part.startswith("?") and ep.var in binding:
                    self.carrier([*path, "args"], (binding[ep.var], binding[ep.part[1:]]))
        if kind == "action":
            duration = raw.get("duration", schema.duration)
            if duration != schema.duration:
                raise self.fail([*path, "duration"], f"{name} lasts {schema.duration} TU, found {duration}")
        else:
            duration = raw.get("duration", 0)
            if duration != 0:
                raise self.fail([*path, "duration"], "an event is instantaneous (duration 0)")
        return HistoryRecord(i, kind, name, args, raw["start"], duration, raw.get("note", ""))


def load_instance(path: Path | str, registries: Registries | None = None) -> Instance:
    """Read and resolve one public instance file; raise :class:`InstanceError` on the first problem."""
    reg = registries or load_registries()
    doc = PositionedDocument.read(Path(path))
    _check_schema(doc, "instance")
    return _build_instance(doc, reg)


def instance_from_data(data: dict, registries: Registries | None = None, name: str = "<instance>") -> Instance:
    """Resolve an instance given as parsed JSON data (the episode builder's path)."""
    reg = registries or load_registries()
    doc = PositionedDocument.of_data(Path(name if name.endswith(".json") else f"{name}.json"), data)
    _check_schema(doc, "instance")
    return _build_instance(doc, reg)


def _build_instance(doc: PositionedDocument, reg: Registries) -> Instance:
    r = _Resolver(doc, reg)
    d = doc.data
    r.check_objects()
    if d["family"] not in reg.families:
        raise r.fail(["family"], f"unknown family {d['family']!r}; expected one of {sorted(reg.families)}")
    for key, table in (("actions", reg.actions), ("events", reg.events), ("hazards", reg.hazards),
                       ("treatments", reg.treatments)):
        for i, v in enumerate(d["registry"][key]):
            if v not in table:
                raise r.fail(["registry", key, i], f"unknown {key[:-1]} {v!r}")
    known = {"action": tuple(d["registry"]["actions"]), "event": tuple(d["registry"]["events"])}
    goals = tuple(r.atom(["goals", i], g) for i, g in enumerate(d["goals"]))
    facts = frozenset(r.atom(["initial", "facts", i], f) for i, f in enumerate(d["initial"]["facts"]))
    obs = frozenset(r.atom(["observations", "facts", i], f) for i, f in enumerate(d["observations"]["facts"]))
    hazards = []
    for i, h in enumerate(d["initial"]["hazards"]):
        if h["hazard"] not in reg.hazards:
            raise r.fail(["initial", "hazards", i, "hazard"], f"unknown hazard {h['hazard']!r}")
        hazards.append(HazardSource(r.carrier(["initial", "hazards", i, "carrier"], h["carrier"]), h["hazard"]))
    for key in ("resources",):
        for stock in d[key]:
            if stock not in reg.stocks:
                raise r.fail([key, stock], f"unknown stock {stock!r}; expected one of {list(reg.stocks)}")
    for stock in d["initial"]["stocks"]:
        if stock not in reg.stocks:
            raise r.fail(["initial", "stocks", stock], f"unknown stock {stock!r}; expected one of {list(reg.stocks)}")
    t = d["decision_time"]
    history = []
    last = -1
    for i, raw in enumerate(d["history"]):
        rec = r.record(i, raw, known)
        if rec.start < last:
            raise r.fail(["history", i, "start"], f"history is not in time order: record {i} starts at {rec.start}, "
                                                  f"after a record starting at {last}")
        if rec.start > t or (rec.kind == "event" and rec.start > t):
            raise r.fail(["history", i, "start"], f"record {i} starts at {rec.start}, after the decision time {t}")
        last = rec.start
        history.append(rec)
    for i, k in enumerate(d["known_events"]):
        if k >= len(history) or history[k].kind != "event":
            raise r.fail(["known_events", i], f"{k} does not point at an event record of the history")
    if d["horizon"] < t:
        raise r.fail(["horizon"], f"horizon {d['horizon']} lies before the decision time {t}")
    prof = d["profile"]
    try:
        profile = Profile.from_prefix(prof["name"], prof["order"])
    except ValueError as exc:
        raise r.fail(["profile", "order"], str(exc)) from None
    if prof["name"] in reg.profiles and reg.profiles[prof["name"]] != profile:
        raise r.fail(["profile", "order"], f"profile {prof['name']!r} differs from the registry's order "
                                           f"{list(reg.profiles[prof['name']].order)}")
    from hygiene_pddl.hygiene import HygieneRules  # hygiene imports the instance model

    fmt = int(d["format"].rsplit("/", 1)[1])
    changed = {lit.atom[0] for a in known["action"] for lit in (*reg.actions[a].eff_start, *reg.actions[a].eff_end)}
    for worn in {w for _, _, w in reg.covers} - changed:
        for key, atoms in (("initial", facts), ("observations", obs)):
            hit = sorted(a for a in atoms if a[0] == worn)
            if hit:
                raise r.fail([key, "facts"], f"{atom_text(hit[0])}: no action of the instance's K changes {worn!r}, "
                                             f"so its covering part can never be worn (docs/world-model-v2.md M3)")
    implied = HygieneRules(reg, r.objects, d["registry"]["hazards"]).implied_safe_goals(goals)
    notes: tuple[str, ...] = ()
    if implied and fmt >= 2:
        g = implied[0]
        delivery = next(x for x in goals if x[0] in reg.deliveries and len(x) == 3 and x[1] == g[1])
        raise r.fail(["goals"], f"goal {atom_text(delivery)} delivers {g[1]}, which is protected against a hazard "
                                f"of K: add the goal {atom_text(g)} (deliveries are safe, docs/world-model-v2.md)")
    if implied:
        notes = tuple(f"goal {atom_text(g)} added: format-1 instance, deliveries are safe "
                      f"(docs/world-model-v2.md; `hygiene-pddl migrate` writes format 2)" for g in implied)
        goals = goals + tuple(implied)
    return Instance(
        id=d["id"], family=d["family"], request=d["request"], goals=goals, decision_time=t,
        horizon=d["horizon"], objects=tuple(sorted(r.objects.items())), initial_facts=facts,
        initial_hazards=tuple(hazards), initial_stocks=tuple(sorted(d["initial"]["stocks"].items())),
        history=tuple(history), observations=obs, resources=tuple(sorted(d["resources"].items())),
        known_events=tuple(d["known_events"]), profile=profile, actions=known["action"],
        events=known["event"], hazards=tuple(d["registry"]["hazards"]),
        treatments=tuple(d["registry"]["treatments"]), source_path=str(doc.path), notes=notes, format=fmt)


def load_reference(path: Path | str) -> Reference:
    """Read one private assessment file."""
    doc = PositionedDocument.read(Path(path))
    _check_schema(doc, "reference")
    d = doc.data
    cost = None
    if d["optimal_cost"] is not None:
        try:
            cost = CostVector.from_mapping(d["optimal_cost"])
        except ValueError as exc:
            raise InstanceError(str(exc), doc.location(["optimal_cost"])) from None
    return Reference(
        instance=d["instance"], family=d["family"], feasible=d["feasible"], optimal_cost=cost,
        plan=tuple(ReferenceStep(s["start"], s["name"], tuple(s["args"]), s["duration"], s.get("order"),
                                 s.get("end_order")) for s in d["plan"]),
        design=d["design"]["kind"],
        pairs=tuple(PairLink(x["kind"], x["label"], x["with"]) for x in d["design"]["pairs"]),
        event=d["design"]["event"], prior_violation=d["design"]["prior_violation"], group=d["design"].get("group"),
        tier=d["difficulty"]["tier"], features=tuple(sorted(d["difficulty"]["features"].items())),
        activity_group=d["activity_group"], household_area=d["household_area"],
        certified_by=tuple(d.get("certified_by", [])))

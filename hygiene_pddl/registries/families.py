"""Family files (issue 13): one YAML file per family in ``<data>/families/``, a family as data.

A family file holds everything an activity needs (objects, initial facts and hazard sources, stocks, goals, the
registry entries K, the base history with its variants, and the controlled designs it offers); adding a family
is adding a file. Every name is checked against the other registries here; designs are expanded into episodes
by :mod:`hygiene_pddl.episodes.designs`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jsonschema

from hygiene_pddl.errors import RegistryError
from hygiene_pddl.literals import parse_literal, parse_record
from hygiene_pddl.registries.model import Family, FamilySpec, HistoryEntry, Variant
from hygiene_pddl.yamlpos import PositionedDocument

SCHEMA = Path(__file__).parent.parent / "schemas" / "registry.family.schema.json"


@functools.cache
def _schema() -> dict[str, Any]:
    return json.loads(SCHEMA.read_text())


class _Checker:
    """Name checks for one family file against the registries loaded so far."""

    def __init__(self, doc: PositionedDocument, known: Mapping[str, Any]):
        self.doc, self.k, self.data = doc, known, doc.data
        self.objects: dict[str, str] = dict(self.data["objects"])

    def fail(self, path: list, message: str) -> RegistryError:
        return RegistryError(message, self.doc.location(path))

    def kind_ok(self, value: str, kind: str) -> bool:
        if kind == "gripper":
            return value in self.k["grippers"]
        if kind in ("item", "place", "thing"):
            return value in self.objects and self.k["object_types"][self.objects[value]].is_kind(kind)
        if kind == "region":
            return any(value in {r.name for r in self.k["object_types"][t].regions} for t in self.objects.values())
        if kind == "stock":
            return value in self.k["stocks"]
        if kind == "hazard":
            return value in self.k["hazards"]
        return kind in ("amount", "time") and value.isdigit()

    def atom(self, path: list, text: str) -> None:
        try:
            lit = parse_literal(text)
        except ValueError as exc:
            raise self.fail(path, str(exc)) from None
        kinds = self.k["predicates"].get(lit.predicate)
        if kinds is None:
            raise self.fail(path, f"unknown predicate {lit.predicate!r}")
        if not lit.positive or len(kinds) != len(lit.args):
            raise self.fail(path, f"expected a positive atom ({lit.predicate} takes {len(kinds)} arguments), "
                                  f"found {text!r}")
        for arg, kind in zip(lit.args, kinds, strict=True):
            if not self.kind_ok(arg, kind):
                raise self.fail(path, f"{arg!r} in {text} is not a {kind} of this family")

    def record(self, path: list, text: str, allowed: set[str]) -> None:
        try:
            lit = parse_record(text)
        except ValueError as exc:
            raise self.fail(path, str(exc)) from None
        schema = self.k["actions"].get(lit.predicate) or self.k["events"].get(lit.predicate)
        if schema is None or lit.predicate not in allowed:
            raise self.fail(path, f"{lit.predicate!r} is not an action or event of the family's registry entries")
        if len(lit.args) != len(schema.parameters):
            raise self.fail(path, f"{lit.predicate} takes {len(schema.parameters)} arguments, found {text!r}")
        for arg, (pname, kind) in zip(lit.args, schema.parameters, strict=True):
            if not self.kind_ok(arg, kind):
                raise self.fail(path, f"argument ?{pname} of {lit.predicate} must be a {kind}, found {arg!r}")

    def source(self, path: list, src: list[str]) -> tuple[str, str, str]:
        owner, part, hazard = src
        if owner in self.k["grippers"]:
            ok = part in self.k["parts"]
        else:
            ok = owner in self.objects and part in {r.name for r in
                                                    self.k["object_types"][self.objects[owner]].regions}
        if not ok:
            raise self.fail(path, f"{owner} {part} is not a gripper part or an object region of this family")
        if hazard not in self.data["registry"].get("hazards", []):
            raise self.fail(path, f"hazard {hazard!r} is not among the family's registry hazards")
        return owner, part, hazard

    def stocks(self, path: list, stocks: Mapping[str, int]) -> tuple[tuple[str, int], ...]:
        for s in stocks:
            if s not in self.k["stocks"]:
                raise self.fail([*path, s], f"unknown stock {s!r}; expected one of {list(self.k['stocks'])}")
        return tuple(sorted(stocks.items()))


def load_family(path: Path, known: Mapping[str, Any]) -> Family:
    """Read and check one family file; ``known`` holds the registries loaded so far (names to values)."""
    doc = PositionedDocument.read(path)
    errors = sorted(jsonschema.Draft202012Validator(_schema()).iter_errors(doc.data),
                    key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        raise RegistryError(errors[0].message, doc.location(list(errors[0].absolute_path)))
    c, d = _Checker(doc, known), doc.data
    name = path.stem
    for key, values in (("activity_group", known["activity_groups"]), ("household_area", known["household_areas"])):
        if d[key] not in values:
            raise c.fail([key], f"unknown {key.replace('_', ' ')} {d[key]!r}; expected one of {list(values)}")
    for obj, otype in c.objects.items():
        if otype not in known["object_types"]:
            raise c.fail(["objects", obj], f"unknown object type {otype!r}")
        if obj in known["grippers"]:
            raise c.fail(["objects", obj], f"{obj!r} is a gripper name and cannot name an object")
    reg_k = d["registry"]
    for key, table in (("actions", known["actions"]), ("hazards", known["hazards"]), ("events", known["events"])):
        for i, v in enumerate(reg_k.get(key, [])):
            if v not in table:
                raise c.fail(["registry", key, i], f"unknown {key[:-1]} {v!r}")
    for i, text in enumerate(d["initial"]["facts"]):
        c.atom(["initial", "facts", i], text)
    for i, text in enumerate(d["goals"]):
        lit_ok = text.startswith("(safe ") and text[6:-1].strip() in c.objects
        if not lit_ok:
            c.atom(["goals", i], text)
    if d["profile"] not in known["profiles"]:
        raise c.fail(["profile"], f"unknown profile {d['profile']!r}")
    allowed = set(reg_k["actions"]) | set(reg_k.get("events", []))
    variants = d.get("variants", {})
    history = []
    for i, entry in enumerate(d.get("history", [])):
        start, text, *rest = entry
        tags = tuple(rest[0]) if rest else ()
        for tag in tags:
            if tag.lstrip("!") not in variants:
                raise c.fail(["history", i, 2], f"unknown variant {tag.lstrip('!')!r}; declare it under variants")
        c.record(["history", i, 1], text, allowed)
        history.append(HistoryEntry(start, text, tags, rest[1] if len(rest) > 1 else ""))
    var_out = []
    for vname, v in variants.items():
        var_out.append(Variant(vname, v.get("note", ""), c.stocks(["variants", vname, "stocks"], v.get("stocks", {})),
                               tuple(c.source(["variants", vname, "hazards", i], s)
                                     for i, s in enumerate(v.get("hazards", []))),
                               v.get("time_left"), v.get("decision_time")))
    designs = d.get("designs", {})
    for key in ("relevant", "irrelevant"):
        for i, group in enumerate(designs.get(key, [])):
            for v in group:
                if v not in variants:
                    raise c.fail(["designs", key, i], f"unknown variant {v!r}")
    for key in ("infeasible", "prior", "prior_infeasible", "ranked_on"):
        for v in designs.get(key, []):
            if v not in variants:
                raise c.fail(["designs", key], f"unknown variant {v!r}")
    for label, v in designs.get("events", {}).items():
        if v not in variants:
            raise c.fail(["designs", "events", label], f"unknown variant {v!r}")
    for key in ("profiles", "flip", "invariant"):
        for i, prof in enumerate(designs.get(key, [])):
            if prof not in known["profiles"]:
                raise c.fail(["designs", key, i], f"unknown profile {prof!r}")
            if key != "profiles" and prof not in designs.get("profiles", [d["profile"]]):
                raise c.fail(["designs", key, i], f"{prof!r} is not among the family's design profiles")
    spec = FamilySpec(
        objects=tuple(sorted(c.objects.items())), facts=tuple(d["initial"]["facts"]),
        sources=tuple(c.source(["initial", "hazards", i], s) for i, s in enumerate(d["initial"].get("hazards", []))),
        stocks=c.stocks(["initial", "stocks"], d["initial"].get("stocks", {})), goals=tuple(d["goals"]),
        decision_time=d["decision_time"], time_left=d["time_left"], profile=d["profile"], history=tuple(history),
        variants=tuple(var_out), designs=tuple(sorted((k, _freeze(v)) for k, v in designs.items())))
    return Family(name, d["source_activity"], d["service_goal"], d["activity_group"], d["household_area"],
                  spec.objects, tuple(reg_k["actions"]), tuple(reg_k.get("hazards", [])),
                  tuple(reg_k.get("events", [])), "data", tuple(d["requests"]), spec)


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


def load_families(folder: Path, known: Mapping[str, Any]) -> dict[str, Family]:
    """Every ``*.yaml`` file of ``folder`` (none if it does not exist), in name order."""
    if not folder.is_dir():
        return {}
    return {p.stem: load_family(p, known) for p in sorted(folder.glob("*.yaml"))}

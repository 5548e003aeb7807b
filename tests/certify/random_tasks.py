"""Random small v2 tasks (hypothesis strategies) for checking the exact search's reductions against the plain search."""

from __future__ import annotations

from hypothesis import strategies as st

from hygiene_pddl.registries import Registries
from tests.certify.tasks import instance

ITEMS = {"apple": "apple", "carrot": "carrot", "shirt": "shirt", "towel": "towel", "cloth": "cloth",
         "board": "board", "bowl": "cereal_bowl", "sponge": "bath_sponge"}
PLACES = {"counter": "counter", "table": "table", "sink": "sink", "washer": "washer", "basket": "basket",
          "rack": "rack", "hamper": "hamper", "dryer": "dryer"}  # sink, washer, hamper: for-dirty (exempt contacts)
ACTIONS = ["pick", "place", "put", "wash-pad", "replace-pad", "rinse-item", "wash-item", "wipe", "open", "close",
           "load", "unload", "run-hot", "run-eco", "don-glove", "doff-glove", "disinfect-pad", "spray", "dwell",
           "fold", "discard", "fetch-spare", "run-dryer"]
HAZARDS = ["soil", "raw_meat_bacteria", "food_residue"]
PROFILES = ["water_first", "time_first", "spare_parts_first"]


@st.composite
def small_tasks(draw: st.DrawFn, reg: Registries):
    """An instance with two or three items, two places, a handful of actions of K, one or two hazard sources, one
    or two goals, small stocks and a short deadline (optionally with an ongoing history action)."""
    items = draw(st.lists(st.sampled_from(sorted(ITEMS)), min_size=2, max_size=3, unique=True))
    places = draw(st.lists(st.sampled_from(sorted(PLACES)), min_size=2, max_size=2, unique=True))
    objects = {**{i: ITEMS[i] for i in items}, **{p: PLACES[p] for p in places}}
    actions = sorted(set(draw(st.lists(st.sampled_from(ACTIONS), min_size=2, max_size=5))) | {"pick"})
    facts = []
    held: dict[str, str] = {}
    for item in items:
        where = draw(st.sampled_from([*places, "left", "right"]))
        if where in ("left", "right") and where not in held:
            held[where] = item
            facts.append(f"(holding {where} {item})")
        else:
            facts.append(f"(at {item} {places[0] if where in ('left', 'right') else where})")
    facts += [f"(empty {g})" for g in ("left", "right") if g not in held]
    for p in places:
        if PLACES[p] in ("washer", "dryer") and draw(st.booleans()):
            facts.append(f"(closed {p})")
    for item in items:
        if ITEMS[item] in ("shirt", "towel") and draw(st.booleans()):
            facts.append(f"(dry {item})")
    hazards = sorted(set(draw(st.lists(st.sampled_from(HAZARDS), min_size=1, max_size=2))))
    carriers = [(g, "pad") for g in ("left", "right")] + [  # place regions too: exempt contacts pass their hazards on
        (o, r.name) for o in (*items, *places) for r in reg.object_types[objects[o]].regions]
    sources = draw(st.lists(st.tuples(st.sampled_from(carriers), st.sampled_from(hazards)), min_size=1, max_size=2,
                            unique=True))
    goal_pool = ([f"(at {i} {p})" for i in items for p in places] + [f"(safe {i})" for i in items]
                 + [f"(holding {g} {i})" for g in ("left", "right") for i in items]
                 + [f"(dry {i})" for i in items if ITEMS[i] in ("shirt", "towel")]
                 + [f"(folded {i})" for i in items if ITEMS[i] in ("shirt", "towel")])
    goals = draw(st.lists(st.sampled_from(goal_pool), min_size=1, max_size=2, unique=True))
    stocks = {s: draw(st.integers(0, 3)) for s in ("water", "cleaning_agent", "spare_pads", "spare_items",
                                                   "disinfectant", "gloves")}
    return instance(reg, "random", objects=objects, facts=facts, goals=goals, actions=actions, hazards=hazards,
                    sources=[(c[0], c[1], h) for c, h in sources], stocks=stocks,
                    time_left=draw(st.integers(3, 6)), profile=draw(st.sampled_from(PROFILES)))


SPARE_ITEMS = {"apple": "apple", "carrot": "carrot", "loaf": "loaf", "cloth": "cloth", "spoon": "stirring_spoon"}
SPARE_EXTRAS = ["rinse-item", "wash-item", "don-glove", "doff-glove", "wash-pad", "disinfect-pad"]


@st.composite
def spare_tasks(draw: st.DrawFn, reg: Registries):
    """Tasks about the mechanics of Reductions 7-9 (docs/certification.md): a waste bin with discard and fetch-spare
    (and spares in stock), a shared basket or a for-dirty sink or a plain counter, gloves, one or two hazard sources on
    items, pads and places, delivery and (safe x) goals, a few treatments."""
    items = draw(st.lists(st.sampled_from(sorted(SPARE_ITEMS)), min_size=1, max_size=2, unique=True))
    place = draw(st.sampled_from(["basket", "sink", "counter"]))
    objects = {**{i: SPARE_ITEMS[i] for i in items}, "bin": "waste_bin", place: PLACES.get(place, place)}
    facts = []
    held: set[str] = set()
    for item in items:
        g = draw(st.sampled_from(["left", "right", None]))
        if g is not None and g not in held:
            held.add(g)
            facts.append(f"(holding {g} {item})")
        else:
            facts.append(f"(at {item} {place})")
    facts += [f"(empty {g})" for g in ("left", "right") if g not in held]
    hazards = sorted(set(draw(st.lists(st.sampled_from(["soil", "raw_meat_bacteria", "mould"]), min_size=1,
                                       max_size=2))))
    carriers = [(g, "pad") for g in ("left", "right")] + [
        (o, r.name) for o in (*items, place) for r in reg.object_types[objects[o]].regions]
    first = (items[0], draw(st.sampled_from([r.name for r in reg.object_types[objects[items[0]]].regions])))
    sources = [(first, hazards[0]), *draw(st.lists(st.tuples(st.sampled_from(carriers), st.sampled_from(hazards)),
                                                    max_size=1))]
    goal_pool = ([f"(at {i} {place})" for i in items] + [f"(safe {i})" for i in items[1:]]
                 + [f"(holding {g} {i})" for g in ("left", "right") for i in items])
    goals = [f"(safe {items[0]})", *draw(st.lists(st.sampled_from(goal_pool), max_size=1))]
    put = "put" if place == "basket" else "place"
    extras = draw(st.lists(st.sampled_from(SPARE_EXTRAS), max_size=2, unique=True))
    stocks = {"spare_items": draw(st.integers(1, 2)), "gloves": draw(st.integers(0, 1)),
              "water": draw(st.integers(0, 1)), "cleaning_agent": 1, "disinfectant": 1, "spare_pads": 0}
    return instance(reg, "spare", objects=objects, facts=facts, goals=goals,
                    actions=sorted({"pick", put, "discard", "fetch-spare", *extras}), hazards=hazards,
                    sources=sorted({(c[0], c[1], h) for c, h in sources}), stocks=stocks,
                    time_left=draw(st.integers(3, 6)), profile=draw(st.sampled_from(PROFILES)))



INSTANT_ITEMS = {"tank": "fish_tank", "lid": "tank_lid", "gravel": "aquarium_gravel_bag"}


def instant_task(reg: Registries, lid: str | None, gravel: str | None, soiled: bool, more: list[str], time_left: int,
                 profile: str):
    """The tank, its lid and a bag of gravel on a table (see :func:`instant_tasks`); ``lid``, ``gravel``: the
    gripper holding it (None: on the table)."""
    objects = {**INSTANT_ITEMS, "table": "coffee_table"}
    facts = ["(at tank table)"]
    for item, g in (("lid", lid), ("gravel", gravel)):
        facts.append(f"(holding {g} {item})" if g else f"(at {item} table)")
    facts += [f"(empty {g})" for g in ("left", "right") if g not in (lid, gravel)]
    actions = {"pick", "cover", "add-into", "place", *(["rinse-item"] if soiled else [])}
    return instance(reg, "instant", objects=objects, facts=facts, goals=["(covered tank)", "(in gravel tank)", *more],
                    actions=sorted(actions), hazards=["soil"], sources=[("gravel", "gravel", "soil")] if soiled else [],
                    stocks={"water": 2}, time_left=time_left, profile=profile)


@st.composite
def instant_tasks(draw: st.DrawFn, reg: Registries):
    """Tasks in which the order of two happenings at one instant may decide the optimum (the fish tank of
    tests/certify/data): the gravel must go into the tank (add-into needs it uncovered at its start) and the lid onto
    it (cover: it lands at its end), on a table, with two grippers that may hold the lid or the gravel already; the
    gravel maybe soiled (the tank's water is protected: rinse it first); maybe the tank held at the end too, by the
    gripper that covers it if it holds the lid; pick and place; a deadline of 2 or 3 TU; makespan first, or water."""
    lid, gravel, _ = draw(st.permutations(["left", "right", None]))
    holder = lid or draw(st.sampled_from(["left", "right"]))  # a gripper with more to do after the cover
    more = draw(st.sampled_from([[], [f"(holding {holder} tank)"]]))
    return instant_task(reg, lid, gravel, draw(st.booleans()), more, draw(st.integers(2, 3)),
                        draw(st.sampled_from(["time_first", "time_first", "water_first"])))


__all__ = ["instant_tasks", "small_tasks", "spare_tasks"]

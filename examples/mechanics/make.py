"""Write the hand-checked v2 mechanics examples (examples/mechanics/*.json, *.hand.json) and check the hand plans.

Run from the repository root: `.venv/bin/python examples/mechanics/make.py`. Each instance is authored here as data
(objects, facts, hazards, history, goals, profile); observations and R_t come from the replay. The hand optima are typed
in below (HAND) from the derivations in docs/mechanics.md, and each must be met by a witness plan that the reference
semantics (replay.World) accepts; the script fails otherwise.
"""
# ruff: noqa: E402, E501
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from hygiene_pddl.costs import DIMENSIONS
from hygiene_pddl.episodes.writer import Episode, dumps
from hygiene_pddl.instances.loader import instance_from_data
from hygiene_pddl.registries import load_registries
from tests.foundation.helpers import Step, run_continuation

reg = load_registries()
OUT = ROOT / "examples" / "mechanics"

def ev(name, args, t, note=""):
    d = {"kind": "event", "name": name, "args": list(args), "start": t}
    return {**d, "note": note} if note else d

def act(name, args, t):
    return {"kind": "action", "name": name, "args": list(args), "start": t, "duration": reg.actions[name].duration}

def make(key, family, request, goals, facts, hazards, stocks, history, t, horizon, profile, known=None):
    fam = reg.families[family]
    objects = {v: v for _, v in fam.object_roles}
    ep = Episode(id=key, family=family, request=request, goals=goals, decision_time=t, horizon=horizon,
                 objects=objects, facts=facts, hazards=hazards, stocks=stocks, history=history, profile=profile,
                 known_events=known if known is not None else [i for i, h in enumerate(history) if h["kind"] == "event"])
    data = ep.public(reg)
    (OUT / f"{key}.json").write_text(dumps(data))
    return instance_from_data(data, reg, key)

WITNESS = {}
def check(inst, steps, label):
    out = run_continuation(reg, inst, [Step(s, n, tuple(a)) for s, n, a in steps])
    if out.goals_met and not out.new_violations:
        WITNESS.setdefault(inst.id, []).append((out.cost.as_dict(), steps))
    print(f"{label}: goals_met={out.goals_met} violations={[(v.carrier, v.hazard) for v in out.new_violations]} "
          f"cost={out.cost}")
    return out

# E1: wipe two surfaces with one cloth
e1 = dict(family="mech_wipe_two_surfaces",
          request="Please put the loaf on the kitchen table and the carrot on the worktop; both need wiping first.",
          goals=["(at loaf kitchen_table)", "(at carrot worktop)"],
          facts=["(at cloth sink)", "(at loaf shelf)", "(at carrot shelf)", "(empty left)", "(empty right)"],
          hazards=[("kitchen_table", "top", "soil")], stocks={"water": 4, "cleaning_agent": 2, "spare_items": 1, "spare_pads": 2},
          history=[ev("spill", ["worktop", "top", "peanut_allergen"], 0, "satay sauce drips on the worktop")], t=1, horizon=11)
for prof in ("water_first", "waste_first"):
    inst = make(f"wipe_two_surfaces-{prof}", profile=prof, **e1)
    A = [(0, "pick", ["left", "cloth", "corner", "sink"]), (1, "wipe", ["left", "cloth", "kitchen_table"]),
         (3, "rinse-item", ["left", "cloth"]), (4, "wipe", ["left", "cloth", "worktop"]),
         (0, "pick", ["right", "loaf", "crust", "shelf"]), (2, "place", ["right", "loaf", "kitchen_table"]),
         (3, "pick", ["right", "carrot", "skin", "shelf"]), (5, "place", ["right", "carrot", "worktop"])]
    B = [(0, "pick", ["left", "cloth", "corner", "sink"]), (1, "wipe", ["left", "cloth", "kitchen_table"]),
         (3, "discard", ["left", "cloth", "waste_bin"]), (4, "fetch-spare", ["left", "cloth"]),
         (5, "wipe", ["left", "cloth", "worktop"]),
         (0, "pick", ["right", "loaf", "crust", "shelf"]), (2, "place", ["right", "loaf", "kitchen_table"]),
         (3, "pick", ["right", "carrot", "skin", "shelf"]), (6, "place", ["right", "carrot", "worktop"])]
    C_bad = [(0, "pick", ["left", "cloth", "corner", "sink"]), (1, "wipe", ["left", "cloth", "kitchen_table"]),
             (3, "wipe", ["left", "cloth", "worktop"]),
             (0, "pick", ["right", "loaf", "crust", "shelf"]), (2, "place", ["right", "loaf", "kitchen_table"]),
             (3, "pick", ["right", "carrot", "skin", "shelf"]), (4, "place", ["right", "carrot", "worktop"])]
    check(inst, A, f"E1 {prof} rinse route")
    check(inst, B, f"E1 {prof} replace route")
    check(inst, C_bad, f"E1 {prof} no treatment of the cloth (must fail)")

# E2: spray then dwell (no contact while it dwells)
e2 = dict(family="mech_spray_and_dwell",
          request="Please put the loaf on the worktop; the worktop had raw chicken on it, disinfect it first.",
          goals=["(at loaf worktop)"],
          facts=["(at disinfectant_spray shelf)", "(at loaf shelf)", "(empty left)", "(empty right)"],
          hazards=[], stocks={"disinfectant": 2, "water": 4, "cleaning_agent": 2, "spare_pads": 2},
          history=[ev("spill", ["worktop", "top", "raw_meat_bacteria"], 0, "chicken juice drips on the worktop")],
          t=1, horizon=11)
inst = make("spray_and_dwell-canonical", profile="canonical", **e2)
check(inst, [(0, "pick", ["left", "disinfectant_spray", "trigger", "shelf"]), (1, "spray", ["left", "disinfectant_spray", "worktop"]),
             (2, "dwell", ["worktop"]), (0, "pick", ["right", "loaf", "crust", "shelf"]), (6, "place", ["right", "loaf", "worktop"])],
      "E2 spray+dwell, loaf after the dwell")
try:
    check(inst, [(0, "pick", ["left", "disinfectant_spray", "trigger", "shelf"]), (1, "spray", ["left", "disinfectant_spray", "worktop"]),
                 (2, "dwell", ["worktop"]), (0, "pick", ["right", "loaf", "crust", "shelf"]), (5, "place", ["right", "loaf", "worktop"])],
          "E2 loaf during the dwell (must fail)")
except Exception as exc:
    print("E2 loaf during the dwell (must fail):", type(exc).__name__, exc)
check(inst, [(0, "pick", ["right", "loaf", "crust", "shelf"]), (1, "place", ["right", "loaf", "worktop"])],
      "E2 no disinfection (must fail)")

# E3: rinse or wash produce, depending on the hazards (a history pair: with / without a spill)
for key, hist in (("rinse_or_wash-soil", []),
                  ("rinse_or_wash-soil-and-spill", [ev("spill", ["carrot", "skin", "raw_meat_bacteria"], 0,
                                                         "raw-chicken juice drips on the carrot")])):
    inst = make(key, family="mech_rinse_or_wash", request="Please put the carrot on the plate, clean.",
                goals=["(at carrot side_plate)", "(safe carrot)"],
                facts=["(at carrot worktop)", "(at side_plate worktop)", "(empty left)", "(empty right)"],
                hazards=[("carrot", "skin", "soil")], stocks={"water": 4, "cleaning_agent": 2, "spare_pads": 2},
                history=hist, t=1, horizon=9, profile="canonical")
    check(inst, [(0, "pick", ["left", "carrot", "skin", "worktop"]), (1, "rinse-item", ["left", "carrot"]),
                 (2, "place", ["left", "carrot", "side_plate"])], f"{key}: rinse")
    check(inst, [(0, "pick", ["left", "carrot", "skin", "worktop"]), (1, "wash-item", ["left", "carrot", "skin"]),
                 (3, "place", ["left", "carrot", "side_plate"])], f"{key}: wash")

# E4: washer programmes (hot vs eco), capacity 2, door handle, mixing in the drum
for key, towel_hz, prof in (("washer-soil-water_first", "soil", "water_first"), ("washer-soil-time_first", "soil", "time_first"),
                            ("washer-mould-water_first", "mould", "water_first")):
    inst = make(key, family="mech_washer_programmes", request="Please wash the shirt and the towel.",
                goals=["(safe shirt)", "(safe towel)"],
                facts=["(at shirt hamper)", "(at towel hamper)", "(closed washer)", "(dry shirt)", "(dry towel)",
                       "(empty left)", "(empty right)"],
                hazards=[("shirt", "fabric", "soil"), ("towel", "fabric", towel_hz)],
                stocks={"water": 8, "cleaning_agent": 2, "spare_pads": 2}, history=[], t=0, horizon=20, profile=prof)
    base = [(0, "open", ["left", "washer"]), (0, "pick", ["right", "shirt", "fabric", "hamper"]),
            (1, "load", ["right", "shirt", "washer"]), (1, "pick", ["left", "towel", "fabric", "hamper"]),
            (2, "load", ["left", "towel", "washer"]), (2, "close", ["right", "washer"])]
    check(inst, base + [(3, "run-hot", ["washer"])], f"{key}: hot")
    check(inst, base + [(3, "run-eco", ["washer"])], f"{key}: eco")

# E5: shared basket: what is put in touches what is there
inst = make("shared_basket-canonical", family="mech_shared_basket",
            request="Please put the grapes and the potatoes in the basket.",
            goals=["(at grapes basket)", "(at potato basket)"],
            facts=["(at grapes worktop)", "(at potato worktop)", "(at basket worktop)", "(empty left)", "(empty right)"],
            hazards=[("potato", "skin", "soil")], stocks={"water": 4, "cleaning_agent": 2, "spare_pads": 2},
            history=[], t=0, horizon=8, profile="canonical")
check(inst, [(0, "pick", ["left", "potato", "skin", "worktop"]), (1, "rinse-item", ["left", "potato"]),
             (2, "put", ["left", "potato", "basket"]), (0, "pick", ["right", "grapes", "bunch", "worktop"]),
             (1, "put", ["right", "grapes", "basket"])], "E5 rinse the potatoes first")
check(inst, [(0, "pick", ["left", "potato", "skin", "worktop"]), (1, "put", ["left", "potato", "basket"]),
             (0, "pick", ["right", "grapes", "bunch", "worktop"]), (2, "put", ["right", "grapes", "basket"])],
      "E5 muddy potatoes in with the grapes (must fail)")

# E6: gloves. The right pad carries bleach residue from the history and no stock can wash it: it must not touch
# food. The left gripper must lift the chicken off the board before the loaf goes there.
hist = [act("pick", ["right", "bleach_bottle", "cap", "shelf"], 0), act("place", ["right", "bleach_bottle", "shelf"], 1)]
for prof in ("canonical", "waste_first"):
    inst = make(f"gloves-{prof}", family="mech_gloves",
                request="Please put the raw chicken in the fridge and the loaf on the board.",
                goals=["(at raw_chicken fridge)", "(at loaf board)", "(safe loaf)"],
                facts=["(at raw_chicken board)", "(at loaf shelf)", "(at board shelf)", "(at bleach_bottle shelf)",
                       "(empty left)", "(empty right)"],
                hazards=[("raw_chicken", "film", "raw_meat_bacteria"), ("bleach_bottle", "cap", "cleaning_chemical_residue")],
                stocks={"gloves": 1, "water": 0, "cleaning_agent": 0, "spare_pads": 1, "disinfectant": 1},
                history=hist, t=2, horizon=9, profile=prof)
    check(inst, [(0, "don-glove", ["left"]), (1, "pick", ["left", "raw_chicken", "film", "board"]),
                 (2, "place", ["left", "raw_chicken", "fridge"]), (3, "doff-glove", ["left"]),
                 (4, "pick", ["left", "loaf", "crust", "shelf"]), (5, "put", ["left", "loaf", "board"])], f"E6 {prof} glove")
    check(inst, [(0, "pick", ["left", "raw_chicken", "film", "board"]), (1, "place", ["left", "raw_chicken", "fridge"]),
                 (2, "disinfect-pad", ["left"]), (4, "pick", ["left", "loaf", "crust", "shelf"]),
                 (5, "put", ["left", "loaf", "board"])], f"E6 {prof} disinfect the pad")
    check(inst, [(0, "pick", ["left", "raw_chicken", "film", "board"]), (1, "place", ["left", "raw_chicken", "fridge"]),
                 (2, "replace-pad", ["left"]), (4, "pick", ["left", "loaf", "crust", "shelf"]),
                 (5, "put", ["left", "loaf", "board"])], f"E6 {prof} replace the pad")
    check(inst, [(0, "don-glove", ["right"]), (0, "pick", ["left", "raw_chicken", "film", "board"]),
                 (1, "place", ["left", "raw_chicken", "fridge"]), (1, "pick", ["right", "loaf", "crust", "shelf"]),
                 (2, "put", ["right", "loaf", "board"])], f"E6 {prof} glove over the bleached pad, both grippers")
    check(inst, [(0, "pick", ["right", "raw_chicken", "film", "board"]), (1, "place", ["right", "raw_chicken", "fridge"]),
                 (0, "pick", ["left", "loaf", "crust", "shelf"]), (1, "put", ["left", "loaf", "board"])],
          f"E6 {prof} bleached right pad takes the chicken (must fail)")

# E7: a contaminated fridge handle (history pair). The right gripper is busy washing its pad until 3.
for key, hist in (("fridge_handle-dirty", [act("pick", ["left", "raw_chicken", "film", "worktop"], 0),
                                           act("open", ["right", "fridge"], 0),
                                           act("place", ["left", "raw_chicken", "fridge"], 1),
                                           act("close", ["left", "fridge"], 2), act("wash-pad", ["left"], 3),
                                           act("wash-pad", ["right"], 6)]),
                  ("fridge_handle-clean", [act("pick", ["left", "raw_chicken", "film", "worktop"], 0),
                                           act("open", ["right", "fridge"], 0),
                                           act("place", ["left", "raw_chicken", "fridge"], 1),
                                           act("close", ["right", "fridge"], 2), act("wash-pad", ["left"], 3),
                                           act("wash-pad", ["right"], 6)])):
    inst = make(key, family="mech_fridge_handle", request="Please take the loaf out of the fridge and put it on the plate.",
                goals=["(at loaf side_plate)", "(safe loaf)"],
                facts=["(at loaf fridge)", "(at raw_chicken worktop)", "(at side_plate worktop)", "(closed fridge)",
                       "(empty left)", "(empty right)"],
                hazards=[("raw_chicken", "film", "raw_meat_bacteria")],
                stocks={"water": 8, "cleaning_agent": 4, "spare_pads": 2, "gloves": 1, "disinfectant": 1},
                history=hist, t=7, horizon=12, profile="canonical")
    check(inst, [(0, "open", ["left", "fridge"]), (1, "pick", ["left", "loaf", "crust", "fridge"]),
                 (2, "place", ["left", "loaf", "side_plate"])], f"{key}: left alone")
    check(inst, [(0, "open", ["left", "fridge"]), (2, "pick", ["right", "loaf", "crust", "fridge"]),
                 (3, "place", ["right", "loaf", "side_plate"])], f"{key}: left opens, right takes the loaf")

# E8: a mouldy wooden spoon cannot be washed clean: discard it and take a spare
for key, spares in (("spare_spoon-stocked", 1), ("spare_spoon-no-spare", 0)):
    inst = make(key, family="mech_spare_spoon", request="Please put a clean stirring spoon on the plate.",
                goals=["(at stirring_spoon side_plate)", "(safe stirring_spoon)"],
                facts=["(at stirring_spoon worktop)", "(at side_plate worktop)", "(empty left)", "(empty right)"],
                hazards=[("stirring_spoon", "bowl", "mould")], stocks={"water": 4, "cleaning_agent": 2, "spare_items": spares},
                history=[], t=0, horizon=8, profile="canonical")
    check(inst, [(0, "pick", ["left", "stirring_spoon", "handle", "worktop"]), (1, "discard", ["left", "stirring_spoon", "waste_bin"]),
                 (2, "fetch-spare", ["left", "stirring_spoon"]), (3, "place", ["left", "stirring_spoon", "side_plate"])] if spares else
          [(0, "pick", ["left", "stirring_spoon", "handle", "worktop"]), (1, "wash-item", ["left", "stirring_spoon", "bowl"]),
           (3, "place", ["left", "stirring_spoon", "side_plate"])], f"{key}")

# --- hand-worked optima (docs/mechanics.md derives each one); written as reference files


def vec(**kw):
    return {d: kw.get(d, 0) for d in DIMENSIONS}
HAND = {
    "wipe_two_surfaces-water_first": vec(discarded_items=1, solid_waste=1, active_robot_time=11, makespan=7),
    "wipe_two_surfaces-waste_first": vec(water=1, active_robot_time=10, makespan=6),
    "spray_and_dwell-canonical": vec(disinfectant=1, active_robot_time=4, makespan=7),
    "rinse_or_wash-soil": vec(water=1, active_robot_time=3, makespan=3),
    "rinse_or_wash-soil-and-spill": vec(water=1, cleaning_agent=1, active_robot_time=4, makespan=4),
    "washer-soil-water_first": vec(water=3, cleaning_agent=1, energy=1, active_robot_time=6, makespan=15),
    "washer-soil-time_first": vec(water=4, cleaning_agent=1, energy=4, active_robot_time=6, makespan=11),
    "washer-mould-water_first": vec(water=4, cleaning_agent=1, energy=4, active_robot_time=6, makespan=11),
    "shared_basket-canonical": vec(water=1, active_robot_time=5, makespan=3),
    "gloves-canonical": vec(solid_waste=1, active_robot_time=5, makespan=3),
    "gloves-waste_first": vec(disinfectant=1, active_robot_time=6, makespan=6),
    "fridge_handle-dirty": vec(active_robot_time=3, makespan=4),
    "fridge_handle-clean": vec(active_robot_time=3, makespan=3),
    "spare_spoon-stocked": vec(discarded_items=1, solid_waste=1, active_robot_time=4, makespan=4),
    "spare_spoon-no-spare": None,
}
for key, cost in HAND.items():
    plans = [st for c, st in WITNESS.get(key, []) if c == cost]
    assert (cost is None) == (not plans), key
    ref = {"format": "hygiene-pddl-hand-optimum/1", "instance": key, "feasible": cost is not None, "optimal_cost": cost,
           "plan": [{"start": a, "name": n, "args": list(g)} for a, n, g in (plans[0] if plans else [])],
           "derivation": f"docs/mechanics.md#{key.split('-')[0].replace('_', '-')}"}
    (OUT / f"{key}.hand.json").write_text(dumps(ref))
print(len(HAND), "hand optima written")

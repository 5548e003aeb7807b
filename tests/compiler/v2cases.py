"""Small hand-made v2 instances, one per mechanism of docs/world-model-v2.md, each with a schedule that
``replay.World`` accepts (hand-checked) and named variants of it.

The instances borrow a family for its name and text only: their registry entries (K) are their own, so their
domains are named ``hygiene-<family>-k<hash>`` (one source of truth for K).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hygiene_pddl.instances.loader import instance_from_data
from hygiene_pddl.instances.model import Instance
from hygiene_pddl.literals import atom_text
from hygiene_pddl.registries import Registries
from hygiene_pddl.replay import replay

Step = tuple[int, str, tuple[str, ...]]  # (start relative to the decision time, action, registry arguments)


@dataclass(frozen=True)
class Case:
    id: str
    objects: dict[str, str]
    facts: list[str]
    goals: list[str]
    actions: list[str]
    hazards: list[str]
    sources: list[tuple[str, str, str]] = field(default_factory=list)  # (owner, region or part, hazard)
    stocks: dict[str, int] = field(default_factory=dict)
    history: list[tuple[int, str, tuple[str, ...]]] = field(default_factory=list)
    decision_time: int = 0
    horizon: int = 12
    profile: str = "canonical"
    family: str = "spoon_fruit"
    schedule: list[Step] = field(default_factory=list)  # a valid continuation
    variants: dict[str, list[Step]] = field(default_factory=dict)  # named continuations (valid or not)
    #: classical-flavour plans (PDDL text, one step a line) for the classical projection's own rules
    classical: dict[str, str] = field(default_factory=dict)

    def data(self, reg: Registries) -> dict:
        history = [{"kind": "action", "name": n, "args": list(a), "start": s,
                    "duration": reg.actions[n].duration} for s, n, a in self.history]
        data = {
            "format": "hygiene-pddl-instance/2", "id": self.id, "family": self.family,
            "request": f"hand-made v2 instance {self.id}", "goals": self.goals,
            "decision_time": self.decision_time, "horizon": self.horizon, "objects": dict(sorted(self.objects.items())),
            "initial": {"facts": sorted(self.facts),
                        "hazards": [{"carrier": [o, p], "hazard": h} for o, p, h in self.sources],
                        "stocks": dict(sorted(self.stocks.items()))},
            "history": history, "observations": {"facts": []}, "resources": {}, "known_events": [],
            "profile": {"name": self.profile, "order": list(reg.profiles[self.profile].order)},
            "registry": {"actions": sorted(self.actions), "events": [], "hazards": sorted(self.hazards),
                         "treatments": sorted({t for a in self.actions for t in reg.actions[a].treatment_names})},
        }
        state = replay(instance_from_data(data, reg, self.id), reg, check=False)
        data["observations"] = {"facts": sorted(atom_text(a) for a in state.facts)}
        data["resources"] = dict(state.stocks)
        return data

    def instance(self, reg: Registries) -> Instance:
        return instance_from_data(self.data(reg), reg, self.id)


def _hands(*extra: str) -> list[str]:
    return ["(empty left)", "(empty right)", *extra]


CASES = [
    # running processes keep their conditions: the pot may not leave the stove before the cook ends (t = 10)
    Case("v2-cook-keeps-pot", {"pot": "pot", "stove": "stove", "counter": "counter"},
         _hands("(at pot counter)", "(filled pot)"), ["(cooked pot)", "(at pot counter)", "(safe pot)"],
         ["pick", "place", "cook"], ["soil"], stocks={"water": 1},
         history=[(0, "pick", ("right", "pot", "handle", "counter")), (1, "place", ("right", "pot", "stove")),
                  (2, "cook", ("pot", "stove"))],
         decision_time=4, horizon=14,
         schedule=[(8, "pick", ("right", "pot", "handle", "stove")), (9, "place", ("right", "pot", "counter"))],
         variants={"lift-4-early": [(4, "pick", ("right", "pot", "handle", "stove")),
                                    (5, "place", ("right", "pot", "counter"))]},
         classical={"end-first": "(cook-end pot stove)\n(pick right pot pot-handle stove right-pad)\n"
                                 "(place right pot counter pot-bottom counter-top)\n",
                    "lift-mid-cook": "(pick right pot pot-handle stove right-pad)\n"
                                     "(place right pot counter pot-bottom counter-top)\n(cook-end pot stove)\n"}),
    # M1 + M2: a held cloth wipes a surface (contact and treatment in one happening); the cloth then carries it
    Case("v2-wipe", {"cloth": "cloth", "counter": "counter", "table": "table", "apple": "apple"},
         _hands("(at cloth table)", "(at apple table)"), ["(at apple counter)", "(safe apple)"],
         ["pick", "place", "wipe"], ["soil"], sources=[("counter", "top", "soil")],
         schedule=[(0, "pick", ("right", "cloth", "corner", "table")), (1, "wipe", ("right", "cloth", "counter")),
                   (0, "pick", ("left", "apple", "skin", "table")), (3, "place", ("left", "apple", "counter"))],
         variants={"place-before-wipe": [(0, "pick", ("right", "cloth", "corner", "table")),
                                         (0, "pick", ("left", "apple", "skin", "table")),
                                         (1, "place", ("left", "apple", "counter"))],
                   "extra-place": [(0, "pick", ("right", "cloth", "corner", "table")),
                                   (1, "wipe", ("right", "cloth", "counter")),
                                   (0, "pick", ("left", "apple", "skin", "table")),
                                   (3, "place", ("left", "apple", "counter")),
                                   (3, "place", ("right", "cloth", "table"))]}),
    # M2 quantified guarded contact: what is put on a shared basket touches everything already in it
    Case("v2-shared-basket", {"basket": "basket", "apple": "apple", "spoon": "spoon", "counter": "counter",
                              "tray": "tray"},
         _hands("(at apple basket)", "(at spoon counter)", "(at basket counter)", "(at tray counter)"),
         ["(at spoon basket)", "(at tray basket)", "(safe apple)", "(safe spoon)"], ["pick", "put", "wash-item"],
         ["raw_meat_bacteria"], sources=[("tray", "bottom", "raw_meat_bacteria")], stocks={"water": 2,
                                                                                         "cleaning_agent": 2},
         schedule=[(0, "pick", ("left", "spoon", "handle", "counter")), (1, "put", ("left", "spoon", "basket")),
                   (0, "pick", ("right", "tray", "rim", "counter")),
                   (1, "wash-item", ("right", "tray", "bottom")), (3, "put", ("right", "tray", "basket"))],
         variants={"unwashed-tray": [(0, "pick", ("left", "spoon", "handle", "counter")),
                                     (1, "put", ("left", "spoon", "basket")),
                                     (0, "pick", ("right", "tray", "rim", "counter")),
                                     (1, "put", ("right", "tray", "basket"))]}),
]

_TOWEL = {"towel": "tea_towel", "washer": "washer", "counter": "counter"}
_WASH = [(0, "pick", ("left", "towel", "fold", "counter")), (1, "load", ("left", "towel", "washer")),
         (2, "close", ("right", "washer")), (3, "run-hot", ("washer",)), (11, "open", ("right", "washer")),
         (12, "unload", ("right", "towel", "washer")), (13, "place", ("right", "towel", "counter"))]
_WASHER_K = ["pick", "place", "open", "close", "load", "unload", "run-hot", "run-eco"]

CASES += [
    # M2 + M5: an appliance cycle (quantified contacts at start, quantified treatments and updates at end), a
    # capacity (load), a door the cycle needs closed throughout
    Case("v2-washer", _TOWEL, _hands("(at towel counter)"), ["(at towel counter)", "(safe towel)"], _WASHER_K,
         ["soil"], sources=[("towel", "fold", "soil")], stocks={"water": 8, "cleaning_agent": 2}, horizon=16,
         schedule=_WASH,
         variants={"open-mid-cycle": [*_WASH[:4], (6, "open", ("right", "washer")),
                                      (12, "unload", ("right", "towel", "washer")),
                                      (13, "place", ("right", "towel", "counter"))],
                   "eco": [*_WASH[:3], (3, "run-eco", ("washer",)), (15, "open", ("right", "washer"))],
                   "same-pad": [*_WASH[:5], (12, "unload", ("left", "towel", "washer")),
                                (13, "place", ("left", "towel", "counter"))]}),
    # a cycle running at the decision time: its door stays closed until it ends (keep facts), its end treats
    Case("v2-washer-running", _TOWEL, _hands("(at towel counter)"), ["(at towel counter)", "(safe towel)"],
         _WASHER_K, ["soil"], sources=[("towel", "fold", "soil")], stocks={"water": 8, "cleaning_agent": 2},
         history=_WASH[:4], decision_time=5, horizon=16,
         schedule=[(6, "open", ("right", "washer")), (7, "unload", ("right", "towel", "washer")),
                   (8, "place", ("right", "towel", "counter"))],
         variants={"open-early": [(2, "open", ("right", "washer")), (7, "unload", ("right", "towel", "washer")),
                                  (8, "place", ("right", "towel", "counter"))]}),
    # M5: two fit, the third does not; two loads at one instant interfere (both read and write the load)
    Case("v2-capacity", {"n1": "linen_napkin", "n2": "linen_napkin", "n3": "linen_napkin", "washer": "washer",
                         "counter": "counter"},
         _hands("(at n1 counter)", "(at n2 counter)", "(at n3 counter)"),
         ["(inside n1 washer)", "(inside n2 washer)"], ["pick", "load", "unload"], ["soil"],
         schedule=[(0, "pick", ("left", "n1", "fold", "counter")), (0, "pick", ("right", "n2", "fold", "counter")),
                   (1, "load", ("left", "n1", "washer")), (1, "load", ("right", "n2", "washer"))],
         variants={"third": [(0, "pick", ("left", "n1", "fold", "counter")),
                             (0, "pick", ("right", "n2", "fold", "counter")),
                             (1, "load", ("left", "n1", "washer")), (1, "load", ("right", "n2", "washer")),
                             (2, "pick", ("left", "n3", "fold", "counter")), (3, "load", ("left", "n3", "washer"))],
                   "swap": [(0, "pick", ("left", "n1", "fold", "counter")),
                            (0, "pick", ("right", "n2", "fold", "counter")),
                            (1, "load", ("left", "n1", "washer")), (1, "load", ("right", "n2", "washer")),
                            (2, "pick", ("left", "n3", "fold", "counter")), (3, "unload", ("right", "n2", "washer")),
                            (4, "load", ("left", "n3", "washer"))]}),
    # M3: a glove covers the pad while worn
    Case("v2-gloves", {"chicken": "raw_chicken", "fridge": "fridge", "loaf": "loaf", "shelf": "shelf",
                       "counter": "counter"},
         _hands("(at chicken counter)", "(at loaf shelf)"), ["(at chicken fridge)", "(at loaf counter)", "(safe loaf)"],
         ["pick", "place", "don-glove", "doff-glove"], ["raw_meat_bacteria"],
         sources=[("chicken", "film", "raw_meat_bacteria")], stocks={"gloves": 1},
         schedule=[(0, "don-glove", ("left",)), (1, "pick", ("left", "chicken", "film", "counter")),
                   (2, "place", ("left", "chicken", "fridge")), (3, "doff-glove", ("left",)),
                   (4, "pick", ("left", "loaf", "crust", "shelf")), (5, "place", ("left", "loaf", "counter"))],
         variants={"no-glove": [(1, "pick", ("left", "chicken", "film", "counter")),
                                (2, "place", ("left", "chicken", "fridge")),
                                (4, "pick", ("left", "loaf", "crust", "shelf")),
                                (5, "place", ("left", "loaf", "counter"))],
                   "glove-on": [(0, "don-glove", ("left",)), (1, "pick", ("left", "chicken", "film", "counter")),
                                (2, "place", ("left", "chicken", "fridge")),
                                (4, "pick", ("left", "loaf", "crust", "shelf")),
                                (5, "place", ("left", "loaf", "counter"))]}),
    # M4: nothing touches a surface while the disinfectant dwells on it
    Case("v2-spray-dwell", {"spray": "disinfectant_spray", "counter": "counter", "apple": "apple", "table": "table"},
         _hands("(at spray table)", "(at apple table)"), ["(at apple counter)", "(safe apple)"],
         ["pick", "place", "spray", "dwell"], ["raw_meat_bacteria"], sources=[("counter", "top", "raw_meat_bacteria")],
         stocks={"disinfectant": 1}, horizon=10,
         schedule=[(0, "pick", ("right", "spray", "trigger", "table")), (1, "spray", ("right", "spray", "counter")),
                   (2, "dwell", ("counter",)), (0, "pick", ("left", "apple", "skin", "table")),
                   (7, "place", ("left", "apple", "counter"))],
         variants={"place-while-dwelling": [(0, "pick", ("right", "spray", "trigger", "table")),
                                            (1, "spray", ("right", "spray", "counter")), (2, "dwell", ("counter",)),
                                            (0, "pick", ("left", "apple", "skin", "table")),
                                            (4, "place", ("left", "apple", "counter"))]}),
    # treatments of every region (?o.*): rinse at the end; fetch-spare renews at its start, then the pad grasps
    Case("v2-rinse-or-replace", {"apple": "apple", "counter": "counter", "plate": "plate", "bin": "waste_bin"},
         _hands("(at apple counter)", "(at plate counter)"), ["(at apple plate)", "(safe apple)"],
         ["pick", "place", "rinse-item", "discard", "fetch-spare"], ["soil"], sources=[("apple", "skin", "soil")],
         stocks={"water": 1, "spare_items": 1},
         schedule=[(0, "pick", ("right", "apple", "skin", "counter")), (1, "rinse-item", ("right", "apple")),
                   (2, "place", ("right", "apple", "plate"))],
         variants={"replace": [(0, "pick", ("right", "apple", "skin", "counter")),
                               (1, "discard", ("right", "apple", "bin")), (2, "fetch-spare", ("right", "apple")),
                               (3, "place", ("right", "apple", "plate"))],
                   "neither": [(0, "pick", ("right", "apple", "skin", "counter")),
                               (1, "place", ("right", "apple", "plate"))]}),
    # makespan before a later dimension: whole TU (ticks and (finish tuK))
    Case("v2-wipe-time-first", {"cloth": "cloth", "counter": "counter", "table": "table", "apple": "apple"},
         _hands("(at cloth table)", "(at apple table)"), ["(at apple counter)", "(safe apple)"],
         ["pick", "place", "wipe"], ["soil"], sources=[("counter", "top", "soil")], profile="time_first",
         schedule=[(0, "pick", ("right", "cloth", "corner", "table")), (1, "wipe", ("right", "cloth", "counter")),
                   (0, "pick", ("left", "apple", "skin", "table")), (3, "place", ("left", "apple", "counter"))],
         variants={"extra-place": [(0, "pick", ("right", "cloth", "corner", "table")),
                                   (1, "wipe", ("right", "cloth", "counter")),
                                   (0, "pick", ("left", "apple", "skin", "table")),
                                   (3, "place", ("left", "apple", "counter")),
                                   (3, "place", ("right", "cloth", "table"))]}),
]

CASES.append(
    # classical flavour: a process started in the continuation must end (the goal says so)
    Case("v2-dwell-must-end", {"spray": "disinfectant_spray", "counter": "counter", "table": "table"},
         _hands("(at spray table)"), ["(holding right spray)"], ["pick", "spray", "dwell"], ["raw_meat_bacteria"],
         stocks={"disinfectant": 1}, horizon=10,
         schedule=[(0, "pick", ("right", "spray", "trigger", "table")), (1, "spray", ("right", "spray", "counter")),
                   (2, "dwell", ("counter",))],
         classical={"ends": "(pick right spray-2 spray-trigger table right-pad)\n(spray right spray-2 counter n1 n0)\n"
                            "(dwell-start counter counter-top)\n(dwell-end counter counter-top)\n",
                    "left-running": "(pick right spray-2 spray-trigger table right-pad)\n"
                                    "(spray right spray-2 counter n1 n0)\n(dwell-start counter counter-top)\n"}))

CASES += [
    # issue 12: cook-food cooks food (the ingestible tag), not a knife
    Case("v2-cook-only-food", {"chicken": "chicken_breast", "knife": "cooks_knife", "pan": "skillet",
                               "stove": "stove"},
         _hands("(at chicken pan)", "(at knife pan)", "(at pan stove)"), ["(cooked chicken)"], ["cook-food"],
         ["raw_meat_bacteria"], horizon=14,
         schedule=[(0, "cook-food", ("chicken", "pan", "stove"))],
         variants={"cook-the-knife": [(0, "cook-food", ("knife", "pan", "stove")),
                                      (6, "cook-food", ("chicken", "pan", "stove"))]}),
    # issue 12: fetch-spare takes a spare of what the household keeps spares of (the liner), not of a feather
    Case("v2-spare-of-a-kept-item", {"liner": "paper_cage_liner", "feather": "moulted_feather", "bin": "waste_bin",
                                     "worktop": "worktop"},
         _hands("(at liner worktop)", "(at feather worktop)"), ["(at liner worktop)", "(safe liner)"],
         ["pick", "place", "discard", "fetch-spare"], ["pet_waste_bacteria"],
         sources=[("liner", "sheet", "pet_waste_bacteria")], stocks={"spare_items": 1}, horizon=8,
         schedule=[(0, "pick", ("left", "liner", "edge", "worktop")), (1, "discard", ("left", "liner", "bin")),
                   (2, "fetch-spare", ("left", "liner")), (3, "place", ("left", "liner", "worktop"))],
         variants={"spare-feather": [(0, "pick", ("left", "feather", "quill", "worktop")),
                                     (1, "discard", ("left", "feather", "bin")),
                                     (2, "fetch-spare", ("left", "feather"))]}),
    # issue 12: nothing is tipped into a covered container
    Case("v2-add-before-cover", {"bowl": "mug", "lid": "bowl_cover", "snack": "snack_bag", "counter": "counter"},
         _hands("(at bowl counter)", "(at lid counter)", "(at snack counter)"),
         ["(in snack bowl)", "(safe snack)", "(covered bowl)"],
         ["pick", "add-into", "cover"], ["soil"], horizon=8,
         schedule=[(0, "pick", ("left", "snack", "bag", "counter")), (1, "add-into", ("left", "snack", "bowl")),
                   (0, "pick", ("right", "lid", "knob", "counter")), (2, "cover", ("right", "lid", "bowl"))],
         variants={"cover-first": [(0, "pick", ("left", "snack", "bag", "counter")),
                                   (0, "pick", ("right", "lid", "knob", "counter")),
                                   (1, "cover", ("right", "lid", "bowl")),
                                   (2, "add-into", ("left", "snack", "bowl"))]}),
]

CASES.append(
    # issue 12: nothing is picked off a surface while its disinfectant dwells
    Case("v2-pick-off-dwelling", {"spray": "disinfectant_spray", "counter": "counter", "apple": "apple",
                                  "table": "table"},
         _hands("(at spray table)", "(at apple counter)"), ["(at apple table)", "(safe apple)"],
         ["pick", "place", "spray", "dwell"], ["raw_meat_bacteria"], sources=[("counter", "top", "raw_meat_bacteria")],
         stocks={"disinfectant": 1}, horizon=12,
         schedule=[(0, "pick", ("right", "spray", "trigger", "table")), (1, "spray", ("right", "spray", "counter")),
                   (2, "dwell", ("counter",)), (8, "pick", ("left", "apple", "skin", "counter")),
                   (9, "place", ("left", "apple", "table"))],
         variants={"pick-while-dwelling": [(0, "pick", ("right", "spray", "trigger", "table")),
                                           (1, "spray", ("right", "spray", "counter")), (2, "dwell", ("counter",)),
                                           (3, "pick", ("left", "apple", "skin", "counter")),
                                           (4, "place", ("left", "apple", "table"))]}))

CASES += [
    # issue 12: a scoop takes from a container that holds something (not from the shelf the sack stands on)
    Case("v2-scoop-what-it-holds", {"sack": "kibble_sack", "bowl": "pet_bowl", "kscoop": "kibble_scoop",
                                    "shelf": "shelf", "floor": "floor"},
         _hands("(at sack shelf)", "(filled sack)", "(at bowl floor)", "(at kscoop shelf)"),
         ["(filled bowl)", "(safe bowl)"], ["pick", "scoop"], ["soil"], horizon=6,
         schedule=[(0, "pick", ("right", "kscoop", "handle", "shelf")),
                   (1, "scoop", ("right", "kscoop", "sack", "bowl"))],
         variants={"scoop-from-the-shelf": [(0, "pick", ("right", "kscoop", "handle", "shelf")),
                                            (1, "scoop", ("right", "kscoop", "shelf", "bowl"))]}),
    # issue 12: litter is scooped out only into a waste container, and a tray is tipped out only while it holds some
    Case("v2-litter-into-the-bin", {"tray": "litter_tray", "shovel": "litter_shovel", "bin": "waste_bin",
                                    "floor": "floor"},
         _hands("(at tray floor)", "(filled tray)", "(at shovel floor)"), ["(scooped tray)"],
         ["pick", "scoop", "empty-into"], ["pet_waste_bacteria"], sources=[("tray", "litter", "pet_waste_bacteria")],
         horizon=6,
         schedule=[(0, "pick", ("right", "shovel", "handle", "floor")),
                   (1, "scoop", ("right", "shovel", "tray", "bin"))],
         variants={"onto-the-floor": [(0, "pick", ("right", "shovel", "handle", "floor")),
                                      (1, "scoop", ("right", "shovel", "tray", "floor"))],
                   "tip-it": [(0, "pick", ("left", "tray", "rim", "floor")),
                              (1, "empty-into", ("left", "tray", "bin"))],
                   "tip-twice": [(0, "pick", ("left", "tray", "rim", "floor")),
                                 (1, "empty-into", ("left", "tray", "bin")),
                                 (2, "empty-into", ("left", "tray", "bin"))]}),
    # issue 12: what is washed at the sink holds nothing: the litter is tipped out first
    Case("v2-wash-an-emptied-tray", {"tray": "litter_tray", "bin": "waste_bin", "floor": "floor"},
         _hands("(at tray floor)", "(filled tray)"), ["(scooped tray)", "(at tray floor)"],
         ["pick", "place", "empty-into", "wash-item"], ["pet_waste_bacteria"],
         sources=[("tray", "litter", "pet_waste_bacteria")], stocks={"water": 1, "cleaning_agent": 1}, horizon=8,
         schedule=[(0, "pick", ("left", "tray", "rim", "floor")), (1, "empty-into", ("left", "tray", "bin")),
                   (2, "wash-item", ("left", "tray", "litter")), (4, "place", ("left", "tray", "floor"))],
         variants={"wash-while-full": [(0, "pick", ("left", "tray", "rim", "floor")),
                                       (1, "wash-item", ("left", "tray", "litter")),
                                       (3, "empty-into", ("left", "tray", "bin")),
                                       (4, "place", ("left", "tray", "floor"))]}),
    # issue 12: the disinfectant dwells on a plate no gripper holds
    Case("v2-dwell-not-held", {"spray": "disinfectant_spray", "plate": "plate", "counter": "counter",
                               "table": "table"},
         _hands("(at spray table)", "(at plate counter)"), ["(at plate table)", "(safe plate)"],
         ["pick", "place", "spray", "dwell"], ["raw_meat_bacteria"], sources=[("plate", "top", "raw_meat_bacteria")],
         stocks={"disinfectant": 1}, horizon=12,
         schedule=[(0, "pick", ("right", "spray", "trigger", "table")), (1, "spray", ("right", "spray", "plate")),
                   (2, "dwell", ("plate",)), (8, "pick", ("left", "plate", "rim", "counter")),
                   (9, "place", ("left", "plate", "table"))],
         variants={"dwell-while-held": [(0, "pick", ("right", "spray", "trigger", "table")),
                                        (0, "pick", ("left", "plate", "rim", "counter")),
                                        (1, "spray", ("right", "spray", "plate")), (2, "dwell", ("plate",)),
                                        (7, "place", ("left", "plate", "table"))]}),
]

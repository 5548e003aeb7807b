"""Small v2 instances for the planner tests, and a brute-force optimum to check the planners against.

:func:`instance` writes a format-2 instance from a few facts (observations and R_t derived by the replay, as the
episode writer does). :func:`brute_force` enumerates every plan of at most ``max_steps`` actions over every
reachable ground action (repeats allowed) with integer start times, every order of their happenings at
their earliest times, and confirms the best with the instance-level evaluator: the lexicographic optimum among
them, independent of every CP-SAT model.
"""

from __future__ import annotations

import itertools

from hygiene_pddl.costs import SUMMED, CostVector
from hygiene_pddl.hygiene import HygieneRules
from hygiene_pddl.instances.loader import instance_from_data
from hygiene_pddl.instances.model import Instance
from hygiene_pddl.literals import atom_text
from hygiene_pddl.planners.base import ChosenStep, plan_text
from hygiene_pddl.planners.grounding import GroundAction, initial_fluents, ongoing_actions, reachable_actions
from hygiene_pddl.planners.happenings import Blocked, run
from hygiene_pddl.plans.parser import parse_plan
from hygiene_pddl.registries import Registries
from hygiene_pddl.replay import replay
from hygiene_pddl.validation.instance_level import evaluate_plan

CANONICAL = ["water", "cleaning_agent", "disinfectant", "replacement_parts", "discarded_items", "solid_waste",
             "energy", "tool_wear", "active_robot_time", "makespan"]


def instance(reg: Registries, **kw) -> Instance:
    """The instance of :func:`instance_data`."""
    return instance_from_data(instance_data(reg, **kw), reg, kw.get("name", "case"))


def instance_data(reg: Registries, *, objects: dict[str, str], facts: list[str], goals: list[str], actions: list[str],
             hazards: list[tuple[str, str, str]] = (), history: list[dict] = (), decision_time: int = 0,
             horizon: int = 12, stocks: dict[str, int] | None = None, order: list[str] | None = None,
             events: list[str] = (), name: str = "case") -> dict:
    """The data of a format-2 instance (the hot-cocoa family's name) with the given K (``actions``); the hazards of K
    are those ``hazards`` (owner, part, hazard) name, and soil."""
    kinds = sorted({h for _, _, h in hazards} | {"soil"})
    treatments = sorted({t for a in actions for t in reg.actions[a].treatment_names})
    data = {
        "format": "hygiene-pddl-instance/2", "id": name, "family": "hot_cocoa", "request": "a test case",
        "goals": goals, "decision_time": decision_time, "horizon": horizon, "objects": dict(sorted(objects.items())),
        "initial": {"facts": sorted(facts), "hazards": [{"carrier": [o, p], "hazard": h} for o, p, h in hazards],
                    "stocks": dict(sorted((stocks or {"water": 4, "cleaning_agent": 2, "spare_pads": 2}).items()))},
        "history": list(history), "observations": {"facts": []}, "resources": {}, "known_events": [],
        "profile": {"name": "case", "order": order or CANONICAL},
        "registry": {"actions": sorted(actions), "events": sorted(events), "hazards": kinds,
                     "treatments": treatments},
    }
    state = replay(instance_from_data(data, reg, name), reg, check=False)
    data["observations"] = {"facts": sorted(atom_text(a) for a in state.facts)}
    data["resources"] = dict(state.stocks)
    return data


def check_plan(reg: Registries, inst: Instance, result) -> None:  # noqa: ANN001 - a PlannerResult
    """A returned plan is valid at the instance level with exactly the cost vector the planner reports."""
    report = evaluate_plan(reg, inst, parse_plan(result.plan_text))
    assert report.valid, (report.findings, result.plan_text)
    assert report.cost == result.cost, (report.cost, result.cost)


def _necessary(inst: Instance, combo: tuple[GroundAction, ...], init: set, ongoing_adds: set) -> bool:
    """Cheap conditions every valid plan with exactly these actions meets (so skipping the rest loses nothing)."""
    adds = {a for ga in combo for a in ga.adds()} | ongoing_adds
    for g in inst.goals:
        if g[0] != "safe" and g not in init and g not in adds:
            return False
    for ga in combo:
        for atom, pos in ga.conditions:
            if pos and not atom[0].startswith("#") and atom not in init and atom not in adds:
                return False
    use: dict[str, int] = {}
    for ga in combo:
        for s, n in ga.consumes:
            use[s] = use.get(s, 0) + n
    return all(inst.remaining(s) >= n for s, n in use.items())


def _cost(inst: Instance, combo: tuple[GroundAction, ...], makespan: int) -> CostVector:
    amounts = {d: sum(ga.cost(d) for ga in combo) for d in SUMMED}
    amounts["active_robot_time"] = sum(ga.cost("active_robot_time") for ga in combo)
    amounts["makespan"] = makespan
    return CostVector.from_mapping(amounts)


def brute_force(reg: Registries, inst: Instance, max_steps: int) -> CostVector | None:
    """The lexicographically least cost vector of a valid plan of at most ``max_steps`` actions, or None.

    Every multiset of reachable ground actions, every order of their happenings (and of the ends of history
    actions still running), each at its earliest integer times, is simulated happening by happening
    (planners/happenings.py, itself checked against replay.World); a better plan found is confirmed by the
    instance-level evaluator before it counts."""
    state = replay(inst, reg)
    actions = reachable_actions(reg, inst, state)
    rules = HygieneRules(reg, dict(inst.objects), inst.hazards)
    init = initial_fluents(reg, inst, state)
    ongoing = ongoing_actions(reg, inst, state)
    ongoing_adds = {a for o in ongoing for a in o.action.adds()}
    horizon = state.horizon - inst.decision_time
    contam = {(c, h) for c, hs in state.carried().items() for h in hs}
    unsafe = [f for g in inst.goals if g[0] == "safe" for f in rules.unsafe_facts(g[1])]
    combos = [c for k in range(max_steps + 1) for c in itertools.combinations_with_replacement(actions, k)
              if _necessary(inst, c, init, ongoing_adds)]
    combos.sort(key=lambda c: _cost(inst, c, max((a.duration for a in c), default=0)).key(inst.profile))
    best: CostVector | None = None
    for combo in combos:
        optimistic = _cost(inst, combo, max((a.duration for a in combo), default=0))
        if best is not None and optimistic.key(inst.profile) >= best.key(inst.profile):
            break
        for events in _orders(len(combo), len(ongoing)):
            times = _earliest(events, combo, ongoing)
            if times is None:
                continue
            ends = [times[events.index(("end", i))] for i in range(len(combo))]
            if any(e > horizon for e in ends):
                continue
            cost = _cost(inst, combo, max(ends, default=0))
            if best is not None and cost.key(inst.profile) >= best.key(inst.profile):
                continue
            facts, dirt = set(init), set(contam)
            sequence = [(combo[x], ph) if ph != "ongoing" else (ongoing[x].action, "end") for ph, x in events]
            try:
                run(rules, facts, dirt, sequence, [o.action for o in ongoing])
            except Blocked:
                continue
            if any(g not in facts for g in inst.goals if g[0] != "safe") or any(f in dirt for f in unsafe):
                continue
            starts = [times[events.index(("start", i))] for i in range(len(combo))]
            steps = [ChosenStep(starts[i], a.name, a.args, a.duration, events.index(("start", i)),
                                events.index(("end", i))) for i, a in enumerate(combo)]
            report = evaluate_plan(reg, inst, parse_plan(plan_text(reg, inst, steps, "brute-force", cost)))
            if report.valid and report.cost == cost:
                best = cost
    return best


def _orders(n: int, m: int) -> list[list[tuple[str, int]]]:
    """Every sequence of the starts and ends of n actions (each start before its end) and m ongoing ends (in
    their given order)."""
    out = []
    items = [("start", i) for i in range(n)] + [("end", i) for i in range(n)] + [("ongoing", k) for k in range(m)]
    for perm in itertools.permutations(items):
        pos = {x: i for i, x in enumerate(perm)}
        if all(pos[("start", i)] < pos[("end", i)] for i in range(n)) and \
                all(pos[("ongoing", k)] < pos[("ongoing", k + 1)] for k in range(m - 1)):
            out.append(list(perm))
    return out


def _earliest(events: list[tuple[str, int]], combo: tuple[GroundAction, ...], ongoing) -> list[int] | None:  # noqa: ANN001
    """The earliest integer times of the events in this order (non-decreasing; an end is its start plus the
    duration; an ongoing end is fixed and comes before any plan happening at its time), or None."""
    t = [0] * len(events)
    pos = {x: i for i, x in enumerate(events)}
    for _ in range(4 * len(events) + 4):
        changed = False
        for k, (ph, x) in enumerate(events):
            low = t[k - 1] if k else 0
            if k and events[k - 1][0] == "ongoing" and ph != "ongoing":
                low = max(low, t[k - 1])
            if ph == "ongoing":
                low = max(low, ongoing[x].end)
            if ph == "end":
                low = max(low, t[pos[("start", x)]] + combo[x].duration)
            if ph == "start":
                low = max(low, t[pos[("end", x)]] - combo[x].duration)
            if low > t[k]:
                t[k], changed = low, True
        if not changed:
            break
    for k, (ph, x) in enumerate(events):
        if ph == "end" and t[k] != t[pos[("start", x)]] + combo[x].duration:
            return None
        if ph == "ongoing":
            if t[k] != ongoing[x].end:
                return None
            if any(t[i] >= t[k] for i in range(k) if events[i][0] != "ongoing"):
                return None  # a plan happening at the ongoing end's time comes after it
    return t

"""The seven structural features of paper §III-B, computed from an instance and its replayed state, and the
difficulty tiers they define."""

from __future__ import annotations

from hygiene_pddl.hygiene import HygieneRules
from hygiene_pddl.instances.model import Instance
from hygiene_pddl.registries import Registries
from hygiene_pddl.replay import ReplayResult

FEATURES = ("request_composition", "remaining_goal_composition", "goal_preservation_conflicts", "temporal_coupling",
            "multi_carrier_hazards", "constrained_treatment_resources", "relevant_known_events")
#: Score = weighted sum of (capped) features; tiers by score (docs/benchmark-composition.md).
WEIGHTS = {"request_composition": 1, "remaining_goal_composition": 1, "goal_preservation_conflicts": 1,
           "temporal_coupling": 3, "multi_carrier_hazards": 1, "constrained_treatment_resources": 1,
           "relevant_known_events": 2}
CAPS: dict[str, int] = {}
EASY_MAX, MODERATE_MAX = 6, 10
#: the data families' thresholds: the thirds of the score over every draft the 131 data families offer (13 and 20
#: in session 9, over 5 to 55); with them a composition meeting every SPEC §9 row exists (so did (12, 18) to
#: (15, 21); the v1 build took the first such pair, v2 takes the thirds, which do not depend on the composer).
DATA_TIERS = (13, 20)


def features(reg: Registries, inst: Instance, state: ReplayResult) -> dict[str, int]:
    rules = HygieneRules(reg, dict(inst.objects), inst.hazards)
    carried = state.carried()

    def holds(goal) -> bool:  # noqa: ANN001
        if goal[0] == "safe":
            return not any(h in carried.get(c, frozenset()) for c, h in rules.unsafe_facts(goal[1]))
        return goal in state.facts

    goal_objects = {a for g in inst.goals for a in g[1:] if a in dict(inst.objects)}
    protected = [((o, r.name), h) for o in sorted(goal_objects)
                 for r in reg.object_types[dict(inst.objects)[o]].regions for h in rules.protected((o, r.name))]
    dirty_pads = [(c, h) for c, hs in carried.items() if rules.is_gripper_part(c) and c[1] == "pad" for h in hs]
    conflicts = sum(1 for pad, h in dirty_pads for c, ph in protected if h == ph and rules.crosses(h, pad, c))
    known = set(inst.known_events)
    relevant_events = sum(1 for f in state.contamination if rules.is_gripper_part(f.carrier) and f.carrier[1] == "pad"
                          and f.provenance[-1].step in known)
    if getattr(reg.families.get(inst.family), "spec", None) is not None:  # a data family: the v2 readings
        coupling = _coupling(reg, inst, state)
        carriers = _carriers_on_paths(inst, carried, {h for _, h in protected})
        scarce = _scarce_treatments(reg, inst)
    else:
        start_adds = {lit.atom[0] for a in inst.actions for lit in reg.actions[a].eff_start if lit.positive}
        coupling = int(any(lit.atom[0] in start_adds for a in inst.actions for lit in reg.actions[a].cond_overall))
        carriers = max(0, len(carried) - 1)
        scarce = sum(1 for a in inst.actions if any(t.target.part == "pad" for t in reg.actions[a].treats)
                     and any(inst.remaining(s) < n for s, n in reg.actions[a].consumes))
    return {"request_composition": len(inst.goals), "remaining_goal_composition": sum(not holds(g) for g in inst.goals),
            "goal_preservation_conflicts": conflicts, "temporal_coupling": coupling,
            "multi_carrier_hazards": carriers, "constrained_treatment_resources": scarce,
            "relevant_known_events": relevant_events}


# --- the data families' (v2) readings of three features: what the v1 formulas measured is always 0 or counts the
# source itself on the v2 tasks (issue 13); the v1 families keep the formulas above until they are replaced.


def _is_process(reg: Registries, action: str) -> bool:
    """An action that runs without a gripper for more than one TU (a cycle, a cook, a dwell)."""
    schema = reg.actions[action]
    return not schema.occupies and schema.duration >= 2


def _coupling(reg: Registries, inst: Instance, state: ReplayResult) -> int:
    """0: nothing to schedule around; 1: the continuation has a process (a cycle, a cook, a dwell) that treats
    something or adds what an unmet goal asks for, so the grippers' work is timed against it; 2: besides, a
    process is already running at the decision time."""
    goal_preds = {g[0] for g in inst.goals}
    useful = any(_is_process(reg, a) and (reg.actions[a].treats or goal_preds & {
        lit.atom[0] for lit in (*reg.actions[a].eff_end, *(e for u in reg.actions[a].updates for e in u.effects))
        if lit.positive}) for a in inst.actions)
    running = any(rec.kind == "action" and _is_process(reg, rec.name) for rec in state.ongoing)
    return int(useful) + int(useful and running)


def _carriers_on_paths(inst: Instance, carried: dict, protected: set[str]) -> int:
    """Carriers other than the hazard sources themselves that carry a hazard some goal object is protected
    against: the pads, tools and surfaces a plan's contacts can pass it on from."""
    sources = {s.carrier for s in inst.initial_hazards}
    return sum(1 for c, hs in carried.items() if c not in sources and hs & protected)


def _scarce_treatments(reg: Registries, inst: Instance) -> int:
    """Treating actions of K that the stocks cannot pay for twice: "treat after every contact" runs out."""
    return sum(1 for a in inst.actions if reg.actions[a].treats and reg.actions[a].consumes
               and any(inst.remaining(s) < 2 * n for s, n in reg.actions[a].consumes))


def score(feats: dict[str, int]) -> int:
    return sum(WEIGHTS[k] * min(v, CAPS.get(k, v)) for k, v in feats.items())


def tier(feats: dict[str, int], data_family: bool = False) -> str:
    s = score(feats)
    easy, moderate = DATA_TIERS if data_family else (EASY_MAX, MODERATE_MAX)
    return "easy" if s <= easy else ("moderate" if s <= moderate else "hard")

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
    start_adds = {lit.atom[0] for a in inst.actions for lit in reg.actions[a].eff_start if lit.positive}
    coupled = any(lit.atom[0] in start_adds for a in inst.actions for lit in reg.actions[a].cond_overall)
    unaffordable = sum(1 for a in inst.actions if any(t.target.part == "pad" for t in reg.actions[a].treats)
                       and any(inst.remaining(s) < n for s, n in reg.actions[a].consumes))
    known = set(inst.known_events)
    relevant_events = sum(1 for f in state.contamination if rules.is_gripper_part(f.carrier) and f.carrier[1] == "pad"
                          and f.provenance[-1].step in known)
    return {"request_composition": len(inst.goals), "remaining_goal_composition": sum(not holds(g) for g in inst.goals),
            "goal_preservation_conflicts": conflicts, "temporal_coupling": int(coupled),
            "multi_carrier_hazards": max(0, len(carried) - 1), "constrained_treatment_resources": unaffordable,
            "relevant_known_events": relevant_events}


def score(feats: dict[str, int]) -> int:
    return sum(WEIGHTS[k] * min(v, CAPS.get(k, v)) for k, v in feats.items())


def tier(feats: dict[str, int]) -> str:
    s = score(feats)
    return "easy" if s <= EASY_MAX else ("moderate" if s <= MODERATE_MAX else "hard")

"""Session 7's strong-relaxation rules (planners/relaxation_order.add_reprovision, relaxation_chains
._clean_after_treatment; docs/planners.md, "The strong relaxation") on hand-made tasks where each one bites, against
the exact certifier: the strong bound reaches the optimum where the rule is needed, stays at or below it, and a
deliberately wrong variant of each rule is caught (a bound above the optimum, or a feasible task called infeasible).
The random tasks of test_strong_relaxation.py check the same rules against the plain search."""

from __future__ import annotations

import pytest

import hygiene_pddl.planners.relaxation as relaxation
import hygiene_pddl.planners.relaxation_chains as chains
import hygiene_pddl.planners.relaxation_order as order
from hygiene_pddl.certify import SearchStatus, exact_search
from hygiene_pddl.planners.grounding import reachable_actions
from hygiene_pddl.planners.lexsat import LexStatus
from hygiene_pddl.planners.relaxation import SETTINGS, relaxed_optimum
from hygiene_pddl.registries import load_registries
from hygiene_pddl.replay import replay
from tests.certify.tasks import TIME_FIRST, instance

REG = load_registries()


def _act(name: str, args: list[str], start: int, duration: int = 1) -> dict:
    return {"kind": "action", "name": name, "args": args, "start": start, "duration": duration}


def _groceries():
    """The right pad carries raw-meat bacteria, so the right gripper takes only the pork; the left moves the berries
    and the lettuce (rinsed) and closes the fridge: makespan 6. Without the deleted-support rule the relaxation lets
    the left gripper's berries go in after the lettuce's pick was provided by the berries' place (5)."""
    return instance(REG, "groceries", objects={"berries": "strawberry", "fridge": "fridge", "lettuce": "lettuce_head",
                                               "pork": "raw_pork", "worktop": "worktop"},
                    facts=["(at berries worktop)", "(at lettuce worktop)", "(at pork worktop)", "(empty left)",
                           "(empty right)"],
                    goals=["(at pork fridge)", "(at lettuce fridge)", "(at berries fridge)", "(closed fridge)"],
                    actions=["close", "pick", "place", "rinse-item"], hazards=["raw_meat_bacteria", "soil"],
                    sources=[("pork", "film", "raw_meat_bacteria"), ("pork", "tray", "raw_meat_bacteria"),
                             ("right", "pad", "raw_meat_bacteria"), ("lettuce", "leaves", "soil")],
                    stocks={"water": 2}, time_left=12, profile=TIME_FIRST)


def _towel(left_clean: bool):
    """A hand towel with faecal bacteria in a hot wash that ends 6 TU from now; the right pad touched it (and the left
    picked it, unless ``left_clean``). After the wash the towel is clean and must stay so: a dirty pad cannot unload
    it, so one pad is replaced first (water_first) unless the left one is clean."""
    opener = "left" if left_clean else "right"
    history = [_act("open", [opener, "washer"], 0),
               _act("pick", ["right" if left_clean else "left", "hand", "fold", "hamper"], 0),
               _act("load", ["right" if left_clean else "left", "hand", "washer"], 1),
               _act("close", [opener, "washer"], 3), _act("run-hot", ["washer"], 4, 8)]
    if not left_clean:
        history.insert(3, {"kind": "event", "name": "pad-touch", "args": ["right", "hand", "fold"], "start": 2})
    return instance(REG, f"towel-{str(left_clean).lower()}", objects={"hand": "hand_towel", "hamper": "hamper",
                                                         "rack": "drying_rack_v2", "washer": "washer"},
                    facts=["(at hand hamper)", "(closed washer)", "(empty left)", "(empty right)"],
                    goals=["(at hand rack)", "(closed washer)"],
                    actions=["open", "close", "unload", "place", "replace-pad", "wash-pad", "pick", "load",
                             "run-hot"],
                    hazards=["faecal_bacteria"], sources=[("hand", "fold", "faecal_bacteria")],
                    stocks={"spare_pads": 1, "water": 6, "cleaning_agent": 2}, time_left=12, history=history,
                    decision_time=6, events=["pad-touch"])


def _cushion():
    """The right gripper must keep the pillow; the left moves the brush, then the cushion, then sprays it: while it
    holds the spray it cannot hold the cushion, so the spray comes last (makespan 11; 9 without the rules)."""
    return instance(REG, "tool_down", objects={"spray": "disinfectant_spray", "cushion": "sofa_cushion",
                                               "pillow": "sofa_cushion", "brush": "scrubbing_brush",
                                               "table": "coffee_table", "sofa": "couch_v2"},
                    facts=["(at spray table)", "(at cushion table)", "(at brush sofa)", "(holding right pillow)",
                           "(empty left)"],
                    goals=["(at cushion sofa)", "(at brush table)", "(holding right pillow)"],
                    actions=["pick", "place", "put", "spray", "dwell"], hazards=["pet_waste_bacteria"],
                    sources=[("cushion", "face", "pet_waste_bacteria")], stocks={"disinfectant": 1}, time_left=14)


def _bounds(inst):  # noqa: ANN001, ANN202
    optimum = exact_search(REG, inst, time_limit=60)
    assert optimum.status is SearchStatus.OPTIMAL
    state = replay(inst, REG)
    every = reachable_actions(REG, inst, state)
    weak = relaxed_optimum(REG, inst, state, every, SETTINGS, 60)
    strong = relaxed_optimum(REG, inst, state, every, SETTINGS, 60, strong=True)
    assert weak.status is LexStatus.OPTIMAL and strong.status is LexStatus.OPTIMAL
    return optimum.cost, weak.bound, strong.bound, (state, every)


def _strong(inst, state_every):  # noqa: ANN001, ANN202
    return relaxed_optimum(REG, inst, *state_every, SETTINGS, 60, strong=True)


def test_a_support_undone_before_its_user_is_provided_again(monkeypatch):
    inst = _groceries()
    best, weak, strong, se = _bounds(inst)
    assert strong == best and weak["makespan"] < best["makespan"]
    # the rule is what bites: without the happenings that surely undo the support, the strong bound is the weak one
    plain = order.add_reprovision
    monkeypatch.setattr(relaxation, "add_reprovision", lambda m, a, g, makes, sure, *rest: plain(m, a, g, makes, {},
                                                                                                   *rest))
    assert _strong(inst, se).bound["makespan"] < best["makespan"]
    # a wrong variant: undoers anywhere before the user (the support never provided again) is caught
    monkeypatch.setattr(order, "_last_provision", lambda m, providers, at, used, u, last, holds: m.new_int_var(
        -1, -1, ""))
    wrong = _strong(inst, se)
    assert wrong.status is LexStatus.INFEASIBLE or wrong.bound.key(inst.profile) > best.key(inst.profile)


def test_a_literal_that_holds_now_may_have_no_provision_before_its_user(monkeypatch):
    inst = _cushion()
    best, weak, strong, se = _bounds(inst)
    assert strong == best and weak["makespan"] < best["makespan"]
    # a wrong variant: the literal needs a provision even when it holds now (the group rule's old mistake)
    plain = order._last_provision
    monkeypatch.setattr(order, "_last_provision", lambda m, providers, at, used, u, last, holds: plain(
        m, providers, at, used, u, last, False))
    wrong = _strong(inst, se)
    assert wrong.status is LexStatus.INFEASIBLE or wrong.bound.key(inst.profile) > best.key(inst.profile)


class _AllDirty(dict):
    """``carried`` where every carrier carries every hazard."""

    def get(self, key, default=()):  # noqa: ANN001, ANN201
        return frozenset({"faecal_bacteria"})


@pytest.mark.parametrize("left_clean", [False, True])
def test_a_treated_goal_region_is_touched_only_by_clean_carriers_afterwards(monkeypatch, left_clean):
    inst = _towel(left_clean)
    best, weak, strong, se = _bounds(inst)
    assert strong.key(inst.profile) <= best.key(inst.profile)
    assert best["replacement_parts"] == (0 if left_clean else 1) and weak["replacement_parts"] == 0
    rule = chains._clean_after_treatment
    if not left_clean:
        assert strong == best  # the pad is replaced first
        monkeypatch.setattr(chains, "_clean_after_treatment", lambda *a, **k: None)
        assert _strong(inst, se).bound["replacement_parts"] == 0  # the rule is what bites
        return
    # a wrong variant: every carrier taken as dirty now (the clean left pad too) is caught
    monkeypatch.setattr(chains, "_clean_after_treatment", lambda m, rules, actions, carried, *rest: rule(
        m, rules, actions, _AllDirty(carried), *rest))
    wrong = _strong(inst, se)
    assert wrong.status is LexStatus.INFEASIBLE or wrong.bound.key(inst.profile) > best.key(inst.profile)

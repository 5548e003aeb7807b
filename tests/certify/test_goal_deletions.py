"""A goal atom true now that a running end deletes for certain needs an adder after that end (docs/certification.md,
"Reductions" 10): a washer still running with the duvet cover inside makes it wet at its end, so the dryer must run;
with the cover outside the washer its end changes nothing."""

from dataclasses import replace

from hygiene_pddl.certify import SearchStatus, exact_search
from hygiene_pddl.certify.bounds import decode
from hygiene_pddl.certify.search import prepare
from hygiene_pddl.certify.task import ADDITIVE
from hygiene_pddl.costs import CostVector
from hygiene_pddl.instances import load_instance
from hygiene_pddl.registries import load_registries
from tests.certify.bounds_along import bounds_along
from tests.certify.brute import replay_steps
from tests.certify.tasks import TIME_FIRST, instance

REG = load_registries()
ACTIONS = ["close", "load", "open", "pick", "place", "run-dryer", "run-hot", "unload"]
OBJECTS = {"cover": "duvet_cover", "washer": "washer", "dryer": "dryer", "hamper": "hamper"}
WASH = [{"kind": "action", "name": "run-hot", "args": ["washer"], "start": 0, "duration": 8}]


def _task(name: str, facts: list[str]):
    return instance(REG, name, objects=OBJECTS, facts=["(empty left)", "(empty right)", "(closed washer)",
                                                       "(dry cover)", *facts],
                    goals=["(dry cover)"], actions=ACTIONS, hazards=["soil"], stocks={"water": 6, "cleaning_agent": 2},
                    history=WASH, decision_time=2, time_left=16, profile=TIME_FIRST)


def cover_in_the_washer():
    """The hot wash (running 0-8, decided at 2, so 6 TU left) leaves the cover wet: open the washer 5-6 (the door
    opens right after the wash ends), unload 6-7 while the other gripper closes the dryer 6-7, load the dryer 7-8
    just before the door shuts at 7 (the load happens at its start; the two happenings at 7 ordered by epsilon
    offsets), run it 7-13 (energy 3, active time 4, makespan 13; 14 when every end at an instant came first)."""
    return _task("cover_in_the_washer", ["(inside cover washer)"])


def cover_in_the_hamper():
    """The washer runs without the cover: its end does not touch it, and the empty plan is optimal (all zeros)."""
    return _task("cover_in_the_hamper", ["(at cover hamper)"])


def _digits(search, key) -> dict[str, int]:
    pre = decode(key[0], len(search.pre_dims))
    post = decode(key[2], len(search.post_dims))
    out = {ADDITIVE[d]: v for d, v in zip(search.pre_dims, pre, strict=True)}
    out.update({ADDITIVE[d]: v for d, v in zip(search.post_dims, post, strict=True)})
    out["makespan"] = key[1]
    return out


def test_the_root_bound_runs_the_dryer_when_the_wash_wets_the_cover():
    search, root, _, _ = prepare(REG, cover_in_the_washer())
    key, _ = search.evaluate(root)
    assert _digits(search, key)["energy"] == 3  # without the rule: 0 (the cover is dry now, deletes are relaxed)


def test_the_cover_in_the_washer_is_dried_after_the_wash():
    inst = cover_in_the_washer()
    result = exact_search(REG, inst, time_limit=30)
    want = CostVector.from_mapping({"energy": 3, "active_robot_time": 4, "makespan": 13})
    assert result.status is SearchStatus.OPTIMAL and result.cost == want
    assert replay_steps(REG, inst, list(result.steps)) == want


def test_a_wash_without_the_cover_keeps_the_goal():
    """A bound that took the guarded delete for certain (the cover is not inside) would demand the dryer here."""
    inst = cover_in_the_hamper()
    keys, final = bounds_along(REG, inst, [])
    assert all(k <= final for k in keys)
    result = exact_search(REG, inst, time_limit=30)
    assert result.status is SearchStatus.OPTIMAL and result.cost == CostVector.from_mapping({})


def test_a_guard_is_stable_only_when_nothing_can_change_it_while_the_action_runs():
    """The wash's over-all condition (closed washer) keeps the cover inside (unload needs the door open); an action
    without that condition would not."""
    search, _, _, _ = prepare(REG, cover_in_the_washer())
    rt = search.relaxed
    ga = search.task.ongoing[0][0]
    (x, guard, stable), = rt.end_deletes[rt.history_started[ga.history]]
    assert stable and rt._stable(guard, ga)
    assert not rt._stable(guard, replace(ga, overall=(0, 0, ())))


def test_the_wash_duvets_draft_bound_sees_the_dryer():
    """A data-family draft (tests/certify/drafts): 13,237 expansions before the rule, about 2,400 with it."""
    from pathlib import Path

    inst = load_instance(Path(__file__).parent / "drafts" / "wash_duvets-dryer_ball_from_the_garden-1496e61e.json", REG)
    search, root, _, _ = prepare(REG, inst)
    key, _ = search.evaluate(root)
    assert _digits(search, key)["energy"] == 3

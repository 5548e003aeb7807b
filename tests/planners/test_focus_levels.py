"""Hygiene-NSP speed work (issue 14): the relaxed layers (RelaxedPlanner.levels) against a naive fixpoint, the
focused grounding keeping the achievers of a goal that holds now but a kept action may undo (a wash wets what must
end dry), and the greedy first-plan search stopping at its deadline."""

import copy
import json
import time
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from hygiene_pddl.instances.loader import instance_from_data
from hygiene_pddl.planners.greedy import SequentialSearch
from hygiene_pddl.planners.grounding import GroundAction, RelaxedPlanner, focused, reachable_actions, reachable_init
from hygiene_pddl.registries import load_registries
from hygiene_pddl.replay import replay

REG = load_registries()
WASHER = json.loads((Path(__file__).parents[2] / "examples/mechanics/washer-soil-water_first.json").read_text())


def _action(i: int, needs: list[int], adds: list[int]) -> GroundAction:
    return GroundAction(f"a{i}", (), 1, (), tuple(((f"p{n}",), True) for n in needs), (), (), (),
                        tuple(((f"p{n}",), True) for n in adds), (), (), (), (), (), ())


def _naive_levels(actions: list[GroundAction], init: set) -> dict[int, int]:
    reached, level, layer = set(init), {}, 0
    while True:
        new = [i for i, a in enumerate(actions) if i not in level
               and all(x in reached for x, pos in a.conditions if pos)]
        if not new:
            return level
        for i in new:
            level[i] = layer
            reached.update(actions[i].adds())
        layer += 1


atoms = st.lists(st.integers(0, 7), max_size=3)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(atoms, atoms), max_size=12), st.sets(st.integers(0, 7), max_size=3))
def test_levels_equal_the_naive_fixpoint(spec, init):
    actions = [_action(i, needs, adds) for i, (needs, adds) in enumerate(spec)]
    init_atoms = {(f"p{n}",) for n in init}
    assert RelaxedPlanner(actions).levels(init_atoms) == _naive_levels(actions, init_atoms)


def test_focus_keeps_the_dryer_when_the_wash_undoes_a_dry_goal():
    data = copy.deepcopy(WASHER)
    data["objects"]["dryer"] = "dryer"
    data["goals"] = ["(safe shirt)", "(dry shirt)"]
    data["registry"]["actions"] = sorted([*data["registry"]["actions"], "run-dryer"])
    for key in ("initial", "observations"):
        data[key]["facts"] = sorted([*data[key]["facts"], "(closed dryer)"])
    inst = instance_from_data(data, REG, "focus-dry")
    state = replay(inst, REG)
    every = reachable_actions(REG, inst, state)
    kept = {a.name for a in focused(REG, inst, every, reachable_init(REG, inst, state))}
    assert "run-dryer" in {a.name for a in every}
    assert {"run-hot", "run-eco"} & kept  # the wash that cleans the shirt wets it...
    assert "run-dryer" in kept  # ...so what dries it again is kept, although (dry shirt) holds now


def test_greedy_search_stops_at_its_deadline():
    inst = instance_from_data(WASHER, REG, WASHER["id"])
    state = replay(inst, REG)
    search = SequentialSearch(REG, inst, state, reachable_actions(REG, inst, state))
    assert search.search(8) is not None  # the task has a sequential plan the search finds...
    assert search.search(8, deadline=time.perf_counter() - 1) is None  # ...but not with no time left

"""The tolerant reader: the same plan in many dresses reads the same; a judgement is read as one; anything else
is unreadable output with a reason, never an exception."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hygiene_pddl.instances import load_instance
from hygiene_pddl.planners.base import ChosenStep
from hygiene_pddl.planners.llm.reader import read_answer
from hygiene_pddl.registries import load_registries
from tests.llm.scenarios import find_instance, reference_steps

REG = load_registries()
ID = "hot_cocoa-time_first"  # five steps, two grippers, an appliance process
INST = load_instance(find_instance(ID), REG)
REF = reference_steps(ID)
EXPECTED = tuple(ChosenStep(s["start"], s["name"], tuple(s["args"]), s["duration"], i) for i, s in enumerate(REF))

SPELL = {
    "same": lambda w: w,
    "upper": str.upper,
    "underscores": lambda w: w.replace("-", "_"),
    "camel": lambda w: "".join(p.capitalize() for p in w.replace("_", "-").split("-")),
    "spaced-dashes": lambda w: w.replace("_", "-"),
}


def _line(s: dict, spell, gripper_suffix: bool, sep: str, fmt: str) -> str:
    args = [f"{a}_gripper" if gripper_suffix and a in REG.grippers else spell(a) for a in s["args"]]
    call = f"({spell(s['name'])}{sep}{sep.join(args)})" if fmt != "call" else \
        f"{spell(s['name'])}({', '.join(args)})"
    start = f"{s['start']}-{s['start'] + s['duration']}:" if fmt == "range" else f"{s['start']}:"
    tail = "" if fmt == "range" else f" [{s['duration']}]"
    return f"{start} {call}{tail}"


@settings(max_examples=60, deadline=None)
@given(spell=st.sampled_from(sorted(SPELL)), gripper_suffix=st.booleans(), sep=st.sampled_from([" ", ", "]),
       fmt=st.sampled_from(["val", "range", "call"]), marker=st.sampled_from(["", "- ", "* ", "1. ", "**"]),
       wrap=st.sampled_from(["bare", "fence", "prose-fence", "think", "status"]), cost=st.booleans())
def test_one_plan_in_many_dresses_reads_the_same(spell, gripper_suffix, sep, fmt, marker, wrap, cost):
    lines = [marker + _line(s, SPELL[spell], gripper_suffix, sep, fmt) + ("**" if marker == "**" else "")
             for s in REF]
    body = "\n".join(lines)
    if cost:
        body += "\n; cost: makespan=13 energy=3"
    text = {"bare": body, "fence": f"```\n{body}\n```", "status": f"; status: plan\n{body}",
            "prose-fence": f"First I replay the history: (pick right pot handle counter) ran at 0.\n```pddl\n"
                           f"0: (pick left pot handle counter) [1]\n```\nSo the plan is:\n```\n{body}\n```\nDone.",
            "think": f"<think>maybe 0: (wash-pad left) [3]?\n; status: infeasible</think>\n{body}"}[wrap]
    answer = read_answer(REG, INST, text)
    assert answer.status == "plan", answer.reason
    assert answer.steps == EXPECTED
    if cost:
        assert answer.claimed_cost == {"makespan": 13, "energy": 3}


@pytest.mark.parametrize("shape", ["object", "object-with-end", "strings", "bare-list", "gripper-apart"])
def test_json_shaped_answers(shape):
    if shape == "object":
        data = {"status": "plan", "steps": [{"time": s["start"], "action": s["name"], "arguments": s["args"],
                                             "duration": s["duration"]} for s in REF], "cost": {"Makespan": 13}}
    elif shape == "object-with-end":
        data = {"plan": [{"start": s["start"], "end": s["start"] + s["duration"], "name": s["name"],
                          "args": " ".join(s["args"])} for s in REF]}
    elif shape == "strings":
        data = {"plan": [f"{s['start']}: ({s['name']} {' '.join(s['args'])}) [{s['duration']}]" for s in REF]}
    elif shape == "bare-list":
        data = [{"t": s["start"], "op": s["name"], "params": s["args"], "dur": s["duration"]} for s in REF]
    else:
        data = {"plan": [{"start": s["start"], "action": s["name"], "duration": s["duration"],
                          **({"gripper": s["args"][0], "args": s["args"][1:]} if s["args"][0] in REG.grippers
                             else {"args": s["args"]})} for s in REF]}
    answer = read_answer(REG, INST, "Here you go:\n```json\n" + json.dumps(data, indent=2) + "\n```")
    assert answer.status == "plan", answer.reason
    assert answer.steps == EXPECTED
    if shape == "object":
        assert answer.claimed_cost == {"makespan": 13}


@pytest.mark.parametrize("text, status", [
    ("; status: infeasible", "infeasible"),
    ("After checking the stocks:\n\n**Status:** INFEASIBLE\n", "infeasible"),
    ("INFEASIBLE", "infeasible"),
    ('{"status": "infeasible", "reason": "no spare pads"}', "infeasible"),
    ('{"feasible": false}', "infeasible"),
    ("; status: undetermined", "undetermined"),
    ("; status: infeasible\n0: (pick left pot handle stove) [1]", "infeasible"),  # the explicit judgement counts
    ("; status: plan\n", "plan"),  # an empty continuation
])
def test_judgements(text, status):
    answer = read_answer(REG, INST, text)
    assert answer.status == status, answer.reason
    assert answer.steps == ()


@pytest.mark.parametrize("text, reason", [
    ("", "empty answer"),
    ("I cannot help with that.", "no plan steps"),
    ("<think>the pot is on the stove so", "never closed"),
    ("0: (boil-water left pot) [1]", "'boil-water' is not an action of this task"),
    ("0: (pick left kettle handle stove) [1]", "must name an object of this task"),
    ("0: (pick left pot lid stove) [1]", "must name a region of pot"),
    ("0: (pick middle pot handle stove) [1]", "must name a gripper"),
    ("0: (pick left pot stove) [1]", "takes 4 argument(s)"),
    ("(pick left pot handle stove) [1]", "has no start time"),
    ('{"plan": [{"start": "soon", "action": "pick"}]}', "is not a number"),
])
def test_unreadable_output_says_why(text, reason):
    answer = read_answer(REG, INST, text)
    assert answer.status == "unreadable" and reason in answer.reason, answer


def test_off_grid_times_are_rounded_with_a_note_and_missing_durations_come_from_the_registry():
    answer = read_answer(REG, INST, "0.0: (cook pot stove)\n1.01: (pick left marshmallows bag counter) [1.0]")
    assert answer.status == "plan"
    assert [(s.start, s.duration) for s in answer.steps] == [(0, 10), (1, 1)]
    assert any("rounded" in n for n in answer.notes) and any("registry's 10" in n for n in answer.notes)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(), st.text(alphabet="(){}[]:;,.-_ 0123456789\n`\"picklaefthnd<>/"),
                 st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                              lambda c: st.lists(c, max_size=4) | st.dictionaries(st.sampled_from(
                                  ["plan", "steps", "status", "cost", "action", "args", "start", "gripper"]), c,
                                  max_size=4)).map(json.dumps)))
def test_no_text_makes_the_reader_raise(text):
    answer = read_answer(REG, INST, text)
    assert answer.status in ("plan", "infeasible", "undetermined", "unreadable")
    assert (answer.status == "unreadable") == bool(answer.reason)

"""Scripted answers for the local server: one scenario per committed instance, keyed by the prompt it gets."""

from __future__ import annotations

import json
from pathlib import Path

from hygiene_pddl.instances import load_instance
from hygiene_pddl.planners.llm.prompt import render_prompt
from hygiene_pddl.registries import load_registries
from tests.benchmark_files import an_infeasible_instance
from tests.llm.server import Reply, prompt_hash

PROBLEMS = Path(__file__).resolve().parents[2] / "problems"
INFEASIBLE = an_infeasible_instance().stem

#: instance id -> what llm:scripted answers to its plan prompt
PLAN_SCENARIOS = {
    "spoon_fruit-wash_then_touch-water_first": "correct",
    "spoon_fruit-wash_then_touch-spare_parts_first": "unsafe",
    "spoon_fruit-touch_then_wash-water_first": "prose",
    "bowl_to_sink-left_side_brush": "json",
    "hot_cocoa-time_first": "429-then-correct",
    "hot_cocoa-energy_first": "unreadable",
    "bowl_to_sink-right_side_brush": "infeasible",  # feasible: an incorrect rejection
    INFEASIBLE: "infeasible",  # infeasible: a correct rejection
    "spoon_fruit-touch_then_wash-spare_parts_first": "timeout",
}
#: instances whose grounding prompt gets goals that fail the type check
BAD_GROUNDING = {INFEASIBLE}
UNREADABLE_TEXT = "I am sorry, but I cannot help with planning household chores today."


def find_instance(instance_id: str) -> Path:
    return next(PROBLEMS.glob(f"*/{instance_id}.json"))


def reference_steps(instance_id: str) -> list[dict]:
    return json.loads(find_instance(instance_id).with_name(f"{instance_id}.reference.json").read_text())["plan"]


def val_lines(steps: list[dict]) -> list[str]:
    return [f"{s['start']}: ({s['name']} {' '.join(s['args'])}) [{s['duration']}]" for s in steps]


def plan_text(instance_id: str, scenario: str) -> str:
    steps = reference_steps(instance_id)
    if scenario in ("correct", "429-then-correct"):
        return "; status: plan\n" + "\n".join(val_lines(steps)) + "\n"
    if scenario == "unsafe":  # the reference without its treatments, shifted to start at once
        kept = [s for s in steps if s["name"] not in ("wash-pad", "replace-pad", "disinfect-pad")]
        shift = kept[0]["start"]
        return "\n".join(val_lines([{**s, "start": s["start"] - shift} for s in kept])) + "\n"
    if scenario == "prose":  # fenced, bulleted, other spellings of action, gripper and object names
        lines = []
        for s in steps:
            name = "".join(w.capitalize() for w in s["name"].split("-"))
            args = [f"{a.capitalize()}_Gripper" if a in ("left", "right") else a.upper() for a in s["args"]]
            lines.append(f"- **{s['start']}: ({name} {', '.join(args)}) [{s['duration']}]**  <- step")
        return ("Let me think about the contamination first. The pads were washed, so the plan is short.\n\n"
                "```text\n" + "\n".join(lines) + "\n```\n\nEstimated cost: water: 0, makespan: 2. Hope this helps!")
    if scenario == "json":
        return "```json\n" + json.dumps({"status": "plan", "plan": [
            {"start": s["start"], "action": s["name"], "args": s["args"], "duration": s["duration"]} for s in steps],
            "estimated_cost": {"makespan": max(s["start"] + s["duration"] for s in steps)}}) + "\n```"
    if scenario == "unreadable":
        return UNREADABLE_TEXT
    if scenario == "infeasible":
        return "After replaying the history I conclude there is no safe way to finish.\n; status: infeasible\n"
    raise ValueError(scenario)


def ground_text(instance_id: str) -> str:
    inst = load_instance(find_instance(instance_id))
    if instance_id in BAD_GROUNDING:
        return json.dumps({"goals": ["(at teapot cupboard)"]})
    return "Sure.\n```json\n" + json.dumps({"goals": ["(" + " ".join(g) + ")" for g in inst.goals]}) + "\n```"


class Script:
    """The server's script: the reply to each prompt by the scenario of the instance it renders."""

    def __init__(self, instances: list[str], timeout_delay: float = 5.0):
        reg = load_registries()
        self.replies: dict[str, tuple[str, str, str]] = {}  # prompt hash -> (purpose, instance, scenario)
        for i in instances:
            inst = load_instance(find_instance(i), reg)
            self.replies[prompt_hash(_body(render_prompt(reg, inst, "plan")))] = ("plan", i, PLAN_SCENARIOS[i])
            self.replies[prompt_hash(_body(render_prompt(reg, inst, "ground")))] = ("ground", i, "ground")
        self.timeout_delay = timeout_delay

    def __call__(self, body: dict, before: int) -> Reply:
        purpose, instance, scenario = self.replies[prompt_hash(body)]
        if purpose == "ground":
            return Reply(ground_text(instance))
        if scenario == "timeout":
            return Reply("; status: plan\n", delay=self.timeout_delay)
        if scenario == "429-then-correct" and before == 0:
            return Reply(status=429, headers={"retry-after": "0"})
        return Reply(plan_text(instance, scenario))


def _body(prompt: str) -> dict:
    return {"messages": [{"role": "user", "content": prompt}]}

"""A tolerant reader of a language model's answer: a plan, an infeasibility judgement, or "unreadable output".

What it accepts (docs/llm.md):

* reasoning in ``<think>...</think>`` is dropped; the plan may sit in prose, in Markdown code fences (the last
  fenced block with steps wins) or in a JSON object (``{"status", "plan"|"steps"|"actions", "cost"}``, steps as
  VAL lines or as objects with ``time``/``start``, ``action``, ``args``, ``duration``/``end``, ``gripper``);
* VAL lines ``START: (action arg ...) [DURATION]`` with list markers, Markdown emphasis, ``START-END:`` ranges,
  commas between arguments, ``action(arg, ...)`` calls and trailing comments;
* action, object, region and gripper names in other spellings (case, ``-``/``_``/spaces, camel case,
  ``left_gripper``, ``apple.skin``), and an object named by its type when one object has that type;
* ``status: infeasible`` / ``undetermined`` lines, a lone ``INFEASIBLE`` line, ``"feasible": false``;
* the cost estimate as ``cost: water=2 ...`` (``=`` or ``:``, names in any spelling) or a JSON mapping.

Start times are relative to the decision time; times and durations off the whole-TU grid are rounded to it
(with a note), a missing duration is the registry's (with a note). Anything else, including a step that names
an action or object the task does not have, is unreadable output with the reason; reading never raises.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from fractions import Fraction

from hygiene_pddl.costs import DIMENSIONS
from hygiene_pddl.instances.model import Instance
from hygiene_pddl.planners.base import ChosenStep
from hygiene_pddl.registries.model import ActionSchema, Registries

THINK = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.S | re.I)
FENCE = re.compile(r"```[^\n`]*\n(.*?)```", re.S)
LIST_MARKER = re.compile(r"^\s*(?:(?:[-*+•>]|\d+[.)]|step\s*\d+\s*[:.)-])\s+)+", re.I)
NUMBER = r"-?\d+(?:\.\d+)?"
STEP = re.compile(
    rf"^(?:(?:t\s*=\s*|time\s+|at\s+)?(?P<start>{NUMBER})\s*(?:(?:-|–|to)\s*(?P<end>{NUMBER})\s*)?:\s*)?"
    rf"(?:\((?P<body>[^()]*)\)|(?P<fname>[A-Za-z_][\w-]*)\s*\((?P<fargs>[^()]*)\))"
    rf"\s*(?:\[\s*(?P<dur>{NUMBER})\s*(?:tu)?\s*\])?(?P<rest>.*)$", re.I)
STATUS = re.compile(r"^\W*status\W*(?P<s>infeasible|undetermined|unknown|plan|feasible|solved)\b", re.I)
LONE_STATUS = re.compile(r"^\W*(?P<s>infeasible|undetermined)\W*$", re.I)
COST = re.compile(r"^\W*(?:estimated\s+|claimed\s+)?cost(?:s|\s+vector|\s+estimate)?\b\W*(?P<rest>.*)$", re.I)
COST_ITEM = re.compile(r"([a-z][a-z _-]*?)\s*[=:]\s*(-?\d+)", re.I)
STATUS_WORDS = {"infeasible": "infeasible", "undetermined": "undetermined", "unknown": "undetermined",
                "plan": "plan", "feasible": "plan", "solved": "plan"}
STEP_KEYS = {"start": ("start", "time", "t", "start_time", "begin", "at"),
             "action": ("action", "name", "op", "operator"),
             "args": ("args", "arguments", "parameters", "params", "objects"),
             "duration": ("duration", "dur", "length"), "end": ("end", "end_time", "finish"),
             "gripper": ("gripper", "hand", "arm")}
EXCERPT = 2000


class Unreadable(Exception):
    """The answer cannot be read as a plan or a judgement (the message says why)."""


@dataclass(frozen=True)
class RawStep:
    text: str
    name: str
    args: tuple[str, ...]
    start: Fraction | None
    duration: Fraction | None = None
    end: Fraction | None = None
    gripper: str | None = None


@dataclass(frozen=True)
class Answer:
    """``status``: ``plan``, ``infeasible``, ``undetermined`` or ``unreadable`` (then ``reason`` says why)."""

    status: str
    steps: tuple[ChosenStep, ...] = ()
    claimed_cost: dict[str, int] | None = None
    reason: str = ""
    notes: tuple[str, ...] = ()


def norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", str(name).lower())


def excerpt(text: str | None, limit: int = EXCERPT) -> str:
    text = text or ""
    return text if len(text) <= limit else text[:limit] + f"… [{len(text) - limit} more characters]"


def read_answer(reg: Registries, inst: Instance, text: str | None) -> Answer:
    """The plan, judgement or unreadability of ``text`` for ``inst`` (never raises on any text)."""
    try:
        status, raw, cost, notes = _extract(text)
        if status in ("infeasible", "undetermined"):
            if raw:
                notes.append(f"the answer also lists {len(raw)} step(s); its explicit '{status}' judgement counts")
            return Answer(status, claimed_cost=cost, notes=tuple(notes))
        steps = _resolve(reg, inst, raw, notes)
        return Answer("plan", steps, cost, notes=tuple(notes))
    except Unreadable as exc:
        return Answer("unreadable", reason=str(exc))
    except (ValueError, TypeError, KeyError, ArithmeticError, RecursionError) as exc:  # defensive: never crash
        return Answer("unreadable", reason=f"the answer could not be read ({type(exc).__name__}: {exc})")


# ------------------------------------------------------------------------------------------ extraction


def strip_reasoning(text: str) -> str:
    """The answer without ``<think>`` blocks (an unclosed one is all reasoning, a lone close ends one)."""
    text = THINK.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    close = re.search(r"</(?:think|thinking|reasoning)>", text, re.I)
    if close:
        text = text[close.end():]
    opened = re.search(r"<(?:think|thinking|reasoning)>", text, re.I)
    if opened:
        if not text[:opened.start()].strip():
            raise Unreadable("the answer ends inside its reasoning (<think> is never closed)")
        text = text[:opened.start()]
    return text


def _extract(text: str | None) -> tuple[str | None, list[RawStep], dict[str, int] | None, list[str]]:
    """(explicit status or None, steps, claimed cost, notes) from the answer text."""
    if text is None or not text.strip():
        raise Unreadable("empty answer")
    body = strip_reasoning(text)
    if not body.strip():
        raise Unreadable("the answer holds only reasoning")
    json_error: Unreadable | None = None
    for candidate in json_candidates(body):
        try:
            found = _from_json(candidate)
        except Unreadable as exc:
            json_error = json_error or exc
            continue
        if found is not None:
            return (*found, ["read as JSON"])
    chosen = None
    for block in reversed(FENCE.findall(body)):
        status, steps, _ = _from_lines(block)
        if steps or status:
            chosen = block
            break
    status, steps, cost = _from_lines(chosen if chosen is not None else body)
    if chosen is not None:  # a status or cost line outside the chosen block still counts
        outer_status, _, outer_cost = _from_lines(FENCE.sub("\n", body))
        status, cost = status or outer_status, cost or outer_cost
    if not steps and status is None:
        raise json_error or Unreadable("no plan steps (`START: (action arg ...) [DURATION]`) and no `; status:` "
                                       "judgement found")
    return status, steps, cost, []


def json_candidates(text: str) -> list[object]:
    """Parsed JSON values: the whole text, fenced blocks, and balanced objects or arrays inside the text."""
    out: list[object] = []
    pieces = [text.strip()] + [b.strip() for b in FENCE.findall(text)]
    decoder = json.JSONDecoder()
    for piece in pieces:
        try:
            out.append(json.loads(piece))
        except ValueError:
            pass
    starts = [m.start() for m in re.finditer(r"[{\[]", text)][:50]
    for i in starts:
        try:
            value, _ = decoder.raw_decode(text, i)
        except ValueError:
            continue
        out.append(value)
    return out


def _pick(data: dict, keys: tuple[str, ...]) -> object:
    for k in keys:
        if k in data and data[k] is not None:
            return data[k]
    return None


def _from_json(value: object) -> tuple[str | None, list[RawStep], dict[str, int] | None] | None:
    """(status, steps, cost) of a JSON answer, or None when ``value`` has no recognised shape."""
    status, cost = None, None
    if isinstance(value, list):  # a bare list of steps: VAL lines, or objects that name an action
        if not value or not all((isinstance(v, str) and _step_line(v) is not None) or
                                (isinstance(v, dict) and _pick({norm_key(k): x for k, x in v.items()},
                                                               STEP_KEYS["action"]) is not None) for v in value):
            return None
        items = value
    elif isinstance(value, dict):
        data = {norm_key(k): v for k, v in value.items()}
        word = _pick(data, ("status", "verdict", "result", "judgement", "judgment"))
        if isinstance(word, str) and norm(word) in STATUS_WORDS:
            status = STATUS_WORDS[norm(word)]
        feasible = data.get("feasible")
        if isinstance(feasible, bool) and status is None:
            status = "plan" if feasible else "infeasible"
        items = _pick(data, ("plan", "steps", "actions", "continuation", "schedule"))
        if isinstance(items, dict):
            inner = {norm_key(k): v for k, v in items.items()}
            items = _pick(inner, ("steps", "actions", "plan"))
        if isinstance(items, str):
            _, steps, text_cost = _from_lines(items)
            items = steps
            cost = text_cost
        raw_cost = _pick(data, ("cost", "estimated_cost", "cost_vector", "costs", "estimated_costs"))
        if raw_cost is not None:
            cost = _json_cost(raw_cost) or cost
        if items is None and status is None:
            return None
        items = items or []
        if not isinstance(items, list):
            return None
    else:
        return None
    steps: list[RawStep] = []
    for item in items:
        if isinstance(item, RawStep):
            steps.append(item)
        elif isinstance(item, str):
            step = _step_line(item)
            if step is None:
                raise Unreadable(f"JSON step {item!r} is not `START: (action arg ...) [DURATION]`")
            steps.append(step)
        elif isinstance(item, dict):
            steps.append(_json_step(item))
        else:
            raise Unreadable(f"JSON step {item!r} is neither a VAL line nor an object")
    if not steps and status is None:
        return None
    return status, steps, cost


def norm_key(key: object) -> str:
    return re.sub(r"[^a-z0-9]+", "_", str(key).lower()).strip("_")


def _number(value: object, what: str, text: str) -> Fraction | None:
    if value is None:
        return None
    if isinstance(value, bool):
        raise Unreadable(f"step {text}: {what} {value!r} is not a number")
    try:
        return Fraction(str(value).strip()) if not isinstance(value, int | float) else Fraction(str(value))
    except (ValueError, ZeroDivisionError):
        raise Unreadable(f"step {text}: {what} {value!r} is not a number") from None


def _json_step(item: dict) -> RawStep:
    data = {norm_key(k): v for k, v in item.items()}
    text = json.dumps(item, sort_keys=True)[:200]
    name = _pick(data, STEP_KEYS["action"])
    if isinstance(name, str) and "(" in name:  # {"action": "(pick left apple skin counter)", "time": 0}
        inner = _step_line(name)
        if inner is None:
            raise Unreadable(f"JSON step {text}: cannot read {name!r}")
        name, args = inner.name, list(inner.args)
    else:
        args = _pick(data, STEP_KEYS["args"])
    if not isinstance(name, str) or not name.strip():
        raise Unreadable(f"JSON step {text} names no action")
    if args is None:
        args = []
    elif isinstance(args, str):
        args = [a for a in re.split(r"[\s,]+", args) if a]
    elif isinstance(args, dict):
        args = list(args.values())
    elif not isinstance(args, list):
        raise Unreadable(f"JSON step {text}: arguments {args!r} are not a list")
    gripper = _pick(data, STEP_KEYS["gripper"])
    return RawStep(text, name.strip(), tuple(str(a) for a in args),
                   _number(_pick(data, STEP_KEYS["start"]), "start", text),
                   _number(_pick(data, STEP_KEYS["duration"]), "duration", text),
                   _number(_pick(data, STEP_KEYS["end"]), "end", text),
                   str(gripper) if isinstance(gripper, str) else None)


def _json_cost(value: object) -> dict[str, int] | None:
    if isinstance(value, dict):
        pairs = list(value.items())
    elif isinstance(value, list) and len(value) == len(DIMENSIONS):
        pairs = list(zip(DIMENSIONS, value, strict=True))
    elif isinstance(value, str):
        return _cost_text(value)
    else:
        return None
    return _cost_pairs(pairs)


def _cost_pairs(pairs: list[tuple[object, object]]) -> dict[str, int] | None:
    dims = {norm(d): d for d in DIMENSIONS}
    out: dict[str, int] = {}
    for k, v in pairs:
        d = dims.get(norm(str(k)))
        if d is None or isinstance(v, bool):
            continue
        try:
            out[d] = int(Fraction(str(v)))
        except (ValueError, ZeroDivisionError):
            continue
    return out or None


def _cost_text(text: str) -> dict[str, int] | None:
    return _cost_pairs([(m.group(1).strip(), m.group(2)) for m in COST_ITEM.finditer(text)])


def _clean(line: str) -> str:
    line = line.replace("`", "").replace("**", "").replace("__", "").strip()
    return LIST_MARKER.sub("", line).strip()


def _step_line(line: str) -> RawStep | None:
    m = STEP.match(_clean(line))
    if m is None:
        return None
    if m.group("body") is not None:
        words = [w for w in re.split(r"[\s,]+", m.group("body").strip()) if w]
    else:
        words = [m.group("fname")] + [w for w in re.split(r"[\s,]+", m.group("fargs").strip()) if w]
    if not words:
        return None
    num = {k: Fraction(m.group(k)) if m.group(k) else None for k in ("start", "end", "dur")}
    return RawStep(line.strip(), words[0], tuple(words[1:]), num["start"], num["dur"], num["end"])


def _from_lines(text: str) -> tuple[str | None, list[RawStep], dict[str, int] | None]:
    status, steps, cost = None, [], None
    for line in text.split("\n"):
        cleaned = _clean(line.lstrip(";# \t"))
        m = STATUS.match(cleaned) or LONE_STATUS.match(cleaned)
        if m:
            status = status or STATUS_WORDS[m.group("s").lower()]
            continue
        c = COST.match(cleaned)
        if c and not STEP.match(_clean(line)):
            cost = _cost_text(c.group("rest")) or cost
            continue
        if line.lstrip().startswith((";", "#")):
            continue
        step = _step_line(line)
        if step is not None:
            steps.append(step)
    return status, steps, cost


# ------------------------------------------------------------------------------------------ names


class _Names:
    """The task's names by their normalised spelling."""

    def __init__(self, reg: Registries, inst: Instance):
        self.reg, self.inst = reg, inst
        self.actions = {norm(a): a for a in inst.actions}
        self.objects = {norm(o): o for o in inst.object_names}
        by_type: dict[str, list[str]] = {}
        for o, t in inst.objects:
            by_type.setdefault(norm(t), []).append(o)
        for t, objs in by_type.items():
            if len(objs) == 1:
                self.objects.setdefault(t, objs[0])
        self.grippers: dict[str, str] = {}
        for g in reg.grippers:
            for form in (g, f"{g}_gripper", f"gripper_{g}", f"{g}_hand", f"{g}_arm"):
                self.grippers[norm(form)] = g

    def action(self, raw: RawStep) -> str:
        name = self.actions.get(norm(raw.name))
        if name is None:
            raise Unreadable(f"step `{raw.text}`: {raw.name!r} is not an action of this task "
                             f"(its actions: {', '.join(sorted(self.inst.actions))})")
        return name

    def region_owner(self, schema: ActionSchema, var: str) -> str | None:
        endpoints = [ep for c in schema.contacts for ep in (c.a, c.b)] + [use.target for use in schema.treats]
        for ep in endpoints:
            if ep.part == f"?{var}":
                return ep.var
        objects = [p for p, kind in schema.parameters if kind in ("item", "place", "thing")]
        return objects[0] if len(objects) == 1 else None

    def argument(self, raw: RawStep, schema: ActionSchema, var: str, kind: str, value: str,
                 binding: dict[str, str]) -> str:
        key = norm(value)
        if kind == "gripper":
            found = self.grippers.get(key)
            what = f"a gripper ({', '.join(self.reg.grippers)})"
        elif kind == "region":
            owner = binding.get(self.region_owner(schema, var) or "")
            regions = {r.name for r in self.reg.object_types[self.inst.object_type(owner)].regions} if owner else set()
            forms = {norm(r): r for r in regions} | {norm(owner) + norm(r): r for r in regions} if owner else {}
            found = forms.get(key)
            what = f"a region of {owner} ({', '.join(sorted(regions))})" if owner else "a region"
        elif kind in ("item", "place", "thing"):
            found = self.objects.get(key)
            what = f"an object of this task ({', '.join(self.inst.object_names)})"
        else:
            return value.lower()
        if found is None:
            raise Unreadable(f"step `{raw.text}`: argument ?{var} of {schema.name} must name {what}, "
                             f"found {value!r}")
        return found


def _whole(value: Fraction, what: str, notes: list[str]) -> int:
    if value.denominator == 1:
        return int(value)
    rounded = int((value + Fraction(1, 2)) // 1)
    notes.append(f"{what} {float(value):g} rounded to the whole-TU grid ({rounded})")
    return rounded


def _resolve(reg: Registries, inst: Instance, raw_steps: list[RawStep], notes: list[str]) -> tuple[ChosenStep, ...]:
    from compiler.steps import StepMapper

    names = _Names(reg, inst)
    mapper = StepMapper(reg, inst)
    out: list[ChosenStep] = []
    for order, raw in enumerate(raw_steps):
        name = names.action(raw)
        schema = reg.actions[name]
        values = list(raw.args)
        grippers = [i for i, (_, kind) in enumerate(schema.parameters) if kind == "gripper"]
        if raw.gripper and len(values) == len(schema.parameters) - 1 and len(grippers) == 1:
            values.insert(grippers[0], raw.gripper)
        if len(values) != len(schema.parameters):
            params = " ".join(f"?{p} - {k}" for p, k in schema.parameters)
            raise Unreadable(f"step `{raw.text}`: {name} takes {len(schema.parameters)} argument(s) ({params}), "
                             f"found {len(values)}")
        binding: dict[str, str] = {}
        for (var, kind), value in zip(schema.parameters, values, strict=True):
            binding[var] = names.argument(raw, schema, var, kind, value, binding)
        if raw.start is None:
            raise Unreadable(f"step `{raw.text}` has no start time (expected `START: (action ...) [DURATION]`)")
        duration = raw.duration if raw.duration is not None else (
            raw.end - raw.start if raw.end is not None else None)
        if duration is None:
            duration = Fraction(schema.duration)
            notes.append(f"step `{raw.text}`: no duration given, the registry's {schema.duration} used")
        if duration < 0:
            raise Unreadable(f"step `{raw.text}` has a negative duration ({float(duration):g})")
        args = tuple(binding[v] for v in schema.param_names)
        try:
            mapper.to_pddl(name, args)
        except (KeyError, ValueError, StopIteration) as exc:
            raise Unreadable(f"step `{raw.text}` cannot be written for this task's objects ({exc})") from None
        out.append(ChosenStep(_whole(raw.start, f"start of `{raw.text}`", notes), name, args,
                              _whole(duration, f"duration of `{raw.text}`", notes), order))
    return tuple(out)

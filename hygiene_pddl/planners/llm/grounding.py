"""The LLM grounder (paper §IV-A): the request's goals as atoms, read from the model's answer to the
``ground`` prompt and type-checked against the registries (:func:`goal_problem`)."""

from __future__ import annotations

import re

from hygiene_pddl.instances.model import Instance
from hygiene_pddl.literals import Atom
from hygiene_pddl.planners.goal_grounding import goal_problem
from hygiene_pddl.planners.llm.reader import FENCE, Unreadable, json_candidates, norm, norm_key, strip_reasoning
from hygiene_pddl.registries import Registries

ATOM = re.compile(r"\(\s*([A-Za-z][\w-]*)((?:[\s,]+[\w.-]+)*)\s*\)")


def _atoms_of(value: object) -> list[list[str]] | None:
    """Goal atoms (as word lists) in a JSON answer: ``{"goals": [...]}`` or a bare list; items are atom texts
    or lists of words."""
    if isinstance(value, dict):
        data = {norm_key(k): v for k, v in value.items()}
        value = data.get("goals", data.get("goal"))
    if not isinstance(value, list):
        return None
    out = []
    for item in value:
        if isinstance(item, str):
            m = ATOM.fullmatch(item.strip())
            if m is None:
                raise Unreadable(f"goal {item!r} is not an atom like (predicate object ...)")
            out.append([m.group(1), *re.split(r"[\s,]+", m.group(2).strip())] if m.group(2).strip() else [m.group(1)])
        elif isinstance(item, list) and item and all(isinstance(w, str) for w in item):
            out.append(list(item))
        else:
            raise Unreadable(f"goal {item!r} is neither an atom text nor a list of names")
    return out


def read_goal_answer(reg: Registries, inst: Instance, text: str | None) -> tuple[Atom, ...]:
    """The goals in the grounder's answer, names resolved in any spelling; raises :class:`Unreadable` when none
    can be read or one fails the type check."""
    if text is None or not text.strip():
        raise Unreadable("empty answer")
    body = strip_reasoning(text)
    words: list[list[str]] | None = None
    for candidate in json_candidates(body):
        words = _atoms_of(candidate)
        if words is not None:
            break
    if words is None:  # atoms alone on their lines, in the last fenced block or the whole answer
        blocks = FENCE.findall(body)
        source = blocks[-1] if blocks else body
        words = []
        for line in source.split("\n"):
            m = ATOM.fullmatch(line.strip().strip("-*•`, ").strip())
            if m:
                words.append([m.group(1), *[w for w in re.split(r"[\s,]+", m.group(2).strip()) if w]])
    if not words:
        raise Unreadable("no goal atoms found")
    predicates = {norm(p): p for p, _ in reg.predicates}
    objects = {norm(o): o for o in inst.object_names} | {norm(g): g for g in reg.grippers}
    regions = {norm(r.name): r.name for _, t in inst.objects for r in reg.object_types[t].regions}
    goals: list[Atom] = []
    for atom_words in words:
        pred = predicates.get(norm(atom_words[0]), atom_words[0])
        args = tuple(objects.get(norm(w), regions.get(norm(w), w)) for w in atom_words[1:])
        atom = (pred, *args)
        problem = goal_problem(reg, inst, atom)
        if problem is not None:
            raise Unreadable(problem)
        if atom not in goals:
            goals.append(atom)
    return tuple(goals)

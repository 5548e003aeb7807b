"""Seeded mutations of PDDL, plan, JSON and YAML text: the malformed and hostile inputs of issue 15.

Every mutator takes a :class:`random.Random` and the text and returns new text; :func:`mutate` stacks one
to three of them, drawn for the file's format. The same generator state gives the same mutant.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable

Mutator = Callable[[random.Random, str], str]

#: Characters that break readers in different ways: non-ASCII letters that case-fold into ASCII (long s,
#: Kelvin sign), fullwidth digits, line and paragraph separators, control characters, a byte-order mark,
#: the replacement character, quotes and brackets.
NASTY_CHARS = ("\u017f", "\u212a", "\uff12", "\u2028", "\u2029", "\x85", "\x00", "\x07", "\x1b", "\r", "\t",
               "\ufeff", "\ufffd", "\u00e9", "\u0130", "(", ")", "[", "]", "{", "}", '"', "'", ";", ":", "#",
               "&", "*", "!", "%", "?", "-", ".", ",", "\\", "\n")
#: Number literals at and beyond every limit: long, huge, tiny, negative, non-finite, float-shaped integers.
NASTY_NUMBERS = ("0", "-1", "-0", "1.0", "16.0", ".5", "5.", "0.0000000001", "1e999", "-1e999", "1e-999",
                 "NaN", "Infinity", "-Infinity", "nan", "inf", str(2**31), str(2**63), str(2**63 + 1),
                 str(10**9), str(10**9 + 1), str(10**15), "9" * 400, "1" + "0" * 1000, "7" * 5000,
                 "0." + "0" * 2000 + "1", "123456789", "1.23456789e8", "-2147483649", "0x10", "1_000")
#: Names that are keywords somewhere: PDDL (VAL's lexer), YAML 1.1 booleans and nulls, JSON literals.
NASTY_NAMES = ("define", "domain", "problem", "and", "not", "at", "start", "end", "over", "all", "either",
               "number", "object", "name", "duration", "total-time", "yes", "no", "on", "off", "~", "null",
               "true", "false", "NaN", "<<", "-", "?x", "a)", "a\n(b", "a b", "", "x" * 300,
               "pic\u212a", "\u017ftart", "\uff12")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")
_ATOM = re.compile(r"\([^()]*\)")


def _span(rng: random.Random, text: str, longest: int = 40) -> tuple[int, int]:
    start = rng.randrange(len(text) + 1)
    return start, min(len(text), start + rng.randint(1, longest))


def delete_span(rng: random.Random, text: str) -> str:
    a, b = _span(rng, text)
    return text[:a] + text[b:]


def duplicate_span(rng: random.Random, text: str) -> str:
    a, b = _span(rng, text, 200)
    return text[:b] + text[a:b] + text[b:]


def insert_char(rng: random.Random, text: str) -> str:
    at = rng.randrange(len(text) + 1)
    return text[:at] + rng.choice(NASTY_CHARS) * rng.choice((1, 1, 2, 50)) + text[at:]


def replace_char(rng: random.Random, text: str) -> str:
    if not text:
        return rng.choice(NASTY_CHARS)
    at = rng.randrange(len(text))
    return text[:at] + rng.choice(NASTY_CHARS) + text[at + 1:]


def truncate(rng: random.Random, text: str) -> str:
    return text[:rng.randrange(len(text) + 1)]


def _replace_match(rng: random.Random, text: str, pattern: re.Pattern, choices: tuple[str, ...]) -> str:
    found = list(pattern.finditer(text))
    if not found:
        return text
    m = rng.choice(found)
    return text[:m.start()] + rng.choice(choices) + text[m.end():]


def extreme_number(rng: random.Random, text: str) -> str:
    return _replace_match(rng, text, _NUMBER, NASTY_NUMBERS)


def keyword_name(rng: random.Random, text: str) -> str:
    return _replace_match(rng, text, _NAME, NASTY_NAMES)


def unicode_lookalike(rng: random.Random, text: str) -> str:
    """Swap one ASCII letter or digit for a character that case-folds or reads as it (``s``→``ſ``)."""
    swaps = {"s": "\u017f", "k": "\u212a", "K": "\u212a", "i": "\u0130", "2": "\uff12", "1": "\uff11", "0": "\uff10"}
    places = [i for i, c in enumerate(text) if c in swaps]
    if not places:
        return text
    i = rng.choice(places)
    return text[:i] + swaps[text[i]] + text[i + 1:]


def line_endings(rng: random.Random, text: str) -> str:
    choice = rng.randrange(4)
    if choice == 0:
        return text.replace("\n", "\r")
    if choice == 1:
        return text.replace("\n", "\r\n")
    if choice == 2:
        return "\ufeff" + text
    return text.rstrip("\n")


def repeat_line(rng: random.Random, text: str) -> str:
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    n = rng.choice((2, 10, 1000, 20000))
    return "\n".join(lines[:i] + [lines[i]] * n + lines[i + 1:])


def swap_lines(rng: random.Random, text: str) -> str:
    lines = text.split("\n")
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def nest_deeply(rng: random.Random, text: str) -> str:
    """Wrap an s-expression in ``(and ...)`` / ``(not ...)`` many times (PDDL)."""
    found = list(_ATOM.finditer(text))
    if not found:
        return text
    m = rng.choice(found)
    depth = rng.choice((20, 99, 101, 1000, 5000))
    head = rng.choice(("(and ", "(not ", "(or ", "("))
    return text[:m.start()] + head * depth + m.group() + ")" * depth + text[m.end():]


# ---- JSON --------------------------------------------------------------------------------------------

def _json_paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _json_paths(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _json_paths(v, (*path, i))


def _json_replacement(rng: random.Random) -> object:
    return rng.choice((
        None, True, False, 0, -1, 1.5, 16.0, 2**31, 2**63, 10**9 + 1, 10**12, "", "x" * 5000,
        "a)\n(:goal (and))", "define", "(at ?x y)", "\u017ftart", [], {}, [[[[[]]]]], {"": None},
        ["(not (at a b))"], 123456789))


def json_value(rng: random.Random, text: str) -> str:
    """Replace one value of a JSON document (found by its path) with an odd one."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # an earlier mutation nested it beyond Python's parser: leave it
        return text
    try:
        paths = list(_json_paths(data))
    except RecursionError:
        return text
    path = rng.choice(paths)
    if not path:
        return json.dumps(_json_replacement(rng))
    node = data
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = _json_replacement(rng)
    return json.dumps(data, indent=rng.choice((None, 1, 2)))


def json_text(rng: random.Random, text: str) -> str:
    """Textual JSON breakage: duplicate keys, non-finite numbers, deep nesting, long digit runs."""
    choice = rng.randrange(4)
    if choice == 0:  # a key again, with another value
        m = rng.choice(list(re.finditer(r'"([a-z_]+)":\s*', text)) or [None])
        if m:
            return text[:m.start()] + f'"{m.group(1)}": {rng.choice(NASTY_NUMBERS)}, ' + text[m.start():]
        return text
    if choice == 1:
        return _replace_match(rng, text, _NUMBER, ("NaN", "Infinity", "-Infinity", "1e400", "9" * 5000))
    if choice == 2:
        depth = rng.choice((50, 101, 1000, 100000))
        at = text.find(":") + 1
        return text[:at] + "[" * depth + "1" + "]" * depth + text[at:] if at else "[" * depth + "]" * depth
    return text.replace('"', "", 1)


# ---- instances that still load (so that replay, the compiler and the planners see them) --------------

#: Free texts that once reached PDDL raw (a request is written into a comment).
NASTY_TEXTS = ("x)\n(:goal (and))", "a\r\n(:init)", "\u2028(define", "tab\tand\x00", ")" * 50, "é ſ K ２", "")
#: Object names the schema allows that are keywords of VAL's lexer or otherwise awkward.
KEYWORD_OBJECTS = ("define", "and", "not", "at", "start", "end", "over", "all", "name", "number", "object",
                   "gripper", "either", "duration", "x" * 80, "a-b-c", "left", "n0")


def rename_object(data: dict, old: str, new: str) -> dict:
    """The instance with object ``old`` called ``new`` everywhere (its type keeps its name)."""
    atom = re.compile(rf"(?<=[ (]){re.escape(old)}(?=[ )])")

    def walk(value):
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, str):
            return new if value == old else atom.sub(new, value)
        return value
    return {**walk(data), "objects": {new if k == old else k: v for k, v in data["objects"].items()}}


def instance_edit(rng: random.Random, text: str) -> str:
    """A change an instance survives: a nasty request, a far horizon, shifted times, bigger stocks, an object
    renamed to a keyword, a goal dropped or repeated."""
    try:
        d = json.loads(text)
        choice = rng.randrange(6)
        if choice == 0:
            d["request"] = rng.choice(NASTY_TEXTS)
        elif choice == 1:
            d["horizon"] = d["decision_time"] + rng.choice((0, 1, 2, 50, 10**4, 10**6, 10**9 - d["decision_time"]))
        elif choice == 2:
            shift = rng.choice((1, 1000, 10**8))
            for record in d["history"]:
                record["start"] += shift
            d["decision_time"] += shift
            d["horizon"] += shift
        elif choice == 3:
            extra = rng.choice((1, 100, 999, 10**6))
            for stock in d["resources"]:
                d["resources"][stock] += extra
                d["initial"]["stocks"][stock] += extra
        elif choice == 4:
            d = rename_object(d, rng.choice(sorted(d["objects"])), rng.choice(KEYWORD_OBJECTS))
        elif d["goals"]:
            goal = rng.choice(d["goals"])
            d["goals"] = [g for g in d["goals"] if g != goal] if rng.random() < 0.5 else d["goals"] + [goal]
    except (ValueError, KeyError, TypeError, AttributeError):
        return text
    return json.dumps(d, indent=2)


# ---- YAML --------------------------------------------------------------------------------------------

def yaml_text(rng: random.Random, text: str) -> str:
    """YAML hazards: alias bombs, cycles, tags, boolean and null keys, duplicate keys, tabs, controls."""
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    indent = re.match(r"[ ]*", lines[i]).group()
    choice = rng.randrange(8)
    if choice == 0:
        bomb = ['bomb0: &b0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
        bomb += [f"bomb{k}: &b{k} [" + ", ".join([f"*b{k - 1}"] * 9) + "]" for k in range(1, rng.choice((3, 9)))]
        return "\n".join(bomb) + "\n" + text
    if choice == 1:
        return "cycle: &c [*c]\n" + text
    if choice == 2:
        tag = rng.choice(("!!python/object:os.system", "!!python/name:os.system", "!!binary", "!!set", "!custom"))
        return "\n".join(lines[:i] + [f"{indent}tagged: {tag} x"] + lines[i:])
    if choice == 3:
        key = rng.choice(("yes", "no", "~", "null", "1234", "1.5", "2001-01-01", "on", "<<", "? [a]"))
        return "\n".join(lines[:i] + [f"{indent}{key}: 1"] + lines[i:])
    if choice == 4:  # the same key twice
        m = re.match(r"([ ]*)([a-z_]+):", lines[i])
        return "\n".join(lines[:i + 1] + [lines[i]] + lines[i + 1:]) if m else text
    if choice == 5:
        return "\n".join(lines[:i] + [lines[i].replace("  ", "\t", 1)] + lines[i + 1:])
    if choice == 6:
        depth = rng.choice((50, 101, 2000))
        return "\n".join(lines[:i] + [f"{indent}deep: " + "[" * depth + "]" * depth] + lines[i:])
    return "\n".join(lines[:i] + [f"{indent}number: {rng.choice(NASTY_NUMBERS)}"] + lines[i:])


GENERIC: tuple[Mutator, ...] = (delete_span, duplicate_span, insert_char, replace_char, truncate,
                                extreme_number, keyword_name, unicode_lookalike, line_endings, swap_lines)
BY_FORMAT: dict[str, tuple[Mutator, ...]] = {
    "pddl": (*GENERIC, nest_deeply, extreme_number, extreme_number, repeat_line),
    "plan": (*GENERIC, extreme_number, extreme_number, repeat_line, repeat_line, unicode_lookalike),
    "json": (*GENERIC, json_value, json_value, json_value, json_text, json_text),
    "instance": (*GENERIC, json_value, json_value, json_text, *[instance_edit] * 12),
    "yaml": (*GENERIC, yaml_text, yaml_text, yaml_text, extreme_number),
}
#: Upper bound on a mutant's size (a repeated line can multiply it).
MAX_CHARS = 4_000_000


def mutate(rng: random.Random, text: str, fmt: str) -> tuple[str, list[str]]:
    """One to three stacked mutations for format ``fmt``; returns the mutant and the mutators' names."""
    names = []
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        mutator = rng.choice(BY_FORMAT[fmt])
        out = mutator(rng, text)
        if len(out) <= MAX_CHARS:
            text = out
            names.append(mutator.__name__)
    return text, names

"""The fixed rules Rule-SAT reads a request with: imperative clauses and "must be clean" sentences.

A request is cut into sentences (at ``. ! ? ;``) and each sentence into clauses, a clause starting at a verb
of :data:`VERBS` after a boundary (the sentence start, ``,`` ``:`` ``and`` ``then`` ``please`` ``also``).
A clause is ``VERB NP-list [PARTICLE] [PREP NP]``:

* the verb's state (:data:`VERBS`) holds of every object of the list afterwards ("slice the cake" →
  ``(sliced cake)``; "wash the mug" → ``(safe mug)``; placement verbs have none);
* a destination ``PREP NP`` (:data:`DESTINATIONS`) puts every object there: ``(in X Y)`` when Y is an item,
  ``(inside X Y)`` when Y is a washer, dryer or dishwasher, ``(at X Y)`` otherwise.

Cleanliness is read from ``NP-list must|should (be|stay|end|come out|...) ... clean|safe|free|fit`` and
``keep NP-list clean|safe|free ...`` → ``(safe X)``, and from ``nothing from ... may get onto|into NP-list``.

A noun phrase is a list joined by ``and`` and commas; each member is ``[det] [numeral] [modifier...] HEAD``.
The head names an object, or the objects whose type has it as a word (``soup_bowl_v2`` is a "bowl"); a plural
head or a numeral takes all of them, a singular head exactly one (an ordinal, "the second bag", picks by
name order; a possessive or another modifier that is an object's name picks that object). ``it`` is the last
object named, ``them``/``they``/``both``/``all three`` the last list, ``everything`` every object named so
far. Anything else (an unknown head, an ambiguous singular, a pronoun with nothing before it, no verb) and
the request is unreadable: the rules never guess.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from hygiene_pddl.instances.model import Instance
from hygiene_pddl.literals import Atom
from hygiene_pddl.registries import Registries

#: verb → the unary predicate that holds of its objects afterwards (None: the verb only moves them)
VERBS: dict[str, str | None] = {
    **dict.fromkeys(("put", "place", "set", "move", "bring", "take", "carry", "lay", "drop", "return", "store",
                     "pack", "hang", "arrange", "tip", "pour", "load", "leave"), None),
    **dict.fromkeys(("slice", "chop", "dice", "cut"), "sliced"),
    "fold": "folded", "cover": "covered", "close": "closed", "shut": "closed",
    "fill": "filled", "refill": "filled", "cook": "cooked", "fry": "cooked", "grill": "cooked",
    "dry": "dry", "stir": "stirred", "melt": "melted",
    **dict.fromkeys(("scrape", "empty", "scoop"), "scooped"),
    **dict.fromkeys(("clean", "wash", "wipe", "disinfect", "scrub", "rinse"), "safe"),
}
#: words after which a verb starts a new clause
BOUNDARIES = frozenset({",", ":", "and", "then", "please", "also", "now", "you"})
#: words that end the subject before a declarative "is"/"are" ("when the bacon is done")
_CLAUSE_OPENERS = frozenset({",", ":", "when", "while", "once", "as", "after", "before", "until", "and"})
#: prepositions that give a clause its destination
DESTINATIONS = ("on top of", "onto", "on", "into", "inside", "in", "to")
PARTICLES = frozenset({"back", "away", "out", "up", "down"})
DETERMINERS = frozenset({"the", "a", "an", "my", "our", "your", "this", "that", "these", "those", "some", "his",
                         "her", "its", "their", "all", "each", "both", "fresh"})
NUMERALS = {"two": 2, "three": 3, "four": 4, "five": 5, "both": 2}
ORDINALS = {"first": 0, "second": 1, "third": 2, "fourth": 3}
PLURAL_PRONOUNS = frozenset({"them", "they", "both", "all"})
#: words that, after "must"/"keep", say the subject ends clean
CLEAN_WORDS = frozenset({"clean", "safe", "free", "fit", "hygienic", "nut-free"})
_STOP = frozenset({"with", "from", "by", "at", "for", "of", "when", "while", "so", "because", "before", "after",
                   "until", "as", "if", "or", "under", "over", "is", "are", "must", "should", "may"})
_TOKEN = re.compile(r"[a-zà-ÿ][a-zà-ÿ_'-]*|[,:]")
#: words dropped from a noun phrase (adverbs and the like after the noun)
_FILLER = frozenset({"too", "afterwards", "again", "together", "now", "there", "here", "well", "then", "first",
                     "later", "instead", "please"})
#: declarative placement: ``NP go(es) to|in|into|on NP``
_GO = frozenset({"go", "goes"})
#: verbs whose destination receives what they remove, not the object itself ("scrape the plate into the bin")
_EMPTYING = frozenset({"scrape", "empty", "scoop"})
#: for a cleaning verb, what follows these is the object cleaned ("wipe the dust off the shelf")
_OFF = ("off", "out of", "from")


class Unreadable(Exception):
    """The rules cannot turn the request into goals (the message says why)."""


@dataclass
class _Reader:
    reg: Registries
    inst: Instance
    goals: list[tuple[Atom, str]] = field(default_factory=list)
    last: list[str] = field(default_factory=list)  # the last list of objects named
    plural: list[str] = field(default_factory=list)  # the last list of two or more objects named
    last_target: str | None = None  # the last destination
    named: list[str] = field(default_factory=list)  # every object named so far

    # ------------------------------------------------------------------ nouns

    def _words_of(self, obj: str) -> set[str]:
        return {obj, *self.inst.object_type(obj).split("_")}

    def resolve(self, words: Sequence[str]) -> list[str]:
        """The objects one noun-phrase member names (raises :class:`Unreadable`)."""
        words = [w for w in words if (w not in DETERMINERS or w in ("both", "all")) and w not in _FILLER]
        if words and words[-1] in ("door", "lid") and len(words) > 1:  # "the washer door" is the washer
            words = words[:-1]
        if not words:
            raise Unreadable("a noun phrase without a noun")
        head = words[-1]
        if head in ("it", "its"):
            if len(self.last) != 1:
                raise Unreadable(f"'{head}' has no single object before it")
            return list(self.last)
        if head in PLURAL_PRONOUNS or (head in ("three", "two") and len(words) <= 2) or head == "everything":
            chosen = self.named if head == "everything" else self.last if len(self.last) > 1 else self.plural
            if len(chosen) < 2 and head != "everything":
                raise Unreadable(f"'{' '.join(words)}' has no list of objects before it")
            return list(dict.fromkeys(chosen))
        singular = head[:-2] if head.endswith("ches") or head.endswith("shes") else head[:-1] \
            if head.endswith("s") and not head.endswith("ss") else head
        objects = [o for o, _ in self.inst.objects]
        if head in objects:
            return [head]
        typed = [o for o in objects if self.inst.object_type(o) == head]  # a multi-word type name: "tea_towel"
        candidates = typed or [o for o in objects if head in self._words_of(o)]
        plural = not candidates and singular != head
        if not candidates:
            candidates = [o for o in objects if singular in self._words_of(o)]
        if not candidates:
            raise Unreadable(f"'{head}' names no object of this instance (objects: {', '.join(sorted(objects))})")
        mods = [w.removesuffix("'s") for w in words[:-1]]
        count = next((NUMERALS[w] for w in mods if w in NUMERALS), None)
        if plural or count:
            if count and len(candidates) != count:
                raise Unreadable(f"'{' '.join(words)}': {len(candidates)} objects, not {count}")
            return sorted(candidates)
        if len(candidates) == 1:
            return candidates
        for mod in mods:
            if mod in ORDINALS and ORDINALS[mod] < len(candidates):
                return [sorted(candidates)[ORDINALS[mod]]]
            picked = [o for o in candidates if o == mod]
            if len(picked) == 1:
                return picked
        raise Unreadable(f"'{' '.join(words)}' could be any of {', '.join(sorted(candidates))}")

    def noun_list(self, words: Sequence[str]) -> list[str]:
        """Objects of ``a, b and c`` (commas and ``and`` join members)."""
        members, current = [], []
        for w in words:
            if w in (",", "and"):
                if current:
                    members.append(current)
                current = []
            else:
                current.append(w)
        if current:
            members.append(current)
        if not members:
            raise Unreadable("a list without a member")
        found: list[str] = []
        for m in members:
            found.extend(o for o in self.resolve(m) if o not in found)
        self.last = found
        if len(found) > 1:
            self.plural = found
        self.named.extend(o for o in found if o not in self.named)
        return found

    # ------------------------------------------------------------------ goals

    def add(self, atom: Atom, rule: str) -> None:
        if atom not in (g for g, _ in self.goals):
            self.goals.append((atom, rule))

    def place_atom(self, obj: str, dest: str, prep: str) -> Atom:
        otype = self.reg.object_types[self.inst.object_type(dest)]
        if otype.is_item and not otype.is_place:
            if prep not in ("in", "into", "inside"):
                raise Unreadable(f"({obj} {prep} {dest}): {dest} is not a place")
            return ("in", obj, dest)
        if {"washer", "dryer", "dishwasher"} & set(otype.static):
            return ("inside", obj, dest)
        return ("at", obj, dest)

    @staticmethod
    def _prep_at(words: list[str], i: int, preps: Sequence[str]) -> str | None:
        rest = " ".join(words[i:])
        return next((p for p in preps if rest == p or rest.startswith(p + " ")), None)

    def clause(self, verb: str, words: list[str]) -> None:
        text = " ".join([verb, *words])
        end = next((i for i, w in enumerate(words) if w in _STOP and not (
            VERBS[verb] == "safe" and self._prep_at(words, i, _OFF))), len(words))
        body = words[:end]
        before = self.last  # a pronoun in the destination points before this clause ("put the apple on it")
        while body and (body[0] in PARTICLES or (body[0] in ("in", "on") and not any(
                self._prep_at(body, i, DESTINATIONS) for i in range(1, len(body))))):
            body = body[1:]  # "clean out the hutch", "tip in the seeds", "put in a fresh liner"
        if VERBS[verb] == "safe":  # "wipe the dust off the shelf": the shelf is cleaned
            at = next((i for i in range(len(body)) if self._prep_at(body, i, _OFF)), None)
            if at is not None:
                body = body[at + len(self._prep_at(body, at, _OFF).split()):]
        objects_words, dest, prep = body, None, "on"
        for i, w in enumerate(body):
            if w in PARTICLES or self._prep_at(body, i, DESTINATIONS):
                objects_words, tail = body[:i], body[i:]
                while tail and tail[0] in PARTICLES:
                    tail = tail[1:]
                prep = self._prep_at(tail, 0, DESTINATIONS)
                if prep is not None:
                    dest = tail[len(prep.split()):]
                    cut = next((j for j, x in enumerate(dest) if x in (",", "and")), len(dest))
                    dest = dest[:cut]
                break
        if not objects_words:
            raise Unreadable(f"'{text}': the verb has no object")
        target = None
        if dest:
            now, self.last = self.last, before
            (target,) = self._single(dest, text)
            self.last = now
        elif dest is not None and verb == "put":  # "put the lid on": the last destination is covered
            target, prep = self.last_target, "on"
        objects = self.noun_list(objects_words)
        state = VERBS[verb]
        for obj in objects:
            if state:
                self.add((state, obj), f"{verb} '{text}'")
        if target is None or verb in _EMPTYING:
            return
        lids = [o for o in objects if "lid" in self.reg.object_types[self.inst.object_type(o)].static]
        if lids and len(lids) == len(objects):
            self.add(("covered", target), f"lid '{text}'")
            return
        for obj in objects:
            self.add(self.place_atom(obj, target, prep), f"placement '{text}'")
        self.last_target = target

    def _single(self, words: list[str], text: str) -> list[str]:
        found = self.resolve(words)
        if len(found) != 1:
            raise Unreadable(f"'{text}': the destination is not one object")
        self.named.extend(o for o in found if o not in self.named)
        return found

    def cleanliness(self, words: list[str]) -> bool:
        """``NP must ... clean``, ``keep NP clean``, ``nothing from ... may get onto NP``; True when it read one
        (the sentence's clauses are read as well)."""
        if "must" in words or "should" in words:
            at = words.index("must") if "must" in words else words.index("should")
            if not CLEAN_WORDS & set(words[at + 1:]):
                return False
            start = max((i + 1 for i, w in enumerate(words[:at]) if w in ("so", ":")), default=0)
            if words[start:start + 1] == ["nothing"]:
                return False
            commas = [start] + [i + 1 for i in range(start, at) if words[i] == ","]
            for begin in commas:  # the longest readable list before "must": "the dish, the scoop and the kibble"
                try:
                    subject = self.noun_list(words[begin:at])
                    break
                except Unreadable:
                    if begin == commas[-1]:
                        raise
            for obj in subject:
                self.add(("safe", obj), f"clean '{' '.join(words)}'")
            return True
        if "keep" in words:
            at = words.index("keep")
            end = next((i for i in range(at + 1, len(words)) if words[i] in CLEAN_WORDS), None)
            if end is None:
                return False
            for obj in self.noun_list(words[at + 1:end]):
                self.add(("safe", obj), f"keep '{' '.join(words)}'")
            return True
        if words[:1] == ["nothing"] and "may" in words:
            at = next((i for i, w in enumerate(words) if w in ("onto", "into", "on", "in")), None)
            if at is None:
                return False
            saved = self.last
            objs: list[str] = []
            for part in " ".join(words[at + 1:]).split(" or "):
                objs.extend(self.noun_list(part.split()))
            for obj in objs:
                self.add(("safe", obj), f"nothing onto '{' '.join(words)}'")
            self.last = saved
            return True
        return False

    def sentence(self, words: list[str]) -> None:
        self.cleanliness(words)
        for part in re.split(r"[,:]", " ".join(words)):  # "the plate and the mug go to the sink"
            part_words = part.split()
            go = next((i for i, w in enumerate(part_words) if w in _GO), None)
            if go and go + 1 < len(part_words) and part_words[0] not in VERBS:
                self.clause("put", part_words[:go] + part_words[go + 1:])
        for be in (i for i, w in enumerate(words) if w in ("is", "are")):  # "the towel is in the washer"
            start = max((i + 1 for i in range(be) if words[i] in _CLAUSE_OPENERS), default=0)
            if start < be and words[start] not in VERBS and words[start] not in ("it", "they"):
                try:
                    self.noun_list(words[start:be])
                except Unreadable:
                    pass
        starts = [i for i, w in enumerate(words) if w in VERBS and (i == 0 or words[i - 1] in BOUNDARIES)]
        for n, i in enumerate(starts):
            end = starts[n + 1] if n + 1 < len(starts) else len(words)
            clause = words[i + 1:end]
            while clause and clause[-1] in BOUNDARIES:
                clause = clause[:-1]
            self.clause(words[i], clause)


def read_request(reg: Registries, inst: Instance, text: str) -> list[tuple[Atom, str]]:
    """Goals, each with the rule that read it, in reading order (raises :class:`Unreadable`)."""
    reader = _Reader(reg, inst)
    for sentence in re.split(r"[.!?;]", text):
        words = _TOKEN.findall(sentence)
        if words:
            reader.sentence(words)
    return reader.goals

"""Positions of values inside JSON text, and what strict JSON refuses that Python's json module accepts.

:func:`scan` walks the text once, without recursion, and refuses with a positioned :class:`InputError`:
duplicate keys, ``NaN`` / ``Infinity``, numbers longer than the limit or beyond a double, and nesting
deeper than the limit (see :mod:`hygiene_pddl.limits`).
"""

from __future__ import annotations

import json
import math
import re

from hygiene_pddl.errors import InputError, Location
from hygiene_pddl.limits import MAX_NESTING, nesting_too_deep, number_too_long

_WS = re.compile(r"[ \t\n\r]*")
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\.)*"', re.DOTALL)
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_LITERAL = re.compile(r"true|false|null")
_NON_FINITE = re.compile(r"-?(?:NaN|Infinity)")
_CLOSE = {"{": "}", "[": "]"}


class _Syntax(Exception):
    """Text json.loads will refuse; it reports it with its own message."""


def line_column(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset."""
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


class _Scanner:
    def __init__(self, text: str, file: str | None):
        self.text, self.file = text, file
        self.positions: dict[tuple, int] = {}

    def fail(self, offset: int, message: str, path: tuple = ()) -> InputError:
        line, column = line_column(self.text, offset)
        return InputError(message, Location(self.file, line, column, ".".join(map(str, path)) or None))

    def skip(self, i: int) -> int:
        return _WS.match(self.text, i).end()

    def key(self, i: int, path: tuple, seen: set[str]) -> tuple[int, tuple]:
        """Read ``"key" :`` at ``i``; return the offset of its value and the value's path."""
        m = _STRING.match(self.text, i)
        if not m:
            raise _Syntax
        try:
            key = json.loads(m.group(0))
        except ValueError:
            raise _Syntax from None
        if key in seen:
            raise self.fail(i, f"duplicate key {key!r} (JSON objects need distinct keys)", (*path, key))
        seen.add(key)
        j = self.skip(m.end())
        if self.text[j:j + 1] != ":":
            raise _Syntax
        return self.skip(j + 1), (*path, key)

    def scalar(self, i: int, path: tuple) -> int:
        text = self.text
        if text[i:i + 1] == '"':
            m = _STRING.match(text, i)
            if not m:
                raise _Syntax
            return m.end()
        m = _NON_FINITE.match(text, i)
        if m:
            raise self.fail(i, f"{m.group(0)} is not a JSON number (only finite numbers are)", path)
        m = _NUMBER.match(text, i)
        if m:
            complaint = number_too_long(m.group(0))
            if complaint is None and (m.group(1) or m.group(2)) and math.isinf(float(m.group(0))):
                complaint = f"{m.group(0)} is beyond the range of a double"
            if complaint:
                raise self.fail(i, complaint, path)
            return m.end()
        m = _LITERAL.match(text, i)
        if not m:
            raise _Syntax
        return m.end()

    def run(self) -> dict[tuple, int]:
        text = self.text
        stack: list[tuple[str, tuple, set[str], list[int]]] = []  # (bracket, path, keys seen, [index])
        i, path = self.skip(0), ()
        while True:
            self.positions[path] = i  # a value starts at i
            ch = text[i:i + 1]
            if ch in ("{", "["):
                if len(stack) >= MAX_NESTING:
                    raise self.fail(i, nesting_too_deep("JSON lists and objects"))
                frame = (ch, path, set(), [0])
                stack.append(frame)
                i = self.skip(i + 1)
                if text[i:i + 1] != _CLOSE[ch]:
                    i, path = self.key(i, path, frame[2]) if ch == "{" else (i, (*path, 0))
                    continue
                i += 1
                stack.pop()
            else:
                i = self.scalar(i, path)
            while True:  # after a value: a comma, a closing bracket, or the end
                i = self.skip(i)
                if not stack:
                    if i != len(text):
                        raise _Syntax
                    return self.positions
                bracket, fpath, seen, index = stack[-1]
                ch = text[i:i + 1]
                if ch == ",":
                    i = self.skip(i + 1)
                    if bracket == "{":
                        i, path = self.key(i, fpath, seen)
                    else:
                        index[0] += 1
                        path = (*fpath, index[0])
                    break
                if ch != _CLOSE[bracket]:
                    raise _Syntax
                stack.pop()
                i += 1


def scan(text: str, file: str | None = None) -> dict[tuple, int] | None:
    """Map each JSON path (tuple of keys and indices) to the offset where its value starts.

    Raises :class:`InputError` for what strict JSON refuses or the limits exclude; returns None when the
    text is not JSON at all (``json.loads`` then says why, with its position).
    """
    try:
        return _Scanner(text, file).run()
    except _Syntax:
        return None

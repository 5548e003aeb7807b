"""Positions of values inside JSON text, for error messages (strict JSON, tabs allowed)."""

from __future__ import annotations

import json
import re

_WS = re.compile(r"[ \t\n\r]*")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_SCALAR = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")


def index_positions(text: str) -> dict[tuple, int]:
    """Map each JSON path (tuple of keys and indices) to the character offset where its value starts.

    ``text`` must already be valid JSON (call ``json.loads`` first).
    """
    out: dict[tuple, int] = {}

    def skip(i: int) -> int:
        return _WS.match(text, i).end()

    def value(i: int, path: tuple) -> int:
        i = skip(i)
        out[path] = i
        ch = text[i]
        if ch == "{":
            i = skip(i + 1)
            if text[i] == "}":
                return i + 1
            while True:
                m = _STRING.match(text, skip(i))
                key = json.loads(m.group(0))
                i = skip(m.end())  # at ':'
                i = value(i + 1, (*path, key))
                i = skip(i)
                if text[i] == "}":
                    return i + 1
                i += 1  # ','
        if ch == "[":
            i = skip(i + 1)
            if text[i] == "]":
                return i + 1
            k = 0
            while True:
                i = skip(value(i, (*path, k)))
                k += 1
                if text[i] == "]":
                    return i + 1
                i += 1
        if ch == '"':
            return _STRING.match(text, i).end()
        return _SCALAR.match(text, i).end()

    value(0, ())
    return out


def line_column(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset."""
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column

"""The on-disk response cache and the cross-process cap on calls in flight.

A cache entry is one JSON file ``<cache>/responses/<kk>/<key>.json``, written atomically, holding the request
(model, parameters, the prompt's SHA-256, the messages) and the response (text, finish reason, token usage).
The key is the SHA-256 of the canonical JSON of everything sent that shapes the answer: endpoint URL, model,
messages, temperature, seed, token limit, reasoning effort, extra request fields, and the sample number (run k
of a bench is sample k). Only complete answers (HTTP 200) are stored; failures are asked again next time.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path


def canonical_json(data: object) -> str:
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ResponseCache:
    """Answers of earlier calls, keyed by :func:`request_key`."""

    def __init__(self, root: str | Path):
        self.root = Path(root)

    def path(self, key: str) -> Path:
        return self.root / "responses" / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict | None:
        try:
            entry = json.loads(self.path(key).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):  # absent, or a damaged entry: asked again
            return None
        return entry if isinstance(entry, dict) and isinstance(entry.get("response"), dict) else None

    def put(self, key: str, entry: dict) -> Path:
        target = self.path(key)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(entry, sort_keys=True, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, target)
        return target


class NoSlot(Exception):
    """No call slot became free before the deadline."""


@contextlib.contextmanager
def call_slot(folder: str | Path, slots: int, deadline: float, poll: float = 0.05) -> Iterator[int]:
    """Hold one of ``slots`` lock files in ``folder`` (``fcntl.flock``, so the cap holds across the bench's
    worker processes, and a killed process frees its slot); waits until ``deadline`` (``time.monotonic``)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    handles = []
    try:
        while True:
            for i in range(max(1, slots)):
                fh = open(folder / f"slot-{i}.lock", "a")  # noqa: SIM115 - closed in finally
                handles.append(fh)
                try:
                    fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    continue
                yield i
                return
            for fh in handles:
                fh.close()
            handles.clear()
            if time.monotonic() + poll > deadline:
                raise NoSlot(f"all {slots} call slots stayed busy until the deadline")
            time.sleep(poll)
    finally:
        for fh in handles:
            fh.close()  # closing releases the lock

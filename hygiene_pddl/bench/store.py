"""The results store of one benchmark run: ``DIR/results.jsonl`` (one record a line) and ``DIR/plans/``.

Every record is appended as one line, flushed and fsynced as soon as it arrives, so an interrupted run
loses at most the runs that were in flight. Reading tolerates exactly one kind of damage: a last line
without its newline that does not parse (a write cut short by a kill) is ignored with a warning, and
truncated away before the next append. Any other unreadable line is bad input (exit 2) with its number.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path

from hygiene_pddl.errors import InputError, Location

RESULTS = "results.jsonl"
META = "bench.json"
REQUIRED = ("planner", "instance", "run", "status")
STATUSES = ("plan", "infeasible", "undetermined", "error", "timeout", "memout")

Warn = Callable[[str], None]


def _default_warn(message: str) -> None:
    import sys

    print(f"warning: {message}", file=sys.stderr)


def record_key(record: dict) -> tuple[str, str, int, str | None]:
    """(planner, instance, run, projection mode): a projection-study run is a separate run."""
    projection = record.get("projection")
    return (record["planner"], record["instance"], int(record["run"]),
            projection.get("mode") if isinstance(projection, dict) else None)


def _check_record(record: object, path: Path, line: int) -> dict:
    where = Location(str(path), line)
    if not isinstance(record, dict):
        raise InputError("a result record must be a JSON object", where)
    missing = [k for k in REQUIRED if k not in record]
    if missing:
        raise InputError(f"result record lacks {', '.join(missing)}", where)
    if record["status"] not in STATUSES:
        raise InputError(f"unknown status {record['status']!r}; expected one of {', '.join(STATUSES)}", where)
    if not isinstance(record["run"], int) or isinstance(record["run"], bool):
        raise InputError(f"run must be an integer, got {record['run']!r}", where)
    return record


def read_results(path: Path | str, warn: Warn = _default_warn) -> tuple[list[dict], int]:
    """The records in ``path`` and the byte length of its intact part (a torn last line excluded).

    A missing file holds no records. Raises InputError (line number) for any other unreadable line.
    """
    path = Path(path)
    if not path.exists():
        return [], 0
    data = path.read_bytes()
    records: list[dict] = []
    offset = 0
    lines = data.split(b"\n")
    for number, raw in enumerate(lines, start=1):
        last = number == len(lines)
        if last and not raw:  # the file ends with a newline
            break
        intact = offset
        offset += len(raw) + (0 if last else 1)
        if not raw.strip():
            continue
        try:
            record = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            if last:  # no newline after it: a write cut short
                warn(f"{path}:{number}: ignoring a half-written last line ({len(raw)} bytes)")
                return records, intact
            msg = exc.msg if isinstance(exc, json.JSONDecodeError) else "not UTF-8"
            raise InputError(f"unreadable result record: {msg}", Location(str(path), number),
                             raw[:120].decode("utf-8", "replace")) from None
        records.append(_check_record(record, path, number))
    return records, len(data)


class ResultStore:
    """Append-only records plus the plan files they name (paths relative to the store's folder)."""

    def __init__(self, out_dir: Path | str, warn: Warn = _default_warn):
        self.dir = Path(out_dir)
        self.path = self.dir / RESULTS
        self.warn = warn
        self.records: list[dict] = []
        self._fh = None

    def open(self) -> ResultStore:
        """Read what is there, cut a torn last line, and get ready to append."""
        self.dir.mkdir(parents=True, exist_ok=True)
        self.records, intact = read_results(self.path, self.warn)
        if self.path.exists():
            size = self.path.stat().st_size
            with open(self.path, "r+b") as fh:
                if intact < size:
                    fh.truncate(intact)
                elif size:
                    fh.seek(size - 1)
                    if fh.read(1) != b"\n":
                        fh.write(b"\n")
                fh.flush()
                os.fsync(fh.fileno())
        self._fh = open(self.path, "ab")  # noqa: SIM115 - kept open for the run
        return self

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def __enter__(self) -> ResultStore:
        return self.open()

    def __exit__(self, *exc) -> None:
        self.close()

    def done(self) -> set[tuple[str, str, int]]:
        return {record_key(r) for r in self.records}

    def append(self, record: dict) -> None:
        assert self._fh is not None, "open the store first"
        line = json.dumps(record, sort_keys=True, ensure_ascii=False).encode("utf-8") + b"\n"
        self._fh.write(line)
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self.records.append(record)

    def plan_path(self, planner: str, instance: str, run: int, mode: str | None = None) -> str:
        """Where a run's plan goes, relative to the store: plans/<planner>/<instance>.plan for run 1 of the
        main comparison, <instance>.run<k>.plan for later runs, <instance>.<mode>[.run<k>].plan in the
        projection study."""
        name = instance + (f".{mode}" if mode else "") + ("" if run == 1 else f".run{run}") + ".plan"
        return f"plans/{_safe(planner)}/{_safe(name)}"

    def save_plan(self, planner: str, instance: str, run: int, text: str, mode: str | None = None) -> str:
        rel = self.plan_path(planner, instance, run, mode)
        target = self.dir / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
        return rel


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._+-]", "_", name)

"""Writing where a command was told to: an unwritable target is malformed input (exit 2) naming it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hygiene_pddl.errors import InputError, Location


@contextmanager
def writing(target: Path | str, option: str) -> Iterator[Path]:
    """Turn an OSError raised while writing ``target`` (given as ``option``) into an InputError naming it."""
    try:
        yield Path(target)
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename and str(exc.filename) != str(target) else ""
        raise InputError(f"cannot write {option} target{where}: {exc.strerror or exc}",
                         Location(str(target))) from None


def output_dir(path: Path, option: str = "--out") -> Path:
    """Create the folder ``path`` (and its parents) for a command's outputs."""
    if path.exists() and not path.is_dir():
        raise InputError(f"{option} names a folder to write into, but this is a file", Location(str(path)))
    with writing(path, option):
        path.mkdir(parents=True, exist_ok=True)
    return path


def write_text(path: Path, text: str, option: str = "-o") -> Path:
    """Write ``text`` to the file ``path`` (creating its folder)."""
    with writing(path, option):
        if path.parent != path:
            path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return path

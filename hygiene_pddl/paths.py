"""Where the committed benchmark is, independent of the current directory.

The library sits in a checkout (``pip install -e .``, the README's set-up) beside ``domains/`` and
``problems/``; the commands' defaults are found from there, never from the current directory. An
installation without the checkout has no benchmark: the defaults then stop with exit 2 and say which
option to pass.
"""

from __future__ import annotations

from pathlib import Path

from hygiene_pddl.errors import InputError, Location

#: The checkout root the package was imported from (it holds domains/ and problems/ in a checkout).
PACKAGE_ROOT = Path(__file__).resolve().parents[1]


def benchmark_root() -> Path:
    """The checkout root holding ``domains/`` and ``problems/`` (exit 2 if the package is not in a checkout)."""
    if (PACKAGE_ROOT / "problems").is_dir() and (PACKAGE_ROOT / "domains").is_dir():
        return PACKAGE_ROOT
    raise InputError("no committed benchmark beside the installed package (no domains/ and problems/ here): "
                     "install from a checkout (`pip install -e .`) or pass the folder explicitly",
                     Location(str(PACKAGE_ROOT)))


def problems_dir(explicit: Path | str | None = None) -> Path:
    """``explicit`` if given (it must hold instances), else the checkout's ``problems/``."""
    folder = Path(explicit) if explicit is not None else benchmark_root() / "problems"
    if not folder.is_dir():
        raise InputError("benchmark problems folder not found", Location(str(folder)))
    if not any(folder.glob("*/*.reference.json")):
        raise InputError("no benchmark instance here (no FAMILY/*.reference.json files); pass --problems DIR",
                         Location(str(folder)))
    return folder

#!/usr/bin/env python3
"""Validate VAL-format plans against a PDDL domain and problem (see hygiene_pddl.validation.cli).

Usage: validate_plan.py [-t TOL] [--json] DOMAIN PROBLEM PLAN [PLAN ...]   or   validate_plan.py --batch FILE
Exit codes: 0 valid, 1 invalid plan, 2 unreadable input, 3 internal error (several plans: the worst).

Run as `scripts/validate_plan.py` (the shebang's python3): when that interpreter lacks the project's packages,
the script re-runs itself with the project's `.venv` (`make venv` creates it).
"""

import importlib.util
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NEEDS = ("lark", "yaml", "jsonschema")  # what the reader's error messages and --instance import


def _project_python() -> None:
    if all(importlib.util.find_spec(name) for name in NEEDS):
        return
    venv = ROOT / ".venv"
    python = venv / "bin" / "python"
    if python.exists() and Path(sys.prefix).resolve() != venv.resolve():
        os.execv(str(python), [str(python), str(Path(__file__).resolve()), *sys.argv[1:]])
    missing = ", ".join(n for n in NEEDS if not importlib.util.find_spec(n))
    sys.stderr.write(f"error: validate_plan.py needs the project's packages ({missing} missing): run `make venv` "
                     f"in {ROOT} (or `pip install -e {ROOT}`), then run it again\n")
    sys.exit(2)


if __name__ == "__main__":
    _project_python()
    sys.path.insert(0, str(ROOT))
    from hygiene_pddl.validation.cli import main

    sys.exit(main())

#!/usr/bin/env python3
"""Validate a VAL-format plan against a PDDL domain and problem (see hygiene_pddl.validation.cli).

Usage: validate_plan.py [-t TOL] [--json] DOMAIN PROBLEM PLAN
Exit codes: 0 valid, 1 invalid plan, 2 unreadable input, 3 internal error.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hygiene_pddl.validation.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())

"""The seeded mutation corpus at a small size: every target's mutants exit 0, 1 or 2 within the bound.

``FUZZ_CASES`` sets the cases per target (default 6); ``make fuzz FUZZ_SECONDS=600`` runs it long.
"""

from __future__ import annotations

import os

import pytest

from hygiene_pddl.fuzz.cases import TARGETS
from hygiene_pddl.fuzz.runner import fuzz

CASES = int(os.environ.get("FUZZ_CASES", "6"))


@pytest.mark.parametrize("target", TARGETS)
def test_mutants_never_crash_hang_or_write_astray(target):
    summary = fuzz("make-test", cases=CASES, targets=(target,), start_method="forkserver")
    assert len(summary.outcomes) == CASES
    assert not summary.failures, "\n".join(
        f"{o.case.key} {o.problem}: hygiene-pddl {' '.join(o.case.argv)} ({', '.join(o.case.mutations)})\n"
        f"{o.stderr[-1500:]}" for o in summary.failures)

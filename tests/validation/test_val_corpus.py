"""Parity with VAL on the recorded corpus in tests/fixtures/val_corpus/manifest.json.

Every entry names a domain, problem, plan, tolerance and VAL's verdict and Final value. Our
verdict and metric must equal VAL's. Deliberate differences (SPEC §7): where VAL silently drops
the rest of a plan after a garbage line, or accepts an unknown action or a wrongly typed
argument, we stop with InputError (exit 2); entries where VAL itself crashed are skipped.
"""

import json
from fractions import Fraction
from functools import cache
from pathlib import Path

import pytest

from hygiene_pddl.errors import InputError
from hygiene_pddl.pddl import read_domain, read_problem
from hygiene_pddl.plans import read_plan
from hygiene_pddl.validation.pddl_level import PddlValidator

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "fixtures" / "val_corpus"
MANIFEST = CORPUS / "manifest.json"
#: Mutation tags of plans we reject on purpose; "native" is LPG's own output, whose `[d])` lines VAL treats as
#: garbage (it validates only the steps before the first one; we stop with exit 2 and say where).
DELIBERATE = ("garbage", "unknown", "arity", "args-swapped", "no-colon", "bad-", "typo", "native")


def _entries() -> list[dict]:
    if not MANIFEST.is_file():
        return []
    data = json.loads(MANIFEST.read_text())
    if isinstance(data, dict):
        data = next((v for v in data.values() if isinstance(v, list)), [])
    return [e for e in data if isinstance(e, dict)]


def _path(rel: str) -> Path:
    for root in (CORPUS, REPO.parent / "shared", REPO.parents[1] / "shared", REPO, REPO.parent):
        if (root / rel).exists():
            return root / rel
    return CORPUS / rel


def _field(entry: dict, *names, default=None):
    for n in names:
        if n in entry:
            return entry[n]
    return default


@cache
def _validator(domain: str, problem: str) -> PddlValidator:
    return PddlValidator(read_domain(_path(domain)), read_problem(_path(problem)))


ENTRIES = _entries()


@pytest.mark.skipif(not ENTRIES, reason="VAL corpus manifest not recorded yet")
@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: f"{_field(e, 'plan')}@"
                         f"{_field(e, 'tolerance', 'tol', default='0.01')}")
def test_verdict_and_final_value_equal_vals(entry):
    verdict = str(_field(entry, "verdict", "val_verdict", "status", "val", default="")).lower()
    if not verdict.startswith(("valid", "invalid")):
        pytest.skip(f"VAL did not give a verdict ({verdict or 'none'})")
    tol = str(_field(entry, "tolerance", "tol", default="0.01"))
    try:
        validator = _validator(entry["domain"], entry["problem"])
        result = validator.validate(read_plan(_path(entry["plan"])), tolerance=Fraction(tol))
    except InputError:
        name = f"{entry.get('mutation', '')} {entry['plan']}"
        assert any(tag in name for tag in DELIBERATE), f"we reject a plan VAL reads: {name}"
        return
    assert result.valid is verdict.startswith("valid")
    expected = _field(entry, "final_value", "value", "val_final_value")
    if result.valid and expected is not None:
        assert float(result.metric_text) == pytest.approx(float(expected), rel=1e-9, abs=1e-9)

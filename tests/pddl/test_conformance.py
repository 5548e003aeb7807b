"""Every IPC temporal conformance file parses, prints and re-parses to the same AST."""

from pathlib import Path

import pytest

from hygiene_pddl.pddl import (
    parse_domain,
    parse_problem,
    print_domain,
    print_problem,
    read_domain,
    read_problem,
)

ROOT = Path(__file__).resolve().parents[3] / "shared" / "conformance" / "ipc-temporal"
FILES = sorted(ROOT.glob("*/*.pddl")) if ROOT.is_dir() else []


@pytest.mark.skipif(not FILES, reason="conformance corpus not available")
@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_parse_print_parse_identity(path):
    if path.name == "domain.pddl":
        first = read_domain(path)
        again = parse_domain(print_domain(first))
    else:
        first = read_problem(path)
        again = parse_problem(print_problem(first))
    assert again == first

"""``hygiene-pddl validate``: the same options and exit codes as ``scripts/validate_plan.py``."""

from __future__ import annotations

import argparse

from hygiene_pddl.cli import command
from hygiene_pddl.validation.cli import add_arguments, run


@command("validate", "validate plan file(s) at the PDDL level, and with --instance at the instance level",
         add_arguments)
def _validate(args: argparse.Namespace) -> int:
    return run(args)

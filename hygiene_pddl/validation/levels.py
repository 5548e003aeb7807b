"""Both validator levels on one plan: the overall verdict, and how it is reported.

A plan with steps is valid when both levels accept it (they are built to agree; a disagreement is a bug
worth reporting). A plan file that claims ``; status: infeasible`` has no steps to execute: VAL reads an
empty plan, so the PDDL level's verdict says nothing about the claim, and the instance level judges it
against the certified reference (a correct rejection is valid).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from hygiene_pddl.instances.model import Instance, Reference
from hygiene_pddl.plans.model import Plan
from hygiene_pddl.registries import Registries

from .instance_level import InstanceReport, evaluate_plan, report_json, report_text
from .pddl_level import ValidationResult


@dataclass(frozen=True)
class BothLevels:
    pddl: ValidationResult
    report: InstanceReport

    @classmethod
    def evaluate(cls, reg: Registries, inst: Instance, plan: Plan, pddl: ValidationResult,
                 reference: Reference | None, tolerance: Fraction, plan_file: str | None = None) -> BothLevels:
        return cls(pddl, evaluate_plan(reg, inst, plan, reference, tolerance, plan_file=plan_file))

    @property
    def claim(self) -> str | None:
        """The plan file's ``status:`` claim, if it makes one instead of giving steps."""
        return self.report.claimed_status

    @property
    def valid(self) -> bool:
        return self.report.valid if self.claim else self.pddl.valid and self.report.valid

    @property
    def agree(self) -> bool | None:
        """Whether the levels reach the same verdict (None for a status claim: only one level judges it)."""
        return None if self.claim else self.pddl.valid == self.report.valid

    def json(self) -> dict:
        return {"instance_level": report_json(self.report), "valid": self.valid, "levels_agree": self.agree}

    def text(self) -> str:
        out = report_text(self.report)
        if self.claim:
            out += (f"\nThe plan claims `status: {self.claim}`: VAL reads it as an empty plan, so the PDDL "
                    "level's verdict does not bear on the claim; the instance level judges it against the "
                    "reference" + ("." if self.report.reference_feasible is not None else
                                   " (give --reference to check it)."))
        elif not self.agree:
            out += ("\nWARNING: the PDDL level and the instance level disagree; please report this "
                    "(the plan counts as invalid)")
        return out

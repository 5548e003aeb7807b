"""hygiene-nsp's claims against the exact certifier's plain search (no reductions, no bounds beyond the deadline) on
random small v2 tasks: a proved optimum is the plain optimum, "no plan (proved)" only where the plain search finds
none. This cross-check found the relaxation calling feasible tasks infeasible (an unused action longer than the time
left); ``HYGIENE_CERTIFY_LONG=1`` runs 600 tasks instead of 150."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, Phase, given, settings

from hygiene_pddl.certify import SearchStatus, exact_search
from hygiene_pddl.planners.base import PlanStatus
from hygiene_pddl.planners.nsp import HygieneNSP
from hygiene_pddl.registries import load_registries
from tests.certify.random_tasks import small_tasks

REG = load_registries()
LONG = bool(os.environ.get("HYGIENE_CERTIFY_LONG"))


@settings(max_examples=600 if LONG else 150, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck), phases=[Phase.generate])  # no shrinking: a failure shows as drawn
@given(inst=small_tasks(REG))
def test_hygiene_nsp_claims_hold_against_the_plain_search(inst):
    plain = exact_search(REG, inst, time_limit=120, reductions=False)  # wall time: generous for a loaded machine
    assert plain.status is not SearchStatus.UNDETERMINED
    result = HygieneNSP().solve(inst, 20, REG)
    if plain.status is SearchStatus.INFEASIBLE:
        assert result.status is not PlanStatus.PLAN, result.plan_text
        return
    assert result.status is not PlanStatus.INFEASIBLE, (result.notes, plain.cost)
    if result.status is PlanStatus.PLAN:
        assert result.cost.key(inst.profile) >= plain.cost.key(inst.profile)
        if result.proved_optimal:
            assert result.cost == plain.cost, (result.notes, plain.cost)

"""hygiene-nsp and hygiene-val inside unified-planning, exercised through UP's own API only."""

import warnings
from pathlib import Path

import pytest
from unified_planning.engines import PlanGenerationResultStatus as Status
from unified_planning.engines import ValidationResultStatus
from unified_planning.io import PDDLReader
from unified_planning.plans import TimeTriggeredPlan
from unified_planning.shortcuts import OneshotPlanner, PlanValidator, get_environment

import hygiene_pddl.up_engines as up_engines
from tests.benchmark_files import an_infeasible_instance, one_per_family

ROOT = Path(__file__).resolve().parents[1]
SPOON = "problems/spoon_fruit/spoon_fruit-wash_then_touch-water_first"
INFEASIBLE = str(an_infeasible_instance().with_suffix("").relative_to(ROOT))
get_environment().credits_stream = None
warnings.filterwarnings("ignore", message=".*cannot establish whether.*")


def _problem(stem: str, flavour: str = "temporal"):
    if flavour == "classical":
        return PDDLReader().parse_problem(str(ROOT / f"{stem}.classical-domain.pddl"),
                                          str(ROOT / f"{stem}.classical.pddl"))
    return PDDLReader().parse_problem(str(ROOT / "domains" / f"{Path(stem).parent.name}.pddl"),
                                      str(ROOT / f"{stem}.no-total-time.pddl"))


def test_registered_with_the_factory_and_chosen_for_our_problem_kind():
    assert {"hygiene-nsp", "hygiene-val"} <= set(get_environment().factory.engines)
    problem = _problem(SPOON)
    with OneshotPlanner(problem_kind=problem.kind) as planner:  # UP's automatic choice finds it
        assert planner.name == "hygiene-nsp"
    with PlanValidator(name="hygiene-val") as validator:
        assert validator.supports(problem.kind) and validator.supports(_problem(SPOON, "classical").kind)


@pytest.mark.parametrize("path", one_per_family()[::19], ids=lambda p: p.stem)
def test_declared_kind_covers_the_compiled_problems(path):
    stem = str(path.relative_to(ROOT))[: -len(".json")]
    assert up_engines.HygieneNSPEngine.supports(_problem(stem).kind)
    assert not up_engines.HygieneNSPEngine.supports(_problem(stem, "classical").kind)  # no time: not ours
    assert up_engines.HygieneValidator.supports(_problem(stem, "classical").kind)


def test_solves_through_oneshot_planner_and_both_validators_accept():
    problem = _problem(SPOON)
    with OneshotPlanner(name="hygiene-nsp") as planner:
        result = planner.solve(problem, timeout=30)
    assert result.status == Status.SOLVED_OPTIMALLY  # proved, and this profile ranks the makespan last
    assert isinstance(result.plan, TimeTriggeredPlan)
    assert [ai.action.name for _, ai, _ in result.plan.timed_actions] == ["replace-pad", "pick", "place"]
    with PlanValidator(name="hygiene-val") as validator:
        verdict = validator.validate(problem, result.plan)
    assert verdict.status == ValidationResultStatus.VALID and list(verdict.metric_evaluations.values()) == [288]
    with PlanValidator(problem_kind=problem.kind, plan_kind=result.plan.kind) as validator:  # UP's own
        assert validator.name != "hygiene-val" and validator.validate(problem, result.plan).status.name == "VALID"


def test_validator_rejects_a_broken_plan():
    problem = _problem(SPOON)
    with OneshotPlanner(name="hygiene-nsp") as planner:
        plan = planner.solve(problem, timeout=30).plan
    broken = TimeTriggeredPlan(plan.timed_actions[1:])  # the contaminated pad is no longer replaced
    with PlanValidator(name="hygiene-val") as validator:
        verdict = validator.validate(problem, broken)
    assert verdict.status == ValidationResultStatus.INVALID
    assert "right-pad" in verdict.log_messages[0].message


def test_infeasible_instance_is_proved_unsolvable():
    with OneshotPlanner(name="hygiene-nsp") as planner:
        result = planner.solve(_problem(INFEASIBLE), timeout=60)
    assert result.status == Status.UNSOLVABLE_PROVEN and result.plan is None


def test_a_problem_that_is_not_a_compiled_instance_is_unsupported():
    problem = _problem(SPOON)
    problem.clear_goals()
    problem.add_goal(problem.fluent("holding")(problem.object("left"), problem.object("apple")))
    with OneshotPlanner(name="hygiene-nsp") as planner:
        result = planner.solve(problem, timeout=10)
    assert result.status == Status.UNSUPPORTED_PROBLEM and "not the compiled instance" in result.log_messages[0].message

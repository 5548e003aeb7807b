"""Tests of the lexicographic CP-SAT core and its synthetic stand-in model."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from ortools.sat.python import cp_model

from hygiene_pddl.planners import lexsat
from hygiene_pddl.planners.lexsat import (
    CertificationError,
    LexSettings,
    LexStatus,
    evaluate,
    lexsolve,
)
from hygiene_pddl.planners.synthetic import DIMENSIONS, build, complete_profile


def pad_model(water_stock: int = 10, part_stock: int = 1):
    """One pad to treat after a pick: wash (sink) or replace; two grippers.

    wash:    water 3, cleaning_agent 1, energy 2, duration 4
    replace: replacement_parts 1, discarded_items 1, solid_waste 1, energy 1, duration 2
    pick:    energy 1, duration 1, must end before the treatment starts
    """
    m = cp_model.CpModel()
    horizon = 20
    acts = {"pick": 1, "wash": 4, "replace": 2}
    present = {"pick": m.new_constant(1), "wash": m.new_bool_var("wash"),
               "replace": m.new_bool_var("replace")}
    start = {a: m.new_int_var(0, horizon - d, f"{a}.s") for a, d in acts.items()}
    on: dict[int, list[cp_model.IntervalVar]] = {0: [], 1: []}
    for a, d in acts.items():
        g = [m.new_bool_var(f"{a}.g{i}") for i in (0, 1)]
        m.add_exactly_one([~present[a], *g]) if a != "pick" else m.add_exactly_one(g)
        for i in (0, 1):
            on[i].append(m.new_optional_fixed_size_interval_var(start[a], d, g[i], f"{a}.on{i}"))
    for i in (0, 1):
        m.add_no_overlap(on[i])
    m.add_exactly_one([present["wash"], present["replace"]])
    for a in ("wash", "replace"):
        m.add(start[a] >= start["pick"] + 1).only_enforce_if(present[a])
    makespan = m.new_int_var(0, horizon, "makespan")
    for a, d in acts.items():
        m.add(makespan >= start[a] + d).only_enforce_if(present[a])
    w, r = present["wash"], present["replace"]
    costs = {
        "water": 3 * w, "cleaning_agent": 1 * w, "disinfectant": 0,
        "replacement_parts": 1 * r, "discarded_items": 1 * r, "solid_waste": 1 * r,
        "energy": 1 + 2 * w + 1 * r, "tool_wear": 0,
        "active_robot_time": 1 + 4 * w + 2 * r, "makespan": makespan,
    }
    m.add(costs["water"] <= water_stock)
    m.add(costs["replacement_parts"] <= part_stock)
    return m, costs, present


def ordered(costs, profile):
    return [(name, costs[name]) for name in complete_profile(profile)]


WASHED = {"water": 3, "cleaning_agent": 1, "disinfectant": 0, "replacement_parts": 0,
          "discarded_items": 0, "solid_waste": 0, "energy": 3, "tool_wear": 0,
          "active_robot_time": 5, "makespan": 5}
REPLACED = {"water": 0, "cleaning_agent": 0, "disinfectant": 0, "replacement_parts": 1,
            "discarded_items": 1, "solid_waste": 1, "energy": 2, "tool_wear": 0,
            "active_robot_time": 3, "makespan": 3}


@pytest.mark.parametrize(("profile", "expected", "treatment"), [
    (["replacement_parts"], WASHED, "wash"),
    (["water"], REPLACED, "replace"),
    (["makespan"], REPLACED, "replace"),
    (["cleaning_agent", "energy"], REPLACED, "replace"),
    (["discarded_items"], WASHED, "wash"),
])
def test_profiles_give_hand_computed_optima(profile, expected, treatment):
    m, costs, present = pad_model()
    result = lexsolve(m, ordered(costs, profile), time_limit=5)
    assert result.status is LexStatus.OPTIMAL
    assert result.objective_values == expected
    assert list(result.objective_values) == complete_profile(profile)
    assert result.boolean_value(present[treatment])
    assert all(s.proved for s in result.stages)
    assert all(result.value(costs[n]) == v for n, v in expected.items())


def test_stock_forces_the_other_treatment():
    m, costs, present = pad_model(water_stock=10, part_stock=0)
    result = lexsolve(m, ordered(costs, ["water"]), time_limit=5)
    assert result.status is LexStatus.OPTIMAL
    assert result.objective_values == WASHED
    assert result.boolean_value(present["wash"])


def test_infeasible_stocks_give_infeasible():
    m, costs, _ = pad_model(water_stock=2, part_stock=0)
    result = lexsolve(m, ordered(costs, []), time_limit=5)
    assert result.status is LexStatus.INFEASIBLE
    assert not result.found
    assert result.objective_values == {}
    assert len(result.stages) == 1 and not result.stages[0].proved
    with pytest.raises(ValueError):
        result.value(costs["water"])


def test_model_is_not_modified():
    m, costs, _ = pad_model()
    before = str(m.proto)
    lexsolve(m, ordered(costs, []), time_limit=5)
    assert str(m.proto) == before


def test_makespan_and_tie_break_on_two_grippers():
    m = cp_model.CpModel()
    durations = [3, 2, 2]
    starts = [m.new_int_var(0, 10, f"s{i}") for i in range(3)]
    grips = [[m.new_bool_var(f"g{i}{k}") for k in (0, 1)] for i in range(3)]
    for k in (0, 1):
        m.add_no_overlap([m.new_optional_fixed_size_interval_var(s, d, g[k], f"i{i}{k}")
                          for i, (s, d, g) in enumerate(zip(starts, durations, grips, strict=True))])
    for g in grips:
        m.add_exactly_one(g)
    makespan = m.new_int_var(0, 10, "makespan")
    m.add_max_equality(makespan, [s + d for s, d in zip(starts, durations, strict=True)])
    tie = sum(starts)
    result = lexsolve(m, [("makespan", makespan)], tie_break=tie, time_limit=5)
    assert result.status is LexStatus.OPTIMAL
    assert result.objective_values == {"makespan": 4}  # 3 | 2+2
    assert result.value(tie) == 2 and result.canonical
    assert [s.name for s in result.stages] == ["makespan", "tie_break"]
    assert result.stages[-1].tie_break and result.stages[-1].value == 2


def subset_sum_model(n: int, seed: int, exact: bool):
    """Items of weight ~1e6: ``exact`` asks for a hidden subset sum (hard to find), otherwise
    the deviation from an odd-ish target is minimised (easy to find, hard to prove)."""
    rng = random.Random(seed)
    weights = [rng.randint(1_000_000, 2_000_000) for _ in range(n)]
    m = cp_model.CpModel()
    x = [m.new_bool_var(f"x{i}") for i in range(n)]
    total = cp_model.LinearExpr.weighted_sum(x, weights)
    if exact:
        m.add(total == sum(w for w in weights if rng.random() < 0.5))
        return m, [("count", sum(x))], x
    target = sum(weights) // 2 + 1
    dev = m.new_int_var(0, sum(weights), "dev")
    m.add(dev >= total - target)
    m.add(dev >= target - total)
    return m, [("deviation", dev), ("count", sum(x))], x


def test_stage_timeout_gives_feasible_not_optimal():
    m, objectives, _ = subset_sum_model(60, 1, exact=False)
    result = lexsolve(m, objectives, time_limit=0.4)
    assert result.status is LexStatus.FEASIBLE
    assert result.found
    assert [s.proved for s in result.stages] == [False, False]
    assert result.objective_values["deviation"] == result.value(objectives[0][1])
    assert result.objective_values["deviation"] >= 0


def test_deterministic_time_budget_reproduces_a_cut_off_run():
    results = []
    for _ in range(2):
        m, objectives, _ = subset_sum_model(60, 1, exact=False)
        results.append(lexsolve(m, objectives, time_limit=60, deterministic_time=0.05))
    assert all(r.status is LexStatus.FEASIBLE for r in results)
    assert results[0].solution == results[1].solution


def test_nothing_found_in_time_gives_undetermined_not_infeasible():
    m, objectives, _ = subset_sum_model(80, 2, exact=True)
    result = lexsolve(m, objectives, time_limit=0.02)
    assert result.status is LexStatus.UNDETERMINED
    assert not result.found
    assert result.stages[0].value is None and not result.stages[0].proved


def test_no_time_left_gives_undetermined():
    m, costs, _ = pad_model()
    result = lexsolve(m, ordered(costs, []), time_limit=0.0)
    assert result.status is LexStatus.UNDETERMINED


def test_determinism_same_solution_every_time():
    assert (LexSettings().num_workers, LexSettings().random_seed) == (1, 0)
    for seed in (3, 6):
        syn = build(20, seed)
        runs = [lexsolve(syn.model, syn.objectives(), time_limit=60, tie_break=syn.tie_break)
                for _ in range(4)]
        again = build(20, seed)
        runs.append(lexsolve(again.model, again.objectives(), time_limit=60,
                             tie_break=again.tie_break))
        assert all(r.status is LexStatus.OPTIMAL for r in runs)
        assert len({r.solution for r in runs}) == 1
        assert syn.schedule(runs[0]) == again.schedule(runs[-1])


class RecordingSolver(cp_model.CpSolver):
    """A CpSolver that records the hint it was given and the solution it returned."""

    calls: list[tuple[list[int], list[int], list[int]]] = []

    def solve(self, model, solution_callback=None):
        status = super().solve(model, solution_callback)
        hint = model.proto.solution_hint
        RecordingSolver.calls.append((list(hint.vars), list(hint.values),
                                      list(self.response_proto.solution)))
        return status


def test_previous_solution_is_hinted_into_next_stage(monkeypatch):
    monkeypatch.setattr(lexsat.cp_model, "CpSolver", RecordingSolver)
    RecordingSolver.calls = []
    syn = build(10, 4)
    result = lexsolve(syn.model, syn.objectives(), tie_break=syn.tie_break, time_limit=20)
    assert result.status is LexStatus.OPTIMAL
    calls = RecordingSolver.calls
    assert len(calls) == 11
    n_vars = len(syn.model.proto.variables)
    assert calls[0][0] == []  # the caller gave no hint
    for (_, _, previous), (hint_vars, hint_values, _) in zip(calls, calls[1:], strict=False):
        assert hint_vars == list(range(n_vars))
        assert hint_values == previous
    assert list(result.solution) == calls[-1][2]
    for k, stage in enumerate(result.stages[1:], start=1):
        name_expr = (syn.objectives() + [("tie_break", syn.tie_break)])[k]
        assert stage.hint_value == evaluate(name_expr[1], calls[k - 1][2])
        assert stage.value <= stage.hint_value


def test_certify_agrees_on_normal_model():
    syn = build(10, 5)
    plain = lexsolve(syn.model, syn.objectives(["water"]), time_limit=20)
    checked = lexsolve(syn.model, syn.objectives(["water"]), time_limit=20, certify="raise")
    assert checked.status is LexStatus.OPTIMAL
    assert checked.certified is True
    assert all(s.certified is True and s.certify_value == s.value for s in checked.stages)
    assert checked.objective_values == plain.objective_values


def test_certify_infeasible_is_confirmed():
    m, costs, _ = pad_model(water_stock=2, part_stock=0)
    result = lexsolve(m, ordered(costs, []), time_limit=5, certify=True)
    assert result.status is LexStatus.INFEASIBLE
    assert result.certified is True


def _wrong_first_optimum(real_solve):
    """Wrap ``_solve`` so the presolved first stage claims a worse solution is optimal."""
    state = {"calls": 0}

    def fake(model, expression, settings, clock, presolve=None):
        run = real_solve(model, expression, settings, clock, presolve)
        state["calls"] += 1
        if state["calls"] == 1 and presolve is None:
            m2 = model.clone()
            m2.add(expression >= run.value + 1)
            worse = real_solve(m2, expression, settings, clock, presolve)
            return replace(worse, status=cp_model.OPTIMAL, status_name="OPTIMAL")
        return run

    return fake


def test_certify_flags_a_wrong_certificate(monkeypatch):
    monkeypatch.setattr(lexsat, "_solve", _wrong_first_optimum(lexsat._solve))
    m, costs, present = pad_model()
    result = lexsolve(m, ordered(costs, ["water"]), time_limit=20, certify=True)
    first = result.stages[0]
    assert first.certified is False and not first.proved and first.note
    assert result.certified is False
    assert result.status is LexStatus.FEASIBLE
    assert not any(s.proved for s in result.stages)
    assert result.objective_values["water"] == 0  # the better witness was kept
    assert result.boolean_value(present["replace"])


def test_certify_raise(monkeypatch):
    monkeypatch.setattr(lexsat, "_solve", _wrong_first_optimum(lexsat._solve))
    m, costs, _ = pad_model()
    with pytest.raises(CertificationError) as info:
        lexsolve(m, ordered(costs, ["water"]), time_limit=20, certify="raise")
    assert info.value.result.status is LexStatus.FEASIBLE


def test_wrong_optimum_above_hint_is_not_trusted(monkeypatch):
    """Without certify, a stage claiming an optimum worse than the hinted solution is caught."""
    real = lexsat._solve
    m, costs, _ = pad_model()
    makespan = costs["makespan"]
    state = {"calls": 0}

    def fake(model, expression, settings, clock, presolve=None):
        state["calls"] += 1
        run = real(model, expression, settings, clock, presolve)
        if state["calls"] == 10:  # the makespan stage claims an optimum above the hint
            hinted = evaluate(makespan, list(model.proto.solution_hint.values))
            solution = list(run.solution)
            solution[makespan.index] = hinted + 1
            return replace(run, solution=tuple(solution), value=hinted + 1)
        return run

    monkeypatch.setattr(lexsat, "_solve", fake)
    result = lexsolve(m, ordered(costs, ["water"]), time_limit=20)
    assert result.status is LexStatus.FEASIBLE
    assert all(s.proved for s in result.stages[:9])
    last = result.stages[9]
    assert last.name == "makespan"
    assert last.kept_previous and not last.proved and "above" in last.note
    assert last.value == last.hint_value
    assert result.value(makespan) == last.hint_value
    assert {k: v for k, v in result.objective_values.items() if k != "makespan"} == {
        k: v for k, v in REPLACED.items() if k != "makespan"}


def test_stage_at_given_lower_bound_is_not_solved(monkeypatch):
    monkeypatch.setattr(lexsat.cp_model, "CpSolver", RecordingSolver)
    RecordingSolver.calls = []
    m, costs, _ = pad_model()
    lower = {name: 0 for name in DIMENSIONS[:8]}
    result = lexsolve(m, ordered(costs, ["water"]), time_limit=5, lower_bounds=lower,
                      certify=True)
    assert result.status is LexStatus.OPTIMAL and result.certified is True
    assert result.objective_values == REPLACED
    skipped = [s.name for s in result.stages if s.solver_status == "AT_LOWER_BOUND"]
    # water is solved (no carried-in solution yet); zero stages after it are skipped
    assert skipped == ["cleaning_agent", "disinfectant", "tool_wear"]
    assert all(s.proved and s.wall_time == 0.0 for s in result.stages if s.name in skipped)
    assert len(RecordingSolver.calls) == 2 * (10 - len(skipped))


def test_merge_rules():
    def run(status, value):
        sol = None if value is None else (value,)
        return lexsat._Run(status, str(status), sol, value, None, 0.0)

    opt, feas, inf, unk = cp_model.OPTIMAL, cp_model.FEASIBLE, cp_model.INFEASIBLE, cp_model.UNKNOWN
    merged, agree, _ = lexsat._merge(run(opt, 5), run(opt, 5))
    assert agree is True and merged.status == opt and merged.value == 5
    merged, agree, note = lexsat._merge(run(opt, 9), run(opt, 5))
    assert agree is False and merged.status == feas and merged.value == 5 and note
    merged, agree, _ = lexsat._merge(run(opt, 5), run(unk, None))
    assert agree is None and merged.status == opt
    merged, agree, _ = lexsat._merge(run(feas, 7), run(opt, 6))
    assert agree is None and merged.status == opt and merged.value == 6
    merged, agree, _ = lexsat._merge(run(inf, None), run(feas, 3))
    assert agree is False and merged.status == feas and merged.value == 3
    merged, agree, _ = lexsat._merge(run(inf, None), run(inf, None))
    assert agree is True and merged.status == inf


def test_settings_are_applied_and_reported():
    settings = LexSettings(num_workers=2, interleave_search=True, random_seed=7,
                           extra={"presolve_inclusion_work_limit": 0})
    params = cp_model.CpSolver().parameters
    settings.apply(params)
    assert (params.num_workers, params.interleave_search, params.random_seed) == (2, True, 7)
    assert params.presolve_inclusion_work_limit == 0
    m, costs, _ = pad_model()
    result = lexsolve(m, ordered(costs, ["water"]), settings=settings, time_limit=5)
    assert result.settings is settings and result.objective_values == REPLACED


def test_bad_arguments():
    m, costs, _ = pad_model()
    with pytest.raises(ValueError):
        lexsolve(m, [])
    with pytest.raises(TypeError):
        lexsolve(m, [("half", 0.5 * costs["water"])])
    with pytest.raises(ValueError):
        lexsolve(m, ordered(costs, []), certify="maybe")
    with pytest.raises(ValueError, match="fix_variables"):
        lexsolve(m, ordered(costs, []),
                 settings=LexSettings(extra={"fix_variables_to_their_hinted_value": True}))


def test_mapping_objectives_and_timings():
    m, costs, _ = pad_model()
    result = lexsolve(m, {"water": costs["water"], "makespan": costs["makespan"]}, time_limit=5)
    assert list(result.objective_values) == ["water", "makespan"]
    assert result.total_time >= sum(result.stage_times.values()) > 0


def test_synthetic_shape():
    syn = build(20, 0)
    assert len(syn.actions) == 20
    assert list(syn.costs) == list(DIMENSIONS)
    kinds = {a.kind for a in syn.actions}
    assert {"wash", "replace"} <= kinds
    with pytest.raises(ValueError):
        complete_profile(["water", "water"])
    with pytest.raises(ValueError):
        build(0)


@pytest.mark.slow  # 30 s and more on 2 cores: make test-full
def test_a_complete_hint_is_carried_into_the_first_stage():
    m, objectives, _ = subset_sum_model(60, 1, exact=False)
    cold = lexsolve(m, objectives, time_limit=30)
    hinted = lexsolve(m, objectives, time_limit=30, hint=cold.solution)
    assert hinted.objective_values == cold.objective_values
    assert hinted.stages[0].hint_value == cold.objective_values["deviation"]
    with pytest.raises(ValueError, match="hint has 1 values"):
        lexsolve(m, objectives, time_limit=1, hint=[0])


@pytest.mark.slow  # 30 s and more on 2 cores: make test-full
def test_a_hint_keeps_a_plan_when_no_time_is_left():
    m, objectives, _ = subset_sum_model(80, 2, exact=True)
    found = lexsolve(m, objectives, time_limit=30)
    assert found.found
    result = lexsolve(m, objectives, time_limit=0.0, hint=found.solution)
    assert result.status is LexStatus.FEASIBLE  # the hinted solution, never undetermined or infeasible
    assert result.solution == found.solution and not any(s.proved for s in result.stages)


def test_a_capped_tie_break_keeps_the_status_and_reproduces():
    m, objectives, x = subset_sum_model(60, 1, exact=False)
    first = [("first_item", x[0])]  # an easy stage; the tie-break (the deviation) is hard to prove
    runs = [lexsolve(m, first, tie_break=objectives[0][1], time_limit=60, tie_break_deterministic_time=0.02)
            for _ in range(2)]
    for result in runs:
        assert result.status is LexStatus.OPTIMAL  # the tie-break decides no cost
        assert result.stages[-1].tie_break and not result.stages[-1].proved and not result.canonical
    assert runs[0].solution == runs[1].solution  # a deterministic budget: the same cut-off schedule
    uncapped = lexsolve(m, first, tie_break=sum(x), time_limit=60, tie_break_deterministic_time=10)
    assert uncapped.canonical  # an easy tie-break is still proved within the cap


def _magic_square(n: int):
    """An n x n magic square: finding any solution takes CP-SAT a known amount of deterministic time."""
    m = cp_model.CpModel()
    total = n * (n * n + 1) // 2
    x = [[m.new_int_var(1, n * n, f"x{i}{j}") for j in range(n)] for i in range(n)]
    m.add_all_different([v for row in x for v in row])
    for i in range(n):
        m.add(sum(x[i]) == total)
        m.add(sum(x[j][i] for j in range(n)) == total)
    m.add(sum(x[i][i] for i in range(n)) == total)
    m.add(sum(x[i][n - 1 - i] for i in range(n)) == total)
    return m, [(f"cell{k}", x[k % n][k // n]) for k in range(8)]


def test_a_first_stage_without_a_solution_goes_on_with_the_whole_budget():
    # eight stages share 0.5 deterministic seconds: the first stage's even share (1/16 s) finds no magic square,
    # the whole budget does; without going on, the solve would give up with 7/8 of its budget unused
    model, objectives = _magic_square(5)
    share = cp_model.CpSolver()
    LexSettings(num_workers=1).apply(share.parameters)
    share.parameters.max_deterministic_time = 0.5 / len(objectives)
    model.minimize(objectives[0][1])
    assert share.solve(model) == cp_model.UNKNOWN
    model, objectives = _magic_square(5)
    result = lexsolve(model, objectives, time_limit=120, deterministic_time=0.5, settings=LexSettings(num_workers=1))
    assert result.found and result.status is not LexStatus.UNDETERMINED
    assert "whole remaining budget" in result.stages[0].note
    assert all("whole remaining budget" not in s.note for s in result.stages[1:])

"""fd-cpsat (the design card's pipeline): SymK/Fast Downward top-k skeletons on the classical projection,
each refined by CP-SAT into a timed plan; the lexicographically best refinement is returned.

A skeleton is a sequence of happenings (an action, or the -start/-end halves of a split process). The
refinement keeps the skeleton's order between happenings that interfere (causal links and threats, gripper,
appliance and capacity use, shared carriers), lets everything else overlap, and schedules integer times
under the deadline with ongoing processes' resources still busy; the plan writer adds epsilon offsets.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
import warnings
from dataclasses import dataclass

from compiler.render import render_classical
from compiler.steps import StepMapper
from hygiene_pddl.errors import InputError
from hygiene_pddl.instances.model import Instance
from hygiene_pddl.planners.base import (
    PlannerInfo,
    PlannerResult,
    PlanStatus,
    no_plan_result,
    plan_text,
    register,
    timings_since,
)
from hygiene_pddl.planners.lexsat import LexStatus
from hygiene_pddl.planners.skeleton import Happening, refine
from hygiene_pddl.plans.parser import parse_plan
from hygiene_pddl.registries import Registries, load_registries
from hygiene_pddl.validation.instance_level import evaluate_plan


def skeleton_actions(reg: Registries, inst: Instance, names: list[tuple[str, tuple[str, ...]]]):
    """Classical steps → (registry actions [(name, args)], happenings in skeleton order)."""
    mapper = StepMapper(reg, inst)
    actions: list[tuple[str, tuple[str, ...]]] = []
    happenings: list[Happening] = []
    open_split: dict[tuple, int] = {}
    for pddl_name, pddl_args in names:
        base, phase = pddl_name, "whole"
        for suffix in ("-start", "-end"):
            if pddl_name.endswith(suffix) and pddl_name[: -len(suffix)] in reg.actions:
                base, phase = pddl_name[: -len(suffix)], suffix[1:]
        schema = reg.actions[base]
        n_params = len(schema.param_names) + (len(pddl_args) - len(schema.param_names))
        args = pddl_args
        if schema.consumes:  # drop the classical stock-level arguments
            args = pddl_args[: n_params - 2 * len(schema.consumes)]
        name, reg_args = mapper.from_pddl(base, tuple(args))
        key = (name, reg_args)
        if phase == "end":
            idx = open_split.pop(key)
        else:
            idx = len(actions)
            actions.append(key)
            if phase == "start":
                open_split[key] = idx
        happenings.append(Happening(idx, phase))
    return actions, happenings


@dataclass
class FdCpsat:
    k: int = 8
    name: str = "fd-cpsat"

    def solve(self, inst: Instance, time_limit: float = 30.0, reg: Registries | None = None) -> PlannerResult:
        from unified_planning.io import PDDLReader
        from unified_planning.shortcuts import get_environment

        reg = reg or load_registries()
        t0 = time.perf_counter()
        get_environment().credits_stream = None
        domain, problem, _ = render_classical(reg, inst)
        up_problem = PDDLReader().parse_problem_string(domain, problem)
        t_build = time.perf_counter() - t0
        skeletons = []
        status_note, fallback = "", False
        cwd = os.getcwd()
        scratch = tempfile.mkdtemp(prefix="fd-cpsat-")
        os.chdir(scratch)  # Fast Downward writes output.sas and plan files into the working folder
        try:
            skeletons, status_note, fallback = self._skeletons(up_problem, time_limit)
        finally:
            os.chdir(cwd)
            shutil.rmtree(scratch, ignore_errors=True)
        best, ran_out = None, status_note == "TIMEOUT"
        notes = [f"1 skeleton from Fast Downward (LAMA) after SymK top-{self.k} found none" if fallback
                 else f"{len(skeletons)} skeleton(s) from SymK top-{self.k}"]
        for skel in skeletons:
            left = time_limit - (time.perf_counter() - t0)
            if left <= 0.05:
                notes.append("time ran out before every skeleton was refined")
                ran_out = True
                break
            try:
                actions, happenings = skeleton_actions(reg, inst, skel)
            except (InputError, KeyError) as exc:
                notes.append(f"skipped a skeleton that does not map back: {exc}")
                continue
            res, steps, cost = refine(reg, inst, actions, happenings, min(left, 10.0))
            if steps is None:
                continue
            text = plan_text(reg, inst, steps, self.name, cost)
            report = evaluate_plan(reg, inst, parse_plan(text))
            if not report.valid:
                notes.append(f"refinement rejected by the evaluator: {report.findings[0].message}")
                continue
            if best is None or cost.key(inst.profile) < best[1].key(inst.profile):
                best = (steps, cost, text, res.status is LexStatus.OPTIMAL)
        timings = timings_since(t0, t_build)
        if best is None:
            proved = status_note == "UNSOLVABLE_PROVEN"
            status = PlanStatus.INFEASIBLE if proved else PlanStatus.UNDETERMINED
            return no_plan_result(self.name, reg, inst, status, timings, notes, timed_out=ran_out)
        steps, cost, text, _ = best
        # top-k skeletons cover the treatment alternatives, not all of them: never claim optimality
        return PlannerResult(self.name, inst.id, PlanStatus.PLAN, False, tuple(steps), text, cost, timings,
                             tuple(notes))


    def _skeletons(self, up_problem, time_limit: float) -> tuple[list, str, bool]:  # noqa: ANN001
        """Action skeletons: SymK top-k, or one LAMA plan when top-k finds none; (skeletons, status, fallback)."""
        from unified_planning.shortcuts import AnytimePlanner, OneshotPlanner

        skeletons: list = []
        status_note, fallback = "", False
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with AnytimePlanner(name="symk", params={"number_of_plans": self.k}) as planner:
                for r in planner.get_solutions(up_problem, timeout=max(1.0, time_limit * 0.4)):
                    status_note = r.status.name
                    if r.plan is not None:
                        skel = [(a.action.name, tuple(str(p) for p in a.actual_parameters)) for a in r.plan.actions]
                        if skel not in skeletons:
                            skeletons.append(skel)
            if not skeletons and status_note != "UNSOLVABLE_PROVEN":
                # large lexicographic action costs can stall symbolic top-k search: ask FD (LAMA) for one
                with OneshotPlanner(name="fast-downward") as planner:
                    r = planner.solve(up_problem, timeout=max(1.0, time_limit * 0.3))
                    status_note = r.status.name
                    if r.plan is not None:
                        fallback = True
                        skeletons.append([(a.action.name, tuple(str(p) for p in a.actual_parameters))
                                          for a in r.plan.actions])
        return skeletons, status_note, fallback


def _available() -> tuple[bool, str]:
    try:
        import up_symk  # noqa: F401
    except ImportError as exc:  # pragma: no cover - depends on the installation
        return False, f"up-symk is not installed ({exc})"
    return True, ""


register(PlannerInfo("fd-cpsat", "SymK (Fast Downward) top-k skeletons on the classical projection, "
                     "refined by CP-SAT (lexicographic)", FdCpsat, _available))


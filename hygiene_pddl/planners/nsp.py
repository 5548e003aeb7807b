"""Hygiene-NSP (paper Algorithm 1): replay, optional state projection, one joint CP-SAT model, lex stages."""

from __future__ import annotations

import time
from dataclasses import dataclass

from hygiene_pddl.instances.model import Instance
from hygiene_pddl.planners.base import PlannerInfo, PlannerResult, PlanStatus, plan_text, register
from hygiene_pddl.planners.grounding import ground_all
from hygiene_pddl.planners.joint import build_joint_model, solution
from hygiene_pddl.planners.lexsat import LexSettings, LexStatus, lexsolve
from hygiene_pddl.registries import Registries, load_registries
from hygiene_pddl.replay import replay

#: Deterministic settings: one worker, fixed seed; linearization level 1 measured fastest on these models
#: (docs/planners.md).
SETTINGS = LexSettings(num_workers=1, random_seed=0, linearization_level=1)


@dataclass
class HygieneNSP:
    """Joint hygiene and service planning with CP-SAT under the user's priorities."""

    max_actions: int = 6
    project: bool = True
    focus: bool = True
    group_stages: bool = True  # exact weighted stages for consecutive small dimensions (JointModel.grouped_objectives)
    name: str = "hygiene-nsp"

    def _stages(self, jm) -> tuple[list, object]:  # noqa: ANN001
        """The lexicographic stages and the separate tie-break (None when it joined the last group)."""
        if not self.group_stages:
            return jm.objectives, jm.tie_break
        stages = jm.grouped_objectives(with_tie_break=True)
        if stages[-1][0] == "tie_break":
            return stages[:-1], jm.tie_break
        return stages, None

    def solve(self, inst: Instance, time_limit: float = 30.0, reg: Registries | None = None) -> PlannerResult:
        reg = reg or load_registries()
        t0 = time.perf_counter()
        state = replay(inst, reg)
        notes: list[str] = []
        actions = ground_all(reg, inst, state, focus=self.focus)
        jm = build_joint_model(reg, inst, state, actions, self.max_actions, self.project)
        t_build = time.perf_counter() - t0
        stages, tie = self._stages(jm)
        lower = {d: 0 for d, _ in stages}
        res = lexsolve(
            jm.model,
            stages,
            time_limit=max(0.05, time_limit - t_build),
            tie_break=tie,
            settings=SETTINGS,
            lower_bounds=lower,
        )
        if res.status is LexStatus.INFEASIBLE and self.focus:
            notes.append("focused grounding infeasible: retried with every reachable action")
            actions = ground_all(reg, inst, state, focus=False)
            jm = build_joint_model(reg, inst, state, actions, self.max_actions, self.project)
            left = max(0.05, time_limit - (time.perf_counter() - t0))
            stages, tie = self._stages(jm)
            lower = {d: 0 for d, _ in stages}
            res = lexsolve(jm.model, stages, time_limit=left, tie_break=tie, settings=SETTINGS, lower_bounds=lower)
        total = time.perf_counter() - t0
        timings = (("build", t_build), ("solve", total - t_build), ("total", total))
        if not res.found:
            status = PlanStatus.INFEASIBLE if res.status is LexStatus.INFEASIBLE else PlanStatus.UNDETERMINED
            if status is PlanStatus.INFEASIBLE:
                notes.append(f"no plan within {self.max_actions} actions and the deadline (proved)")
            return PlannerResult(
                self.name,
                inst.id,
                status,
                False,
                (),
                plan_text(reg, inst, [], self.name, None, status),
                None,
                timings,
                tuple(notes),
            )
        steps, cost = solution(jm, res)
        text = plan_text(reg, inst, steps, self.name, cost)
        return PlannerResult(
            self.name,
            inst.id,
            PlanStatus.PLAN,
            res.status is LexStatus.OPTIMAL,
            tuple(steps),
            text,
            cost,
            timings,
            tuple(notes),
        )


register(
    PlannerInfo(
        "hygiene-nsp",
        "joint CP-SAT over treatments, service actions, grippers and times (lexicographic, paper eq. 6)",
        HygieneNSP,
    )
)
register(
    PlannerInfo(
        "hygiene-nsp-full",
        "hygiene-nsp without state projection (full replayed state)",
        lambda: HygieneNSP(project=False, name="hygiene-nsp-full"),
    )
)

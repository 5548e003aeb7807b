"""Makespan in whole TU when it is not the profile's last dimension (docs/world-model-v2.md §3).

The problem has ticks ``tu0 … tuH`` (H the time left) with ``(tick-value tuK) = K`` and a timed literal
``(tick-passed tuK)`` at K − 0.5. Every durative action marks, at its end, every tick already passed, so an end at
time e marks the ticks up to round(e). The instantaneous ``(finish ?k)`` needs the tick after ?k unmarked, is
possible once, adds ``(tick-value ?k)`` to ``(cost-makespan)`` and makes ``(finished)`` true; no action starts or
ends after it, and the goal asks for it. A plan therefore declares its makespan in whole TU, ``T: (finish tu7)``,
and the metric weighs that integer, not ``(total-time)``, which carries the plan's epsilon offsets. ``tuH`` has
no next tick: nothing ends after the deadline (``in-time``), so it is always a correct declaration.
"""

from __future__ import annotations

from compiler.formulas import Timing
from hygiene_pddl.costs import Profile

FINISH = "finish"
TICK_PREFIX = "tu"
PREDICATES = {"tick-passed": "(tick-passed ?k - tick)", "tick-marked": "(tick-marked ?k - tick)",
              "tick-next": "(tick-next ?k - tick ?n - tick)", "finished": "(finished)"}
FUNCTIONS = {"tick-value": "(tick-value ?k - tick)", "cost-makespan": "(cost-makespan)"}


def uses_ticks(profile: Profile, cost_dims: tuple[str, ...]) -> bool:
    """Whether makespan is followed, in the profile, by a dimension some action of K can incur: then
    ``(total-time)`` cannot be weighed exactly and the problem uses ticks."""
    order = profile.order
    return any(d in cost_dims for d in order[order.index("makespan") + 1:])


def tick_name(k: int) -> str:
    return f"{TICK_PREFIX}{k}"


def durative_conditions(timing: Timing) -> list[str]:
    """Nothing starts or ends after the plan declared its end."""
    return [timing.at("start", "(not (finished))"), timing.at("end", "(not (finished))")]


def durative_effects(timing: Timing) -> list[str]:
    """An end marks every tick already passed."""
    return [f"(forall (?k - tick) {timing.when('end', ['(tick-passed ?k)'], ['(tick-marked ?k)'])})"]


def finish_action() -> tuple[list[str], list[str]]:
    """(precondition, effect) of ``(finish ?k)``."""
    pre = ["(not (finished))", "(forall (?n - tick) (imply (tick-next ?k ?n) (not (tick-marked ?n))))"]
    return pre, ["(finished)", "(increase (cost-makespan) (tick-value ?k))"]


def problem_parts(horizon_left: int) -> tuple[list[str], list[str], list[str], list[str]]:
    """(objects, init, timed literals, goals) of the tick construction for H = ``horizon_left``."""
    ticks = [tick_name(k) for k in range(horizon_left + 1)]
    init = [f"(tick-next {a} {b})" for a, b in zip(ticks, ticks[1:], strict=False)]
    init += [f"(= (tick-value {t}) {k})" for k, t in enumerate(ticks)]
    tils = [f"(at {k - 1}.5 (tick-passed {t}))" for k, t in enumerate(ticks) if k]
    return [" ".join(ticks) + " - tick"], init, tils, ["(finished)"]

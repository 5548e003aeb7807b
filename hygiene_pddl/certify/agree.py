"""Agreement of the two certifications on one instance (issue 13): the exact search and Hygiene-NSP's joint CP-SAT
model, each with the bounds its claim relies on, compared on status and cost vector.

    python -m hygiene_pddl.certify.agree INSTANCE.json [--time-limit S] [--max-actions N] [--nsp full|default] [--json]

``--nsp default`` (the build's, :func:`hygiene_pddl.episodes.reference.certify`): ``HygieneNSP()`` as the benchmark
runs it (focused grounding, the relaxation's proofs), whose claim is what its notes state; ``full``: the joint model
with the full grounding and state, ``project``, ``focus`` and ``relax`` off, within an action bound.

Exit code 0 when both prove the same status and, when feasible, the same cost vector within bounds that their plans
do not hit; 1 otherwise (a disagreement, an answer that is not a proof, or a plan that fills its action bound).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass

from hygiene_pddl.certify.search import SearchStatus, exact_search
from hygiene_pddl.costs import CostVector
from hygiene_pddl.instances.model import Instance
from hygiene_pddl.planners.base import ChosenStep, PlanStatus, plan_text
from hygiene_pddl.registries import Registries

MIN_ACTIONS = 6  # the joint model's action bound is at least this, and above the exact search's plan length
EXACT = "exact search (hygiene_pddl.certify)"
NSP = "hygiene-nsp joint CP-SAT (full grounding, full state)"
NSP_DEFAULT = "hygiene-nsp (default settings)"


@dataclass(frozen=True)
class Claim:
    """One method's answer: ``status`` optimal / infeasible (proofs) or unproved; ``bounds`` the plan space the
    proof covers; ``bound_hit``: the plan uses every action the bound allows (a longer plan might be better)."""

    method: str
    status: str
    cost: CostVector | None
    steps: tuple[ChosenStep, ...]
    plan_text: str
    bounds: str
    bound_hit: bool
    seconds: float

    @property
    def proved(self) -> bool:
        return self.status in ("optimal", "infeasible") and not self.bound_hit

    def line(self) -> str:
        cost = " ".join(map(str, self.cost.values)) if self.cost else "-"
        hit = " (BOUND HIT)" if self.bound_hit else ""
        return (f"{self.method}: {self.status}{hit}, {len(self.steps)} actions, cost [{cost}], {self.seconds:.1f}s; "
                f"within: {self.bounds}")


@dataclass(frozen=True)
class Agreement:
    instance: str
    exact: Claim
    nsp: Claim
    problem: str  # '' when both prove the same status and cost vector

    @property
    def agree(self) -> bool:
        return not self.problem


def _exact_claim(reg: Registries, inst: Instance, time_limit: float) -> Claim:
    r = exact_search(reg, inst, max_actions=None, time_limit=time_limit)
    status = {SearchStatus.OPTIMAL: "optimal", SearchStatus.INFEASIBLE: "infeasible"}.get(r.status, "unproved")
    bounds, text = r.bounds, ""
    if status == "optimal":
        try:
            text = plan_text(reg, inst, list(r.steps), "exact-search", r.cost)
        except ValueError as exc:  # an order at one instant that no epsilon offsets realise: not a plan file, but
            # the search covers every plan that can be written (and more), so its cost vector is still a lower bound
            # of theirs, which a written plan of the other method that meets it proves optimal (compare)
            bounds = (f"{r.bounds}; its optimum's order at one instant cannot be written as a plan file ({exc}): "
                      "its cost vector bounds every writable plan from below")
    return Claim(EXACT, status, r.cost, r.steps, text, bounds, False, r.seconds)


def _nsp_claim(reg: Registries, inst: Instance, max_actions: int | None, time_limit: float) -> Claim:
    """The full joint model within ``max_actions``, or (None) Hygiene-NSP with its default settings."""
    from hygiene_pddl.planners.nsp import HygieneNSP

    planner = HygieneNSP() if max_actions is None else HygieneNSP(max_actions=max_actions, project=False, focus=False,
                                                                    relax=False)
    a = planner.solve(inst, time_limit, reg)
    if a.status is PlanStatus.PLAN:
        # the full model's claim is bounded anyway: its optimum over every reachable ground action within the bound
        bounded = max_actions is not None and bool(a.bounded_claim)
        status = "optimal" if a.proved_optimal or bounded else "unproved"
    else:
        status = "infeasible" if a.status is PlanStatus.INFEASIBLE else "unproved"
    if max_actions is None:
        return Claim(NSP_DEFAULT, status, a.cost, a.steps, a.plan_text, "as its notes state: " + "; ".join(a.notes),
                     False, a.timing("total"))
    bounds = (f"at most {max_actions} continuation actions, each ground action at most once; integer start times, "
              "every action ending by the deadline")
    return Claim(NSP, status, a.cost, a.steps, a.plan_text, bounds,
                 a.status is PlanStatus.PLAN and len(a.steps) >= max_actions, a.timing("total"))


def compare(exact: Claim, nsp: Claim) -> str:
    """'' when the two claims are proofs of the same status and cost vector, else why not."""
    for c in (exact, nsp):
        if c.bound_hit:
            return f"{c.method}: the optimum within the bound uses every allowed action (a longer plan may be better)"
        if not c.proved:
            return f"{c.method} did not prove its answer ({c.status})"
    if exact.status == "optimal" and not exact.plan_text and not (nsp.status == "optimal" and nsp.plan_text):
        return (f"{exact.method}: its optimum cannot be written as a plan file, and {nsp.method} has no plan that "
                "meets it")
    if exact.status != nsp.status:
        return f"the methods disagree on the status: exact search {exact.status}, CP-SAT {nsp.status}"
    if exact.cost != nsp.cost:
        return f"the methods disagree on the cost vector: exact search {exact.cost}, CP-SAT {nsp.cost}"
    return ""


def cross_check(reg: Registries, inst: Instance, time_limit: float = 60.0, max_actions: int = MIN_ACTIONS,
                full: bool = True) -> Agreement:
    """Run both certifications on ``inst`` and compare them. The exact search has no action bound (its proof
    covers every plan within the deadline). With ``full`` the joint model's bound is ``max_actions``, raised to two
    more than the exact search's plan length, so that an agreeing optimum does not fill it; else Hygiene-NSP runs
    with its default settings, and where they prove nothing and the exact search proves an optimum, the full joint
    model within that bound is the second certification."""
    exact = _exact_claim(reg, inst, time_limit)
    bound = max(max_actions, len(exact.steps) + 2)
    nsp = _nsp_claim(reg, inst, bound if full else None, time_limit)
    if not full and not nsp.proved and exact.status == "optimal":
        # Hygiene-NSP's relaxation leaves a gap: its joint model over every reachable ground action, within a bound
        # the exact search's plan does not fill, is the second certification (its claim says so)
        bounded = _nsp_claim(reg, inst, bound, time_limit)
        if bounded.proved:
            nsp = bounded
    return Agreement(inst.id, exact, nsp, compare(exact, nsp))


def main(argv: list[str] | None = None) -> int:
    from hygiene_pddl.instances import load_instance
    from hygiene_pddl.registries import load_registries

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("instance")
    p.add_argument("--time-limit", type=float, default=60.0, help="seconds per method")
    p.add_argument("--max-actions", type=int, default=MIN_ACTIONS, help="least action bound of the joint model")
    p.add_argument("--nsp", choices=["full", "default"], default="default",
                   help="default (the build's): HygieneNSP() as benchmarked; full: the joint model within an action "
                        "bound")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    reg = load_registries()
    inst = load_instance(args.instance, reg)
    ag = cross_check(reg, inst, args.time_limit, args.max_actions, args.nsp == "full")
    if args.json:
        def claim(c: Claim) -> dict:
            d = asdict(c)
            d["cost"] = c.cost.as_dict() if c.cost else None
            d["steps"] = [[s.start, s.name, list(s.args), s.duration] for s in c.steps]
            return d

        print(json.dumps({"instance": ag.instance, "agree": ag.agree, "problem": ag.problem,
                          "exact": claim(ag.exact), "nsp": claim(ag.nsp)}, indent=1, sort_keys=True))
    else:
        print(f"{ag.instance}: {'AGREE' if ag.agree else 'DO NOT AGREE'}{': ' + ag.problem if ag.problem else ''}")
        print("  " + ag.exact.line())
        print("  " + ag.nsp.line())
    return 0 if ag.agree else 1


if __name__ == "__main__":
    sys.exit(main())

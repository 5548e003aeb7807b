"""The thin renderer: Jinja2 templates fed by the decisions made in domain.py and problem.py."""

from __future__ import annotations

import functools
from pathlib import Path

import jinja2

from compiler.domain import build_domain
from compiler.kset import FamilyDomain
from compiler.names import NameMap, comment_text
from compiler.problem import build_problem, instance_weights, running_at_decision
from hygiene_pddl.instances.model import Instance
from hygiene_pddl.registries import Registries
from hygiene_pddl.replay import ReplayResult, replay

FLAVORS = ("temporal", "classical")


@functools.cache
def _env() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
                             undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
                             autoescape=False)  # noqa: S701 - PDDL, not HTML
    env.filters["comment"] = comment_text
    return env


def render_domain(reg: Registries, family: str | FamilyDomain, flavor: str = "temporal",
                  weights: dict[str, int] | None = None) -> str:
    """The domain of a family's own registry entries (a family name) or of an instance's K."""
    view = build_domain(reg, family, flavor, weights)
    return _env().get_template(f"domain_{flavor}.pddl.j2").render(d=view)


def render_instance_domain(reg: Registries, inst: Instance) -> str:
    """The temporal domain built from the instance's registry entries (K): the family's when they agree."""
    return render_domain(reg, FamilyDomain.of_instance(reg, inst))


def render_problem(reg: Registries, inst: Instance, flavor: str = "temporal", metric_total_time: bool = True,
                   state: ReplayResult | None = None) -> tuple[str, NameMap]:
    """The problem file of one instance (``state``: its replay, when the caller has it)."""
    view, names, _ = build_problem(reg, inst, state or replay(inst, reg), flavor, metric_total_time)
    return _env().get_template("problem.pddl.j2").render(p=view), names


def render_classical(reg: Registries, inst: Instance, flavor: str = "classical",
                     state: ReplayResult | None = None) -> tuple[str, str, NameMap]:
    """Classical domain and problem for one instance (the domain carries its action costs); ``flavor="numeric"``
    writes stocks and loads as numeric fluents (for numeric planners such as ENHSP)."""
    state = state or replay(inst, reg)
    view = build_domain(reg, FamilyDomain.of_instance(reg, inst), flavor, instance_weights(reg, inst, state),
                        running_at_decision(state))
    if flavor == "numeric":
        view.comments = [*view.comments[:-1], "classical-numeric flavour: the classical projection (instantaneous "
                         "actions, split processes, lexicographic action costs) with stocks and loads as numeric "
                         "fluents"]
    domain = _env().get_template("domain_classical.pddl.j2").render(d=view)
    problem, names, _ = build_problem(reg, inst, state, flavor, domain=view)
    return domain, _env().get_template("problem.pddl.j2").render(p=problem), names

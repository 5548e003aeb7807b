"""The thin renderer: Jinja2 templates fed by the decisions made in domain.py and problem.py."""

from __future__ import annotations

import functools
from pathlib import Path

import jinja2

from compiler.domain import build_domain
from compiler.names import NameMap, comment_text
from compiler.problem import build_problem, instance_weights
from hygiene_pddl.instances.model import Instance
from hygiene_pddl.registries import Registries
from hygiene_pddl.replay import replay

FLAVORS = ("temporal", "classical")


@functools.cache
def _env() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
                             undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
                             autoescape=False)  # noqa: S701 - PDDL, not HTML
    env.filters["comment"] = comment_text
    return env


def render_domain(reg: Registries, family: str, flavor: str = "temporal",
                  weights: dict[str, int] | None = None) -> str:
    view = build_domain(reg, family, flavor, weights)
    return _env().get_template(f"domain_{flavor}.pddl.j2").render(d=view)


def render_problem(reg: Registries, inst: Instance, flavor: str = "temporal",
                   metric_total_time: bool = True) -> tuple[str, NameMap]:
    view, names, _ = build_problem(reg, inst, replay(inst, reg), flavor, metric_total_time)
    return _env().get_template("problem.pddl.j2").render(p=view), names


def render_classical(reg: Registries, inst: Instance) -> tuple[str, str, NameMap]:
    """Classical domain and problem for one instance (the domain carries its action costs)."""
    state = replay(inst, reg)
    domain = render_domain(reg, inst.family, "classical", instance_weights(reg, inst, state))
    view, names, _ = build_problem(reg, inst, state, "classical")
    return domain, _env().get_template("problem.pddl.j2").render(p=view), names

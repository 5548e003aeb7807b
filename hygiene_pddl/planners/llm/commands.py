"""``hygiene-pddl prompt`` (the prompt a language model gets) and ``hygiene-pddl grounding`` (grounding accuracy
of the rules grounder and LLM grounders against the instances' grounded goals)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from hygiene_pddl.cli import command
from hygiene_pddl.errors import EXIT_OK, InputError


def _prompt_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("instances", nargs="+", metavar="INSTANCE",
                   help="public instance JSON (with --out also family folders, a problems folder, glob patterns)")
    p.add_argument("--purpose", choices=["plan", "ground"], default="plan",
                   help="plan: the llm:<model> planners' prompt (default); ground: hygiene-nsp-llm's grounding prompt")
    p.add_argument("--out", type=Path, help="write <out>/<instance id>.txt for every instance instead of printing")


@command("prompt", "print the prompt an LLM planner gets for an instance (paste it into any chat window)",
         _prompt_args)
def _prompt(args: argparse.Namespace) -> int:
    from hygiene_pddl.bench.runner import resolve_instances
    from hygiene_pddl.instances import load_instance
    from hygiene_pddl.planners.llm.prompt import render_prompt
    from hygiene_pddl.registries import load_registries

    reg = load_registries()
    if args.out is None:
        if len(args.instances) != 1:
            raise InputError("give one instance, or --out DIR to write a prompt file per instance")
        sys.stdout.write(render_prompt(reg, load_instance(Path(args.instances[0]), reg), args.purpose))
        return EXIT_OK
    files = resolve_instances(args.instances)
    args.out.mkdir(parents=True, exist_ok=True)
    for f in files:
        inst = load_instance(f, reg)
        (args.out / f"{inst.id}.txt").write_text(render_prompt(reg, inst, args.purpose), encoding="utf-8")
    print(f"wrote {len(files)} prompt(s) to {args.out}; put each answer in <dir>/<instance id>.txt and score them "
          f"with `hygiene-pddl bench --planners saved:<dir> ...`", file=sys.stderr)
    return EXIT_OK


def _grounding_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--instances", nargs="+", required=True, metavar="PATH",
                   help="instance files, family folders (or a problems folder) and glob patterns")
    p.add_argument("--grounder", action="append", default=[], metavar="NAME",
                   help="rules (rule-sat's grounder, the default) or llm:<model>; repeatable")
    p.add_argument("--time-limit", type=float, default=120.0, help="seconds per LLM grounding call (default 120)")
    p.add_argument("--json", action="store_true", help="print the accuracy and every grounding as JSON")


def ground(reg, inst, grounder: str, time_limit: float) -> tuple[list[str] | None, str]:  # noqa: ANN001
    """(goal texts or None, reason) of one grounder on one instance."""
    from hygiene_pddl.literals import atom_text
    from hygiene_pddl.planners.goal_grounding import with_implied_goals

    if grounder == "rules":
        from hygiene_pddl.planners.rule_sat import Unreadable as RulesUnreadable
        from hygiene_pddl.planners.rule_sat import read_goals

        try:
            return [atom_text(g) for g in with_implied_goals(reg, inst, read_goals(reg, inst).goals)], ""
        except RulesUnreadable as exc:
            return None, str(exc)
    from hygiene_pddl.planners.llm.client import ChatClient, EndpointError
    from hygiene_pddl.planners.llm.config import endpoint_config
    from hygiene_pddl.planners.llm.grounding import read_goal_answer
    from hygiene_pddl.planners.llm.prompt import messages, render_prompt
    from hygiene_pddl.planners.llm.reader import Unreadable

    cfg = endpoint_config(grounder.partition(":")[2])
    try:
        done = ChatClient(cfg).complete(messages(render_prompt(reg, inst, "ground")), time.monotonic() + time_limit,
                                        purpose="ground")
    except EndpointError as exc:
        raise InputError(str(exc)) from None
    if done.text is None:
        return None, done.failure
    try:
        return [atom_text(g) for g in with_implied_goals(reg, inst, read_goal_answer(reg, inst, done.text))], ""
    except Unreadable as exc:
        return None, str(exc)


@command("grounding", "grounding accuracy of the rules grounder and LLM grounders against the grounded goals",
         _grounding_args)
def _grounding(args: argparse.Namespace) -> int:
    from hygiene_pddl.bench.runner import resolve_instances
    from hygiene_pddl.instances import load_instance
    from hygiene_pddl.literals import atom_text
    from hygiene_pddl.planners.goal_grounding import accuracy
    from hygiene_pddl.registries import load_registries

    grounders = args.grounder or ["rules"]
    bad = [g for g in grounders if g != "rules" and not (g.startswith("llm:") and len(g) > 4)]
    if bad:
        raise InputError(f"unknown grounder(s) {', '.join(bad)}; expected rules or llm:<model>")
    reg = load_registries()
    instances = [load_instance(f, reg) for f in resolve_instances(args.instances)]
    out: dict = {}
    for grounder in grounders:
        rows = []
        for inst in instances:
            goals, reason = ground(reg, inst, grounder, args.time_limit)
            rows.append({"instance": inst.id, "goals": goals, "truth": [atom_text(g) for g in inst.goals],
                         "reason": reason})
        out[grounder] = {"accuracy": accuracy((r["goals"], r["truth"]) for r in rows).as_dict(), "groundings": rows}
    if args.json:
        print(json.dumps(out, indent=2, sort_keys=True))
        return EXIT_OK
    print(f"{'grounder':<28} {'n':>5} {'grounded':>9} {'exact':>7} {'precision':>10} {'recall':>8}")
    for grounder, data in out.items():
        a = data["accuracy"]
        pct = {k: "–" if a[k] is None else f"{a[k]:.1%}" for k in ("precision", "recall")}
        print(f"{grounder:<28} {a['n']:>5} {a['grounded']:>9} {a['exact']:>7} {pct['precision']:>10} "
              f"{pct['recall']:>8}")
    return EXIT_OK

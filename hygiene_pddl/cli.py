"""The ``hygiene-pddl`` command: thin argument parsing and printing over library calls.

Exit codes (see hygiene_pddl.errors and README): 0 ok, 1 invalid plan / failed check, 2 unreadable
input, 3 internal error.
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path

from hygiene_pddl.errors import EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_OK, InputError

Handler = Callable[[argparse.Namespace], int]
_COMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None], Handler]] = {}


def command(name: str, help_text: str, configure: Callable[[argparse.ArgumentParser], None]):
    """Register a subcommand (the handler returns an exit code)."""
    def wrap(fn: Handler) -> Handler:
        _COMMANDS[name] = (help_text, configure, fn)
        return fn
    return wrap


def _registries_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=["check"], help="check: load and validate the five registries")
    p.add_argument("--data", type=Path, default=None, help="registry folder (default: the packaged data)")


@command("registries", "check the five registries", _registries_args)
def _registries(args: argparse.Namespace) -> int:
    from hygiene_pddl.registries import load_registries

    reg = load_registries(args.data)
    print(f"registries OK: {len(reg.families)} families, {len(reg.object_types)} object types, "
          f"{len(reg.actions)} actions, {len(reg.events)} events, {len(reg.hazards)} hazards, "
          f"{len(reg.treatments)} treatments, {len(reg.profiles)} profiles")
    return EXIT_OK


def _replay_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("instance", type=Path, help="public instance JSON")
    p.add_argument("--json", action="store_true", help="print the state as JSON (docs/replay-json.md)")


@command("replay", "replay an instance's history and print the state at the decision time", _replay_args)
def _replay(args: argparse.Namespace) -> int:
    from hygiene_pddl.instances import load_instance
    from hygiene_pddl.replay import replay
    from hygiene_pddl.replay_view import replay_json, replay_text

    res = replay(load_instance(args.instance))
    print(json.dumps(replay_json(res), indent=2, sort_keys=True) if args.json else replay_text(res))
    return EXIT_OK


def _demo_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--problems", type=Path, default=Path("problems"), help="benchmark problems folder")
    p.add_argument("--out", type=Path, default=Path("results/demo"), help="results folder (resumed if present)")
    p.add_argument("--planners", default="hygiene-nsp,fd-cpsat", help="comma-separated planner names")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--time-limit", type=float, default=60.0)
    p.add_argument("--families-per-group", type=int, default=1,
                   help="bench the first families plus N families per activity group (default 1); 0 = all")


@command("demo", "the main job: compare planners on the committed benchmark and print the tables", _demo_args)
def _demo(args: argparse.Namespace) -> int:
    from hygiene_pddl.bench import run_demo
    from hygiene_pddl.outputs import output_dir

    output_dir(args.out)
    run_demo(args.out, planners=tuple(args.planners.split(",")), jobs=args.jobs, time_limit=args.time_limit,
             problems=args.problems, families_per_group=args.families_per_group or None)
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hygiene-pddl", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (help_text, configure, fn) in _COMMANDS.items():
        p = sub.add_parser(name, help=help_text)
        configure(p)
        p.set_defaults(handler=fn)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    import warnings

    # up-lpg imports pkg_resources (kept importable by our setuptools<81 pin); its deprecation notice is noise
    warnings.filterwarnings("ignore", message="pkg_resources is deprecated")
    _load_plugins()
    args = build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception:  # noqa: BLE001 - a bug: report it, exit 3
        print("internal error (please report):\n" + traceback.format_exc(), file=sys.stderr)
        return EXIT_INTERNAL


def _load_plugins() -> None:
    """Import the modules that register further subcommands."""
    import importlib

    for mod in ("hygiene_pddl.commands", "hygiene_pddl.bench.commands", "hygiene_pddl.validation.commands"):
        try:
            importlib.import_module(mod)
        except ModuleNotFoundError as exc:
            if exc.name is None or not mod.startswith(exc.name):
                raise


if __name__ == "__main__":
    sys.exit(main())

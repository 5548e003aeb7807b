"""The ``hygiene-pddl`` command: thin argument parsing and printing over library calls.

Exit codes (see hygiene_pddl.errors, docs/exit-codes.md and README): 0 ok, 1 invalid plan / failed check,
2 unreadable input, 3 internal error; ``plan`` adds 10 infeasible, 12 undetermined, 37 planner unavailable.
A closed output pipe (``hygiene-pddl planners | head -1``) ends the command quietly with its exit code.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
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
    p.add_argument("--json", action="store_true", help="print the counts as JSON ({\"ok\": true, \"counts\": {...}})")


@command("registries", "check the five registries", _registries_args)
def _registries(args: argparse.Namespace) -> int:
    from hygiene_pddl.registries import load_registries

    reg = load_registries(args.data)
    counts = {"families": len(reg.families), "object_types": len(reg.object_types), "actions": len(reg.actions),
              "events": len(reg.events), "hazards": len(reg.hazards), "treatments": len(reg.treatments),
              "profiles": len(reg.profiles)}
    if args.json:
        print_json({"ok": True, "counts": counts})
    else:
        print("registries OK: " + ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in counts.items()))
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
    p.add_argument("--problems", type=Path, default=None,
                   help="benchmark problems folder (default: the checkout's problems/, wherever you run from)")
    p.add_argument("--out", type=Path, default=Path("results/demo"),
                   help="results folder, resumed if present (default results/demo under the current directory)")
    p.add_argument("--planners", default="hygiene-nsp,fd-cpsat", help="comma-separated planner names")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--time-limit", type=float, default=60.0)
    p.add_argument("--families-per-group", type=int, default=1,
                   help="bench the first families plus N families per activity group (default 1); 0 = all")


@command("demo", "the main job: compare planners on the committed benchmark and print the tables", _demo_args)
def _demo(args: argparse.Namespace) -> int:
    from hygiene_pddl.bench import run_demo
    from hygiene_pddl.outputs import output_dir
    from hygiene_pddl.paths import problems_dir

    output_dir(args.out)
    run_demo(args.out, planners=tuple(args.planners.split(",")), jobs=args.jobs, time_limit=args.time_limit,
             problems=problems_dir(args.problems), families_per_group=args.families_per_group or None)
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    from hygiene_pddl import __version__

    _load_plugins()  # every command module registers itself, whoever asks for the parser
    parser = argparse.ArgumentParser(prog="hygiene-pddl", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"hygiene-pddl {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (help_text, configure, fn) in _COMMANDS.items():
        p = sub.add_parser(name, help=help_text)
        configure(p)
        if not any("--data" in a.option_strings for a in p._actions):
            p.add_argument("--data", type=Path, default=None,
                           help="registry folder with the five YAML files (default: $HYGIENE_PDDL_DATA, else the "
                                "packaged registries)")
        p.set_defaults(handler=fn)
    return parser


@contextlib.contextmanager
def _use_registries(data: Path | None) -> Iterator[None]:
    """While a command runs, ``--data DIR`` is the default registry folder of this process and of its children
    (bench workers); the previous default comes back afterwards (``main`` is also called in-process)."""
    if data is None:
        yield
        return
    from hygiene_pddl.registries.loader import DATA_ENV, load_registries

    load_registries(data)  # a broken folder is reported now, before any work
    before = os.environ.get(DATA_ENV)
    os.environ[DATA_ENV] = str(Path(data).resolve())
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(DATA_ENV, None)
        else:
            os.environ[DATA_ENV] = before


def main(argv: Sequence[str] | None = None) -> int:
    import warnings

    # up-lpg imports pkg_resources (kept importable by our setuptools<81 pin); its deprecation notice is noise
    warnings.filterwarnings("ignore", message="pkg_resources is deprecated")
    _load_plugins()
    args = build_parser().parse_args(argv)
    real_stdout = sys.stdout
    if _has_fd(real_stdout):
        sys.stdout = _PipeGuard(real_stdout)
    try:
        with _use_registries(getattr(args, "data", None)):
            code = args.handler(args)
    except BrokenPipeError:  # pragma: no cover - the guard catches it; without a guard: nothing left to say
        return _quiet_after_closed_pipe(EXIT_OK)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception:  # noqa: BLE001 - a bug: report it, exit 3
        print("internal error (please report):\n" + traceback.format_exc(), file=sys.stderr)
        return EXIT_INTERNAL
    finally:
        if isinstance(sys.stdout, _PipeGuard):
            sys.stdout.flush()  # a reader that closed the pipe shows here, not in Python's exit handler
            sys.stdout = real_stdout
    return code


def _has_fd(stream: object) -> bool:
    try:
        stream.fileno()  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError):
        return False
    return True


def _quiet_after_closed_pipe(code: int, stream: object = None) -> int:
    """The reader closed stdout (``| head``): send what is still buffered to /dev/null; exit quietly."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, (stream or sys.stdout).fileno())
    os.close(devnull)
    return code


class _PipeGuard:
    """stdout that turns a reader's closing of the pipe (``| head -1``) into silence: the command goes on
    and exits with its own code, what it still prints goes to /dev/null."""

    def __init__(self, stream):  # noqa: ANN001
        self._stream = stream

    def _closed(self) -> None:
        _quiet_after_closed_pipe(EXIT_OK, self._stream)

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._closed()
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._closed()
            try:
                self._stream.flush()  # the buffer now drains into /dev/null
            except (BrokenPipeError, OSError, ValueError):  # pragma: no cover - nothing more to do
                pass

    def __getattr__(self, name: str):  # noqa: ANN204 - isatty, encoding, fileno, ... of the real stream
        return getattr(self._stream, name)


def print_json(data: object) -> None:
    """The one JSON layout of every ``--json`` output: indented, keys sorted."""
    print(json.dumps(data, indent=2, sort_keys=True))


def _load_plugins() -> None:
    """Import the modules that register further subcommands."""
    import importlib

    for mod in ("hygiene_pddl.commands", "hygiene_pddl.bench.commands", "hygiene_pddl.validation.commands",
                "hygiene_pddl.planners.llm.commands"):
        try:
            importlib.import_module(mod)
        except ModuleNotFoundError as exc:
            if exc.name is None or not mod.startswith(exc.name):
                raise


if __name__ == "__main__":
    sys.exit(main())

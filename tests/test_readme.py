"""The README's commands run as written (the cheap ones) or at least parse (the long ones), and its
command table agrees with the CLI's arguments."""

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from hygiene_pddl import cli

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
#: Commands that run for minutes or hours (the whole benchmark, the test suite): their arguments must parse.
LONG = ("make ", "hygiene-pddl bench ", "hygiene-pddl report ", "hygiene-pddl demo", "hygiene-pddl build --full")


def _sh_commands() -> list[str]:
    out = []
    for block in re.findall(r"```sh\n(.*?)```", README, re.S):
        for cmd in block.replace("\\\n", " ").splitlines():
            cmd = re.sub(r"\s+#.*$", "", cmd).strip()
            if cmd:
                out.append(" ".join(cmd.split()))
    return out


def _parser():
    cli._load_plugins()  # noqa: SLF001 - the subcommands registered by the other command modules
    return cli.build_parser()


def _subparsers():
    parser = _parser()
    action = next(a for a in parser._actions if a.dest == "command")  # noqa: SLF001 - argparse has no public way
    return action.choices


def test_the_command_table_names_every_command_and_only_real_options():
    subs = _subparsers()
    rows = re.findall(r"^\| `hygiene-pddl (\w[\w-]*)([^`]*)` \|", README, re.M)
    assert {name for name, _ in rows} == set(subs), "README's table and the CLI list different commands"
    for name, usage in rows:
        known = {s for a in subs[name]._actions for s in a.option_strings}  # noqa: SLF001
        for option in re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", usage):
            assert option in known, f"README shows `{option}` for `hygiene-pddl {name}`; --help does not"


@pytest.mark.parametrize("cmd", _sh_commands(), ids=lambda c: c[:70])
def test_readme_command(cmd, tmp_path):
    if cmd.startswith("scripts/validate_plan.py"):
        pytest.skip("Job 2's example (PLAN is a placeholder): tests/validation covers validate_plan.py")
    if cmd.startswith("make "):
        target = cmd.split()[1]
        assert subprocess.run(["make", "-n", target], cwd=ROOT, capture_output=True).returncode == 0
        return
    assert cmd.startswith(".venv/bin/hygiene-pddl "), cmd
    argv = shlex.split(cmd)[1:]
    if any(f"hygiene-pddl {argv[0]}".startswith(long.strip()) or cmd.find(long) >= 0 for long in LONG):
        _parser().parse_args(argv)  # parses (argparse exits 2 otherwise)
        return
    argv = [a.replace("out/", f"{tmp_path}/out/").replace("results/", f"{tmp_path}/results/") for a in argv]
    if any(".venv/bin/" in a for a in argv) and not (ROOT / ".venv/bin").is_dir():
        pytest.skip("the command names a program in the checkout's .venv, which this test run does not use")
    run = subprocess.run([sys.executable, "-m", "hygiene_pddl", *argv], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, (cmd, run.stderr[-2000:])
    assert "Traceback" not in run.stderr

"""scripts/val_parse.py: which pairs it hands to VAL's Parser and how it reads the counts (VAL itself is not run
here: a stand-in prints the Parser's count line; the committed files' real counts are in
docs/benchmark-composition.md)."""

import shutil
import subprocess
import sys

from tests.compiler.conftest import ROOT

SCRIPT = ROOT / "scripts" / "val_parse.py"


def _tree(tmp_path):
    """A benchmark tree with the spoon-fruit family only."""
    shutil.copytree(ROOT / "problems" / "spoon_fruit", tmp_path / "problems" / "spoon_fruit")
    (tmp_path / "domains").mkdir()
    shutil.copy(ROOT / "domains" / "spoon_fruit.pddl", tmp_path / "domains")
    parser = tmp_path / "Parser"
    parser.write_text('#!/bin/sh\ncase "$2" in *classical*) echo "Errors: 2, warnings: 1";; '
                      '*) test -f "$1" && test -f "$2" && echo "Errors: 0, warnings: 0";; esac\n')
    parser.chmod(0o755)
    return parser


def test_every_instance_gives_three_pairs_and_a_count_line_decides(tmp_path):
    parser = _tree(tmp_path)
    run = subprocess.run([sys.executable, str(SCRIPT), "--parser", str(parser), "--problems",
                          str(tmp_path / "problems")], capture_output=True, text=True)
    n = len([p for p in (tmp_path / "problems" / "spoon_fruit").glob("*.json") if ".reference" not in p.name])
    assert run.returncode == 1, run.stderr
    assert f"{2 * n} of {3 * n} pairs parse with 0 errors and 0 warnings" in run.stdout
    assert run.stdout.count("errors 2, warnings 1") == n


def test_a_missing_parser_is_exit_code_2(tmp_path):
    run = subprocess.run([sys.executable, str(SCRIPT), "--parser", str(tmp_path / "none")], capture_output=True,
                         text=True)
    assert run.returncode == 2 and "no such file" in run.stderr

"""Issue 15, registries: YAML that used to crash or hang, and libyaml's C loader keeping the positions."""

from __future__ import annotations

import shutil
import time
import tracemalloc
from pathlib import Path

import pytest
import yaml

from hygiene_pddl import yamlpos
from hygiene_pddl.errors import InputError
from hygiene_pddl.registries import load_registries
from hygiene_pddl.registries.loader import DATA_DIR
from tests.foundation.test_bad_input import _run_main, assert_one_clear_message


def _data(tmp_path: Path, file: str, old: str, new: str) -> tuple[Path, Path]:
    data = tmp_path / "data"
    shutil.copytree(DATA_DIR, data)
    target = data / file
    text = target.read_text(encoding="utf-8")
    assert old in text
    target.write_text(text.replace(old, new, 1), encoding="utf-8")
    return data, target


def _line_of(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if needle in line)


def _check(capsys, data: Path) -> tuple[int, str, str]:
    return _run_main(capsys, ["registries", "check", "--data", str(data)])


def test_a_control_character_is_exit_2_at_its_line_and_column(capsys, tmp_path):
    data, target = _data(tmp_path, "actions.yaml", "wash-pad:", "wash\x07pad:")
    rc, out, err = _check(capsys, data)
    line = _line_of(target, "wash\x07pad")
    column = next(ln for ln in target.read_text().splitlines() if "\x07" in ln).index("\x07") + 1
    assert_one_clear_message(rc, out, err, f"{target}:{line}:{column}:", "U+0007")


@pytest.mark.parametrize("key, reads_as", [("yes", "bool"), ("~", "null"), ("1234", "int"), ("on", "bool"),
                                           ("2001-01-01", "timestamp")])
def test_a_key_that_is_not_a_string_is_exit_2_at_the_key(capsys, tmp_path, key, reads_as):
    """Such keys passed the check and then crashed every command."""
    data, target = _data(tmp_path, "profiles.yaml", "  canonical:",
                         f"  {key}:\n    description: x\n    order: []\n  canonical:")
    rc, out, err = _check(capsys, data)
    assert_one_clear_message(rc, out, err, f"{target}:{_line_of(target, f'  {key}:')}:3:", reads_as, "quote it")


def test_a_value_that_reads_as_a_boolean_says_so(capsys, tmp_path):
    data, target = _data(tmp_path, "hygiene_rules.yaml", "materials: [silicone,", "materials: [yes, silicone,")
    rc, out, err = _check(capsys, data)
    assert_one_clear_message(rc, out, err, f"{target}:{_line_of(target, 'materials:')}:", "YAML reads 'yes' as bool")


def test_a_duplicate_key_is_exit_2_at_the_second_one(capsys, tmp_path):
    data, target = _data(tmp_path, "actions.yaml", "robot:", "stocks: []\nrobot:")
    rc, out, err = _check(capsys, data)
    second = [i for i, ln in enumerate(target.read_text().splitlines(), 1) if ln.startswith("stocks:")][1]
    assert_one_clear_message(rc, out, err, f"{target}:{second}:1:", "duplicate key 'stocks'")


def _bomb(levels: int) -> str:
    lines = ['lol0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"lol{k}: &l{k} [" + ", ".join([f"*l{k - 1}"] * 9) + "]" for k in range(1, levels)]
    return "\n".join(lines) + "\n"


def test_an_alias_bomb_is_refused_within_a_second_and_bounded_memory(capsys, tmp_path):
    """1.3 KB of aliases ran 119 s and reached 6.5 GB before a MemoryError."""
    data, target = _data(tmp_path, "actions.yaml", "robot:", _bomb(10) + "robot:")
    rc, out, err = _check(capsys, data)
    assert_one_clear_message(rc, out, err, f"{target}:", "expands to more than 1000000 nodes")
    text = target.read_text(encoding="utf-8")
    start = time.process_time()
    with pytest.raises(InputError):
        yamlpos.PositionedDocument(target, text)
    assert time.process_time() - start < 1
    tracemalloc.start()
    with pytest.raises(InputError):
        yamlpos.PositionedDocument(target, text)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 50 * 2**20


def test_a_small_alias_and_a_cycle(tmp_path):
    ok = yamlpos.PositionedDocument(tmp_path / "a.yaml", "a: &x [1, 2]\nb: *x\n")
    assert ok.data == {"a": [1, 2], "b": [1, 2]}
    with pytest.raises(InputError, match="refers to a node that contains it"):
        yamlpos.PositionedDocument(tmp_path / "c.yaml", "a: &c [1, *c]\n")


def test_python_tags_stay_refused(capsys, tmp_path):
    data, target = _data(tmp_path, "actions.yaml", "robot:", "x: !!python/object/apply:os.system [ls]\nrobot:")
    rc, out, err = _check(capsys, data)
    assert_one_clear_message(rc, out, err, f"{target}:", "could not determine a constructor")


def test_deep_yaml_nesting_is_exit_2(capsys, tmp_path):
    data, target = _data(tmp_path, "actions.yaml", "robot:", "deep: " + "[" * 500 + "]" * 500 + "\nrobot:")
    rc, out, err = _check(capsys, data)
    assert_one_clear_message(rc, out, err, f"{target}:", "nested deeper than 100 levels")


def _errors(loader) -> list:
    """Every error position and message over a set of broken registries, with ``loader``."""
    out = []
    texts = {p.name: p.read_text(encoding="utf-8") for p in DATA_DIR.glob("*.yaml")}
    breaks = [("actions.yaml", "wash-pad:", "wash-pad: [\n"), ("task_sources.yaml", "kind:", "kind: {"),
              ("events.yaml", "parameters:", "parameters: *nope"), ("profiles.yaml", "order:", "order:\x01"),
              ("hygiene_rules.yaml", "  mould:", "  mould: &m\n  mould:")]
    for name, old, new in breaks:
        try:
            yamlpos.PositionedDocument(Path(name), texts[name].replace(old, new, 1))
        except InputError as exc:
            out.append((str(exc.location), exc.message.split(":")[0]))
        else:
            out.append(None)
    return out


def test_the_c_loader_reports_the_positions_the_python_loader_does(monkeypatch):
    assert yamlpos.LOADER is getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with_c = _errors(yamlpos.LOADER)
    monkeypatch.setattr(yamlpos, "LOADER", yaml.SafeLoader)
    assert _errors(yaml.SafeLoader) == with_c
    assert None not in with_c


def test_the_c_loader_reads_the_same_registries(monkeypatch):
    fast = load_registries(DATA_DIR)
    monkeypatch.setattr(yamlpos, "LOADER", yaml.SafeLoader)
    assert load_registries(DATA_DIR) == fast

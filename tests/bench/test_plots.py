"""Report plots stay readable with many planners: distinct colours, sane sizes, deterministic bytes."""

import struct

from hygiene_pddl.bench import plots

PLANNERS = [f"planner-{k:02d}" for k in range(15)]


def _size(path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def _cell(k: int, c: int) -> dict:
    n = 10 + c
    return {"n": n, "sr": (k + c) % 11 / 10, "osr": (k + c) % 7 / 10, "sr_count": 0, "osr_count": 0}


def test_fifteen_planners_get_fifteen_colours():
    colours = plots.palette(15)
    assert len(set(colours)) == 15
    assert len(set(plots.palette(20))) == 20


def test_breakdown_charts_have_a_sane_size_for_fifteen_planners(tmp_path):
    for n_categories, max_width in ((5, 1000), (18, 2000)):
        by = {p: {f"category_{c}": _cell(k, c) for c in range(n_categories)} for k, p in enumerate(PLANNERS)}
        path = plots.sr_osr_chart(by, tmp_path / f"c{n_categories}.png", "SR / OSR")
        width, height = _size(path)
        assert width <= max_width and height <= 1400, (n_categories, width, height)
    again = plots.sr_osr_chart(by, tmp_path / "again.png", "SR / OSR")
    assert again.read_bytes() == (tmp_path / "c18.png").read_bytes()


def test_cactus_and_failure_charts_for_fifteen_planners(tmp_path):
    curves = {p: {"sr": [0.01 * (j + 1) * (k + 1) for j in range(k)], "osr": [0.02 * (j + 1) for j in range(k // 2)]}
              for k, p in enumerate(PLANNERS)}
    width, height = _size(plots.cactus_chart(curves, 20, tmp_path / "cactus.png"))
    assert width <= 1800 and height <= 800
    failures = {p: {"safe_optimal": k, "no_plan": 15 - k, "invalid_continuation": 1} for k, p in enumerate(PLANNERS)}
    width, height = _size(plots.failure_chart(failures, tmp_path / "failures.png"))
    assert width <= 1400 and height <= 1400

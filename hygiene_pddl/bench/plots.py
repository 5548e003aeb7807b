"""PNG plots of a bench report (matplotlib, Agg backend): SR/OSR heat maps by a breakdown, the failure
breakdown, the cactus plot and Gantt charts of chosen plans with gripper and appliance lanes. Sizes grow with
the planners and categories; colours stay distinct up to 20 planners."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FAILURE_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("safe_optimal", "safe and optimal", "#2e7d32"),
    ("correct_rejection", "correct rejection", "#00897b"),
    ("safe_nonoptimal", "safe, not optimal", "#f9a825"),
    ("no_plan", "no plan / undetermined", "#9e9e9e"),
    ("incorrect_rejection", "incorrect rejection", "#ef6c00"),
    ("invalid_continuation", "invalid continuation", "#c62828"),
)


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


#: 20 distinct colours (tab20's dark shades, then its light ones): no two planners share one up to 20 planners;
#: the cactus plot also varies line style and marker.
def palette(n: int) -> list:
    """``n`` colours, distinct for ``n <= 20`` (then they cycle)."""
    cmap = _plt().get_cmap("tab20")
    order = [*range(0, 20, 2), *range(1, 20, 2)]
    return [cmap(order[i % 20]) for i in range(n)]


#: PNG metadata: no software version, so a figure regenerates byte for byte on another matplotlib patch release.
PNG_META = {"Software": None}


def _save(fig, path: Path, dpi: int = 120) -> None:  # noqa: ANN001
    fig.savefig(path, dpi=dpi, metadata=PNG_META)
    _plt().close(fig)


def sr_osr_chart(by: dict[str, dict[str, dict[str, Any]]], path: Path, title: str) -> Path:
    """Two heat maps, SR above OSR: one row per planner, one column per category (tier, activity group, ...),
    each cell its rate in percent; the size grows with the planners and categories, about 0.75 in per column
    and 0.3 in per row (15 planners x 18 categories: about 1900 x 1300 pixels)."""
    plt = _plt()
    planners = list(by)
    categories: list[str] = []
    for per in by.values():
        categories += [c for c in per if c not in categories]
    width = 2.8 + 0.75 * max(3, len(categories))
    height = 1.6 + 2 * (0.45 + 0.3 * len(planners))
    fig, axes = plt.subplots(2, 1, figsize=(width, height), squeeze=False)
    cmap = plt.get_cmap("viridis")
    for ax, metric in zip(axes[:, 0], ("sr", "osr"), strict=True):
        grid = [[(by[p].get(c) or {}).get(metric) for c in categories] for p in planners]
        values = [[float("nan") if v is None else v for v in row] for row in grid]
        ax.imshow(values, cmap=cmap, vmin=0.0, vmax=1.0, aspect="auto")
        for y, row in enumerate(grid):
            for x, v in enumerate(row):
                ax.text(x, y, "–" if v is None else f"{v:.0%}", ha="center", va="center", fontsize=7,
                        color="white" if v is not None and v < 0.6 else "black")
        ax.set_yticks(range(len(planners)), planners, fontsize=8)
        labels = ["\n".join(textwrap.wrap(c.replace("_", " "), 12)) + f"\n(n={_n(by, c)})" for c in categories]
        ax.set_xticks(range(len(categories)), labels, fontsize=7)
        ax.set_title(f"{title}: {metric.upper()}", fontsize=9, loc="left")
    fig.tight_layout()
    _save(fig, path)
    return path


def _n(by: dict, category: str) -> int:
    return max((per[category]["n"] for per in by.values() if category in per), default=0)


def cactus_chart(curves: dict[str, dict[str, list[float]]], total: int, path: Path) -> Path:
    """Instances resolved (SR, solid; OSR, dashed) within a planner time, per planner, log time axis."""
    plt = _plt()
    planners = list(curves)
    styles = ("-", "--", "-.", ":")
    markers = ("o", "s", "^", "D", "v", "P", "X", "*")
    fig, axes = plt.subplots(1, 2, figsize=(12.0, 4.8), sharey=True)
    times = [t for c in curves.values() for t in c["sr"]]
    low = max(min(times, default=0.01), 1e-3)
    high = max(times, default=1.0)
    for ax, metric in zip(axes, ("sr", "osr"), strict=True):
        for k, (planner, color) in enumerate(zip(planners, palette(len(planners)), strict=True)):
            ts = [max(t, 1e-3) for t in curves[planner][metric]]
            xs, ys = [low / 1.5, *ts, high * 1.5], [0, *range(1, len(ts) + 1), len(ts)]
            ax.step(xs, ys, where="post", color=color, linestyle=styles[k // 10 % 4], label=planner, linewidth=1.4,
                    marker=markers[k % 8], markevery=[len(xs) - 2] if ts else [], markersize=5)
        ax.set_xscale("log")
        ax.set_xlim(low / 1.5, high * 1.5)
        ax.set_ylim(0, max(1, total) * 1.02)
        ax.axhline(total, color="grey", linewidth=0.6, linestyle=":")
        ax.set_xlabel("planner time (s, log scale)")
        ax.set_title(f"instances resolved ({metric.upper()}) within the time, of {total}", fontsize=9, loc="left")
        ax.grid(alpha=0.3, which="both")
    axes[0].set_ylabel("instances")
    axes[0].yaxis.set_major_locator(plt.MaxNLocator(integer=True))
    axes[1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    _save(fig, path)
    return path


def failure_chart(failures: dict[str, dict[str, Any]], path: Path) -> Path:
    """One stacked horizontal bar per planner: the failure table's mutually exclusive outcomes."""
    plt = _plt()
    planners = list(failures)
    fig, ax = plt.subplots(figsize=(10, 1.6 + 0.55 * len(planners)))
    for y, planner in enumerate(planners):
        row, left = failures[planner], 0
        for key, label, color in FAILURE_COLUMNS:
            value = row.get(key, 0)
            if value:
                ax.barh(y, value, left=left, color=color, edgecolor="white", label=label if y == 0 else None)
                ax.text(left + value / 2, y, str(value), ha="center", va="center", fontsize=8, color="white",
                        fontweight="bold")
            left += value
    for key, label, color in FAILURE_COLUMNS:  # a legend entry for every outcome, present or not
        if not any(failures[p].get(key) for p in planners[:1]):
            ax.barh(0, 0, color=color, label=label)
    ax.set_yticks(range(len(planners)), planners)
    ax.invert_yaxis()
    ax.set_xlabel("instances")
    ax.set_title("Outcomes per planner (failure table)")
    handles, labels = ax.get_legend_handles_labels()
    order = [lab for _, lab, _ in FAILURE_COLUMNS]
    pairs = sorted(zip(handles, labels, strict=True), key=lambda hl: order.index(hl[1]))
    ax.legend([h for h, _ in pairs], [lab for _, lab in pairs], fontsize=7, loc="upper left",
              bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    _save(fig, path)
    return path


# --------------------------------------------------------------------------------------------- Gantt


@dataclass(frozen=True)
class Bar:
    lane: str
    start: float
    end: float
    label: str
    treatment: bool


def plan_bars(reg, inst, plan) -> list[Bar]:
    """Bars of a parsed plan in registry terms, one per occupied gripper, appliance or capacity, taken from the
    instance-level evaluation's schedule (the one place that maps PDDL steps back to registry actions)."""
    from hygiene_pddl.validation.instance_level import evaluate_plan

    bars = []
    for index, text, start, end, lanes in evaluate_plan(reg, inst, plan).schedule:
        name, *args = text.strip("()").split()
        label = f"{index + 1}. {name} " + " ".join(a for a in args if a not in reg.grippers)
        for lane in lanes or ("(no resource)",):
            bars.append(Bar(lane, float(start), float(end), label.strip(), bool(reg.actions[name].treats)))
    return bars


def gantt_chart(charts: list[tuple[str, list[Bar]]], path: Path) -> Path:
    """One panel per chosen plan: lanes left and right gripper first, then appliances and capacities; each
    bar carries its step number (and its action when it fits), the step list stands to the right."""
    plt = _plt()
    from matplotlib.patches import Patch

    heights = [1.0 + 0.5 * len(_lanes(bars)) for _, bars in charts]
    fig_w, left, right, dpi = 13.0, 0.11, 0.7, 120
    fig, axes = plt.subplots(len(charts), 1, figsize=(fig_w, 1.0 + sum(heights) + 0.5 * len(charts)),
                             squeeze=False, gridspec_kw={"height_ratios": heights})
    px_per_char = 7 * 0.62 * dpi / 72
    for ax, (title, bars) in zip(axes[:, 0], charts, strict=True):
        lanes = _lanes(bars)
        span = max((b.end for b in bars), default=1.0) or 1.0
        px_per_unit = (right - left) * fig_w * dpi / (span * 1.02)
        steps: dict[str, tuple[float, float]] = {}
        for b in bars:
            y = lanes.index(b.lane)
            color = "#c62828" if b.treatment else "#1565c0"
            ax.barh(y, max(b.end - b.start, span * 0.004), left=b.start, height=0.6, color=color, alpha=0.85,
                    edgecolor="black", linewidth=0.5)
            number, _, action = b.label.partition(". ")
            room = (b.end - b.start) * px_per_unit / px_per_char - 1
            text = b.label if room >= len(b.label) else (action.split(" ")[0] if room >= len(action.split(" ")[0])
                                                         + len(number) + 2 else number)
            if text != b.label and text != number:
                text = f"{number}. {text}"
            ax.text(b.start + (b.end - b.start) / 2, y, text, va="center", ha="center", fontsize=7, color="white",
                    clip_on=True, fontweight="bold")
            steps.setdefault(b.label, (b.start, b.end))
        ax.set_yticks(range(len(lanes)), [_lane_label(lane) for lane in lanes], fontsize=8)
        ax.set_ylim(len(lanes) - 0.5, -0.5)
        ax.set_xlim(0, span * 1.02)
        ax.set_title(title, fontsize=9, loc="left")
        ax.grid(axis="x", alpha=0.3)
        ax.set_xlabel("time units after the decision time", fontsize=8)
        listing = "\n".join(f"{label}  [{start:g}, {end:g}]" for label, (start, end) in steps.items())
        ax.text(1.02, 1.0, listing, transform=ax.transAxes, va="top", ha="left", fontsize=7, family="monospace")
    fig.legend(handles=[Patch(color="#1565c0", label="service action"), Patch(color="#c62828", label="treatment")],
               loc="lower right", fontsize=7, ncols=2)
    fig.subplots_adjust(left=left, right=right, top=1 - 0.45 / fig.get_figheight(),
                        bottom=0.75 / fig.get_figheight(), hspace=0.75)
    _save(fig, path, dpi)
    return path


def _lane_label(lane: str) -> str:
    kind, _, name = lane.partition(":")
    return f"{name} gripper" if kind == "gripper" else f"{name} ({kind})" if name else lane


def _lanes(bars: list[Bar]) -> list[str]:
    lanes = ["gripper:left", "gripper:right"]
    for b in bars:
        if b.lane not in lanes:
            lanes.append(b.lane)
    return lanes

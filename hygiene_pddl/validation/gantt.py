"""Draw an evaluated continuation as gripper and appliance lanes, with contamination changes and violations."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from hygiene_pddl.decimals import rounded_text
from hygiene_pddl.limits import MAX_UNITS
from hygiene_pddl.validation.instance_level import InstanceReport, Problem

_EDGE = Fraction(10 * MAX_UNITS)
#: Steps (and findings) a chart draws: a longer plan is a picture nobody reads, and drawing it took minutes.
GANTT_STEPS = 40


def _x(t: Fraction) -> float:
    """A time as a chart coordinate; times beyond the limits (plans far past any deadline) stop at its edge."""
    return float(min(max(Fraction(t), -_EDGE), _EDGE))


NO_LANE = "(no lane)"


def chart_lanes(shown: list) -> list[str]:
    """The chart's lanes: grippers first, then appliances and capacities, and a lane for the steps that occupy
    none (a dwell, a process without an appliance) when there are such steps."""
    lanes: list[str] = []
    for _, _, _, _, res in shown:
        for lane in res or (NO_LANE,):
            if lane not in lanes:
                lanes.append(lane)
    return sorted(lanes, key=lambda x: (x == NO_LANE, not x.startswith("gripper:"), x)) or [NO_LANE]


def draw_gantt(report: InstanceReport, path: Path | str, title: str | None = None) -> Path:
    """Write a PNG: one lane per gripper / appliance / capacity; + and − marks for hazards gained and
    removed on gripper parts; a red cross at a violation."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown, found = report.schedule[:GANTT_STEPS], report.findings[:GANTT_STEPS]
    lanes = chart_lanes(shown)
    fig, ax = plt.subplots(figsize=(10, 1.6 + 0.7 * len(lanes) + 0.16 * (len(shown) + len(found))))
    colors = plt.get_cmap("tab20")
    for k, (index, _text, start, end, res) in enumerate(shown):
        for lane in res or (NO_LANE,):
            y = lanes.index(lane)
            ax.barh(y, _x(end) - _x(start), left=_x(start), height=0.5, color=colors(k % 20), edgecolor="black")
            ax.text(_x(start) + 0.05, y, f"{index + 1}", va="center", fontsize=8, fontweight="bold")
    drawn_until = max((end for _, _, _, end, _ in shown), default=0)
    for time, sign, carrier, hazard, _step in report.contamination_log:
        owner, part = carrier
        if f"gripper:{owner}" in lanes and time <= drawn_until:
            y = lanes.index(f"gripper:{owner}") + 0.35
            ax.annotate(f"{sign}{hazard} ({part})", (_x(time), y), fontsize=6,
                        color="darkred" if sign == "+" else "darkgreen")
            ax.plot(_x(time), y - 0.05, marker="^" if sign == "+" else "v",
                    color="darkred" if sign == "+" else "darkgreen")
    for f in found:
        if f.problem is Problem.HYGIENE and f.time is not None and f.step is not None and f.time <= drawn_until:
            lane = next((r[4][0] for r in shown if r[0] == f.step and r[4]), lanes[0])
            ax.plot(_x(f.time), lanes.index(lane), marker="X", markersize=14, color="red")
            ax.annotate("violation", (_x(f.time), lanes.index(lane) - 0.4), color="red", fontsize=8)
    ax.set_yticks(range(len(lanes)), [lane.replace("gripper:", "").replace(":", " ") for lane in lanes])
    ax.set_xlabel("TU after the decision time")
    ax.invert_yaxis()
    verdict = "valid" if report.valid else "INVALID"
    cost = " ".join(f"{d}={v}" for d, v in report.cost.as_dict().items() if v) if report.cost else ""
    ax.set_title(title or f"{report.instance}: {verdict}" + (f"\n{cost}" if cost else ""), fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    legend = [f"{i + 1}. {text}  [{rounded_text(start)}, {rounded_text(end)}]" for i, text, start, end, _ in shown]
    legend += [f"{f.problem.value}: {f.message}"[:200] for f in found]
    hidden = len(report.schedule) - len(shown), len(report.findings) - len(found)
    if any(hidden):
        legend.append(f"... not drawn: {hidden[0]} more steps, {hidden[1]} more findings (the first {GANTT_STEPS})")
    fig.text(0.01, 0.01, "\n".join(legend), fontsize=7, va="bottom", family="monospace")
    fig.tight_layout(rect=(0, min(0.8, 0.03 + 0.035 * len(legend)), 1, 1))
    path = Path(path)
    fig.savefig(path, dpi=120, format="png")  # the format given: no ".png" appended to the name
    plt.close(fig)
    return path

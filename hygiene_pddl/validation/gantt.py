"""Draw an evaluated continuation as gripper and appliance lanes, with contamination changes and violations."""

from __future__ import annotations

from pathlib import Path

from hygiene_pddl.validation.instance_level import InstanceReport, Problem


def draw_gantt(report: InstanceReport, path: Path | str, title: str | None = None) -> Path:
    """Write a PNG: one lane per gripper / appliance / capacity; + and − marks for hazards gained and
    removed on gripper parts; a red cross at a violation."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    lanes: list[str] = []
    for _, _, _, _, res in report.schedule:
        for lane in res:
            if lane not in lanes:
                lanes.append(lane)
    lanes = sorted(lanes, key=lambda x: (not x.startswith("gripper:"), x)) or ["(no lane)"]
    fig, ax = plt.subplots(figsize=(10, 1.6 + 0.7 * len(lanes) + 0.16 * len(report.schedule)))
    colors = plt.get_cmap("tab20")
    for k, (index, _text, start, end, res) in enumerate(report.schedule):
        for lane in res or ("(no lane)",):
            y = lanes.index(lane)
            ax.barh(y, float(end - start), left=float(start), height=0.5, color=colors(k % 20), edgecolor="black")
            ax.text(float(start) + 0.05, y, f"{index + 1}", va="center", fontsize=8, fontweight="bold")
    for time, sign, carrier, hazard, _step in report.contamination_log:
        owner, part = carrier
        if f"gripper:{owner}" in lanes:
            y = lanes.index(f"gripper:{owner}") + 0.35
            ax.annotate(f"{sign}{hazard} ({part})", (float(time), y), fontsize=6,
                        color="darkred" if sign == "+" else "darkgreen")
            ax.plot(float(time), y - 0.05, marker="^" if sign == "+" else "v",
                    color="darkred" if sign == "+" else "darkgreen")
    for f in report.findings:
        if f.problem is Problem.HYGIENE and f.time is not None and f.step is not None:
            lane = next((r[4][0] for r in report.schedule if r[0] == f.step and r[4]), lanes[0])
            ax.plot(float(f.time), lanes.index(lane), marker="X", markersize=14, color="red")
            ax.annotate("violation", (float(f.time), lanes.index(lane) - 0.4), color="red", fontsize=8)
    ax.set_yticks(range(len(lanes)), [lane.replace("gripper:", "").replace(":", " ") for lane in lanes])
    ax.set_xlabel("TU after the decision time")
    ax.invert_yaxis()
    verdict = "valid" if report.valid else "INVALID"
    cost = " ".join(f"{d}={v}" for d, v in report.cost.as_dict().items() if v) if report.cost else ""
    ax.set_title(title or f"{report.instance}: {verdict}" + (f"\n{cost}" if cost else ""), fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    legend = "\n".join(f"{index + 1}. {text}  [{float(start):g}, {float(end):g}]"
                       for index, text, start, end, _ in report.schedule)
    findings = "\n".join(f"{f.problem.value}: {f.message}" for f in report.findings)
    fig.text(0.01, 0.01, legend + ("\n" + findings if findings else ""), fontsize=7, va="bottom", family="monospace")
    fig.tight_layout(rect=(0, 0.03 + 0.035 * (len(report.schedule) + len(report.findings)), 1, 1))
    path = Path(path)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path

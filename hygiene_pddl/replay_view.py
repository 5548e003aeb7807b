"""Present a replay result to a person (text) or to a program (JSON)."""

from __future__ import annotations

from typing import Any

from hygiene_pddl.hygiene import chain_text
from hygiene_pddl.literals import atom_text
from hygiene_pddl.replay import ReplayResult, time_value


def replay_text(res: ReplayResult) -> str:
    lines = [f"Instance {res.instance}: hygiene state at decision time t={res.decision_time}"]
    if not res.contamination:
        lines.append("  no contamination anywhere")
    by_owner: dict[str, list] = {}
    for f in res.contamination:
        by_owner.setdefault(f.carrier[0], []).append(f)
    width = max((len(f"{f.carrier[0]} {f.carrier[1]}") for f in res.contamination), default=0)
    for owner in sorted(by_owner):
        for f in by_owner[owner]:
            name = f"{f.carrier[0]} {f.carrier[1]}"
            lines.append(f"  {name:<{width}}  {f.hazard:<20}  via {chain_text(f.provenance)}")
    lines.append("Prior violations:" if res.violations else "Prior violations: none")
    lines += [f"  {v.describe()}" for v in res.violations]
    lines.append("Physical state: " + ", ".join(sorted(atom_text(a) for a in res.facts)))
    lines.append("Remaining stocks: " + ", ".join(f"{k}={v}" for k, v in res.stocks))
    used = ", ".join(f"{k}={v}" for k, v in res.consumed) or "nothing"
    lines.append(f"Used by the history: {used}")
    if res.ongoing:
        lines.append("Still running: " + ", ".join(f"{r.text()} until {r.end}" for r in res.ongoing))
    lines.append(f"Deadline: t={res.horizon} ({res.horizon - res.decision_time} TU left)")
    return "\n".join(lines)


def replay_json(res: ReplayResult) -> dict[str, Any]:
    """Stable schema: see docs/replay-json.md."""
    def prov(p):  # noqa: ANN001, ANN202
        return [{"carrier": list(link.carrier), "time": time_value(link.time), "via": link.via,
                 "step": link.step} for link in p]
    return {
        "instance": res.instance, "decision_time": res.decision_time, "horizon": res.horizon,
        "contamination": [{"carrier": list(f.carrier), "hazard": f.hazard, "provenance": prov(f.provenance)}
                          for f in res.contamination],
        "violations": [{"time": time_value(v.time), "step": v.step, "carrier": list(v.carrier),
                        "hazard": v.hazard, "provenance": prov(v.provenance)} for v in res.violations],
        "facts": sorted(atom_text(a) for a in res.facts),
        "stocks": dict(res.stocks), "consumed": dict(res.consumed), "history_costs": dict(res.history_costs),
        "ongoing": [{"index": r.index, "action": r.text(), "end": r.end} for r in res.ongoing],
        "busy_until": dict(res.busy_until),
    }

"""K, the registry entries one domain is built from: the family's, or an instance's own (one source of truth).

A domain built from entries other than its family's is named ``hygiene-<family>-k<hash>`` (docs/world-model-v2.md
§5), so a plan checked against the family's domain fails with a clear name mismatch instead of a silently
different domain.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from compiler.names import legal
from hygiene_pddl.costs import SUMMED
from hygiene_pddl.instances.model import Instance
from hygiene_pddl.registries.model import ActionSchema, Registries


@dataclass(frozen=True)
class FamilyDomain:
    """The registry entries a domain depends on (K): actions and hazards, and what follows from them."""

    family: str
    actions: tuple[ActionSchema, ...]
    hazards: tuple[str, ...]
    treatments: tuple[str, ...]
    capacities: tuple[str, ...]
    stocks: tuple[str, ...]
    cost_dims: tuple[str, ...]
    #: "" for the family's own entries, else "-k<hash>" (part of the domain name)
    variant: str = ""

    @classmethod
    def build(cls, reg: Registries, family: str, action_names, hazards, variant: str = "") -> FamilyDomain:
        actions = tuple(reg.actions[a] for a in sorted(set(action_names)))
        treatments = tuple(sorted({t for a in actions for t in a.treatment_names}))
        capacities = tuple(sorted({c for a in actions for c in a.capacities}))
        stocks = tuple(s for s in reg.stocks if any(s in dict(a.consumes) for a in actions))
        dims = [d for d in SUMMED if any(dict(a.costs).get(d) for a in actions)]
        if any(a.occupies for a in actions):
            dims.append("active_robot_time")
        return cls(family, actions, tuple(sorted(set(hazards))), treatments, capacities, stocks, tuple(dims), variant)

    @classmethod
    def of(cls, reg: Registries, family: str) -> FamilyDomain:
        """The family's own entries."""
        fam = reg.families[family]
        return cls.build(reg, family, fam.actions, fam.hazards)

    @classmethod
    def of_instance(cls, reg: Registries, inst: Instance) -> FamilyDomain:
        """The instance's entries (K); named after the family when they are the family's."""
        return cls.build(reg, inst.family, inst.actions, inst.hazards, k_variant(reg, inst))

    @property
    def domain_name(self) -> str:
        return f"hygiene-{legal(self.family)}{self.variant}"

    @property
    def file_stem(self) -> str:
        """The committed domain file's name without ``.pddl``: the family, or ``<family>-k<hash>``."""
        return f"{self.family}{self.variant}"

    def changes(self, predicate: str) -> bool:
        """Whether some action of K adds or deletes ``predicate`` (literal effects or updates)."""
        for a in self.actions:
            lits = [*a.eff_start, *a.eff_end, *(e for u in a.updates for e in u.effects)]
            if any(lit.predicate == predicate for lit in lits):
                return True
        return False


def k_variant(reg: Registries, inst: Instance) -> str:
    """"" when the instance's actions and hazards are its family's, else ``-k`` and a short stable hash of them."""
    fam = reg.families[inst.family]
    if set(inst.actions) == set(fam.actions) and set(inst.hazards) == set(fam.hazards):
        return ""
    key = "actions:" + ",".join(sorted(set(inst.actions))) + ";hazards:" + ",".join(sorted(set(inst.hazards)))
    return "-k" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:8]

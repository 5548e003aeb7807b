"""Registry actions ↔ PDDL actions: the extra carrier parameters the compiler adds, both ways."""

from __future__ import annotations

from compiler.domain import endpoint_var, parameters
from compiler.names import NameMap
from compiler.problem import names_for
from hygiene_pddl.errors import InputError, Location
from hygiene_pddl.hygiene import HygieneRules
from hygiene_pddl.instances.model import Instance
from hygiene_pddl.registries.model import ActionSchema, Registries


class StepMapper:
    """Maps ground registry actions of one instance to PDDL steps and back."""

    def __init__(self, reg: Registries, inst: Instance):
        self.reg, self.inst = reg, inst
        self.names: NameMap = names_for(reg, inst)
        self.rules = HygieneRules(reg, dict(inst.objects), inst.hazards)

    def _region_owner(self, schema: ActionSchema, var: str) -> str:
        for c in schema.contacts:
            for ep in (c.a, c.b):
                if ep.part == f"?{var}":
                    return ep.var
        return next(p for p, k in schema.parameters if k in ("item", "place"))

    def to_pddl(self, name: str, args: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
        schema = self.reg.actions[name]
        binding = dict(zip(schema.param_names, args, strict=True))
        out = []
        for p, kind in schema.parameters:
            if kind == "gripper":
                out.append(self.names[("gripper", binding[p])])
            elif kind == "region":
                owner = binding[self._region_owner(schema, p)]
                out.append(self.names[("carrier", owner, binding[p])])
            else:
                out.append(self.names[("object", binding[p])])
        extra = {endpoint_var(ep): ep for c in schema.contacts for ep in (c.a, c.b)}
        for use in schema.treats:
            extra[endpoint_var(use.target)] = use.target
        for var, _ in parameters(schema)[len(schema.parameters):]:
            out.append(self.names[("carrier", *self.rules.ground(extra[var], binding))])
        return name, tuple(out)

    def from_pddl(self, action: str, args: tuple[str, ...], where: Location | None = None) -> tuple[str, tuple]:
        """PDDL step → registry action and arguments; a step that names nothing known is an error."""
        action = action.lower()
        if action not in self.reg.actions or action not in self.inst.actions:
            raise InputError(f"unknown action {action!r}; this instance's actions are {sorted(self.inst.actions)}",
                             where)
        schema = self.reg.actions[action]
        params = parameters(schema)
        if len(args) != len(params):
            raise InputError(f"{action} takes {len(params)} arguments "
                             f"({' '.join(v for v, _ in params)}), found {len(args)}", where)
        out = []
        for (p, kind), value in zip(schema.parameters, args, strict=False):
            meaning = self.names.reverse.get(value.lower())
            want = {"gripper": "gripper", "item": "object", "place": "object", "region": "carrier"}[kind]
            if meaning is None or meaning[0] != want:
                raise InputError(f"argument ?{p} of {action} must name a {kind}, found {value!r}", where)
            out.append(meaning[2] if kind == "region" else meaning[1])
        expected = self.to_pddl(action, tuple(out))[1]
        for got, want_name, (var, _) in zip(args, expected, params, strict=True):
            if got.lower() != want_name:
                raise InputError(f"argument {var} of {action} must be {want_name} for these objects, "
                                 f"found {got!r}", where)
        return action, tuple(out)

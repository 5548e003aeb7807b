"""Registry actions ↔ PDDL actions: the extra carrier parameters the compiler adds, both ways; and the
``(finish tuK)`` step that declares a plan's makespan where the problem needs it (compiler/ticks.py)."""

from __future__ import annotations

from compiler import ticks
from compiler.domain import endpoint_var, parameters
from compiler.kset import FamilyDomain
from compiler.mechanics import live_contacts
from compiler.names import NameMap
from compiler.problem import instance_uses_ticks, names_for
from hygiene_pddl.errors import InputError, Location
from hygiene_pddl.hygiene import HygieneRules
from hygiene_pddl.instances.model import Instance
from hygiene_pddl.registries.model import ActionSchema, Registries


class InapplicableStep(InputError):
    """A well-typed step whose derived arguments do not fit its objects (e.g. the other gripper's pad): in
    PDDL its precondition fails, so the plan is invalid rather than unreadable. `action`/`args`: the
    registry action and arguments the step names."""

    def __init__(self, message: str, where: Location | None, action: str, args: tuple[str, ...]):
        super().__init__(message, where)
        self.action, self.args = action, args


class StepMapper:
    """Maps ground registry actions of one instance to PDDL steps and back."""

    def __init__(self, reg: Registries, inst: Instance):
        self.reg, self.inst = reg, inst
        self.fd = FamilyDomain.of_instance(reg, inst)
        self.names: NameMap = names_for(reg, inst)
        self.rules = HygieneRules(reg, dict(inst.objects), inst.hazards)
        #: whether plans declare their makespan with (finish tuK)
        self.uses_ticks = instance_uses_ticks(reg, inst)

    def _region_owner(self, schema: ActionSchema, var: str) -> str:
        for c in schema.contacts:
            for ep in (c.a, c.b):
                if ep.part == f"?{var}":
                    return ep.var
        for t in schema.treats:
            if t.target.part == f"?{var}":
                return t.target.var
        return next(p for p, k in schema.parameters if k in ("item", "place", "thing"))

    def parameters(self, schema: ActionSchema) -> list[tuple[str, str]]:
        return parameters(schema, self.reg, self.fd)

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
        extra = {endpoint_var(ep): ep for c in live_contacts(schema, self.reg, self.fd) for ep in (c.a, c.b)}
        for use in schema.treats:
            extra.setdefault(endpoint_var(use.target), use.target)
        for var, _ in self.parameters(schema)[len(schema.parameters):]:
            out.append(self.names[("carrier", *self.rules.ground(extra[var], binding))])
        return name, tuple(out)

    def finish_step(self, makespan: int) -> tuple[str, tuple[str, ...]]:
        """The step that declares ``makespan`` (whole TU, at most the time left)."""
        left = self.inst.horizon - self.inst.decision_time
        return ticks.FINISH, (self.names[("tick", str(max(0, min(makespan, left))))],)

    def finish_makespan(self, action: str, args: tuple[str, ...], where: Location | None = None) -> int | None:
        """The makespan a ``(finish tuK)`` step declares; None for any other step."""
        if action.lower() != ticks.FINISH or not self.uses_ticks:
            return None
        meaning = self.names.reverse.get(args[0].lower()) if len(args) == 1 else None
        if meaning is None or meaning[0] != "tick":
            raise InputError(f"finish takes one tick tu0 … tu{self.inst.horizon - self.inst.decision_time} "
                             f"(the makespan in whole TU), found {' '.join(args) or 'no argument'}", where)
        return int(meaning[1])

    def from_pddl(self, action: str, args: tuple[str, ...], where: Location | None = None) -> tuple[str, tuple]:
        """PDDL step → registry action and arguments; a step that names nothing known is an error."""
        action = action.lower()
        if action not in self.reg.actions or action not in self.inst.actions:
            raise InputError(f"unknown action {action!r}; this instance's actions are {sorted(self.inst.actions)}"
                             + (" (and finish tuK, which declares the makespan)" if self.uses_ticks else ""), where)
        schema = self.reg.actions[action]
        params = self.parameters(schema)
        if len(args) != len(params):
            raise InputError(f"{action} takes {len(params)} arguments "
                             f"({' '.join(v for v, _ in params)}), found {len(args)}", where)
        out = []
        for (p, kind), value in zip(schema.parameters, args, strict=False):
            meaning = self.names.reverse.get(value.lower())
            want = {"gripper": "gripper", "item": "object", "place": "object", "thing": "object",
                    "region": "carrier"}[kind]
            if meaning is None or meaning[0] != want:
                raise InputError(f"argument ?{p} of {action} must name a {kind}, found {value!r}", where)
            out.append(meaning[2] if kind == "region" else meaning[1])
        expected = self.to_pddl(action, tuple(out))[1]
        for got, want_name, (var, _) in zip(args, expected, params, strict=True):
            if got.lower() != want_name:
                raise InapplicableStep(f"argument {var} of {action} must be {want_name} for these objects, "
                                       f"found {got!r}", where, action, tuple(out))
        return action, tuple(out)

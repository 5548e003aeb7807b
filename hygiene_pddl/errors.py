"""User-facing errors and the exit-code table shared by every command.

Exit codes (documented in README and docs/exit-codes.md):

====  =============================================================
code  meaning
====  =============================================================
0     success (a valid plan, a clean check, a finished command)
1     an invalid plan / a check that found problems in the subject
2     unreadable or malformed input (file, line:column, expectation)
3     internal error (a bug: please report it)
====  =============================================================

``hygiene-pddl plan`` gives each outcome its own code, after Fast Downward's driver (0-9 a plan,
10-19 no plan, 30-39 cannot run); 2 and 3 keep their meaning:

====  =============================================================
code  ``plan`` outcome
====  =============================================================
0     a plan was found (proved optimal or not: see ``--json``)
10    proved infeasible: no continuation satisfies the instance
12    undetermined: no plan and no proof (time limit, incomplete
      search or a failed engine; the notes say which)
37    the planner cannot run here (missing module, binary, runtime)
====  =============================================================
"""

from __future__ import annotations

from dataclasses import dataclass

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 3
EXIT_INFEASIBLE = 10
EXIT_UNDETERMINED = 12
EXIT_UNAVAILABLE = 37


@dataclass(frozen=True)
class Location:
    """Where in a file a problem sits; every part is optional."""

    file: str | None = None
    line: int | None = None
    column: int | None = None
    path: str | None = None  # nesting path inside a structured file, e.g. "actions.wash-pad.duration"

    def __str__(self) -> str:
        out = self.file or "<input>"
        if self.line is not None:
            out += f":{self.line}"
            if self.column is not None:
                out += f":{self.column}"
        if self.path:
            out += f": at {self.path}"
        return out


class InputError(Exception):
    """Malformed user input: one message naming where and what was expected (exit code 2)."""

    exit_code = EXIT_BAD_INPUT

    def __init__(self, message: str, location: Location | None = None, found: str | None = None):
        self.message = message
        self.location = location or Location()
        self.found = found
        super().__init__(str(self))

    def __str__(self) -> str:
        text = f"{self.location}: {self.message}"
        if self.found is not None:
            text += f"\n  found: {self.found}"
        return text


class RegistryError(InputError):
    """A registry file or entry that does not match its schema."""


class InstanceError(InputError):
    """An instance file that does not load or does not resolve against the registries."""

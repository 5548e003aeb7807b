"""Second, independent certification of the benchmark's reference (issues 6 and 13).

:func:`exact_search` finds the lexicographically optimal continuation by A* over timed states; it shares no model
code with the CP-SAT joint model (``planners/joint.py``, ``grounding.py``). The method, its bounds and its
completeness argument are in ``docs/certification.md``.
"""

from hygiene_pddl.certify.search import SearchResult, SearchStatus, exact_search
from hygiene_pddl.certify.task import GroundAction, Task, compile_task

__all__ = ["GroundAction", "SearchResult", "SearchStatus", "Task", "compile_task", "exact_search"]

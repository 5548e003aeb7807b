"""Second, independent certification of the benchmark's reference (issue 6, "Reference and admission").

:func:`exact_search` finds the lexicographically optimal continuation by exhaustive search over timed
states; it shares no model code with the CP-SAT joint model (``planners/joint.py``, ``grounding.py``).
The method, its bounds and its completeness argument are in ``docs/certification.md``.
"""

from hygiene_pddl.certify.search import GroundStep, SearchResult, SearchStatus, exact_search, ground_steps

__all__ = ["GroundStep", "SearchResult", "SearchStatus", "exact_search", "ground_steps"]

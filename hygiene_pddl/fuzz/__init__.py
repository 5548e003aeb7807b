"""The fuzzing suite of issue 15: bad input never crashes or hangs a command.

:mod:`~hygiene_pddl.fuzz.mutations` damages text, :mod:`~hygiene_pddl.fuzz.cases` builds command lines over
mutated seed files (benchmark, IPC corpus, registries), :mod:`~hygiene_pddl.fuzz.runner` runs and judges
them. ``make fuzz FUZZ_SECONDS=600`` runs it long (scripts/fuzz.py); ``make test`` runs a small size.
"""

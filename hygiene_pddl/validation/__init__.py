"""Plan validation: the PDDL level (`pddl_level`, VAL semantics) and, later, the instance level."""

"""Instances: public input I_t and private assessment, as JSON files with shipped JSON Schemas."""

from hygiene_pddl.instances.loader import load_instance, load_reference
from hygiene_pddl.instances.model import Carrier, HistoryRecord, Instance, Reference

__all__ = ["Carrier", "HistoryRecord", "Instance", "Reference", "load_instance", "load_reference"]

"""Exceptions and helpers shared by the graph modules."""

from oxtensor import _core

InconsistencyError = _core.InconsistencyError
MissingInputError = _core.MissingInputError
MethodNotDefined = _core.MethodNotDefined
Scratchpad = _core.Scratchpad

__all__ = ["InconsistencyError", "MethodNotDefined", "MissingInputError", "Scratchpad"]

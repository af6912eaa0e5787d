"""`FunctionGraph` (implemented in the Rust extension)."""

from oxtensor import _core

FunctionGraph = _core.FunctionGraph

__all__ = ["FunctionGraph"]

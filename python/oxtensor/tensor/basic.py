"""Conversions to tensor variables, with PyTensor's constant autocasting."""

from oxtensor import _core
from oxtensor.tensor.nonzero import Nonzero, flatnonzero, nonzero, nonzero_values

as_tensor_variable = _core.as_tensor_variable
as_tensor = as_tensor_variable
constant = _core.constant

__all__ = [
    "Nonzero",
    "as_tensor",
    "as_tensor_variable",
    "constant",
    "flatnonzero",
    "nonzero",
    "nonzero_values",
]

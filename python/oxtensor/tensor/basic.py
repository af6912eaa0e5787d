"""Conversions to tensor variables, with PyTensor's constant autocasting."""

from oxtensor import _core

as_tensor_variable = _core.as_tensor_variable
as_tensor = as_tensor_variable
constant = _core.constant

__all__ = ["as_tensor", "as_tensor_variable", "constant"]

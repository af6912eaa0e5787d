"""Picking elements by integer arrays, as in ``pytensor.tensor.basic``:
``choose`` (NumPy's, the core's ``Choose``), ``permute_row_elements`` (the
core's ``PermuteRowElements``) and ``inverse_permutation``."""

from typing import Any

from oxtensor import _core
from oxtensor.tensor.basic import _dim, arange, as_tensor_variable, stack

Choose = _core.Choose
PermuteRowElements = _core.PermuteRowElements


def choose(a: Any, choices: Any, mode: str = "raise") -> Any:
    """For each element of the integer array ``a``, the element of
    ``choices[a]`` there (NumPy's ``choose``: ``choices`` is one array whose
    first axis enumerates the choices, or a list of arrays that broadcast
    together). ``mode`` is ``raise``, ``wrap`` or ``clip``."""
    a = as_tensor_variable(a)
    if isinstance(choices, list | tuple) and len(choices) > 1:
        return Choose(mode)(a, *[as_tensor_variable(c) for c in choices])
    if isinstance(choices, list | tuple):
        choices = stack(choices)
    return Choose(mode)(a, as_tensor_variable(choices))


def permute_row_elements(x: Any, y: Any, inverse: Any = 0) -> Any:
    """The rows (last axis) of ``x`` reordered by the integer rows of
    ``y``, ``out[..., i] = x[..., y[..., i]]`` (``inverse``: ``out[...,
    y[..., i]] = x[..., i]``); the leading axes broadcast."""
    return PermuteRowElements()(x, y, inverse)


def inverse_permutation(perm: Any) -> Any:
    """The inverse of each permutation in the last axis of ``perm``."""
    perm = as_tensor_variable(perm)
    identity = arange(_dim(perm, perm.ndim - 1), dtype=perm.dtype)
    return permute_row_elements(identity, perm, inverse=1)


__all__ = [
    "Choose",
    "PermuteRowElements",
    "choose",
    "inverse_permutation",
    "permute_row_elements",
]

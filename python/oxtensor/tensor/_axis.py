"""Checking one axis argument the way NumPy does (``AxisError`` is both a
``ValueError`` and an ``IndexError``, as in PyTensor)."""

import operator
from typing import Any

from numpy.exceptions import AxisError


def normalize_axis(axis: Any, ndim: int, op: str) -> int:
    """``axis`` as a non-negative int below ``ndim``."""
    try:
        a = operator.index(axis)
    except TypeError:
        raise TypeError(
            f"{op}: axis must be an integer, got {axis!r} of type {type(axis).__name__}"
        ) from None
    if not -ndim <= a < ndim:
        raise AxisError(
            f"{op}: axis {a} is out of bounds for array of dimension {ndim}"
        )
    return a % ndim

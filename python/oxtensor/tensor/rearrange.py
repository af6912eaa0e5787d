"""Reordering elements without computing: ``flip`` (negative-step slices,
views), ``roll`` (two slices joined) and ``matrix_transpose``, under
PyTensor's names."""

from typing import Any

import numpy as np

from oxtensor.tensor._axis import normalize_axis
from oxtensor.tensor.basic import (
    _dim,
    _reshape_to,
    as_tensor_variable,
    flatten,
    join,
    swapaxes,
)


def _axes(axis: Any, ndim: int, name: str) -> list[int]:
    if axis is None:
        return list(range(ndim))
    axes = [axis] if isinstance(axis, int | np.integer) else list(axis)
    out = [normalize_axis(a, ndim, name) for a in axes]
    if len(set(out)) != len(out):
        raise ValueError(f"{name}: repeated axis in {axis!r}")
    return out


def flip(arr: Any, axis: Any = None) -> Any:
    """``arr`` with the order of its elements reversed along ``axis`` (an
    int, a tuple of ints, or ``None`` for every axis)."""
    arr = as_tensor_variable(arr)
    axes = _axes(axis, arr.ndim, "flip")
    if not axes:
        return arr
    index = tuple(
        slice(None, None, -1) if i in axes else slice(None) for i in range(arr.ndim)
    )
    return arr[index]


def _shift(shift: Any) -> Any:
    if isinstance(shift, int | np.integer):
        return int(shift)
    var = as_tensor_variable(shift)
    if var.ndim != 0 or not var.dtype.startswith(("int", "uint")):
        raise TypeError(
            f"roll: shift must be an integer scalar, got {shift!r} ({var.type})"
        )
    return var


def _roll_one(x: Any, shift: Any, axis: int) -> Any:
    n = _dim(x, axis)
    if n == 0:
        return x
    # mod follows the divisor's sign, so any shift lands in [0, n).
    cut = n - shift % n
    head = [slice(None)] * x.ndim
    tail = [slice(None)] * x.ndim
    head[axis], tail[axis] = slice(cut, None), slice(None, cut)
    return join(axis, x[tuple(head)], x[tuple(tail)])


def roll(x: Any, shift: Any, axis: Any = None) -> Any:
    """``x`` with its elements shifted by ``shift`` along ``axis``, those
    pushed past the end coming back at the start (``axis=None``: over the
    flattened ``x``, reshaped back). ``shift`` and ``axis`` may be tuples of
    the same length, as in NumPy."""
    x = as_tensor_variable(x)
    if axis is None:
        rolled = _roll_one(flatten(x), _shift(shift), 0)
        return _reshape_to(rolled, [_dim(x, i) for i in range(x.ndim)])
    shifts = list(shift) if isinstance(shift, tuple | list) else [shift]
    axes = list(axis) if isinstance(axis, tuple | list) else [axis]
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    if len(axes) == 1:
        axes = axes * len(shifts)
    if len(shifts) != len(axes):
        raise ValueError(f"roll: shift {shift!r} and axis {axis!r} differ in length")
    for s, a in zip(shifts, axes, strict=True):
        x = _roll_one(x, _shift(s), normalize_axis(a, x.ndim, "roll"))
    return x


def matrix_transpose(x: Any) -> Any:
    """``x`` with its last two axes swapped (a stack of matrices transposed)."""
    x = as_tensor_variable(x)
    if x.ndim < 2:
        raise ValueError(
            "matrix_transpose: input must be at least 2-dimensional, "
            f"got {x.ndim}-d {x.type}"
        )
    return swapaxes(x, -1, -2)


__all__ = ["flip", "matrix_transpose", "roll"]

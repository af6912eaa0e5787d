"""Picking elements by index: ``take_along_axis`` (integer-array indexing
with broadcast ``arange`` vectors on the other axes, as PyTensor builds it)
and ``compress`` (``take`` of the nonzero positions)."""

from typing import Any

from oxtensor.tensor._axis import normalize_axis
from oxtensor.tensor._float import is_integral
from oxtensor.tensor.basic import _dim, arange, as_tensor_variable, flatten


def _along(i: int, ndim: int, length: Any) -> Any:
    """``arange(length)`` laid along axis ``i`` of an ``ndim``-d index."""
    return arange(length).dimshuffle(*["x" if j != i else 0 for j in range(ndim)])


def take_along_axis(arr: Any, indices: Any, axis: Any = 0) -> Any:
    """``arr[..., indices, ...]`` matched element by element along ``axis``
    (``None``: over the flattened ``arr``), as NumPy's ``take_along_axis``:
    the other axes of ``indices`` broadcast against ``arr``'s."""
    arr, indices = as_tensor_variable(arr), as_tensor_variable(indices)
    if not indices.dtype.startswith(("int", "uint")):
        raise IndexError(
            f"take_along_axis: `indices` must be an integer array, got {indices.type}"
        )
    if axis is None:
        if indices.ndim != 1:
            raise ValueError(
                "take_along_axis: with axis=None, `indices` must be 1-d, "
                f"got {indices.ndim}-d {indices.type}"
            )
        return flatten(arr)[indices]
    if indices.ndim != arr.ndim:
        raise ValueError(
            "take_along_axis: `indices` and `arr` must have the same number of "
            f"dimensions, got {indices.ndim} and {arr.ndim}"
        )
    ax = normalize_axis(axis, arr.ndim, "take_along_axis")
    index = [
        indices if i == ax else _along(i, arr.ndim, _dim(arr, i))
        for i in range(arr.ndim)
    ]
    return arr[tuple(index)]


def compress(condition: Any, x: Any, axis: Any = None) -> Any:
    """The slices of ``x`` along ``axis`` (``None``: elements of the
    flattened ``x``) where the vector ``condition`` is true."""
    from oxtensor.tensor.nonzero import flatnonzero
    from oxtensor.tensor.subtensor import take

    condition, x = as_tensor_variable(condition), as_tensor_variable(x)
    if condition.ndim != 1:
        raise ValueError(f"compress: condition must be a vector, got {condition.type}")
    if not (is_integral(condition) or condition.dtype.startswith("float")):
        raise TypeError(
            f"compress: condition must be bool or numeric, got {condition.type}"
        )
    return take(x, flatnonzero(condition), axis=axis)


__all__ = ["compress", "take_along_axis"]

"""Diagonals: ``diagonal``, ``diag``, ``trace``, as in ``pytensor.tensor.basic``.

A diagonal is a strided slice of the two axes merged into one: in an
``n`` by ``m`` block, diagonal ``k`` starts at flat position ``k`` (or
``-k * m`` below the main one) and steps by ``m + 1``. So ``diagonal`` is
a ``Reshape`` and a ``Subtensor``, and ``diag`` of a vector a
``set_subtensor`` of that slice in zeros; both get shapes and gradients
from those ops.
"""

import operator
from typing import Any

from oxtensor.tensor._axis import normalize_axis
from oxtensor.tensor.basic import _dim, _reshape_to, as_tensor_variable, zeros


def _offset(offset: Any, name: str) -> int:
    try:
        return operator.index(offset)
    except TypeError:
        raise TypeError(
            f"{name}: offset must be a Python integer, got {offset!r} "
            f"of type {type(offset).__name__}"
        ) from None


def _smaller(a: Any, b: Any) -> Any:
    from oxtensor.tensor.math import minimum

    both_static = isinstance(a, int) and isinstance(b, int)
    return min(a, b) if both_static else minimum(a, b)


def _diagonal_span(n: Any, m: Any, k: int) -> tuple[Any, Any]:
    """Flat start and length of diagonal ``k`` of an ``n`` by ``m`` block."""
    from oxtensor.tensor.math import maximum

    start = k if k >= 0 else -k * m
    length = _smaller(n, m - k) if k >= 0 else _smaller(n + k, m)
    length = max(length, 0) if isinstance(length, int) else maximum(length, 0)
    return start, length


def diagonal(a: Any, offset: Any = 0, axis1: Any = 0, axis2: Any = 1) -> Any:
    """Diagonal ``offset`` of the 2-d blocks spanned by ``axis1`` and
    ``axis2``, as a last axis after the remaining ones (NumPy's rule)."""
    a = as_tensor_variable(a)
    k = _offset(offset, "diagonal")
    ax1 = normalize_axis(axis1, a.ndim, "diagonal")
    ax2 = normalize_axis(axis2, a.ndim, "diagonal")
    if ax1 == ax2:
        raise ValueError(f"diagonal: axis1 and axis2 cannot be the same, got {ax1}")
    rest = [i for i in range(a.ndim) if i not in (ax1, ax2)]
    blocks = a.dimshuffle(*rest, ax1, ax2)
    dims = [_dim(blocks, i) for i in range(blocks.ndim)]
    n, m = dims[-2], dims[-1]
    flat = _reshape_to(blocks, [*dims[:-2], n * m])
    start, length = _diagonal_span(n, m, k)
    index = (slice(None),) * len(rest) + (
        slice(start, start + length * (m + 1), m + 1),
    )
    return flat[index]


def _diag_matrix(v: Any, k: int) -> Any:
    from oxtensor.tensor.subtensor import set_subtensor

    size = _dim(v, 0) + abs(k)
    start, _ = _diagonal_span(size, size, k)
    flat = zeros([size * size], dtype=v.dtype)
    stop = start + _dim(v, 0) * (size + 1)
    filled = set_subtensor(flat[start : stop : size + 1], v)
    return _reshape_to(filled, [size, size])


def diag(v: Any, k: Any = 0) -> Any:
    """A square matrix with the vector ``v`` on diagonal ``k``, or the
    diagonal ``k`` of the matrix ``v``."""
    v = as_tensor_variable(v)
    k = _offset(k, "diag")
    if v.ndim == 1:
        return _diag_matrix(v, k)
    if v.ndim == 2:
        return diagonal(v, k)
    raise ValueError(f"diag: input must be 1- or 2-d, got {v.ndim}-d {v.type}")


def trace(a: Any, offset: Any = 0, axis1: Any = 0, axis2: Any = 1) -> Any:
    """The sum of diagonal ``offset`` (NumPy's ``trace``: integers sum in
    int64 or uint64)."""
    d = diagonal(a, offset, axis1, axis2)
    return d.sum(axis=-1)


__all__ = ["diag", "diagonal", "trace"]

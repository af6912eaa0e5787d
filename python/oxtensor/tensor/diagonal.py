"""Diagonals: ``diagonal``, ``diag``, ``alloc_diag``, ``trace``, as in
``pytensor.tensor.basic``. ``diagonal`` is the core's ``ExtractDiag`` (a
strided view, copied unless ``view=True``) and ``alloc_diag`` its
``AllocDiag``; each is the other's gradient.
"""

import operator
from typing import Any

from oxtensor import _core
from oxtensor.tensor._axis import normalize_axis
from oxtensor.tensor.basic import as_tensor_variable

ExtractDiag = _core.ExtractDiag
AllocDiag = _core.AllocDiag


def _offset(offset: Any, name: str) -> int:
    try:
        return operator.index(offset)
    except TypeError:
        raise TypeError(
            f"{name}: offset must be a Python integer, got {offset!r} "
            f"of type {type(offset).__name__}"
        ) from None


def diagonal(a: Any, offset: Any = 0, axis1: Any = 0, axis2: Any = 1) -> Any:
    """Diagonal ``offset`` of the 2-d blocks spanned by ``axis1`` and
    ``axis2``, as a last axis after the remaining ones (NumPy's rule)."""
    a = as_tensor_variable(a)
    k = _offset(offset, "diagonal")
    ax1 = normalize_axis(axis1, a.ndim, "diagonal")
    ax2 = normalize_axis(axis2, a.ndim, "diagonal")
    return ExtractDiag(k, ax1, ax2)(a)


def alloc_diag(diag: Any, offset: Any = 0, axis1: Any = 0, axis2: Any = 1) -> Any:
    """Zeros with ``diag``'s last axis on diagonal ``offset`` of the blocks
    spanned by ``axis1`` and ``axis2`` of the result (one axis more)."""
    k = _offset(offset, "alloc_diag")
    return AllocDiag(k, int(axis1), int(axis2))(as_tensor_variable(diag))


def diag(v: Any, k: Any = 0) -> Any:
    """A square matrix with the vector ``v`` on diagonal ``k``, or the
    diagonal ``k`` of the matrix ``v``."""
    v = as_tensor_variable(v)
    k = _offset(k, "diag")
    if v.ndim == 1:
        return alloc_diag(v, k)
    if v.ndim == 2:
        return diagonal(v, k)
    raise ValueError(f"Input must be 1- or 2-d. diag got a {v.ndim}-d {v.type}")


def trace(a: Any, offset: Any = 0, axis1: Any = 0, axis2: Any = 1) -> Any:
    """The sum of diagonal ``offset`` (NumPy's ``trace``: integers sum in
    int64 or uint64)."""
    d = diagonal(a, offset, axis1, axis2)
    return d.sum(axis=-1)


__all__ = ["AllocDiag", "ExtractDiag", "alloc_diag", "diag", "diagonal", "trace"]

"""``norm`` of vectors and matrices with NumPy's ``ord``/``axis`` rules,
from reductions of ``abs(x)`` (and singular values for ``ord`` 2, -2 and
``"nuc"``); ``oxtensor.tensor.linalg`` exports it.

With ``axis=None``, a vector or a matrix is normed as NumPy does, and a
stack of matrices (three or more axes) matrix by matrix over its last two
axes, as PyTensor does (NumPy would norm the flattened stack).
"""

import operator
from typing import Any

import numpy as np

from oxtensor.tensor._axis import normalize_axis
from oxtensor.tensor.basic import as_tensor_variable


def _squares(x: Any) -> Any:
    """``|x|²``: ``abs`` only for complex, so that a real ``sqr`` and its
    ``Sum`` run as one fused pass."""
    from oxtensor.tensor.math import abs, sqr

    return sqr(abs(x)) if x.dtype.startswith("complex") else sqr(x)


def _flat_norm(x: Any) -> Any:
    """The 2-norm of all of ``x``: one inner product ``dot(x, x)`` of real
    inputs (NumPy's route; a threaded kernel, ``kernels/linalg/blas/inner.rs``)."""
    from oxtensor.tensor.math import sqrt

    flat = x.reshape((-1,))
    if x.dtype.startswith("complex"):
        return sqrt(_squares(flat).sum())
    return sqrt(flat.dot(flat))


def _vector_norm(x: Any, ord: Any, axis: int, keepdims: bool) -> Any:
    from oxtensor.tensor.math import abs, neq, sqrt

    if ord is None or ord == 2:
        return sqrt(_squares(x).sum(axis=axis, keepdims=keepdims))
    if isinstance(ord, str):
        raise ValueError(f"Invalid norm order {ord!r} for vectors")
    if ord == np.inf:
        return abs(x).max(axis=axis, keepdims=keepdims)
    if ord == -np.inf:
        return abs(x).min(axis=axis, keepdims=keepdims)
    if ord == 0:
        count = neq(x, np.zeros((), dtype=x.dtype)).astype(x.dtype)
        return count.sum(axis=axis, keepdims=keepdims)
    if ord == 1:
        return abs(x).sum(axis=axis, keepdims=keepdims)
    p = np.asarray(ord, dtype=x.dtype)
    return (abs(x) ** p).sum(axis=axis, keepdims=keepdims) ** (1 / p)


def _singular_values(x: Any, row: int, col: int) -> Any:
    """The singular values of the matrices over axes ``(row, col)``, along
    a last axis after the others (a ``Blockwise`` SVD for a stack)."""
    from oxtensor.tensor.linalg import svd

    batch = [a for a in range(x.ndim) if a not in (row, col)]
    return svd(x.dimshuffle(*batch, row, col), compute_uv=False)


def _keep(out: Any, axes: tuple[int, int], ndim: int) -> Any:
    """``out`` with length-1 axes back at ``axes`` (``keepdims``)."""
    src = iter(range(out.ndim))
    return out.dimshuffle(*["x" if i in axes else next(src) for i in range(ndim)])


def _matrix_norm(x: Any, ord: Any, row: int, col: int) -> Any:
    from oxtensor.tensor.math import abs, sqrt

    if ord is None or ord in ("fro", "f"):
        return sqrt(_squares(x).sum(axis=(row, col)))
    if ord == "nuc":
        return _singular_values(x, row, col).sum(axis=-1)
    if ord in (2, -2):
        s = _singular_values(x, row, col)
        return s.max(axis=-1) if ord == 2 else s.min(axis=-1)
    if ord in (1, -1, np.inf, -np.inf):
        summed, kept = (row, col) if ord in (1, -1) else (col, row)
        sums = abs(x).sum(axis=summed)
        kept -= kept > summed
        return sums.max(axis=kept) if ord > 0 else sums.min(axis=kept)
    raise ValueError(f"Invalid norm order for matrices: {ord}")


def _is_axis(axis: Any) -> bool:
    if isinstance(axis, int | np.integer):
        return True
    return isinstance(axis, tuple | list) and all(
        isinstance(a, int | np.integer) for a in axis
    )


def _axes(axis: Any, ndim: int) -> tuple[int, ...]:
    if isinstance(axis, int | np.integer):
        return (normalize_axis(axis, ndim, "norm"),)
    axes = tuple(normalize_axis(operator.index(a), ndim, "norm") for a in axis)
    if len(axes) not in (1, 2) or len(set(axes)) != len(axes):
        raise ValueError(
            f"norm: axis must be one axis or two distinct axes, got {axis!r}"
        )
    return axes


def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:
    """The vector norm over one axis or the matrix norm over two, NumPy's
    ``numpy.linalg.norm`` (integers as float64).

    >>> import numpy as np
    >>> import oxtensor.tensor as ot
    >>> float(ot.linalg.norm(np.array([3.0, 4.0])).eval())
    5.0
    """
    x, keepdims = as_tensor_variable(x), bool(keepdims)
    if not x.dtype.startswith(("float", "complex")):
        x = x.astype("float64")
    if x.ndim == 0:
        raise ValueError(
            "Cannot compute norm when core_dims < 1 or core_dims > 3, "
            "found: core_dims = 0"
        )
    if axis is not None and not _is_axis(axis):
        raise TypeError("'axis' must be None, an integer, or a tuple of integers")
    if axis is None:
        # NumPy's shortcut: these are the 2-norm of the flattened input.
        if x.ndim <= 2 and (
            ord is None
            or (ord in ("fro", "f") and x.ndim == 2)
            or (ord == 2 and x.ndim == 1)
        ):
            flat = _flat_norm(x)
            return flat.dimshuffle(*(["x"] * x.ndim)) if keepdims else flat
        # A stack of matrices: each over the last two axes, as PyTensor.
        axis = tuple(range(x.ndim))[-2:]
    axes = _axes(axis, x.ndim)
    if len(axes) == 1:
        return _vector_norm(x, ord, axes[0], keepdims)
    out = _matrix_norm(x, ord, *axes)
    return _keep(out, axes, x.ndim) if keepdims else out


__all__ = ["norm"]

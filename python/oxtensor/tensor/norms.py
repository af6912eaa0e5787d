"""``norm`` of vectors and matrices with NumPy's ``ord``/``axis`` rules,
from reductions of ``abs(x)`` (and singular values for ``ord`` 2, -2 and
``"nuc"``); ``oxtensor.tensor.linalg`` exports it.

A deliberate difference from PyTensor: ``axis=None`` follows NumPy (the
norm of the flattened input, or of a matrix with ``ord``) where PyTensor
takes the last one or two axes of a stack.
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
        raise ValueError(f"norm: invalid norm order {ord!r} for vectors")
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
    from oxtensor.tensor.linalg import svd

    if x.ndim != 2:
        raise NotImplementedError(
            f"norm: ord 2, -2 and 'nuc' need a single matrix, got {x.type}"
        )
    return svd(x if row < col else x.T, compute_uv=False)


def _keep(out: Any, axes: tuple[int, int], ndim: int) -> Any:
    """``out`` with length-1 axes back at ``axes`` (``keepdims``)."""
    src = iter(range(out.ndim))
    return out.dimshuffle(*["x" if i in axes else next(src) for i in range(ndim)])


def _matrix_norm(x: Any, ord: Any, row: int, col: int) -> Any:
    from oxtensor.tensor.math import abs, sqrt

    if ord is None or ord in ("fro", "f"):
        return sqrt(_squares(x).sum(axis=(row, col)))
    if ord == "nuc":
        return _singular_values(x, row, col).sum()
    if ord in (2, -2):
        s = _singular_values(x, row, col)
        return s.max() if ord == 2 else s.min()
    if ord in (1, -1, np.inf, -np.inf):
        summed, kept = (row, col) if ord in (1, -1) else (col, row)
        sums = abs(x).sum(axis=summed)
        kept -= kept > summed
        return sums.max(axis=kept) if ord > 0 else sums.min(axis=kept)
    raise ValueError(f"norm: invalid norm order {ord!r} for matrices")


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
    if axis is None:
        # NumPy's shortcut: these are the 2-norm of the flattened input.
        if (
            ord is None
            or (ord in ("fro", "f") and x.ndim == 2)
            or (ord == 2 and x.ndim == 1)
        ):
            flat = _flat_norm(x)
            return flat.dimshuffle(*(["x"] * x.ndim)) if keepdims else flat
        if x.ndim not in (1, 2):
            raise ValueError(
                f"norm: ord {ord!r} needs a vector or a matrix, got {x.type}"
            )
        axis = tuple(range(x.ndim))
    axes = _axes(axis, x.ndim)
    if len(axes) == 1:
        return _vector_norm(x, ord, axes[0], keepdims)
    out = _matrix_norm(x, ord, *axes)
    return _keep(out, axes, x.ndim) if keepdims else out


__all__ = ["norm"]

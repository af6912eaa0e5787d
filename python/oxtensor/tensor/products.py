"""Products of vectors, matrices and stacks of them: ``matmul`` (``@``),
``tensordot``, ``outer``, ``vecdot``, ``matvec``, ``vecmat``.

``matmul`` is one native ``Matmul`` node (with ``ExpandDims``/``Squeeze``
around it for vectors and for stacks of unequal rank); the others are
compositions of ``Matmul``, ``Dot``, transposes, reshapes and sums.
"""

from collections.abc import Sequence
from typing import Any

from oxtensor import _core
from oxtensor.tensor.basic import as_tensor_variable

Matmul = _core.Matmul


def matmul(x1: Any, x2: Any, dtype: str | None = None) -> Any:
    """NumPy's ``matmul``: stacks of matrices with broadcast batch axes.

    Examples
    --------
    >>> import oxtensor.tensor as ot
    >>> (ot.tensor3("a") @ ot.matrix("b")).type
    TensorType(float64, shape=(None, None, None))
    """
    out = _core.matmul(x1, x2)
    return out if dtype is None else out.astype(dtype)


def _axes_lists(axes: Any, nd_a: int, nd_b: int) -> tuple[list[int], list[int]]:
    if isinstance(axes, int):
        if axes < 0 or axes > min(nd_a, nd_b):
            raise ValueError(
                f"tensordot: axes={axes} does not fit ranks {nd_a}, {nd_b}"
            )
        return list(range(nd_a - axes, nd_a)), list(range(axes))
    a_axes, b_axes = ([ax] if isinstance(ax, int) else list(ax) for ax in axes)
    if len(a_axes) != len(b_axes):
        raise ValueError(f"tensordot: axes {a_axes} and {b_axes} differ in length")
    return [ax % nd_a for ax in a_axes], [ax % nd_b for ax in b_axes]


def _static_product(shape: Sequence[int | None]) -> int | None:
    total = 1
    for n in shape:
        if n is None:
            return None
        total *= n
    return total


def tensordot(a: Any, b: Any, axes: Any = 2) -> Any:
    """Sum of products over ``axes`` (an int, or a pair of axis lists), as
    ``numpy.tensordot``: through transposes, reshapes and one ``Dot`` when the
    free and contracted lengths are static, else a broadcast product summed.
    """
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    a_axes, b_axes = _axes_lists(axes, a.ndim, b.ndim)
    a_free = [i for i in range(a.ndim) if i not in a_axes]
    b_free = [i for i in range(b.ndim) if i not in b_axes]
    at = a.transpose(*a_free, *a_axes)
    bt = b.transpose(*b_axes, *b_free)
    free_shape = [a.type.shape[i] for i in a_free] + [b.type.shape[i] for i in b_free]
    k = _static_product([a.type.shape[i] for i in a_axes])
    if k is not None and all(n is not None for n in free_shape):
        m = _static_product([a.type.shape[i] for i in a_free])
        n = _static_product([b.type.shape[i] for i in b_free])
        prod = at.reshape((m, k)).dot(bt.reshape((k, n)))
        return prod.reshape(tuple(free_shape))
    nc, na, nb = len(a_axes), len(a_free), len(b_free)
    # a: (free_a, contracted) -> (free_a, 1.., contracted); b likewise.
    ea = at.dimshuffle(*range(na), *(["x"] * nb), *range(na, na + nc))
    eb = bt.dimshuffle(*(["x"] * na), *range(nc, nc + nb), *range(nc))
    summed = list(range(na + nb, na + nb + nc))
    return (ea * eb).sum(axis=summed) if summed else ea * eb


def outer(x: Any, y: Any) -> Any:
    """Outer product of two vectors (higher ranks are flattened first)."""
    x, y = as_tensor_variable(x), as_tensor_variable(y)
    if x.ndim != 1:
        x = x.flatten()
    if y.ndim != 1:
        y = y.flatten()
    return x.dimshuffle(0, "x").dot(y.dimshuffle("x", 0))


def vecdot(x1: Any, x2: Any, dtype: str | None = None) -> Any:
    """Dot product of the last axes, batch axes broadcast."""
    x1, x2 = as_tensor_variable(x1), as_tensor_variable(x2)
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError("vecdot operands cannot be scalars")
    if "complex" in x1.dtype:
        from oxtensor.tensor.math import conj

        x1 = conj(x1)
    return (x1 * x2).sum(axis=-1, dtype=dtype)


def matvec(x1: Any, x2: Any, dtype: str | None = None) -> Any:
    """Matrix-vector product over stacks: ``x1[..., i, :] · x2[..., :]``."""
    x2 = as_tensor_variable(x2)
    col = x2.dimshuffle(*range(x2.ndim), "x")
    out = matmul(x1, col, dtype=dtype)
    return out.dimshuffle(*range(out.ndim - 1))


def vecmat(x1: Any, x2: Any, dtype: str | None = None) -> Any:
    """Vector-matrix product over stacks: ``x1[..., :] · x2[..., :, j]``."""
    x1 = as_tensor_variable(x1)
    row = x1.dimshuffle(*range(x1.ndim - 1), "x", x1.ndim - 1)
    out = matmul(row, x2, dtype=dtype)
    return out.dimshuffle(*range(out.ndim - 2), out.ndim - 1)


__all__ = ["Matmul", "matmul", "matvec", "outer", "tensordot", "vecdot", "vecmat"]

"""Products of vectors, matrices and stacks of them: ``matmul`` (``@``),
``tensordot``, ``outer``, ``vecdot``, ``matvec``, ``vecmat``.

``matmul`` is one native ``Matmul`` node (with ``ExpandDims``/``Squeeze``
around it for vectors and for stacks of unequal rank); the others are
compositions of ``Matmul``, ``Dot``, transposes, reshapes and sums.
"""

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
    if len(axes) != 2:
        raise ValueError(
            f"tensordot: axes must be an int or a pair of axis lists, got {axes!r}"
        )
    a_axes, b_axes = ([ax] if isinstance(ax, int) else list(ax) for ax in axes)
    if len(a_axes) != len(b_axes):
        raise ValueError(f"tensordot: axes {a_axes} and {b_axes} differ in length")
    for side, ax_list, nd in (("first", a_axes, nd_a), ("second", b_axes, nd_b)):
        if len(ax_list) > nd or any(not -nd <= ax < nd for ax in ax_list):
            raise ValueError(
                f"tensordot: axes {ax_list} do not fit the {side} input's rank {nd}"
            )
    return [ax % nd_a for ax in a_axes], [ax % nd_b for ax in b_axes]


def _length(x: Any, i: int) -> Any:
    """Axis ``i``'s length: an int when static, else a graph."""
    n = x.type.shape[i]
    return n if n is not None else x.shape[i]


def _product(lengths: list[Any]) -> Any:
    total: Any = 1
    for n in lengths:
        total = total * n
    return total


def _as_matrix_product(a: Any, b: Any, a_ax: int, b_ax: int) -> Any:
    """``tensordot`` over one axis of inputs of rank 1 or 2: one ``dot``,
    with the contracted axis of ``a`` last and of ``b`` first."""
    if a.ndim == 2 and a_ax == 0:
        a = a.T
    if b.ndim == 2 and b_ax == 1:
        b = b.T
    return a.dot(b)


def tensordot(a: Any, b: Any, axes: Any = 2) -> Any:
    """Sum of products over ``axes`` (an int, or a pair of axis lists), as
    ``numpy.tensordot``. One ``dot`` for vectors and matrices; otherwise
    the contracted axes are moved together, both inputs reshaped to
    matrices, multiplied and the free axes restored. Lengths that differ
    in the types are a ``ValueError`` now; with more than one contracted
    axis, lengths not known to be equal are checked by an ``Assert`` (one
    reshape could hide a mismatch that keeps the product)."""
    from oxtensor.raise_op import Assert
    from oxtensor.tensor.math import eq

    a, b = as_tensor_variable(a), as_tensor_variable(b)
    a_axes, b_axes = _axes_lists(axes, a.ndim, b.ndim)
    unchecked = []
    for i, j in zip(a_axes, b_axes, strict=True):
        sa, sb = a.type.shape[i], b.type.shape[j]
        if sa is not None and sb is not None and sa != sb:
            raise ValueError(
                "Input arrays have inconsistent type shape along the axes that "
                f"are to be reduced with tensordot: {a.type.shape} and {b.type.shape} "
                f"over axes {a_axes} and {b_axes}"
            )
        if sa is None or sb is None:
            unchecked.append((i, j))
    if not a_axes and (a.ndim == 0 or b.ndim == 0):
        return a * b
    if len(a_axes) == 1 and 1 <= a.ndim <= 2 and 1 <= b.ndim <= 2:
        return _as_matrix_product(a, b, a_axes[0], b_axes[0])
    a_free = [i for i in range(a.ndim) if i not in a_axes]
    b_free = [i for i in range(b.ndim) if i not in b_axes]
    if len(a_axes) > 1 and unchecked:
        conds = [eq(a.shape[i], b.shape[j]) for i, j in unchecked]
        message = "Input array shape along reduced axes of tensordot are not equal"
        a = Assert(message)(a, *conds)
    at = a.transpose(*a_free, *a_axes)
    bt = b.transpose(*b_axes, *b_free)
    contracted = _product([_length(a, i) for i in a_axes])
    rows = _product([_length(a, i) for i in a_free])
    cols = _product([_length(b, i) for i in b_free])
    prod = at.reshape((rows, contracted), ndim=2).dot(
        bt.reshape((contracted, cols), ndim=2)
    )
    free = [_length(a, i) for i in a_free] + [_length(b, i) for i in b_free]
    out = prod.reshape(tuple(free), ndim=len(free))
    static = tuple(a.type.shape[i] for i in a_free) + tuple(
        b.type.shape[i] for i in b_free
    )
    if out.type.shape != static and any(n is not None for n in static):
        from oxtensor.tensor.shape import specify_shape

        out = specify_shape(out, static)
    return out


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

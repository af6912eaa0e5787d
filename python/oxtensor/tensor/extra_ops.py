"""NumPy-style helpers built from the core ops: running sums and products
(``CumOp``, ``cumsum``, ``cumprod``), ``diff``, ``repeat`` (the ``Repeat``
op, or an ``Alloc`` and a ``Reshape`` for one count), ``squeeze``,
``broadcast_to``, ``to_one_hot`` and ``bincount`` (the ``Bincount`` op),
under PyTensor's module path."""

import operator
from typing import Any

import numpy as np

from oxtensor import _core
from oxtensor.configdefaults import config as _config
from oxtensor.tensor import _layout
from oxtensor.tensor._axis import normalize_axis
from oxtensor.tensor.basic import (
    _dim,
    _normalize_axis,
    _reshape_to,
    _shape_entries,
    alloc,
    as_tensor_variable,
    flatten,
)
from oxtensor.tensor.counting import Bincount, bincount
from oxtensor.tensor.type import integer_dtypes

Repeat = _core.Repeat
CumOp = _core.CumOp


def repeat(a: Any, repeats: Any, axis: int | None = None) -> Any:
    """Each element of ``a`` repeated along ``axis`` (flattened when None).

    >>> import oxtensor.tensor as ot
    >>> print(ot.repeat(ot.dmatrix("x"), ot.ivector("r"), axis=0).owner.op)
    Repeat{axis=0}
    """
    a = as_tensor_variable(a)
    if axis is None:
        a, axis = flatten(a), 0
    axis = _normalize_axis(axis, a.ndim)
    repeats_arg, repeats = repeats, as_tensor_variable(repeats)
    if repeats.dtype not in integer_dtypes:
        raise TypeError(f"repeats must be integers, got {repeats.type}")
    if repeats.ndim != 0:
        return Repeat(axis)(a, repeats)
    if isinstance(repeats_arg, int | np.integer):
        # A Python count keeps static lengths static, as PyTensor's shape
        # inference sees through its constant.
        repeats = int(repeats_arg)
    dims = [_dim(a, i) for i in range(a.ndim)]
    expanded = a.dimshuffle(*range(axis + 1), "x", *range(axis + 1, a.ndim))
    tiled = alloc(expanded, *dims[: axis + 1], repeats, *dims[axis + 1 :])
    merged = [*dims[:axis], dims[axis] * repeats, *dims[axis + 1 :]]
    return _reshape_to(tiled, merged)


def squeeze(x: Any, axis: Any = None) -> Any:
    """``x`` without length-1 axes (all statically length-1 ones when ``axis``
    is None; named axes are checked when the graph runs)."""
    x = as_tensor_variable(x)
    if axis is None:
        drop = [i for i, n in enumerate(x.type.shape) if n == 1]
    else:
        axes = [axis] if isinstance(axis, int | np.integer) else list(axis)
        drop = sorted(_normalize_axis(int(a), x.ndim) for a in axes)
    if not drop:
        return x
    return x.dimshuffle(*[i for i in range(x.ndim) if i not in drop])


def broadcast_to(x: Any, shape: Any) -> Any:
    """``x`` broadcast to ``shape`` (an ``Alloc``, so a new array)."""
    return alloc(x, *_shape_entries(shape))


def _cumop(x: Any, axis: Any, mode: str) -> Any:
    x = as_tensor_variable(x)
    if axis is None:
        return CumOp(0, mode)(x.reshape((-1,)))
    name = "cumsum" if mode == "add" else "cumprod"
    return CumOp(normalize_axis(axis, x.ndim, name), mode)(x)


def cumsum(x: Any, axis: Any = None) -> Any:
    """The running sum along ``axis`` (``None``: of the flattened input)."""
    return _cumop(x, axis, "add")


def cumprod(x: Any, axis: Any = None) -> Any:
    """The running product along ``axis`` (``None``: of the flattened input)."""
    return _cumop(x, axis, "mul")


def diff(x: Any, n: int = 1, axis: int = -1) -> Any:
    """The ``n``-th discrete difference along ``axis`` (slices subtracted)."""
    x = as_tensor_variable(x)
    axis = normalize_axis(axis, x.ndim, "diff")
    for _ in range(n):
        hi = [slice(None)] * x.ndim
        lo = [slice(None)] * x.ndim
        hi[axis], lo[axis] = slice(1, None), slice(None, -1)
        x = x[tuple(hi)] - x[tuple(lo)]
    return x


def to_one_hot(y: Any, nb_class: int, dtype: Any = None) -> Any:
    """An ``(n, nb_class)`` matrix whose row ``i`` is all zeros but for a one
    in column ``y[i]``; ``dtype`` defaults to floatX (float64). Rows are
    gathered from a constant identity matrix, so labels out of range raise
    ``IndexError`` at run time and negative labels count from the end, as in
    PyTensor's ``set_subtensor`` form."""
    y = _core.as_tensor_variable(y)
    if y.ndim != 1 or not y.dtype.startswith(("int", "uint")):
        raise TypeError(f"to_one_hot needs an integer vector y, got {y.type}")
    try:
        n = operator.index(nb_class)
    except TypeError:
        raise TypeError(
            f"to_one_hot needs a Python int nb_class, got {type(nb_class).__name__}"
        ) from None
    if n < 0:
        raise ValueError(f"to_one_hot needs nb_class >= 0, got {n}")
    dtype = str(np.dtype(_config.floatX if dtype is None else dtype))
    return _core.constant(np.eye(n, dtype=dtype))[y]


__all__ = [
    "Bincount",
    "CumOp",
    "Repeat",
    "bincount",
    "broadcast_to",
    "cumprod",
    "cumsum",
    "diff",
    "repeat",
    "squeeze",
    "to_one_hot",
]

# PyTensor's names for functions defined elsewhere in `oxtensor.tensor`.
__getattr__ = _layout.forwarder(__name__, {"broadcast_arrays", "compress"})

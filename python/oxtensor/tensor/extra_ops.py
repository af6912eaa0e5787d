"""NumPy-style helpers built from the core ops: running sums and products
(``CumOp``, ``cumsum``, ``cumprod``), ``diff``, ``repeat`` (the ``Repeat``
op, or an ``Alloc`` and a ``Reshape`` for one count), ``squeeze``,
``broadcast_to``, ``to_one_hot``, ``bincount`` (the ``Bincount`` op), the
ops ``Bartlett``, ``CpuContiguous``, ``FillDiagonal``,
``FillDiagonalOffset``, ``SearchsortedOp``, ``Unique``, ``UnravelIndex``
and ``RavelMultiIndex`` with their functions, and ``broadcast_shape``,
under PyTensor's module path."""

import operator
from typing import Any

import numpy as np

from oxtensor import _core
from oxtensor.configdefaults import config as _config
from oxtensor.graph.basic import Constant
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
from oxtensor.tensor.broadcast_shape import broadcast_shape
from oxtensor.tensor.counting import Bincount, bincount
from oxtensor.tensor.shape import specify_shape
from oxtensor.tensor.type import integer_dtypes

Repeat = _core.Repeat
CumOp = _core.CumOp
Bartlett = _core.Bartlett
CpuContiguous = _core.CpuContiguous
FillDiagonal = _core.FillDiagonal
FillDiagonalOffset = _core.FillDiagonalOffset
SearchsortedOp = _core.SearchsortedOp
Unique = _core.Unique
UnravelIndex = _core.UnravelIndex
RavelMultiIndex = _core.RavelMultiIndex


def _one_count(repeats_arg: Any, repeats: Any) -> Any:
    """The single count a vector of repeats amounts to, or None: a constant
    whose entries are all equal (a Python int when known), or the entry of
    a vector of static length 1."""
    if isinstance(repeats, Constant) or not isinstance(repeats_arg, _core.Variable):
        values = np.asarray(
            repeats.data if isinstance(repeats, Constant) else repeats_arg
        )
        if values.size > 0 and (values == values.flat[0]).all():
            return int(values.flat[0])
        return None
    if repeats.type.shape == (1,):
        return repeats[0]
    return None


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
    if repeats.dtype == "uint64":
        # NumPy counts in intp: uint64 counts do not convert without loss.
        raise TypeError(
            f"repeats of dtype uint64 cannot be cast to int64, got {repeats.type}"
        )
    if repeats.ndim > 1:
        raise ValueError(f"repeats must be a scalar or a vector, got {repeats.type}")
    if repeats.ndim == 1:
        one = _one_count(repeats_arg, repeats)
        if one is None:
            return Repeat(axis)(a, repeats)
        repeats_arg, repeats = one, as_tensor_variable(one)
    if isinstance(repeats_arg, int | np.integer):
        # A Python count keeps static lengths static, as PyTensor's shape
        # inference sees through its constant.
        repeats = int(repeats_arg)
    dims = [_dim(a, i) for i in range(a.ndim)]
    expanded = a.dimshuffle(*range(axis + 1), "x", *range(axis + 1, a.ndim))
    tiled = alloc(expanded, *dims[: axis + 1], repeats, *dims[axis + 1 :])
    merged = [*dims[:axis], dims[axis] * repeats, *dims[axis + 1 :]]
    out = _reshape_to(tiled, merged)
    static = tuple(d if isinstance(d, int) else None for d in merged)
    if static != out.type.shape:
        out = specify_shape(out, static)
    return out


def squeeze(x: Any, axis: Any = None) -> Any:
    """``x`` without length-1 axes (all statically length-1 ones when ``axis``
    is None; named axes are checked when the graph runs)."""
    x = as_tensor_variable(x)
    if axis is None:
        drop = [i for i, n in enumerate(x.type.shape) if n == 1]
    else:
        axes = [axis] if isinstance(axis, int | np.integer) else list(axis)
        if x.ndim == 0:
            # NumPy lets a 0-d array "squeeze" axis 0 (or -1), and nothing else.
            if any(int(a) not in (0, -1) for a in axes):
                raise np.exceptions.AxisError(
                    f"axis {tuple(axes)} is out of bounds for array of dimension 0"
                )
            return x
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


def bartlett(M: Any) -> Any:
    """The Bartlett window of ``M`` points (float64; empty for ``M <= 0``).

    >>> import oxtensor.tensor as ot
    >>> ot.bartlett(5).eval()
    array([0. , 0.5, 1. , 0.5, 0. ])
    """
    return Bartlett()(M)


def cpu_contiguous(x: Any) -> Any:
    """``x`` as a C-contiguous array (itself when it already is)."""
    return CpuContiguous()(x)


def _fill_value(a: Any, val: Any) -> Any:
    """``val`` as a tensor; a Python number becomes a constant of ``a``'s
    dtype, as NumPy's assignment into ``a`` converts it."""
    if isinstance(val, int | float | np.number):
        return _core.constant(np.asarray(val, dtype=a.dtype))
    return as_tensor_variable(val)


def fill_diagonal(a: Any, val: Any) -> Any:
    """``a`` (at least 2-d) with ``val`` on its main diagonal ``a[i, ..., i]``.

    >>> import numpy as np, oxtensor.tensor as ot
    >>> ot.fill_diagonal(np.zeros((2, 3)), 5.0).eval()
    array([[5., 0., 0.],
           [0., 5., 0.]])
    """
    a = as_tensor_variable(a)
    return FillDiagonal()(a, _fill_value(a, val))


def fill_diagonal_offset(a: Any, val: Any, offset: Any) -> Any:
    """The matrix ``a`` with ``val`` on the diagonal ``offset`` places
    right of the main one (left when negative)."""
    a = as_tensor_variable(a)
    return FillDiagonalOffset()(a, _fill_value(a, val), offset)


def searchsorted(x: Any, v: Any, side: str = "left", sorter: Any = None) -> Any:
    """Where each value of ``v`` would go in the sorted vector ``x`` (or
    ``x[sorter]``) to keep it sorted: int64 indices in ``v``'s shape.

    >>> import oxtensor.tensor as ot
    >>> ot.searchsorted([1.0, 2.0, 3.0], [2.5, 0.0]).eval()
    array([2, 0])
    """
    op = SearchsortedOp(side)
    if sorter is None:
        return op(x, v)
    return op(x, v, sorter)


def unique(
    ar: Any,
    return_index: bool = False,
    return_inverse: bool = False,
    return_counts: bool = False,
    axis: Any = None,
) -> Any:
    """The sorted distinct elements of ``ar`` (slices along ``axis``), and as
    asked the index of each first occurrence, the inverse (flat, as in NumPy
    1) and the counts; a list when more than one output is asked for."""
    ar = as_tensor_variable(ar)
    if axis is not None:
        axis = normalize_axis(axis, ar.ndim, "unique")
    return Unique(return_index, return_inverse, return_counts, axis)(ar)


def unravel_index(indices: Any, dims: Any, order: str = "C") -> tuple[Any, ...]:
    """NumPy's ``unravel_index``: one int64 coordinate array per entry of
    ``dims`` (whose length must be known statically), each in ``indices``'
    shape.

    >>> import oxtensor.tensor as ot
    >>> [c.eval() for c in ot.unravel_index(22, (3, 4, 5))]
    [array(1), array(0), array(2)]
    """
    out = UnravelIndex(order)(indices, dims)
    return tuple(out) if isinstance(out, list | tuple) else (out,)


def ravel_multi_index(
    multi_index: Any, dims: Any, mode: str = "raise", order: str = "C"
) -> Any:
    """NumPy's ``ravel_multi_index``: the flat positions of the coordinate
    arrays ``multi_index`` (one per entry of ``dims``), int64.

    >>> import oxtensor.tensor as ot
    >>> ot.ravel_multi_index(([1, 2], [0, 3]), (3, 4)).eval()
    array([ 4, 11])
    """
    if not isinstance(multi_index, tuple | list):
        raise TypeError(
            f"multi_index must be a tuple or a list, got {type(multi_index).__name__}"
        )
    return RavelMultiIndex(mode, order)(*multi_index, dims)


def concat_with_broadcast(tensor_list: Any, axis: int = 0) -> Any:
    """The tensors joined along ``axis`` after broadcasting them against
    each other on every other axis.

    >>> import oxtensor.tensor as ot
    >>> a, b = ot.tensor("a", shape=(1, 2)), ot.tensor("b", shape=(3, 4))
    >>> ot.concat_with_broadcast([a, b], axis=1).type.shape
    (3, 6)
    """
    from oxtensor.tensor.basic import join
    from oxtensor.tensor.broadcast_shape import array_shape

    if not tensor_list:
        raise ValueError("Cannot concatenate an empty list of tensors.")
    tensors = [as_tensor_variable(t) for t in tensor_list]
    ndim = tensors[0].ndim
    if any(t.ndim != ndim for t in tensors):
        raise TypeError(
            "Only tensors with the same number of dimensions can be concatenated. "
            f"Got ranks {[t.ndim for t in tensors]}."
        )
    axis = normalize_axis(axis, ndim, "concat_with_broadcast")
    shapes = [list(array_shape(t)) for t in tensors]
    for shape in shapes:
        shape[axis] = 1
    common = list(broadcast_shape(*shapes, arrays_are_shapes=True))
    spread = []
    for t, own in zip(tensors, (array_shape(t) for t in tensors), strict=True):
        common[axis] = own[axis]
        spread.append(broadcast_to(t, tuple(common)))
    return join(axis, *spread)


__all__ = [
    "Bartlett",
    "Bincount",
    "CpuContiguous",
    "CumOp",
    "FillDiagonal",
    "FillDiagonalOffset",
    "RavelMultiIndex",
    "Repeat",
    "SearchsortedOp",
    "Unique",
    "UnravelIndex",
    "bartlett",
    "bincount",
    "broadcast_shape",
    "broadcast_to",
    "concat_with_broadcast",
    "cpu_contiguous",
    "cumprod",
    "cumsum",
    "diff",
    "fill_diagonal",
    "fill_diagonal_offset",
    "ravel_multi_index",
    "repeat",
    "searchsorted",
    "squeeze",
    "to_one_hot",
    "unique",
    "unravel_index",
]

# PyTensor's names for functions defined elsewhere in `oxtensor.tensor`.
__getattr__ = _layout.forwarder(__name__, {"broadcast_arrays", "compress"})

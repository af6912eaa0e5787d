"""Indexing: ``x[...]``, ``set_subtensor``, ``inc_subtensor``, ``take``.

The ops are built in (``oxtensor._core``), and so is the parser of index
expressions (``oxtensor_core::build::numpy_index``), which follows NumPy's
and PyTensor's rules: ``None`` inserts axes (an ``ExpandDims`` first), one
``Ellipsis`` stands for the missing full slices, integers and slices give a
``Subtensor`` (a view), and integer or boolean arrays an ``AdvancedSubtensor``.

>>> import oxtensor.tensor as ot
>>> x = ot.dmatrix("x")
>>> x[1, ::2].owner.op
Subtensor(idx_list=(0, slice(None, None, 1)))
>>> print(ot.set_subtensor(x[0], 5.0).owner.op)
SetSubtensor{i}
"""

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from oxtensor import _core
from oxtensor.graph.basic import Constant, Variable

Subtensor = _core.Subtensor
IncSubtensor = _core.IncSubtensor
AdvancedSubtensor1 = _core.AdvancedSubtensor1
AdvancedIncSubtensor1 = _core.AdvancedIncSubtensor1
AdvancedSubtensor = _core.AdvancedSubtensor
AdvancedIncSubtensor = _core.AdvancedIncSubtensor

_NO_ITERATION = (
    "TensorType does not support iteration.\n"
    "\tDid you try to unpack a Variable or used a function that expects a list?"
)


def basic_subtensor(x: Any, *args: Any) -> Any:
    """``x[args]`` for integers and slices: a ``Subtensor``, a view of ``x``."""
    return _core.getitem(x, args, "basic")


def advanced_subtensor(x: Any, *args: Any) -> Any:
    """``x[args]`` with integer or boolean arrays: an ``AdvancedSubtensor``."""
    return _core.getitem(x, args, "advanced")


def _iter(x: Any) -> Iterator[Any]:
    """Iteration over a tensor whose first length is static."""
    length = x.type.shape[0] if x.ndim > 0 else None
    if length is None:
        raise TypeError(_NO_ITERATION)
    return iter([x[i] for i in range(length)])


def inc_subtensor(
    x: Any,
    y: Any,
    inplace: bool = False,
    set_instead_of_inc: bool = False,
    tolerate_inplace_aliasing: bool = False,
    ignore_duplicates: bool = False,
) -> Any:
    """``x`` with ``x[idx]`` incremented by ``y``; ``x`` must be ``t[idx]``.

    The result is a new tensor: the tensor indexed is never modified.
    Repeated indices accumulate (as ``np.add.at``).

    >>> import numpy as np, oxtensor, oxtensor.tensor as ot
    >>> x, v = ot.dvector("x"), ot.lvector("v")
    >>> f = oxtensor.function([x, v], ot.inc_subtensor(x[v], 1.0))
    >>> f(np.zeros(3), np.array([0, 0, 2]))
    array([2., 0., 1.])
    """
    del tolerate_inplace_aliasing
    return _core.inc_subtensor(x, y, inplace, set_instead_of_inc, ignore_duplicates)


def set_subtensor(
    x: Any, y: Any, inplace: bool = False, tolerate_inplace_aliasing: bool = False
) -> Any:
    """``x`` with ``x[idx]`` set to ``y``; ``x`` must be ``t[idx]``.

    With repeated indices the last value wins.
    """
    return inc_subtensor(
        x,
        y,
        inplace,
        set_instead_of_inc=True,
        tolerate_inplace_aliasing=tolerate_inplace_aliasing,
    )


def advanced_subtensor1(x: Any, ilist: Any) -> Any:
    """``x[ilist]`` for one integer vector on axis 0 (``AdvancedSubtensor1``)."""
    return AdvancedSubtensor1()(x, ilist)


#: ``advanced_inc_subtensor1(x, y, ilist)``: ``inc_subtensor(x[ilist], y)``;
#: the op itself, as in PyTensor.
advanced_inc_subtensor1 = AdvancedIncSubtensor1()
#: ``advanced_set_subtensor1(x, y, ilist)``: ``set_subtensor(x[ilist], y)``.
advanced_set_subtensor1 = AdvancedIncSubtensor1(set_instead_of_inc=True)


def advanced_inc_subtensor(
    x: Any,
    y: Any,
    *args: Any,
    set_instead_of_inc: bool = False,
    ignore_duplicates: bool = False,
    inplace: bool = False,
) -> Any:
    """``inc_subtensor(x[args], y)`` (``set_subtensor`` with
    ``set_instead_of_inc``) for an advanced index."""
    return inc_subtensor(
        advanced_subtensor(x, *args),
        y,
        inplace=inplace,
        set_instead_of_inc=set_instead_of_inc,
        ignore_duplicates=ignore_duplicates,
    )


def advanced_set_subtensor(x: Any, y: Any, *args: Any, **kwargs: Any) -> Any:
    """``set_subtensor(x[args], y)`` for an advanced index."""
    return advanced_inc_subtensor(x, y, *args, set_instead_of_inc=True, **kwargs)


def take(a: Any, indices: Any, axis: int | None = None, mode: str = "raise") -> Any:
    """Elements of ``a`` at ``indices`` along ``axis`` (all of ``a`` flattened
    if None). ``mode``: ``"raise"`` (or None) refuses out-of-bounds indices,
    ``"wrap"`` takes them modulo the length, ``"clip"`` clips them into it.

    >>> import numpy as np, oxtensor.tensor as ot
    >>> ot.take(ot.constant(np.arange(6.0).reshape(2, 3)), [2, 0], axis=1).eval()
    array([[2., 0.],
           [5., 3.]])
    """
    if mode is None or mode == "raise":
        return _core.take(a, indices, axis)
    if mode not in ("wrap", "clip"):
        raise ValueError(f"take: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    from oxtensor.tensor.basic import as_tensor_variable
    from oxtensor.tensor.math import clip

    a, indices = as_tensor_variable(a), as_tensor_variable(indices)
    n = a.size if axis is None else a.shape[axis]
    # NumPy's modes: indices taken modulo the length, or clipped into it.
    indices = indices % n if mode == "wrap" else clip(indices, 0, n - 1)
    return _core.take(a, indices, axis)


def _is_provably_positive(var: Any, strict: bool = True) -> bool:
    """Whether the graph of ``var`` proves every element ``> 0`` (``>= 0``
    when not ``strict``): constants by value, unsigned dtypes and shapes as
    ``>= 0``, ``minimum``/``maximum``/``add``/``mul``/casts by their inputs."""
    from oxtensor.tensor.basic import as_tensor_variable

    sign = _core.proven_sign(as_tensor_variable(var))
    return sign == "positive" or (not strict and sign == "non_negative")


def _is_provably_non_negative(var: Any) -> bool:
    """Whether the graph of ``var`` proves every element ``>= 0``."""
    return _is_provably_positive(var, strict=False)


def _literal(value: Any) -> Any:
    from oxtensor.tensor.basic import get_underlying_scalar_constant_value

    if isinstance(value, Variable):
        return int(get_underlying_scalar_constant_value(value))
    return value


def as_index_literal(idx: Any) -> Any:
    """An index entry with its constant variables replaced by their values
    (``slice(None, as_tensor(1))`` is ``slice(None, 1)``); a variable that is
    no constant raises ``NotScalarConstantError``."""
    if idx is None or idx is np.newaxis:
        return idx
    if isinstance(idx, slice):
        return slice(_literal(idx.start), _literal(idx.stop), _literal(idx.step))
    return _literal(idx)


def _unsupported_index(theslice: Any) -> bool:
    """Neither a slice nor an integer scalar (``None``, ``NoneConst``, arrays)."""
    if isinstance(theslice, bool):
        return True
    if isinstance(theslice, int | np.integer):
        return False
    if not isinstance(theslice, Variable):
        return True
    dtype = getattr(theslice.type, "dtype", None)
    ndim = getattr(theslice.type, "ndim", 0)
    return dtype is None or ndim != 0 or np.dtype(dtype).kind not in "iu"


def get_canonical_form_slice(theslice: Any, length: Any) -> tuple[Any, Any]:
    """``(canonical, direction)``: a slice with non-negative bounds and a
    positive step such that ``x[theslice] == x[canonical][::direction]`` on
    an axis of ``length``, or an integer index made non-negative (direction
    1). ``direction`` is an int when the step is a constant.

    >>> import oxtensor.tensor as ot
    >>> get_canonical_form_slice(slice(None, None, -1), 10)[1]
    -1
    """
    from oxtensor.tensor.basic import (
        as_tensor_variable,
        get_underlying_scalar_constant_value,
    )
    from oxtensor.tensor.math import lt, switch

    def as_tensor(value: Any) -> Any:
        # A scalar constant (`as_scalar(0)`) as a tensor constant, so that
        # it folds like one (`as_tensor_variable` gives a node reading it).
        if isinstance(value, Constant) and isinstance(value.type, _core.ScalarType):
            return as_tensor_variable(value.data)
        return as_tensor_variable(value)

    if isinstance(theslice, slice):
        parts = (theslice.start, theslice.stop, theslice.step)
        bounds = [None if b is None else as_tensor(b) for b in parts]
        start, stop, step, direction = _core.canonical_slice(as_tensor(length), *bounds)
        return slice(start, stop, step), direction
    if _unsupported_index(theslice):
        raise ValueError(f"Slice {theslice} is not a supported slice type.")
    idx = as_tensor(theslice)
    if isinstance(idx, Constant):
        value = int(get_underlying_scalar_constant_value(idx))
        if value >= 0:
            return (theslice if theslice is idx else value), 1
        return idx + length, 1
    return switch(lt(idx, 0), idx + length, idx), 1


def slice_at_axis(sl: slice, axis: int) -> tuple[Any, ...]:
    """The index tuple applying ``sl`` along ``axis`` only (NumPy's helper):
    ``x[slice_at_axis(slice(None, 1), -2)]`` is ``x[..., :1, :]``."""
    if axis >= 0:
        return (slice(None),) * axis + (sl,) + (...,)
    return (..., sl) + (slice(None),) * (-1 - axis)


def flip(arr: Any, axis: int | Sequence[int] | None = None) -> Any:
    """``arr`` reversed along ``axis`` (all axes when None), as ``np.flip``;
    a view (``arr[::-1]`` per axis)."""
    from numpy.lib.array_utils import normalize_axis_tuple

    from oxtensor.tensor.basic import as_tensor_variable

    arr = as_tensor_variable(arr)
    axes = range(arr.ndim) if axis is None else normalize_axis_tuple(axis, arr.ndim)
    index = tuple(
        slice(None, None, -1) if i in axes else slice(None) for i in range(arr.ndim)
    )
    return arr[index]


def _shape_entries(shape: Any) -> list[Any]:
    from oxtensor.tensor.basic import get_vector_length

    if isinstance(shape, tuple | list):
        return list(shape)
    return [shape[i] for i in range(get_vector_length(shape))]


def indexed_result_shape(
    array_shape: Any, indices: Sequence[Any], indices_are_shapes: bool = False
) -> tuple[Any, ...]:
    """The shape of ``x[indices]`` for an ``x`` of ``array_shape``, as
    scalar graphs from the indexing op's own shape rule. With
    ``indices_are_shapes``, array indices are given by their shapes."""
    from oxtensor.tensor.type import tensor

    dims = _shape_entries(array_shape)
    x = tensor(dtype="float64", shape=(None,) * len(dims))
    given: dict[Any, list[Any]] = {x: dims}
    index = []
    for i in indices:
        if indices_are_shapes and isinstance(i, tuple | list):
            i_var = tensor(dtype="int64", shape=(None,) * len(i))
            given[i_var] = list(i)
            i = i_var
        index.append(i)
    node = x[tuple(index)].owner
    shapes = [
        given.get(v, [v.shape[k] for k in range(getattr(v.type, "ndim", 0))])
        for v in node.inputs
    ]
    return tuple(node.op.infer_shape(node, shapes)[0])


def basic_shape(shape: Any, indices: Sequence[Any]) -> tuple[Any, ...]:
    """The lengths that basic ``indices`` (slices and ``None``) give the
    axes they index of a tensor of ``shape``: a slice's length, 1 for ``None``."""
    from oxtensor.tensor.basic import as_tensor_variable

    dims = _shape_entries(shape)
    out = []
    for idx, n in zip(indices, dims, strict=False):
        if idx is None:
            out.append(as_tensor_variable(1))
        elif isinstance(idx, slice):
            out.append(indexed_result_shape((n,), [idx])[0])
        else:
            raise TypeError(f"basic_shape takes slices and None, got {idx!r}")
    return tuple(out)


__all__ = [
    "AdvancedIncSubtensor",
    "AdvancedIncSubtensor1",
    "AdvancedSubtensor",
    "AdvancedSubtensor1",
    "IncSubtensor",
    "Subtensor",
    "_is_provably_non_negative",
    "_is_provably_positive",
    "advanced_inc_subtensor",
    "advanced_inc_subtensor1",
    "advanced_set_subtensor",
    "advanced_set_subtensor1",
    "advanced_subtensor",
    "advanced_subtensor1",
    "as_index_literal",
    "basic_shape",
    "basic_subtensor",
    "flip",
    "get_canonical_form_slice",
    "inc_subtensor",
    "indexed_result_shape",
    "set_subtensor",
    "slice_at_axis",
    "take",
]

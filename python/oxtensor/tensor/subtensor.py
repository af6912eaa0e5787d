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

from collections.abc import Iterator
from typing import Any

from oxtensor import _core

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


def advanced_inc_subtensor1(x: Any, y: Any, ilist: Any) -> Any:
    """``inc_subtensor(x[ilist], y)`` as an ``AdvancedIncSubtensor1``."""
    return AdvancedIncSubtensor1()(x, y, ilist)


def advanced_set_subtensor1(x: Any, y: Any, ilist: Any) -> Any:
    """``set_subtensor(x[ilist], y)`` as an ``AdvancedIncSubtensor1``."""
    return AdvancedIncSubtensor1(set_instead_of_inc=True)(x, y, ilist)


def advanced_inc_subtensor(x: Any, y: Any, *args: Any) -> Any:
    """``inc_subtensor(x[args], y)`` for an advanced index."""
    return inc_subtensor(advanced_subtensor(x, *args), y)


def advanced_set_subtensor(x: Any, y: Any, *args: Any) -> Any:
    """``set_subtensor(x[args], y)`` for an advanced index."""
    return set_subtensor(advanced_subtensor(x, *args), y)


def take(a: Any, indices: Any, axis: int | None = None, mode: str = "raise") -> Any:
    """Elements of ``a`` at ``indices`` along ``axis`` (all of ``a`` flattened if None).

    >>> import numpy as np, oxtensor.tensor as ot
    >>> ot.take(ot.constant(np.arange(6.0).reshape(2, 3)), [2, 0], axis=1).eval()
    array([[2., 0.],
           [5., 3.]])
    """
    if mode != "raise":
        raise NotImplementedError(f"not supported: take(mode={mode!r}); only 'raise'")
    return _core.take(a, indices, axis)


__all__ = [
    "AdvancedIncSubtensor",
    "AdvancedIncSubtensor1",
    "AdvancedSubtensor",
    "AdvancedSubtensor1",
    "IncSubtensor",
    "Subtensor",
    "advanced_inc_subtensor",
    "advanced_inc_subtensor1",
    "advanced_set_subtensor",
    "advanced_set_subtensor1",
    "advanced_subtensor",
    "advanced_subtensor1",
    "basic_subtensor",
    "inc_subtensor",
    "set_subtensor",
    "take",
]

"""Indexing: ``x[...]``, ``set_subtensor``, ``inc_subtensor``, ``take``.

The ops are built in (``oxtensor._core``); this module turns Python index
expressions into their ``idx_list`` and index inputs, following NumPy's and
PyTensor's rules: ``None`` inserts axes (an ``ExpandDims`` first), one
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

import numpy as np

from oxtensor import _core
from oxtensor.graph.basic import Variable
from oxtensor.tensor.basic import as_tensor_variable, constant

Subtensor = _core.Subtensor
IncSubtensor = _core.IncSubtensor
AdvancedSubtensor1 = _core.AdvancedSubtensor1
AdvancedIncSubtensor1 = _core.AdvancedIncSubtensor1
AdvancedSubtensor = _core.AdvancedSubtensor
AdvancedIncSubtensor = _core.AdvancedIncSubtensor

_PYTHON_BOOLS = (
    "TensorType does not support Python bools for indexing, such as "
    "tensor[[True, False]]. To use a boolean mask, convert the mask to a NumPy "
    "array first, e.g., tensor[numpy.array([True, False])]."
)
_NO_ITERATION = (
    "TensorType does not support iteration.\n"
    "\tDid you try to unpack a Variable or used a function that expects a list?"
)


def _is_bool_array(a: Any) -> bool:
    return isinstance(a, np.ndarray | Variable) and str(a.dtype) == "bool"


def _has_python_bool(a: Any) -> bool:
    if isinstance(a, bool | np.bool_):
        return True
    if isinstance(a, list | tuple):
        return any(_has_python_bool(e) for e in a)
    return False


def _consumed(args: tuple[Any, ...]) -> int:
    """How many axes of the indexed tensor ``args`` use up."""
    count = 0
    for a in args:
        if a is None or a is Ellipsis:
            continue
        if _is_bool_array(a):
            count += a.ndim
            continue
        if _has_python_bool(a):
            raise TypeError(_PYTHON_BOOLS)
        count += 1
    return count


def _expand_ellipsis(x: Any, args: tuple[Any, ...]) -> tuple[Any, ...]:
    consumed = _consumed(args)
    if consumed > x.ndim:
        raise IndexError(
            f"too many indices for tensor: tensor is {x.ndim}-dimensional, "
            f"but {consumed} were indexed"
        )
    ellipses = [i for i, a in enumerate(args) if a is Ellipsis]
    if len(ellipses) > 1:
        raise IndexError("an index can only have a single Ellipsis (`...`)")
    if not ellipses:
        return args
    k = ellipses[0]
    return (*args[:k], *[slice(None)] * (x.ndim - consumed), *args[k + 1 :])


def _expand_newaxes(x: Any, args: tuple[Any, ...]) -> tuple[Any, tuple[Any, ...]]:
    """Inserts the ``None`` axes with ``ExpandDims``; they become full slices."""
    axes, rest, used = [], [], 0
    for a in args:
        if a is None:
            axes.append(used + len(axes))
            rest.append(slice(None))
        else:
            rest.append(a)
            used += a.ndim if _is_bool_array(a) else 1
    ndim = x.ndim + len(axes)
    source = iter(range(x.ndim))
    order = ["x" if d in axes else next(source) for d in range(ndim)]
    return x.dimshuffle(order), tuple(rest)


def _is_full_slice(a: Any) -> bool:
    return (
        isinstance(a, slice) and a.start is None and a.stop is None and a.step is None
    )


def _is_basic(a: Any) -> bool:
    if isinstance(a, slice | int | float | np.number):
        return True
    return getattr(a, "ndim", None) == 0 and str(a.dtype) != "bool"


def _scalar_index(v: Any) -> Any:
    """A 0-d integer variable for an integer or a slice bound."""
    if not isinstance(v, Variable):
        if isinstance(v, float | np.floating) or not isinstance(
            v, int | np.integer | np.ndarray
        ):
            raise TypeError("basic indices must be integers")
        v = constant(np.asarray(v).item() if isinstance(v, np.ndarray) else int(v))
    if v.ndim != 0 or not str(v.dtype).startswith(("int", "uint")):
        raise TypeError("basic indices must be integers")
    return v


def _slice_entry(s: slice, inputs: list[Any]) -> slice:
    def bound(b: Any) -> int | None:
        if b is None:
            return None
        inputs.append(_scalar_index(b))
        return len(inputs) - 1

    start = bound(s.start)
    stop = bound(s.stop)
    return slice(start, stop, bound(s.step))


def basic_subtensor(x: Any, *args: Any) -> Any:
    """``x[args]`` for integers and slices: a ``Subtensor``, a view of ``x``."""
    idx_list: list[Any] = []
    inputs: list[Any] = []
    for a in args:
        if isinstance(a, slice):
            idx_list.append(_slice_entry(a, inputs))
        else:
            inputs.append(_scalar_index(a))
            idx_list.append(len(inputs) - 1)
    return Subtensor(tuple(idx_list))(x, *inputs)


def advanced_subtensor(x: Any, *args: Any) -> Any:
    """``x[args]`` with integer or boolean arrays: an ``AdvancedSubtensor``."""
    idx_list: list[Any] = []
    inputs: list[Any] = []
    for a in args:
        if isinstance(a, slice):
            idx_list.append(_slice_entry(a, inputs))
            continue
        v = as_tensor_variable(a)
        if not str(v.dtype).startswith(("int", "uint", "bool")):
            raise TypeError("index must be integers or a boolean mask")
        inputs.append(v)
        idx_list.append(len(inputs) - 1)
    return AdvancedSubtensor(tuple(idx_list))(x, *inputs)


def _getitem(x: Any, args: Any) -> Any:
    """``x[args]``, what ``TensorVariable.__getitem__`` calls."""
    if not isinstance(args, tuple):
        args = (args,)
    args = _expand_ellipsis(x, args)
    if any(a is None for a in args):
        expanded, rest = _expand_newaxes(x, args)
        if all(_is_full_slice(a) for a in rest):
            return expanded
        return expanded[rest]
    args = tuple(
        np.array(a, dtype=np.uint8)
        if isinstance(a, list | tuple) and len(a) == 0
        else a
        for a in args
    )
    if all(_is_basic(a) for a in args):
        return basic_subtensor(x, *args)
    return advanced_subtensor(x, *args)


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
    x, y = as_tensor_variable(x), as_tensor_variable(y)
    if y.ndim > x.ndim:
        raise TypeError(
            f"Trying to increment a {x.ndim}-dimensional subtensor with a "
            f"{y.ndim}-dimensional value."
        )
    node = x.owner
    op = None if node is None else node.op
    if isinstance(op, Subtensor):
        new = IncSubtensor(op.idx_list, inplace, set_instead_of_inc)
    elif isinstance(op, AdvancedSubtensor1):
        new = AdvancedIncSubtensor1(inplace, set_instead_of_inc)
    elif isinstance(op, AdvancedSubtensor):
        new = AdvancedIncSubtensor(
            op.idx_list, inplace, set_instead_of_inc, ignore_duplicates
        )
    else:
        raise TypeError("x must be the result of a subtensor operation")
    real_x, *idx = node.inputs
    return new(real_x, y, *idx)


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
    a = as_tensor_variable(a)
    indices = as_tensor_variable(indices)
    if axis is None:
        return a.flatten()[indices]
    if not -a.ndim <= axis < a.ndim:
        raise ValueError(f"axis {axis} is out of bounds for a {a.ndim}-d tensor")
    axis %= a.ndim
    return a[(*[slice(None)] * axis, indices)]


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

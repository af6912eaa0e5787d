"""Shape ops: `Shape`, `Shape_i`, `Reshape`."""

from typing import Any

import numpy as np

from oxtensor import _core
from oxtensor.tensor import _layout
from oxtensor.tensor.basic import as_tensor_variable

Shape = _core.Shape
Shape_i = _core.Shape_i
Reshape = _core.Reshape


def shape(x: Any) -> Any:
    """The symbolic shape of ``x`` (an int64 vector)."""
    return as_tensor_variable(x).shape


def shape_i(x: Any, i: int) -> Any:
    """The length of axis ``i`` of ``x``."""
    return Shape_i(i)(as_tensor_variable(x))


def reshape(x: Any, newshape: Any, ndim: int | None = None) -> Any:
    """``x`` with a new shape (one entry may be -1); an integer scalar
    ``newshape`` is the one length of a vector, as in PyTensor."""
    from oxtensor.graph.basic import Variable

    if isinstance(newshape, Variable) and getattr(newshape, "ndim", None) == 0:
        newshape = as_tensor_variable(newshape, ndim=1)
    return as_tensor_variable(x).reshape(newshape, ndim=ndim)


SpecifyShape = _core.SpecifyShape

_shape_i_make_node = Shape_i.make_node
_specify_shape_make_node = SpecifyShape.make_node


def _shape_i_node(self: Any, x: Any) -> Any:
    """Refuses data that is not a variable, as PyTensor's `Shape_i`."""
    from oxtensor.graph.basic import Variable

    if not (isinstance(x, Variable) and hasattr(x.type, "ndim")):
        raise TypeError(
            f"{x!r} must be a Variable with a Type having an ndim attribute"
        )
    return _shape_i_make_node(self, x)


def _specify_shape_node(self: Any, x: Any, *shape: Any) -> Any:
    """The node on ``x`` and one length per axis, where ``None`` or
    ``NoneConst`` (PyTensor's unspecified length) is the constant ``-1``."""
    return _specify_shape_make_node(self, x, *[-1 if _unknown(s) else s for s in shape])


Shape_i.make_node = _shape_i_node
SpecifyShape.make_node = _specify_shape_node


def specify_shape(x: Any, shape: Any) -> Any:
    """``x`` with its static shape refined to ``shape`` (``None``: unknown),
    checked when the graph runs (`AssertionError` on a mismatch). ``shape``
    is a sequence of lengths (ints, integer scalars or ``None``) with at
    most one ``...`` standing for unknown lengths, an integer scalar (one
    length), or an integer vector of static length. When it says nothing
    the static shape does not already say, ``x`` itself is returned. A
    deliberate difference from PyTensor: an unspecified length is the
    constant ``-1`` rather than ``NoneConst``.

    >>> import oxtensor.tensor as ot
    >>> ot.specify_shape(ot.dmatrix("x"), (2, None)).type
    TensorType(float64, shape=(2, None))
    """
    x = as_tensor_variable(x)
    lengths = _expand_ellipsis(_shape_entries(shape), x.ndim)
    if len(lengths) != x.ndim:
        name = x.name if x.name is not None else str(x)
        raise ValueError(
            f"Input `{name}` is {x.ndim}-dimensional and will never match a shape "
            f"of length {len(lengths)}."
        )
    lengths = [_length(s) for s in lengths]
    if all(_known_as(s, have) for s, have in zip(lengths, x.type.shape, strict=True)):
        return x
    return SpecifyShape()(x, *[-1 if s is None else s for s in lengths])


def _shape_entries(shape: Any) -> list[Any]:
    """The entries of ``specify_shape``'s ``shape`` argument, one per axis
    (before ``...`` is expanded)."""
    from oxtensor.graph.basic import Constant, Variable

    if shape is None or shape is Ellipsis or isinstance(shape, int | np.integer):
        return [shape]
    if isinstance(shape, Variable):
        if shape.ndim == 0:
            return [shape]
        if shape.ndim != 1:
            raise ValueError(
                f"The shape of specify_shape must be a vector, got {shape}"
            )
        if isinstance(shape, Constant):
            return [int(s) for s in shape.data]
        if shape.type.shape[0] is None:
            raise ValueError(
                f"Shape {shape} of specify_shape must have fixed dimensions "
                "(a vector of known length)"
            )
        return [shape[i] for i in range(shape.type.shape[0])]
    if isinstance(shape, np.ndarray):
        return [int(s) for s in shape.ravel()] if shape.ndim else [int(shape)]
    return list(shape)


def _expand_ellipsis(lengths: list[Any], ndim: int) -> list[Any]:
    """``...`` replaced by as many unknown lengths as ``ndim`` leaves."""
    marks = [i for i, s in enumerate(lengths) if s is Ellipsis]
    if len(marks) > 1:
        raise ValueError(f"Multiple Ellipsis in specify_shape: {tuple(lengths)}")
    if not marks:
        return lengths
    i = marks[0]
    fill = [None] * max(ndim - len(lengths) + 1, 0)
    return [*lengths[:i], *fill, *lengths[i + 1 :]]


def _length(s: Any) -> Any:
    """One length of ``specify_shape``: None (unknown), an int, or an
    integer scalar variable (``TypeError`` for anything else)."""
    if _unknown(s):
        return None
    if isinstance(s, int | np.integer) and not isinstance(s, bool):
        return int(s)
    v = as_tensor_variable(s)
    if v.ndim != 0 or not v.dtype.startswith(("int", "uint")):
        raise TypeError(
            f"Shape values of specify_shape must be integer types (scalars), "
            f"got {s!r} of type {v.type}"
        )
    return v


def _known_as(length: Any, have: int | None) -> bool:
    """Whether ``length`` adds nothing to a static length ``have``."""
    from oxtensor.graph.basic import Constant

    if length is None:
        return True
    if isinstance(length, Constant):
        length = int(length.data)
    return isinstance(length, int) and length == have


def _specify_shape(x: Any, *shape: Any) -> Any:
    """The `SpecifyShape` op applied as given (PyTensor's raw op): one
    length per axis, ``None`` or ``NoneConst`` where unknown; no shortcut
    when nothing is specified."""
    x = as_tensor_variable(x)
    lengths = [_length(s) for s in shape]
    return SpecifyShape()(x, *[-1 if s is None else s for s in lengths])


def _unknown(length: Any) -> bool:
    return length is None or getattr(length, "data", 0) is None


def specify_broadcastable(x: Any, *axes: int) -> Any:
    """``x`` with length 1 specified on ``axes`` (negative: from the end;
    checked when the graph runs). ``x`` itself when those lengths are
    already known to be 1.

    >>> import oxtensor.tensor as ot
    >>> specify_broadcastable(ot.dmatrix("x"), 0).type
    TensorType(float64, shape=(1, None))
    """
    x = as_tensor_variable(x)
    if not axes:
        return x
    for axis in axes:
        if not -x.ndim <= axis < x.ndim:
            raise ValueError(
                f"axis {axis} is out of bounds for array of dimension {x.ndim}"
            )
    wanted = {axis % x.ndim for axis in axes}
    shape = [1 if i in wanted else s for i, s in enumerate(x.type.shape)]
    return specify_shape(x, shape)


def shape_tuple(x: Any) -> tuple[Any, ...]:
    """``x``'s lengths as a tuple: an int64 `ScalarConstant` where the
    static shape knows the length, ``x.shape[i]`` elsewhere (as PyTensor);
    ``()`` for a variable whose type has no shape."""
    from oxtensor.graph.basic import Variable
    from oxtensor.scalar import ScalarConstant, int64

    if isinstance(x, Variable) and getattr(x.type, "shape", None) is None:
        return ()
    x = as_tensor_variable(x)
    return tuple(
        ScalarConstant(int64, s) if s is not None else x.shape[i]
        for i, s in enumerate(x.type.shape)
    )


__all__ = [
    "Reshape",
    "Shape",
    "Shape_i",
    "SpecifyShape",
    "reshape",
    "shape",
    "shape_i",
    "shape_tuple",
    "specify_broadcastable",
    "specify_shape",
]

# PyTensor's names for functions defined elsewhere in `oxtensor.tensor`.
__getattr__ = _layout.forwarder(__name__, {"shape_padright"})

"""Shape ops: `Shape`, `Shape_i`, `Reshape`."""

from typing import Any

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
    """``x`` with a new shape (one entry may be -1)."""
    return as_tensor_variable(x).reshape(newshape, ndim=ndim)


SpecifyShape = _core.SpecifyShape


def specify_shape(x: Any, shape: Any) -> Any:
    """``x`` with its static shape refined to ``shape`` (``None``: unknown),
    checked when the graph runs. A deliberate difference from PyTensor: an
    unspecified length is the constant ``-1`` rather than ``NoneConst``.

    >>> import oxtensor.tensor as ot
    >>> ot.specify_shape(ot.dmatrix("x"), (2, None)).type
    TensorType(float64, shape=(2, None))
    """
    x = as_tensor_variable(x)
    if shape is None or isinstance(shape, int):
        shape = (shape,)
    shape = tuple(shape)
    if len(shape) != x.ndim:
        name = x.name if x.name is not None else str(x)
        raise ValueError(
            f"Input `{name}` is {x.ndim}-dimensional and will never match a shape "
            f"of length {len(shape)}."
        )
    if all(s is None for s in shape):
        return x
    return SpecifyShape()(x, *[-1 if s is None else s for s in shape])


def _specify_shape(x: Any, *shape: Any) -> Any:
    """The `SpecifyShape` op applied as given (PyTensor's raw op): one
    length per axis, ``None`` or ``NoneConst`` where unknown; no shortcut
    when nothing is specified."""
    x = as_tensor_variable(x)
    lengths = [-1 if _unknown(s) else s for s in shape]
    return SpecifyShape()(x, *lengths)


def _unknown(length: Any) -> bool:
    return length is None or getattr(length, "data", 0) is None


def specify_broadcastable(x: Any, *axes: int) -> Any:
    """``x`` with length 1 specified on ``axes`` (checked when the graph runs).

    >>> import oxtensor.tensor as ot
    >>> specify_broadcastable(ot.dmatrix("x"), 0).type
    TensorType(float64, shape=(1, None))
    """
    x = as_tensor_variable(x)
    if not axes:
        return x
    if max(axes) >= x.ndim:
        raise ValueError("Trying to specify broadcastable of non-existent dimension")
    shape = [1 if i in axes else s for i, s in enumerate(x.type.shape)]
    return specify_shape(x, shape)


def shape_tuple(x: Any) -> tuple[Any, ...]:
    """``x``'s lengths as a tuple of int64 scalars: constants where the
    static shape knows them, ``x.shape[i]`` elsewhere."""
    from oxtensor.tensor.basic import constant

    x = as_tensor_variable(x)
    return tuple(
        constant(s, dtype="int64") if s is not None else x.shape[i]
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

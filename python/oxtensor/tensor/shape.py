"""Shape ops: `Shape`, `Shape_i`, `Reshape`."""

from typing import Any

from oxtensor import _core
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


__all__ = ["Reshape", "Shape", "Shape_i", "reshape", "shape", "shape_i"]

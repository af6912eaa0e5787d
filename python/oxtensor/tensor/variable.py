"""`TensorVariable` (operators in Rust) and `TensorConstant`."""

from typing import Any

import numpy as np

from oxtensor import _core
from oxtensor.graph.basic import Constant

TensorVariable = _core.TensorVariable


class TensorConstantSignature(tuple):
    """``(type, data)``; equal when types and shapes match and the values are
    equal, NaN matching NaN."""

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, tuple) or len(other) != 2:
            return False
        (t0, d0), (t1, d1) = self, other
        if t0 != t1 or np.shape(d0) != np.shape(d1):
            return False
        a, b = np.asarray(d0), np.asarray(d1)
        return bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        t, d = self
        d = np.asarray(d)
        total = np.nansum(d) if d.dtype.kind in "fc" else d.sum()
        return hash((type(self), t, d.shape, float(np.real(total))))


class TensorConstant(TensorVariable, Constant):
    """A tensor with a fixed value; its type has the data's full static shape."""

    def __init__(self, type: Any, data: Any, name: str | None = None) -> None:
        data = type.filter(data)
        # As in PyTensor, the type gets the data's full static shape, so
        # shape inference and rewrites see every length.
        Constant.__init__(self, type.clone(shape=data.shape), data, name)

    def signature(self) -> TensorConstantSignature:
        return TensorConstantSignature((self.type, self.data))

    def equals(self, other: Any) -> bool:
        """Same type, shape and values; raw arrays and numbers are accepted."""
        if isinstance(other, np.ndarray | int | float):
            other = _core.constant(other)
        return (
            isinstance(other, TensorConstant) and self.signature() == other.signature()
        )

    def __repr__(self) -> str:
        return f"TensorConstant({self.type!r}, data={self.data!r})"


_core._register("TensorConstant", TensorConstant)


class _ExactClass(type):
    """`isinstance(x, DenseTensorVariable)` holds when `x`'s class is
    exactly the class named, not a subclass (PyTensor 3.x's dense markers:
    a constant is a `TensorVariable` but not a `DenseTensorVariable`)."""

    def __instancecheck__(cls, obj: object) -> bool:
        return type(obj) is cls._exact


class DenseTensorVariable(metaclass=_ExactClass):
    """Marker class: a `TensorVariable` that is not a constant or subclass."""

    _exact = TensorVariable


class DenseTensorConstant(metaclass=_ExactClass):
    """Marker class: a `TensorConstant` of dense data."""

    _exact = TensorConstant


__all__ = [
    "DenseTensorConstant",
    "DenseTensorVariable",
    "TensorConstant",
    "TensorConstantSignature",
    "TensorVariable",
]

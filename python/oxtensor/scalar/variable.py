"""Scalar types and variables: `ScalarType` (in the Rust extension), the
shared type of each dtype (``float64``, ``int8``, ...), `ScalarVariable`
with its arithmetic operators, `ScalarConstant`, `constant` and
`as_scalar`. Re-exported by `oxtensor.scalar.basic`, PyTensor's path."""

from functools import lru_cache
from typing import Any

import numpy as np

from oxtensor import _core
from oxtensor.graph.basic import Constant, Variable

ScalarType = _core.ScalarType
as_scalar = _core.as_scalar


def _op(name: str) -> Any:
    return _core.scalar_op(name)


class _ScalarOperators:
    """Python operators of scalar variables, each a scalar op's node."""

    ndim = 0

    @property
    def dtype(self) -> str:
        return self.type.dtype  # type: ignore[attr-defined]

    @property
    def shape(self) -> Any:
        """A scalar's shape: the empty int64 vector (PyTensor's)."""
        from oxtensor.tensor import as_tensor_variable

        return as_tensor_variable(np.zeros(0, dtype="int64"))

    def __abs__(self) -> Any:
        return _op("abs")(self)

    def __neg__(self) -> Any:
        return _op("neg")(self)

    def __invert__(self) -> Any:
        return _op("invert")(self)

    def __lt__(self, other: Any) -> Any:
        return _op("lt")(self, other)

    def __le__(self, other: Any) -> Any:
        return _op("le")(self, other)

    def __gt__(self, other: Any) -> Any:
        return _op("gt")(self, other)

    def __ge__(self, other: Any) -> Any:
        return _op("ge")(self, other)

    def __add__(self, other: Any) -> Any:
        return _op("add")(self, other)

    def __radd__(self, other: Any) -> Any:
        return _op("add")(other, self)

    def __sub__(self, other: Any) -> Any:
        return _op("sub")(self, other)

    def __rsub__(self, other: Any) -> Any:
        return _op("sub")(other, self)

    def __mul__(self, other: Any) -> Any:
        return _op("mul")(self, other)

    def __rmul__(self, other: Any) -> Any:
        return _op("mul")(other, self)

    def __truediv__(self, other: Any) -> Any:
        return _op("true_div")(self, other)

    def __rtruediv__(self, other: Any) -> Any:
        return _op("true_div")(other, self)

    def __floordiv__(self, other: Any) -> Any:
        return _op("int_div")(self, other)

    def __rfloordiv__(self, other: Any) -> Any:
        return _op("int_div")(other, self)

    def __mod__(self, other: Any) -> Any:
        return _op("mod")(self, other)

    def __rmod__(self, other: Any) -> Any:
        return _op("mod")(other, self)

    def __pow__(self, other: Any) -> Any:
        return _op("pow")(self, other)

    def __rpow__(self, other: Any) -> Any:
        return _op("pow")(other, self)

    def __and__(self, other: Any) -> Any:
        return _op("and_")(self, other)

    def __rand__(self, other: Any) -> Any:
        return _op("and_")(other, self)

    def __or__(self, other: Any) -> Any:
        return _op("or_")(self, other)

    def __ror__(self, other: Any) -> Any:
        return _op("or_")(other, self)

    def __xor__(self, other: Any) -> Any:
        return _op("xor")(self, other)

    def __rxor__(self, other: Any) -> Any:
        return _op("xor")(other, self)

    def astype(self, dtype: Any) -> Any:
        """This scalar cast to ``dtype``."""
        return _core.Cast(dtype)(self)

    def zeros_like(self, dtype: Any = None) -> Any:
        """A zero of this scalar's dtype (or ``dtype``)."""
        return constant(0, dtype=dtype or self.dtype)

    def ones_like(self, dtype: Any = None) -> Any:
        """A one of this scalar's dtype (or ``dtype``)."""
        return constant(1, dtype=dtype or self.dtype)


class ScalarVariable(_ScalarOperators, Variable):
    """A variable of a `ScalarType`: ``float64("x")``."""


class ScalarConstant(ScalarVariable, Constant):
    """A scalar constant: ``ScalarConstant(float64, 3.14)``; its data is the
    NumPy scalar ``type.filter(data)``."""

    def __init__(self, type: Any, data: Any, name: str | None = None) -> None:
        Constant.__init__(self, type, data, name)

    def __str__(self) -> str:
        if self.name is not None:
            return self.name
        return str(self.data)


_core._register("ScalarVariable", ScalarVariable)
_core._register("ScalarConstant", ScalarConstant)


@lru_cache
def get_scalar_type(dtype: Any) -> Any:
    """The shared `ScalarType` of a dtype."""
    return ScalarType(dtype)


def constant(x: Any, name: str | None = None, dtype: Any = None) -> Any:
    """A `ScalarConstant` of ``x``: of ``dtype`` when given (converted
    without loss), else of the dtype a Python number gets as a constant."""
    if isinstance(x, Variable):
        raise TypeError(f"constant expects a value, got the variable {x}")
    if dtype is not None:
        return ScalarConstant(get_scalar_type(dtype), x, name)
    c = as_scalar(x)
    if name is not None:
        c.name = name
    return c


bool = get_scalar_type("bool")
int8 = get_scalar_type("int8")
int16 = get_scalar_type("int16")
int32 = get_scalar_type("int32")
int64 = get_scalar_type("int64")
uint8 = get_scalar_type("uint8")
uint16 = get_scalar_type("uint16")
uint32 = get_scalar_type("uint32")
uint64 = get_scalar_type("uint64")
float16 = get_scalar_type("float16")
float32 = get_scalar_type("float32")
float64 = get_scalar_type("float64")
complex64 = get_scalar_type("complex64")
complex128 = get_scalar_type("complex128")

int_types = (int8, int16, int32, int64)
uint_types = (uint8, uint16, uint32, uint64)
float_types = (float16, float32, float64)
complex_types = (complex64, complex128)
discrete_types = (bool, *int_types, *uint_types)
continuous_types = (*float_types, *complex_types)
all_types = (*discrete_types, *continuous_types)

__all__ = [
    "ScalarConstant",
    "ScalarType",
    "ScalarVariable",
    "all_types",
    "as_scalar",
    "bool",
    "complex64",
    "complex128",
    "complex_types",
    "constant",
    "continuous_types",
    "discrete_types",
    "float16",
    "float32",
    "float64",
    "float_types",
    "get_scalar_type",
    "int8",
    "int16",
    "int32",
    "int64",
    "int_types",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "uint_types",
]

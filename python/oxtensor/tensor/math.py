"""Elementwise math, reductions and products."""

from typing import Any

from oxtensor import _core, scalar
from oxtensor.tensor.basic import as_tensor_variable

Sum = _core.Sum
Prod = _core.Prod
Max = _core.Max
Min = _core.Min
All = _core.All
Any_ = _core.Any
Dot = _core.Dot

_ELEMWISE = (
    "add sub mul true_div int_div mod pow maximum minimum neg abs sign sqr sqrt exp "
    "log log1p expm1 sin cos tan tanh sigmoid softplus reciprocal floor ceil lt gt le "
    "ge eq neq isnan isinf and_ or_ xor invert identity second switch"
).split()
globals().update({n: _core.elemwise_op(getattr(scalar, n)) for n in _ELEMWISE})
floor_div = globals()["int_div"]
expit = globals()["sigmoid"]
bitwise_and, bitwise_or, bitwise_xor = (globals()[n] for n in ("and_", "or_", "xor"))


def cast(x: Any, dtype: str) -> Any:
    """``x`` converted to ``dtype`` (``x`` itself if it already has it)."""
    return as_tensor_variable(x).astype(dtype)


def sum(
    x: Any,
    axis: Any = None,
    dtype: Any = None,
    keepdims: bool = False,
    acc_dtype: Any = None,
) -> Any:
    """Sum over ``axis`` (all axes by default)."""
    return as_tensor_variable(x).sum(axis=axis, dtype=dtype, keepdims=keepdims)


def prod(x: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Any:
    """Product over ``axis``."""
    return as_tensor_variable(x).prod(axis=axis, dtype=dtype, keepdims=keepdims)


def max(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Maximum over ``axis``."""
    return as_tensor_variable(x).max(axis=axis, keepdims=keepdims)


def min(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Minimum over ``axis``."""
    return as_tensor_variable(x).min(axis=axis, keepdims=keepdims)


def all(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Whether all elements along ``axis`` are true."""
    return as_tensor_variable(x).all(axis=axis, keepdims=keepdims)


def any(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Whether any element along ``axis`` is true."""
    return as_tensor_variable(x).any(axis=axis, keepdims=keepdims)


def mean(x: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Any:
    """Mean over ``axis``."""
    return as_tensor_variable(x).mean(axis=axis, dtype=dtype, keepdims=keepdims)


def dot(a: Any, b: Any) -> Any:
    """Inner, matrix-vector or matrix product of vectors and matrices."""
    return as_tensor_variable(a).dot(b)


__all__ = [
    "All",
    "Any_",
    "Dot",
    "Max",
    "Min",
    "Prod",
    "Sum",
    "all",
    "any",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "cast",
    "dot",
    "expit",
    "floor_div",
    "max",
    "mean",
    "min",
    "prod",
    "sum",
    *_ELEMWISE,
]

"""Elementwise math, reductions and products."""

from typing import Any as _Any

from oxtensor import _core, scalar
from oxtensor.tensor.basic import as_tensor_variable
from oxtensor.tensor.math_functions import *  # noqa: F403
from oxtensor.tensor.math_functions import __all__ as _functions_all
from oxtensor.tensor.products import *  # noqa: F403
from oxtensor.tensor.products import __all__ as _products_all

Sum = _core.Sum
Prod = _core.Prod
Max = _core.Max
Min = _core.Min
All = _core.All
# `Any` is the op class, as in PyTensor (pickles find it by that name);
# `Any_` is the older alias.
Any = Any_ = _core.Any
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


def cast(x: _Any, dtype: str) -> _Any:
    """``x`` converted to ``dtype`` (``x`` itself if it already has it)."""
    return as_tensor_variable(x).astype(dtype)


def sum(
    x: _Any,
    axis: _Any = None,
    dtype: _Any = None,
    keepdims: bool = False,
    acc_dtype: _Any = None,
) -> _Any:
    """Sum over ``axis`` (all axes by default)."""
    return as_tensor_variable(x).sum(axis=axis, dtype=dtype, keepdims=keepdims)


def prod(
    x: _Any, axis: _Any = None, dtype: _Any = None, keepdims: bool = False
) -> _Any:
    """Product over ``axis``."""
    return as_tensor_variable(x).prod(axis=axis, dtype=dtype, keepdims=keepdims)


def max(x: _Any, axis: _Any = None, keepdims: bool = False) -> _Any:
    """Maximum over ``axis``."""
    return as_tensor_variable(x).max(axis=axis, keepdims=keepdims)


def min(x: _Any, axis: _Any = None, keepdims: bool = False) -> _Any:
    """Minimum over ``axis``."""
    return as_tensor_variable(x).min(axis=axis, keepdims=keepdims)


def all(x: _Any, axis: _Any = None, keepdims: bool = False) -> _Any:
    """Whether all elements along ``axis`` are true."""
    return as_tensor_variable(x).all(axis=axis, keepdims=keepdims)


def any(x: _Any, axis: _Any = None, keepdims: bool = False) -> _Any:
    """Whether any element along ``axis`` is true."""
    return as_tensor_variable(x).any(axis=axis, keepdims=keepdims)


def mean(
    x: _Any, axis: _Any = None, dtype: _Any = None, keepdims: bool = False
) -> _Any:
    """Mean over ``axis``."""
    return as_tensor_variable(x).mean(axis=axis, dtype=dtype, keepdims=keepdims)


def zeros_like(x: _Any, dtype: _Any = None) -> _Any:
    """Zeros shaped like ``x`` (``fill(x, 0)``), of ``x``'s dtype or ``dtype``."""
    return _filled(x, 0, dtype)


def ones_like(x: _Any, dtype: _Any = None) -> _Any:
    """Ones shaped like ``x`` (``fill(x, 1)``), of ``x``'s dtype or ``dtype``."""
    return _filled(x, 1, dtype)


def _filled(x: _Any, value: int, dtype: _Any) -> _Any:
    import numpy as np

    x = as_tensor_variable(x)
    fill_value = np.asarray(value, dtype=dtype if dtype is not None else x.dtype)
    return globals()["second"](x, fill_value)


def dot(a: _Any, b: _Any) -> _Any:
    """Inner, matrix-vector or matrix product of vectors and matrices."""
    return as_tensor_variable(a).dot(b)


__all__ = [
    "All",
    "Any",
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
    "ones_like",
    "prod",
    "sum",
    "zeros_like",
    *_ELEMWISE,
    *_products_all,
    *_functions_all,
]

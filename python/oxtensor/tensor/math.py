"""Elementwise math, reductions and products."""

from typing import Any as _Any

from oxtensor import _core
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
Argmax = _core.Argmax
Argmin = _core.Argmin
CentredSquares = _core.CentredSquares
LogSumExp = _core.LogSumExp
ProdWithoutZeros = _core.ProdWithoutZeros

floor_div = globals()["int_div"]
expit = globals()["sigmoid"]
bitwise_and, bitwise_or, bitwise_xor = (globals()[n] for n in ("and_", "or_", "xor"))


from oxtensor.tensor import _layout  # noqa: E402
from oxtensor.tensor.conversions import cast  # noqa: E402


def sum(
    x: _Any,
    axis: _Any = None,
    dtype: _Any = None,
    keepdims: bool = False,
    acc_dtype: _Any = None,
) -> _Any:
    """Sum over ``axis`` (all axes by default)."""
    return as_tensor_variable(x).sum(
        axis=axis, dtype=dtype, keepdims=keepdims, acc_dtype=acc_dtype
    )


def prod(
    x: _Any,
    axis: _Any = None,
    dtype: _Any = None,
    keepdims: bool = False,
    acc_dtype: _Any = None,
    no_zeros_in_input: bool = False,
) -> _Any:
    """Product over ``axis`` (``no_zeros_in_input`` is accepted and ignored:
    the gradient handles zeros either way)."""
    return as_tensor_variable(x).prod(
        axis=axis, dtype=dtype, keepdims=keepdims, acc_dtype=acc_dtype
    )


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


#: The ``Dot`` op itself (PyTensor's ``_dot``), for callers that want the
#: node without ``dot``'s handling of scalars.
_dot = Dot()


def dense_dot(a: _Any, b: _Any) -> _Any:
    """``dot`` of dense tensors; a scalar operand multiplies elementwise."""
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    return dot(a, b)


def argmax(x: _Any, axis: _Any = None, keepdims: bool = False) -> _Any:
    """Int64 positions of the maxima over ``axis`` (the first one; NaN wins)."""
    out = _core.argmax(x, axis, keepdims)
    out.name = "argmax"
    return out


def argmin(x: _Any, axis: _Any = None, keepdims: bool = False) -> _Any:
    """Int64 positions of the minima: ``argmax`` of the order-reversed input
    (negated floats; bit-inverted integers and bools, which cannot overflow)."""
    x = as_tensor_variable(x)
    flipped = -x if x.dtype.startswith("float") else ~x
    return argmax(flipped, axis=axis, keepdims=keepdims)


def max_and_argmax(a: _Any, axis: _Any = None, keepdims: bool = False) -> list[_Any]:
    """``[max(a, axis), argmax(a, axis)]``."""
    return [max(a, axis=axis, keepdims=keepdims), argmax(a, axis, keepdims)]


def logsumexp(x: _Any, axis: _Any = None, keepdims: bool = False) -> _Any:
    """``log(sum(exp(x), axis))``, one stable native op (``LogSumExp``)."""
    return _core.logsumexp(x, axis, keepdims)


def ptp(a: _Any, axis: _Any = None, keepdims: bool = False) -> _Any:
    """Range of values (maximum - minimum) over ``axis``."""
    return max(a, axis=axis, keepdims=keepdims) - min(a, axis=axis, keepdims=keepdims)


def var(
    input: _Any,
    axis: _Any = None,
    ddof: int = 0,
    keepdims: bool = False,
    corrected: bool = False,
) -> _Any:
    """Variance over ``axis`` with ``ddof`` delta degrees of freedom; with
    ``corrected`` the two-pass algorithm's rounding correction is applied."""
    return _core.var(input, axis, ddof, keepdims, corrected)


def std(
    input: _Any,
    axis: _Any = None,
    ddof: int = 0,
    keepdims: bool = False,
    corrected: bool = False,
) -> _Any:
    """Standard deviation: the square root of :func:`var`."""
    return _core.std(input, axis, ddof, keepdims, corrected)


def _allclose(a: _Any, b: _Any, rtol: _Any = None, atol: _Any = None) -> bool:
    """PyTensor's test helper: ``np.allclose`` with DebugMode's tolerances
    for the narrower float dtype of ``a`` and ``b`` (float64's when neither
    is a float); an ``rtol`` or ``atol`` given wins."""
    import builtins

    import numpy as np

    a, b = np.asarray(a), np.asarray(b)
    floats = [x.dtype for x in (a, b) if x.dtype.kind in "fc"]
    # `min` here is the tensor reduction.
    dtype = builtins.min(floats, key=lambda d: d.itemsize, default=np.dtype("float64"))
    if dtype.kind == "c":
        dtype = np.dtype(f"float{dtype.itemsize * 4}")
    default_atol, default_rtol = _core.debug_tolerance(dtype.name)
    return bool(
        np.allclose(
            a,
            b,
            rtol=default_rtol if rtol is None else rtol,
            atol=default_atol if atol is None else atol,
        )
    )


__all__ = [
    "All",
    "Any",
    "Any_",
    "Dot",
    "Max",
    "Min",
    "Prod",
    "ProdWithoutZeros",
    "Sum",
    "all",
    "any",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "cast",
    "dense_dot",
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
    "Argmax",
    "Argmin",
    "CentredSquares",
    "LogSumExp",
    "argmax",
    "argmin",
    "logsumexp",
    "max_and_argmax",
    "ptp",
    "std",
    "var",
    *_products_all,
    *_functions_all,
]

# PyTensor's names for functions defined elsewhere in `oxtensor.tensor`.
_forward = _layout.forwarder(
    __name__,
    {*"allclose isclose isneginf isposinf logaddexp nan_to_num power".split()},
)


def __getattr__(name: str) -> _Any:
    if name == "MaxAndArgmax":
        # PyTensor's message, its spelling included.
        raise AttributeError(
            "The class `MaxandArgmax` has been deprecated. "
            "Call `Max` and `Argmax` seperately as an alternative."
        )
    return _forward(name)


from oxtensor.tensor.math_composites import *  # noqa: E402, F403
from oxtensor.tensor.math_composites import __all__ as _composites_all  # noqa: E402
from oxtensor.tensor.math_stats import *  # noqa: E402, F403
from oxtensor.tensor.math_stats import __all__ as _stats_all  # noqa: E402

__all__ += _composites_all + _stats_all

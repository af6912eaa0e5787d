"""Running sums and products (``CumOp``, ``cumsum``, ``cumprod``), as in
``pytensor.tensor.extra_ops``."""

from typing import Any

from oxtensor import _core
from oxtensor.tensor._axis import normalize_axis
from oxtensor.tensor.basic import as_tensor_variable

CumOp = _core.CumOp


def _cumop(x: Any, axis: Any, mode: str) -> Any:
    x = as_tensor_variable(x)
    if axis is None:
        return CumOp(0, mode)(x.reshape((-1,)))
    name = "cumsum" if mode == "add" else "cumprod"
    return CumOp(normalize_axis(axis, x.ndim, name), mode)(x)


def cumsum(x: Any, axis: Any = None) -> Any:
    """The running sum along ``axis`` (``None``: of the flattened input)."""
    return _cumop(x, axis, "add")


def cumprod(x: Any, axis: Any = None) -> Any:
    """The running product along ``axis`` (``None``: of the flattened input)."""
    return _cumop(x, axis, "mul")


def diff(x: Any, n: int = 1, axis: int = -1) -> Any:
    """The ``n``-th discrete difference along ``axis`` (slices subtracted)."""
    x = as_tensor_variable(x)
    axis = normalize_axis(axis, x.ndim, "diff")
    for _ in range(n):
        hi = [slice(None)] * x.ndim
        lo = [slice(None)] * x.ndim
        hi[axis], lo[axis] = slice(1, None), slice(None, -1)
        x = x[tuple(hi)] - x[tuple(lo)]
    return x


__all__ = ["CumOp", "cumprod", "cumsum", "diff"]

"""New length-1 axes: ``shape_padleft``, ``shape_padright``,
``shape_padaxis`` and ``atleast_1d``/``2d``/``3d``/``Nd``, each one
``DimShuffle`` (a view), as in PyTensor."""

import operator
from functools import partial
from typing import Any

from oxtensor.tensor._axis import normalize_axis
from oxtensor.tensor.basic import as_tensor_variable


def _count(n_ones: Any, name: str) -> int:
    try:
        n = operator.index(n_ones)
    except TypeError:
        raise TypeError(f"{name}: n_ones must be an integer, got {n_ones!r}") from None
    if n < 0:
        raise ValueError(f"{name}: n_ones must be >= 0, got {n}")
    return n


def shape_padleft(t: Any, n_ones: Any = 1) -> Any:
    """``t`` with ``n_ones`` length-1 axes added in front."""
    t = as_tensor_variable(t)
    n = _count(n_ones, "shape_padleft")
    return t.dimshuffle(*(["x"] * n), *range(t.ndim))


def shape_padright(t: Any, n_ones: Any = 1) -> Any:
    """``t`` with ``n_ones`` length-1 axes added at the end."""
    t = as_tensor_variable(t)
    n = _count(n_ones, "shape_padright")
    return t.dimshuffle(*range(t.ndim), *(["x"] * n))


def shape_padaxis(t: Any, axis: Any) -> Any:
    """``t`` with a length-1 axis inserted so that it becomes axis ``axis``
    of the result (negative values count from the result's end)."""
    t = as_tensor_variable(t)
    pos = normalize_axis(axis, t.ndim + 1, "shape_padaxis")
    order: list[Any] = list(range(t.ndim))
    order.insert(pos, "x")
    return t.dimshuffle(*order)


def atleast_Nd(arry: Any, *, n: int = 1, left: bool = True) -> Any:
    """``arry`` with length-1 axes added in front (``left``) or at the end
    until it has at least ``n`` axes."""
    arry = as_tensor_variable(arry)
    missing = max(n - arry.ndim, 0)
    if missing == 0:
        return arry
    return shape_padleft(arry, missing) if left else shape_padright(arry, missing)


atleast_1d = partial(atleast_Nd, n=1)
atleast_2d = partial(atleast_Nd, n=2)
atleast_3d = partial(atleast_Nd, n=3)

__all__ = [
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "atleast_Nd",
    "shape_padaxis",
    "shape_padleft",
    "shape_padright",
]

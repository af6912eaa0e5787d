"""Sorting: ``SortOp``, ``ArgSortOp``, ``sort`` and ``argsort``, as in
``pytensor.tensor.sort`` (every ``kind`` sorts the same; ``argsort`` is stable)."""

from typing import Any

from oxtensor import _core
from oxtensor.tensor._axis import normalize_axis
from oxtensor.tensor.basic import as_tensor_variable

SortOp = _core.SortOp
ArgSortOp = _core.ArgSortOp
TakeAlongAxis = _core.TakeAlongAxis


def _prepare(a: Any, axis: Any, op: str) -> tuple[Any, Any]:
    a = as_tensor_variable(a)
    if axis is None:
        return a.reshape((-1,)), 0
    normalize_axis(axis, a.ndim, op)
    return a, axis


def sort(a: Any, axis: Any = -1, kind: str = "quicksort", order: Any = None) -> Any:
    """``a`` sorted along ``axis`` (``None``: flattened first); NaNs go last."""
    a, axis = _prepare(a, axis, "sort")
    return SortOp(kind, order)(a, axis)


def argsort(a: Any, axis: Any = -1, kind: str = "quicksort", order: Any = None) -> Any:
    """The int64 indices that sort ``a`` along ``axis`` (``None``: flattened)."""
    a, axis = _prepare(a, axis, "argsort")
    return ArgSortOp(kind, order)(a, axis)


__all__ = ["ArgSortOp", "SortOp", "TakeAlongAxis", "argsort", "sort"]

"""Sorting: ``SortOp``, ``ArgSortOp``, ``sort`` and ``argsort``, as in
``pytensor.tensor.sort`` (every ``kind`` sorts the same; ``argsort`` is stable)."""

from typing import Any

from oxtensor import _core
from oxtensor.tensor._axis import normalize_axis
from oxtensor.tensor.basic import as_tensor_variable

SortOp = _core.SortOp
ArgSortOp = _core.ArgSortOp
TakeAlongAxis = _core.TakeAlongAxis


KIND_VALUES = ("quicksort", "mergesort", "heapsort", "stable")


def _kind(kind: str | None, stable: bool | None) -> str:
    """PyTensor's ``kind``/``stable`` rules: at most one given, a known kind."""
    if stable is not None and kind is not None:
        raise ValueError("kind and stable cannot be set at the same time")
    kind = "stable" if stable else (kind or "quicksort")
    if kind not in KIND_VALUES:
        raise ValueError(f"kind must be one of {KIND_VALUES}, got {kind}")
    return kind


def _prepare(a: Any, axis: Any, op: str) -> tuple[Any, Any]:
    a = as_tensor_variable(a)
    if axis is None:
        return a.reshape((-1,)), 0
    normalize_axis(axis, a.ndim, op)
    return a, axis


def sort(
    a: Any,
    axis: Any = -1,
    kind: str | None = None,
    order: Any = None,
    *,
    stable: bool | None = None,
) -> Any:
    """``a`` sorted along ``axis`` (``None``: flattened first); NaNs go last.

    ``kind`` (default ``'quicksort'``) or ``stable=True`` (``'stable'``) is
    kept on the op; every kind gives the same result."""
    a, axis = _prepare(a, axis, "sort")
    return SortOp(_kind(kind, stable), order)(a, axis)


def argsort(
    a: Any,
    axis: Any = -1,
    kind: str | None = None,
    order: Any = None,
    stable: bool | None = None,
) -> Any:
    """The int64 indices that sort ``a`` along ``axis`` (``None``: flattened).

    Ties keep their input order whatever the ``kind``."""
    a, axis = _prepare(a, axis, "argsort")
    return ArgSortOp(_kind(kind, stable), order)(a, axis)


__all__ = ["ArgSortOp", "SortOp", "TakeAlongAxis", "argsort", "sort"]

"""Sorting: ``SortOp``, ``ArgSortOp``, ``sort`` and ``argsort``, as in
``pytensor.tensor.sort`` (every ``kind`` sorts the same; ``argsort`` is stable)."""

from typing import Any

from oxtensor import _core
from oxtensor.graph.basic import Constant, Variable
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
    if isinstance(axis, Variable):
        return a, _axis_variable(axis, a.ndim, op)
    normalize_axis(axis, a.ndim, op)
    return a, axis


def _axis_variable(axis: Any, ndim: int, op: str) -> Any:
    """A symbolic axis (PyTensor takes one): a 0-d integer tensor, whose
    value the op checks against ``ndim`` when it runs; a constant one is
    checked now."""
    axis = as_tensor_variable(axis)
    if not axis.dtype.startswith(("int", "uint")):
        what = "ArgSort" if op == "argsort" else "Sort"
        raise ValueError(f"{what} axis must have an integer dtype, got {axis.dtype}")
    if axis.ndim != 0:
        raise ValueError(f"{op}: the axis must be a 0-d integer, got {axis.type}")
    if isinstance(axis, Constant):
        normalize_axis(int(axis.data), ndim, op)
    return axis


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

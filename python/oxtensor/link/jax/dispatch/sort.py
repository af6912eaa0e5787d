"""Sorting and running ops: `SortOp`, `ArgSortOp`, `TakeAlongAxis`, `CumOp`."""

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp

from oxtensor import _core
from oxtensor.link.jax.dispatch.basic import is_static, jax_funcify, static_value


def _axis_of(axis: Any, node: Any, i: int) -> int | None:
    """A sort axis input: ``None`` (a `NoneConst`) sorts the flattened array."""
    if axis is None or (
        is_static(axis) and static_value(axis, node, i).dtype == object
    ):
        return None
    return int(static_value(axis, node, i))


@jax_funcify.register(_core.SortOp)
def _sort(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    def sort(x: Any, axis: Any) -> Any:
        a = _axis_of(axis, node, 1)
        return jnp.sort(jnp.ravel(x) if a is None else x, axis=-1 if a is None else a)

    return sort


@jax_funcify.register(_core.ArgSortOp)
def _argsort(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    def argsort(x: Any, axis: Any) -> Any:
        a = _axis_of(axis, node, 1)
        flat = jnp.ravel(x) if a is None else x
        # NumPy's quicksort is not stable; ties may order differently.
        return jnp.argsort(flat, axis=-1 if a is None else a, stable=True)

    return argsort


@jax_funcify.register(_core.TakeAlongAxis)
def _take_along_axis(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    def take_along_axis(x: Any, idx: Any, axis: Any) -> Any:
        a = _axis_of(axis, node, 2)
        if a is None:
            return jnp.take_along_axis(jnp.ravel(x), idx, axis=0)
        return jnp.take_along_axis(x, idx, axis=a)

    return take_along_axis


@jax_funcify.register(_core.CumOp)
def _cumop(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    fold = jnp.cumsum if op.mode == "add" else jnp.cumprod
    axis = op.axis
    return lambda x: fold(x, axis=axis)

"""Indexing: `Subtensor`, `AdvancedSubtensor(1)` and their increments
(``x.at[idx].set``/``.add``). An ``idx_list`` entry is the position of an
index input (after the indexed tensor, and the value for increments) or a
slice of such positions. Slice bounds and boolean masks fix the output
shape, so JAX needs them known while tracing; integer indices may be traced."""

from collections.abc import Callable, Sequence
from typing import Any

import jax.numpy as jnp
import numpy as np

from oxtensor import _core
from oxtensor.link.jax.dispatch.basic import (
    JAXUnsupportedError,
    is_static,
    jax_funcify,
    static_int,
)


def _index(
    idx_list: Sequence[Any], values: Sequence[Any], node: Any, first: int
) -> tuple:
    """The index tuple: ``values`` are the node's index inputs, which start
    at input ``first``."""

    def bound(p: int | None) -> int | None:
        return None if p is None else static_int(values[p], node, first + p)

    out: list[Any] = []
    for entry in idx_list:
        if isinstance(entry, slice):
            out.append(slice(bound(entry.start), bound(entry.stop), bound(entry.step)))
            continue
        v = values[entry]
        if np.dtype(v.dtype) == np.bool_ and not is_static(v):
            raise JAXUnsupportedError(
                f"{node}: the boolean mask {node.inputs[first + entry]} decides the "
                "output shape at run time, and JAX needs output shapes while "
                "tracing; use oxtensor.tensor.switch (where) instead of a mask"
            )
        out.append(v)
    return tuple(out)


def _getter(idx_list: Sequence[Any], node: Any) -> Callable[..., Any]:
    return lambda x, *idx: x[_index(idx_list, idx, node, 1)]


def _setter(
    idx_list: Sequence[Any], set_instead_of_inc: bool, node: Any
) -> Callable[..., Any]:
    def inc(x: Any, y: Any, *idx: Any) -> Any:
        at = jnp.asarray(x).at[_index(idx_list, idx, node, 2)]
        return at.set(y) if set_instead_of_inc else at.add(y)

    return inc


@jax_funcify.register(_core.Subtensor)
def _subtensor(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    return _getter(op.idx_list, node)


@jax_funcify.register(_core.AdvancedSubtensor)
def _advanced_subtensor(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    return _getter(op.idx_list, node)


@jax_funcify.register(_core.AdvancedSubtensor1)
def _advanced_subtensor1(
    op: Any, node: Any = None, **kwargs: Any
) -> Callable[..., Any]:
    return _getter((0,), node)


@jax_funcify.register(_core.IncSubtensor)
def _inc_subtensor(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    return _setter(op.idx_list, op.set_instead_of_inc, node)


@jax_funcify.register(_core.AdvancedIncSubtensor)
def _advanced_inc_subtensor(
    op: Any, node: Any = None, **kwargs: Any
) -> Callable[..., Any]:
    return _setter(op.idx_list, op.set_instead_of_inc, node)


@jax_funcify.register(_core.AdvancedIncSubtensor1)
def _advanced_inc_subtensor1(
    op: Any, node: Any = None, **kwargs: Any
) -> Callable[..., Any]:
    return _setter((0,), op.set_instead_of_inc, node)

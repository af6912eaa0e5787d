"""Ops whose output shape depends on input values (`Repeat`, `Bincount`,
`Nonzero`): JAX needs those values known while tracing. And the
gradient-shaping identities (`GradOp`) and `DeepCopyOp`, which compute
nothing under JAX."""

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp

from oxtensor import _core
from oxtensor.link.jax.dispatch.basic import (
    JAXUnsupportedError,
    is_static,
    jax_funcify,
    static_value,
)


@jax_funcify.register(_core.GradOp)
def _grad_op(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    return lambda x, *rest: x


@jax_funcify.register(_core.DeepCopyOp)
def _deep_copy(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    # JAX arrays are immutable: the value itself cannot be written through.
    return lambda x: x


@jax_funcify.register(_core.Repeat)
def _repeat(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    axis = op.axis

    def repeat(x: Any, repeats: Any) -> Any:
        r = static_value(repeats, node, 1)
        return jnp.repeat(x, r if r.ndim else int(r), axis=axis)

    return repeat


@jax_funcify.register(_core.Bincount)
def _bincount(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    minlength = op.minlength

    def bincount(x: Any, *weights: Any) -> Any:
        xs = static_value(x, node, 0)
        length = max(minlength, int(xs.max()) + 1 if xs.size else 0)
        w = weights[0] if weights else None
        return jnp.bincount(xs, weights=w, length=length)

    return bincount


@jax_funcify.register(_core.Nonzero)
def _nonzero(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    def nonzero(x: Any) -> Any:
        if not is_static(x):
            raise JAXUnsupportedError(
                f"{node}: the number of nonzero elements of {node.inputs[0]} is only "
                "known at run time, and JAX needs output shapes while tracing"
            )
        return tuple(jnp.nonzero(x))

    return nonzero

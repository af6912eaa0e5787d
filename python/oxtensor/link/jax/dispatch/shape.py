"""Shape ops: `Shape`, `Shape_i`, `Reshape`, `SpecifyShape`, `DimShuffle`,
and the ops that make arrays of a given shape or from pieces (`Alloc`,
`AllocEmpty`, `ARange`, `Eye`, `MakeVector`, `Join`, `Split`). Shapes are
static under ``jax.jit``, so `Shape` returns NumPy values; lengths an op
needs come from `static_ints`, which names the node when they are not."""

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np

from oxtensor import _core
from oxtensor.link.jax.dispatch.basic import (
    JAXUnsupportedError,
    jax_funcify,
    out_dtype,
    static_int,
    static_ints,
    static_value,
)


@jax_funcify.register(_core.Shape)
def _shape(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    return lambda x: np.asarray(jnp.shape(x), dtype=np.int64)


@jax_funcify.register(_core.Shape_i)
def _shape_i(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    i = op.i
    return lambda x: np.int64(jnp.shape(x)[i])


@jax_funcify.register(_core.Reshape)
def _reshape(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    return lambda x, shape: jnp.reshape(x, static_ints(shape, node, 1))


@jax_funcify.register(_core.SpecifyShape)
def _specify_shape(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    # The shapes were checked when the graph was built; JAX checks its own.
    return lambda x, *lengths: x


@jax_funcify.register(_core.DimShuffle)
def _dimshuffle(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    shuffle, drop, augment = list(op.shuffle), list(op.drop), list(op.augment)

    def dimshuffle(x: Any) -> Any:
        y = jnp.transpose(x, shuffle + drop)
        # The dropped axes are last and of length 1.
        y = jnp.reshape(y, jnp.shape(y)[: len(shuffle)])
        return jnp.expand_dims(y, augment) if augment else y

    return dimshuffle


@jax_funcify.register(_core.Alloc)
def _alloc(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    def alloc(value: Any, *lengths: Any) -> Any:
        shape = tuple(static_int(n, node, i + 1) for i, n in enumerate(lengths))
        return jnp.broadcast_to(value, shape)

    return alloc


@jax_funcify.register(_core.AllocEmpty)
def _alloc_empty(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    dtype = out_dtype(node)

    def alloc_empty(*lengths: Any) -> Any:
        return jnp.empty(
            tuple(static_int(n, node, i) for i, n in enumerate(lengths)), dtype
        )

    return alloc_empty


@jax_funcify.register(_core.ARange)
def _arange(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    dtype = out_dtype(node)

    def arange(start: Any, stop: Any, step: Any) -> Any:
        a, b, c = (
            static_value(v, node, i).item() for i, v in enumerate((start, stop, step))
        )
        return jnp.arange(start=a, stop=b, step=c, dtype=dtype)

    return arange


@jax_funcify.register(_core.Eye)
def _eye(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    dtype = out_dtype(node)

    def eye(n: Any, m: Any, k: Any) -> Any:
        n_, m_, k_ = (static_int(v, node, i) for i, v in enumerate((n, m, k)))
        return jnp.eye(n_, m_, k_, dtype=dtype)

    return eye


@jax_funcify.register(_core.MakeVector)
def _make_vector(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    dtype = out_dtype(node)

    def make_vector(*xs: Any) -> Any:
        return (
            jnp.stack([jnp.asarray(x, dtype=dtype) for x in xs])
            if xs
            else jnp.zeros(0, dtype)
        )

    return make_vector


@jax_funcify.register(_core.Join)
def _join(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    def join(axis: Any, *xs: Any) -> Any:
        return jnp.concatenate(xs, axis=static_int(axis, node, 0))

    return join


@jax_funcify.register(_core.Split)
def _split(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    def split(x: Any, axis: Any, lengths: Any) -> Any:
        cuts = np.cumsum(static_ints(lengths, node, 2))[:-1]
        return tuple(jnp.split(x, cuts, axis=static_int(axis, node, 1)))

    return split


@jax_funcify.register(_core.ExtractDiag)
def _extract_diag(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    offset, axis1, axis2 = op.offset, op.axis1, op.axis2
    return lambda x: jnp.diagonal(x, offset=offset, axis1=axis1, axis2=axis2)


@jax_funcify.register(_core.AllocDiag)
def _alloc_diag(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    offset, axis1, axis2 = op.offset, op.axis1, op.axis2
    ndim = node.outputs[0].ndim if node is not None else None

    def alloc_diag(d: Any, *lengths: Any) -> Any:
        if lengths:
            raise JAXUnsupportedError(
                f"{node}: AllocDiag with explicit block lengths has no JAX form"
            )
        k = d.shape[-1]
        n = k + abs(offset)
        i = jnp.arange(k)
        out = jnp.zeros((*d.shape[:-1], n, n), d.dtype)
        out = out.at[..., i + max(-offset, 0), i + max(offset, 0)].set(d)
        out_ndim = ndim if ndim is not None else out.ndim
        return jnp.moveaxis(out, (-2, -1), (axis1 % out_ndim, axis2 % out_ndim))

    return alloc_diag

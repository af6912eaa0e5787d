"""Reductions: `CAReduce` (sum, prod, max, min, all, any), the softmax
family, `LogSumExp`, `Argmax`/`Argmin` and `CentredSquares` (what the
variance rewrite puts in place of ``sum((x - mean)**2)``)."""

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import jax.scipy.special as jsp
import numpy as np

from oxtensor import _core
from oxtensor.link.jax.dispatch.basic import JAXUnsupportedError, jax_funcify
from oxtensor.link.jax.dispatch.scalar import composite_from_state

#: The fold of a `CAReduce`, by its scalar op's class name.
_FOLDS: dict[str, Callable[..., Any]] = {
    "Add": jnp.sum,
    "Mul": jnp.prod,
    "Maximum": jnp.max,
    "Minimum": jnp.min,
    "AND": jnp.all,
    "OR": jnp.any,
}

#: The bitwise folds of `CAReduce(and_/or_/xor)` itself (not `All`/`Any`):
#: the lax op and whether its identity has every bit set.
_BITWISE: dict[str, tuple[Callable[..., Any], bool]] = {
    "AND": (jax.lax.bitwise_and, True),
    "OR": (jax.lax.bitwise_or, False),
    "XOR": (jax.lax.bitwise_xor, False),
}


def _bitwise(name: str, axis: Any) -> Callable[..., Any]:
    """The fold of the bits of integers (or of bools) over ``axis``."""
    combine, all_bits = _BITWISE[name]

    def fold(x: Any) -> Any:
        zero = jnp.zeros((), dtype=x.dtype)
        init = jnp.invert(zero) if all_bits else zero
        axes = tuple(range(x.ndim)) if axis is None else tuple(axis)
        return jax.lax.reduce(x, init, combine, axes)

    return fold


#: The reductions that are never fused (the fused class is another
#: subclass of `CAReduce`, whose pickled form holds the composite).
_PLAIN = (
    _core.CAReduce,
    _core.Sum,
    _core.Prod,
    _core.Max,
    _core.Min,
    _core.All,
    _core.Any,
)


def _fused_sum(op: Any) -> Callable[..., Any] | None:
    """A `Sum` fused with the elementwise graph it sums (made by fusion: a
    compiled FAST_RUN function exported with `as_jax_function`), read from
    its pickled form ``(axis, dtype, acc_dtype, composite state)``; ``None``
    for a plain reduction."""
    if type(op) in _PLAIN:
        return None
    maker, args, *_ = op.__reduce__()
    if getattr(maker, "__name__", "") != "composite_reduce_from_state":
        return None
    axis, _, acc_dtype, state = args
    axis = None if axis is None else tuple(axis)
    pre, acc = composite_from_state(state), np.dtype(acc_dtype)
    return lambda *xs: jnp.sum(jnp.asarray(pre(*xs)).astype(acc), axis=axis)


@jax_funcify.register(_core.CAReduce)
def _careduce(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    fused = _fused_sum(op)
    if fused is not None:
        return fused
    name = type(op.scalar_op).__name__
    if type(op) is _core.CAReduce and name in _BITWISE:
        return _bitwise(name, op.axis)
    if name not in _FOLDS:
        raise JAXUnsupportedError(
            f"No JAX implementation for {op}: folding {op.scalar_op}"
        )
    fold, axis = _FOLDS[name], op.axis
    acc = (
        np.dtype(op.acc_dtype)
        if op.acc_dtype is not None and name in ("Add", "Mul")
        else None
    )

    def careduce(x: Any) -> Any:
        if acc is not None:
            x = x.astype(acc)
        return fold(x, axis=axis)

    return careduce


@jax_funcify.register(_core.Softmax)
def _softmax(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    axis = op.axis  # a tuple of axes (one distribution over them) or None
    return lambda x: jax.nn.softmax(x, axis=axis)


@jax_funcify.register(_core.LogSoftmax)
def _log_softmax(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    axis = op.axis
    return lambda x: jax.nn.log_softmax(x, axis=axis)


@jax_funcify.register(_core.LogSumExp)
def _logsumexp(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    axis = op.axis
    return lambda x: jsp.logsumexp(x, axis=axis)


def _arg_reduce(
    pick: Callable[..., Any], axis: tuple[int, ...] | None
) -> Callable[..., Any]:
    """``pick`` (argmax/argmin) over several axes: they are moved last and
    flattened into one, as NumPy numbers a multi-axis position."""

    def run(x: Any) -> Any:
        if axis is None:
            return pick(jnp.ravel(x))
        keep = [a for a in range(x.ndim) if a not in axis]
        moved = jnp.transpose(x, keep + list(axis))
        flat = moved.reshape((*(x.shape[a] for a in keep), -1))
        return pick(flat, axis=-1)

    return run


@jax_funcify.register(_core.Argmax)
def _argmax(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    return _arg_reduce(jnp.argmax, op.axis)


@jax_funcify.register(_core.Argmin)
def _argmin(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    return _arg_reduce(jnp.argmin, op.axis)


@jax_funcify.register(_core.CentredSquares)
def _centred_squares(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    axis, mean_acc, sum_acc = op.axis, np.dtype(op.mean_acc), np.dtype(op.sum_acc)

    def centred_squares(x: Any, *divisors: Any) -> Any:
        # The mean as the rewritten chain computed it: a sum divided by
        # each divisor input in turn (each a single value).
        mean = jnp.sum(x.astype(mean_acc), axis=axis, keepdims=True).astype(x.dtype)
        for d in divisors:
            mean = mean / jnp.reshape(d, ()).astype(x.dtype)
        dev = x - mean
        return jnp.sum((dev * dev).astype(sum_acc), axis=axis)

    return centred_squares

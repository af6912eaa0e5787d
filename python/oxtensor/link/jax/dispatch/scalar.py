"""Elementwise ops: each scalar op class as a `jax.numpy` function, mapped
over broadcast arrays by `Elemwise`; `Composite` through its inner graph."""

from collections.abc import Callable
from functools import reduce
from typing import Any

import jax
import jax.numpy as jnp
import jax.scipy.special as jsp
import numpy as np

from oxtensor import _core
from oxtensor.link.jax.dispatch.basic import JAXUnsupportedError, jax_funcify


def _second(x: Any, y: Any) -> Any:
    """``y`` broadcast to the shape of ``x`` and ``y``."""
    return jnp.broadcast_to(y, jnp.broadcast_shapes(jnp.shape(x), jnp.shape(y)))


def _round_half_away(x: Any) -> Any:
    return jnp.sign(x) * jnp.floor(jnp.abs(x) + 0.5)


def _log1mexp(x: Any) -> Any:
    """``log(1 - exp(x))`` for ``x <= 0``, accurate at both ends."""
    return jnp.where(x < -np.log(2.0), jnp.log1p(-jnp.exp(x)), jnp.log(-jnp.expm1(x)))


def _erfcx(x: Any) -> Any:
    # jax.scipy.special has no erfcx; exp(x^2) erfc(x) loses accuracy for x >~ 25.
    return jnp.exp(x * x) * jsp.erfc(x)


#: Scalar op class name -> JAX function of its inputs, for the kinds of the
#: scalar table whose function is not ``jax.numpy.<instance name>``
#: (``exp`` is ``jnp.exp``, ``arctan2`` is ``jnp.arctan2``).
SCALAR_FUNCS: dict[str, Callable[..., Any]] = {
    "Add": lambda *xs: reduce(jnp.add, xs),
    "Mul": lambda *xs: reduce(jnp.multiply, xs),
    "Sub": jnp.subtract,
    "TrueDiv": jnp.true_divide,
    "IntDiv": jnp.floor_divide,
    "Pow": jnp.power,
    "Neg": jnp.negative,
    "Sqr": lambda x: x * x,
    "Log1mexp": _log1mexp,
    "Sigmoid": jax.nn.sigmoid,
    "Softplus": jax.nn.softplus,
    "RoundHalfToEven": jnp.round,
    "RoundHalfAwayFromZero": _round_half_away,
    "LT": jnp.less,
    "GT": jnp.greater,
    "LE": jnp.less_equal,
    "GE": jnp.greater_equal,
    "EQ": jnp.equal,
    "NEQ": jnp.not_equal,
    "AND": jnp.bitwise_and,
    "OR": jnp.bitwise_or,
    "XOR": jnp.bitwise_xor,
    "Identity": lambda x: x,
    "Second": _second,
    "Switch": jnp.where,
    "Erf": jsp.erf,
    "Erfc": jsp.erfc,
    "Erfcx": _erfcx,
    "Erfinv": jsp.erfinv,
    "Erfcinv": lambda x: jsp.erfinv(1.0 - x),
    "Gamma": jsp.gamma,
    "GammaLn": jsp.gammaln,
    "Psi": jsp.digamma,
    "TriGamma": lambda x: jsp.polygamma(1, x),
    "Polygamma": jsp.polygamma,
    "XLogY": jsp.xlogy,
    "XLog1pY": jsp.xlog1py,
}


#: The classes of the scalar table's kinds (``Add``, ``Exp``, ...).
_TABLE_CLASSES = frozenset(cls for cls, *_ in _core.scalar_kinds())


def scalar_func(scalar_op: Any) -> Callable[..., Any]:
    """The JAX function of one scalar op (``Cast`` and ``Composite`` included)."""
    if isinstance(scalar_op, _core.Cast):
        dtype = np.dtype(scalar_op.o_dtype)
        return lambda x: jnp.asarray(x).astype(dtype)
    if isinstance(scalar_op, _core.Composite):
        return _composite_func(scalar_op)
    name = type(scalar_op).__name__
    if name in SCALAR_FUNCS:
        return SCALAR_FUNCS[name]
    by_name = getattr(jnp, scalar_op.name, None)
    if type(scalar_op) in _TABLE_CLASSES and callable(by_name):
        return by_name
    raise JAXUnsupportedError(
        f"No JAX implementation for the scalar op {scalar_op} (class {name}); add "
        "one to oxtensor.link.jax.dispatch.scalar.SCALAR_FUNCS or register its "
        "Elemwise with jax_funcify"
    )


def _composite_func(op: Any) -> Callable[..., Any]:
    """A `Composite`'s inner scalar graph, evaluated over whole arrays."""
    _, (state,), *_ = op.__reduce__()
    return composite_from_state(state)


def composite_from_state(state: Any) -> Callable[..., Any]:
    """The function of a composite's pickled form, plain data: input dtypes,
    constants, nodes as ``(op name or ("Cast", dtype), [(tag, index)])``
    with tags ``i`` (input), ``c`` (constant), ``n`` (node), and the output
    nodes."""
    _, consts, nodes, outputs = state
    steps = []
    for name, args in nodes:
        is_cast = isinstance(name, tuple | list)
        scalar: Any = _core.Cast(name[1]) if is_cast else _core.scalar_op(name)
        steps.append((scalar_func(scalar), list(args)))
    consts = [np.asarray(c) for c in consts]

    def composite(*xs: Any) -> Any:
        made: list[Any] = []
        pools = {"i": xs, "c": consts, "n": made}
        for fn, args in steps:
            made.append(fn(*(pools[tag][k] for tag, k in args)))
        outs = tuple(made[j] for j in outputs)
        return outs[0] if len(outs) == 1 else outs

    return composite


@jax_funcify.register(_core.Elemwise)
def _elemwise(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    return scalar_func(op.scalar_op)


@jax_funcify.register(_core.ScalarOp)
def _scalar(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    return scalar_func(op)

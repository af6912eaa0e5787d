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


#: Scalar op class name -> JAX function of its inputs.
SCALAR_FUNCS: dict[str, Callable[..., Any]] = {
    "Add": lambda *xs: reduce(jnp.add, xs),
    "Mul": lambda *xs: reduce(jnp.multiply, xs),
    "Sub": jnp.subtract,
    "TrueDiv": jnp.true_divide,
    "IntDiv": jnp.floor_divide,
    "Mod": jnp.mod,
    "Pow": jnp.power,
    "Maximum": jnp.maximum,
    "Minimum": jnp.minimum,
    "Neg": jnp.negative,
    "Abs": jnp.abs,
    "Sign": jnp.sign,
    "Sqr": lambda x: x * x,
    "Sqrt": jnp.sqrt,
    "Exp": jnp.exp,
    "Exp2": jnp.exp2,
    "Expm1": jnp.expm1,
    "Log": jnp.log,
    "Log1p": jnp.log1p,
    "Log2": jnp.log2,
    "Log10": jnp.log10,
    "Log1mexp": _log1mexp,
    "Sin": jnp.sin,
    "Cos": jnp.cos,
    "Tan": jnp.tan,
    "ArcSin": jnp.arcsin,
    "ArcCos": jnp.arccos,
    "ArcTan": jnp.arctan,
    "ArcTan2": jnp.arctan2,
    "Sinh": jnp.sinh,
    "Cosh": jnp.cosh,
    "Tanh": jnp.tanh,
    "ArcSinh": jnp.arcsinh,
    "ArcCosh": jnp.arccosh,
    "ArcTanh": jnp.arctanh,
    "Deg2Rad": jnp.deg2rad,
    "Rad2Deg": jnp.rad2deg,
    "Sigmoid": jax.nn.sigmoid,
    "Softplus": jax.nn.softplus,
    "Reciprocal": jnp.reciprocal,
    "Floor": jnp.floor,
    "Ceil": jnp.ceil,
    "Trunc": jnp.trunc,
    "RoundHalfToEven": jnp.round,
    "RoundHalfAwayFromZero": _round_half_away,
    "LT": jnp.less,
    "GT": jnp.greater,
    "LE": jnp.less_equal,
    "GE": jnp.greater_equal,
    "EQ": jnp.equal,
    "NEQ": jnp.not_equal,
    "IsNan": jnp.isnan,
    "IsInf": jnp.isinf,
    "AND": jnp.bitwise_and,
    "OR": jnp.bitwise_or,
    "XOR": jnp.bitwise_xor,
    "Invert": jnp.invert,
    "Identity": lambda x: x,
    "Second": _second,
    "Switch": jnp.where,
    "Clip": jnp.clip,
    "Erf": jsp.erf,
    "Erfc": jsp.erfc,
    "Erfcx": _erfcx,
    "Erfinv": jsp.erfinv,
    "Erfcinv": lambda x: jsp.erfinv(1.0 - x),
    "Gamma": jsp.gamma,
    "GammaLn": jsp.gammaln,
    "Psi": jsp.digamma,
    "TriGamma": lambda x: jsp.polygamma(1, x),
    "Real": jnp.real,
    "Imag": jnp.imag,
    "Conj": jnp.conj,
    "Angle": jnp.angle,
}


def scalar_func(scalar_op: Any) -> Callable[..., Any]:
    """The JAX function of one scalar op (``Cast`` and ``Composite`` included)."""
    if isinstance(scalar_op, _core.Cast):
        dtype = np.dtype(scalar_op.o_dtype)
        return lambda x: jnp.asarray(x).astype(dtype)
    if isinstance(scalar_op, _core.Composite):
        return _composite_func(scalar_op)
    name = type(scalar_op).__name__
    if name not in SCALAR_FUNCS:
        raise JAXUnsupportedError(
            f"No JAX implementation for the scalar op {scalar_op} (class {name}); add "
            "one to oxtensor.link.jax.dispatch.scalar.SCALAR_FUNCS or register its "
            "Elemwise with jax_funcify"
        )
    return SCALAR_FUNCS[name]


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

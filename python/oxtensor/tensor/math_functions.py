"""Elementwise functions: one per scalar op of the scalar table (``add``,
``exp``, ``erf``, ``clip``, ...), then ``where``, ``round``, the parts of
complex numbers, and PyTensor's aliases. Each is an ``Elemwise`` over one
scalar op (or a small graph of them, like ``isfinite``), as in PyTensor;
``oxtensor.tensor.math`` re-exports them."""

import warnings
from typing import Any as _Any

import numpy as np

from oxtensor import _core, scalar
from oxtensor.tensor.basic import as_tensor_variable

# One ``Elemwise`` per kind of the scalar table, named as the scalar op's
# module attribute (``exp``, ``log1mexp``); ``conj`` is wrapped below.
_NEW = [attr for _, _, attr, *_ in scalar.basic.KINDS if attr != "conj"]
globals().update({n: _core.elemwise_op(getattr(scalar, n)) for n in _NEW})
_conj = _core.elemwise_op(scalar.conj)


def _op(name: str) -> _Any:
    return _core.elemwise_op(getattr(scalar, name))


# PyTensor's other names for existing ops.
_ALIASES = {
    "digamma": "psi",
    "log1pexp": "softplus",
    "tensor_copy": "identity",
    "fill": "second",
    "square": "sqr",
    "bitwise_not": "invert",
    "equal": "eq",
    "not_equal": "neq",
    "less": "lt",
    "less_equal": "le",
    "greater": "gt",
    "greater_equal": "ge",
}
globals().update({alias: _op(name) for alias, name in _ALIASES.items()})


def round(a: _Any, mode: str | None = None) -> _Any:
    """``a`` rounded to integers: ``mode`` is ``"half_to_even"`` (the
    default, as NumPy rounds) or ``"half_away_from_zero"`` (as C rounds)."""
    if mode is None or mode == "half_to_even":
        return globals()["round_half_to_even"](a)
    if mode == "half_away_from_zero":
        return globals()["round_half_away_from_zero"](a)
    raise ValueError(
        f"round mode {mode!r} is not implemented; "
        "expected 'half_to_even' or 'half_away_from_zero'"
    )


def where(cond: _Any, ift: _Any = None, iff: _Any = None) -> _Any:
    """``ift`` where ``cond`` is true, else ``iff`` (``switch``); with
    ``cond`` alone, ``nonzero(cond)``."""
    if ift is not None and iff is not None:
        return _op("switch")(cond, ift, iff)
    if ift is None and iff is None:
        from oxtensor.tensor.nonzero import nonzero

        return nonzero(cond)
    raise ValueError("either both or neither of ift and iff should be given")


def _all_false(a: _Any) -> _Any:
    """``False`` shaped like ``a``: an ``Alloc``, not an ``Elemwise``."""
    from oxtensor.tensor.basic import alloc

    return alloc(np.asarray(False), *[a.shape[i] for i in range(a.ndim)])


def isnan(a: _Any) -> _Any:
    """Where ``a`` is NaN; integers never are (all false, without an
    ``Elemwise``, as PyTensor builds it)."""
    a = as_tensor_variable(a)
    if a.dtype.startswith(("int", "uint", "bool")):
        return _all_false(a)
    return _op("isnan")(a)


def isinf(a: _Any) -> _Any:
    """Where ``a`` is infinite; integers never are (all false, as ``isnan``)."""
    a = as_tensor_variable(a)
    if a.dtype.startswith(("int", "uint", "bool")):
        return _all_false(a)
    return _op("isinf")(a)


def isfinite(a: _Any) -> _Any:
    """Where ``a`` is neither NaN nor infinite (all true for integers)."""
    a = as_tensor_variable(a)
    if a.dtype.startswith(("int", "uint", "bool")):
        return _op("second")(a, np.asarray(True))
    return _op("and_")(~_op("isnan")(a), ~_op("isinf")(a))


def conjugate(x: _Any) -> _Any:
    """The complex conjugate of ``x``; ``x`` itself when it is not complex."""
    x = as_tensor_variable(x)
    if not x.dtype.startswith("complex"):
        return x
    return _conj(x)


conj = conjugate


def sgn(a: _Any) -> _Any:
    """Deprecated alias of ``sign``, as in PyTensor."""
    warnings.warn(
        "sgn is deprecated and will stop working in the future, use sign instead.",
        FutureWarning,
        stacklevel=2,
    )
    return _op("sign")(a)


def kv(v: _Any, x: _Any) -> _Any:
    """The modified Bessel function of the second kind of real order ``v``,
    as PyTensor builds it: ``kve(v, x) * exp(-x)``."""
    return _op("kve")(v, x) * _op("exp")(-as_tensor_variable(x))


def kn(n: _Any, x: _Any) -> _Any:
    """The modified Bessel function of the second kind of integer order
    ``n`` (``kv``)."""
    return kv(n, x)


def chi2sf(x: _Any, k: _Any) -> _Any:
    """The chi-squared survival function; deprecated in PyTensor for
    ``gammaincc(k / 2, x / 2)``, which it returns."""
    warnings.warn(
        "chi2sf is deprecated. Use `gammaincc(k / 2, x / 2)` instead", stacklevel=2
    )
    return _op("gammaincc")(as_tensor_variable(k) / 2, as_tensor_variable(x) / 2)


__all__ = [
    "chi2sf",
    "conj",
    "conjugate",
    "isfinite",
    "kn",
    "kv",
    "round",
    "sgn",
    "where",
    *_NEW,
    *_ALIASES,
]

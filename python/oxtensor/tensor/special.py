"""Softmax and log-softmax (native, fused ops), as in ``pytensor.tensor.special``."""

from typing import Any

from oxtensor import _core

Softmax = _core.Softmax
LogSoftmax = _core.LogSoftmax


def softmax(c: Any, axis: Any = None) -> Any:
    """``exp(c) / sum(exp(c))`` along ``axis`` (``None``: over all elements)."""
    return _core.softmax(c, axis)


def log_softmax(c: Any, axis: Any = None) -> Any:
    """``c - logsumexp(c)`` along ``axis`` (``None``: over all elements)."""
    return _core.log_softmax(c, axis)


__all__ = ["LogSoftmax", "Softmax", "log_softmax", "softmax"]

# ---- SciPy's everyday special functions, composed of elementwise ops -------
# Integer inputs compute in float (PyTensor's upgrade_to_float) before any
# arithmetic, so that ``n + 1`` cannot wrap around.


def _floats(*xs: Any) -> list[Any]:
    from oxtensor.tensor._float import as_float
    from oxtensor.tensor.basic import as_tensor_variable

    return [as_float(as_tensor_variable(x)) for x in xs]


def logit(x: Any) -> Any:
    """``log(x / (1 - x))``, the inverse of ``sigmoid``."""
    from oxtensor.tensor.math import log

    (x,) = _floats(x)
    return log(x / (1 - x))


def xlogy(x: Any, y: Any) -> Any:
    """``x * log(y)``, 0 where ``x`` is 0 (unless ``y`` is NaN), as SciPy:
    the core's ``XLogY`` scalar op."""
    from oxtensor.tensor.math import xlogy as _xlogy

    return _xlogy(*_floats(x, y))


def xlog1py(x: Any, y: Any) -> Any:
    """``x * log1p(y)``, 0 where ``x`` is 0 (unless ``y`` is NaN), as SciPy:
    the core's ``XLog1pY`` scalar op."""
    from oxtensor.tensor.math import xlog1py as _xlog1py

    return _xlog1py(*_floats(x, y))


def betaln(a: Any, b: Any) -> Any:
    """``log|B(a, b)|``: ``gammaln(a) + gammaln(b) - gammaln(a + b)``."""
    from oxtensor.tensor.math import gammaln

    a, b = _floats(a, b)
    return gammaln(a) + gammaln(b) - gammaln(a + b)


def _gamma_sign(x: Any) -> Any:
    from oxtensor.tensor.math import gamma, sign

    # gamma overflows to a signed infinity, so its sign survives.
    return sign(gamma(x))


def beta(a: Any, b: Any) -> Any:
    """The beta function ``Γ(a)Γ(b)/Γ(a+b)``, as ``exp(betaln)`` with the
    gammas' signs, so that it does not overflow where the gammas do."""
    from oxtensor.tensor.math import exp

    a, b = _floats(a, b)
    sign = _gamma_sign(a) * _gamma_sign(b) * _gamma_sign(a + b)
    return sign * exp(betaln(a, b))


def factorial(n: Any) -> Any:
    """``n!`` as ``gamma(n + 1)`` (a float, as SciPy's ``exact=False``)."""
    from oxtensor.tensor.math import gamma

    (n,) = _floats(n)
    return gamma(n + 1)


def poch(z: Any, m: Any) -> Any:
    """The rising factorial ``Γ(z + m) / Γ(z)``, as in PyTensor."""
    from oxtensor.tensor.math import gamma

    z, m = _floats(z, m)
    return gamma(z + m) / gamma(z)


__all__ += ["beta", "betaln", "factorial", "logit", "poch", "xlog1py", "xlogy"]

"""``isclose`` and ``allclose``, elementwise as in NumPy: ``|a - b| <=
atol + rtol * |b|`` where ``b`` is finite, or ``a == b`` (so equal
infinities are close), NaNs close to each other only with ``equal_nan``.
Integer ``b`` is compared as float64, as NumPy does, so ``a - b`` cannot
wrap around."""

from typing import Any

from oxtensor.tensor.basic import as_tensor_variable


def isclose(
    a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08, equal_nan: bool = False
) -> Any:
    """Where ``a`` and ``b`` are equal within the tolerances (bool)."""
    from oxtensor.tensor.math import abs, eq, isfinite, isnan, le

    a, b = as_tensor_variable(a), as_tensor_variable(b)
    if not b.dtype.startswith(("float", "complex")):
        b = b.astype("float64")
    close = le(abs(a - b), atol + rtol * abs(b)) & isfinite(b)
    close = close | eq(a, b)
    if equal_nan:
        close = close | (isnan(a) & isnan(b))
    return close


def allclose(
    a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08, equal_nan: bool = False
) -> Any:
    """Whether every element of ``a`` is close to ``b`` (a bool scalar)."""
    return isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan).all()


__all__ = ["allclose", "isclose"]

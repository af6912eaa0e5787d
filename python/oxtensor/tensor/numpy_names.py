"""NumPy's names for existing elementwise ops, as ``pytensor.tensor.math``
has them: ``power`` (``pow``), ``divmod`` (``floor_div`` and ``mod``) and
``iround`` (``round`` cast to int64)."""

from typing import Any


def power(x: Any, y: Any) -> Any:
    """``x ** y`` elementwise."""
    from oxtensor.tensor.math import pow

    return pow(x, y)


def divmod(x: Any, y: Any) -> tuple[Any, Any]:
    """``(x // y, x % y)`` elementwise, Python's rounding toward -inf."""
    from oxtensor.tensor.math import floor_div, mod

    return floor_div(x, y), mod(x, y)


def iround(a: Any, mode: str | None = None) -> Any:
    """``round(a, mode)`` as int64."""
    from oxtensor.tensor.math import round

    return round(a, mode).astype("int64")


__all__ = ["divmod", "iround", "power"]

"""``logaddexp``: ``log(exp(x1) + exp(x2) + ...)`` without overflow.

Each pair is ``hi + softplus(lo - hi)``, with ``hi``/``lo`` chosen by one
comparison (``switch``) rather than ``maximum``: at a tie the comparison
sends the softplus term's ``sigmoid(0) = 1/2`` to each side, so the
gradient is exact there too. Two equal infinities, where ``lo - hi`` is NaN,
give that infinity, as in NumPy. Integers compute in float, as ``exp``.
"""

from typing import Any

from oxtensor.tensor._float import as_float
from oxtensor.tensor.basic import as_tensor_variable


def _pair(a: Any, b: Any) -> Any:
    from oxtensor.tensor.math import eq, isinf, softplus, switch

    a_wins = a > b
    hi = switch(a_wins, a, b)
    lo = switch(a_wins, b, a)
    out = hi + softplus(lo - hi)
    return switch(eq(a, b) & isinf(a), a, out)


def logaddexp(*xs: Any) -> Any:
    """``log(sum(exp(x) for x in xs))``, the inputs broadcast together.

    >>> import oxtensor.tensor as ot
    >>> float(ot.logaddexp(1000.0, 1000.0).eval())  # doctest: +ELLIPSIS
    1000.693...
    """
    if len(xs) < 2:
        raise TypeError(f"logaddexp needs at least two inputs, got {len(xs)}")
    tensors = [as_float(as_tensor_variable(x)) for x in xs]
    out = tensors[0]
    for x in tensors[1:]:
        out = _pair(out, x)
    return out


__all__ = ["logaddexp"]

"""``bincount``: occurrences of each non-negative integer (or sums of their
weights), the native ``Bincount`` op; PyTensor composes it from
``inc_subtensor``. ``oxtensor.tensor.extra_ops`` re-exports both."""

import operator
from typing import Any

from oxtensor import _core

Bincount = _core.Bincount


def bincount(
    x: Any, weights: Any = None, minlength: Any = None, assert_nonneg: bool = False
) -> Any:
    """The number of times each value ``0..max(x)`` occurs in the integer
    vector ``x`` (the sum of the matching ``weights`` instead, of their
    dtype as in PyTensor; NumPy gives float64), with at least ``minlength``
    bins. A negative value raises an ``IndexError`` when the graph runs, an
    ``AssertionError`` (PyTensor's) with ``assert_nonneg``.

    >>> import oxtensor.tensor as ot
    >>> print(ot.bincount(ot.ivector("x"), minlength=5).owner.op)
    Bincount{minlength=5}
    """
    if assert_nonneg:
        from oxtensor.raise_op import Assert
        from oxtensor.tensor import all as all_
        from oxtensor.tensor import ge

        x = _core.as_tensor_variable(x)
        x = Assert("Input to bincount has negative values!")(x, all_(ge(x, 0)))
    op = Bincount(0 if minlength is None else operator.index(minlength))
    return op(x) if weights is None else op(x, weights)


__all__ = ["Bincount", "bincount"]

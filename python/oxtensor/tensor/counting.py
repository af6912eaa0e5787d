"""``bincount``: occurrences of each non-negative integer, an
``AdvancedIncSubtensor`` of ones (or of ``weights``) into zeros, which adds
repeated positions up, as PyTensor composes it."""

import operator
from typing import Any

import numpy as np

from oxtensor.tensor.basic import as_tensor_variable, join, zeros


def _length(x: Any, minlength: Any) -> Any:
    """``max(x) + 1``, at least ``minlength`` (and 0 for an empty ``x``)."""
    from oxtensor.tensor.math import maximum

    # A -1 sentinel gives the empty input a length of 0 instead of a
    # reduction with no identity.
    padded = join(0, x.astype("int64"), np.array([-1], dtype="int64"))
    length = padded.max() + 1
    if minlength is not None:
        length = maximum(length, np.int64(minlength))
    return length


def bincount(
    x: Any, weights: Any = None, minlength: Any = None, assert_nonneg: bool = False
) -> Any:
    """The number of times each value ``0..max(x)`` occurs in the integer
    vector ``x`` (the sum of the matching ``weights`` instead, of their
    dtype as in PyTensor; NumPy gives float64). A negative value raises an
    ``IndexError`` when the graph runs, with or without ``assert_nonneg``.
    """
    from oxtensor.tensor.math import switch
    from oxtensor.tensor.subtensor import inc_subtensor

    del assert_nonneg
    x = as_tensor_variable(x)
    if x.ndim != 1 or not x.dtype.startswith(("int", "uint")):
        raise TypeError(f"bincount: x must be a vector of integers, got {x.type}")
    if minlength is not None:
        minlength = operator.index(minlength)
        if minlength < 0:
            raise ValueError(
                f"bincount: minlength must be non-negative, got {minlength}"
            )
    length = _length(x, minlength)
    # Negative values would count from the end; send them out of range.
    index = switch(x < 0, length, x.astype("int64"))
    if weights is None:
        return inc_subtensor(zeros([length], dtype="int64")[index], np.int64(1))
    weights = as_tensor_variable(weights)
    return inc_subtensor(zeros([length], dtype=weights.dtype)[index], weights)


__all__ = ["bincount"]

"""Helpers PyTensor keeps in ``pytensor.tensor.extra_ops``: ``to_one_hot``."""

import operator
from typing import Any as _Any

import numpy as np

from oxtensor import _core

_FLOATX = "float64"


def to_one_hot(y: _Any, nb_class: int, dtype: _Any = None) -> _Any:
    """An ``(n, nb_class)`` matrix whose row ``i`` is all zeros but for a one
    in column ``y[i]``; ``dtype`` defaults to floatX (float64). Rows are
    gathered from a constant identity matrix, so labels out of range raise
    ``IndexError`` at run time and negative labels count from the end, as in
    PyTensor's ``set_subtensor`` form."""
    y = _core.as_tensor_variable(y)
    if y.ndim != 1 or not y.dtype.startswith(("int", "uint")):
        raise TypeError(f"to_one_hot needs an integer vector y, got {y.type}")
    try:
        n = operator.index(nb_class)
    except TypeError:
        raise TypeError(
            f"to_one_hot needs a Python int nb_class, got {type(nb_class).__name__}"
        ) from None
    if n < 0:
        raise ValueError(f"to_one_hot needs nb_class >= 0, got {n}")
    dtype = str(np.dtype(_FLOATX if dtype is None else dtype))
    return _core.constant(np.eye(n, dtype=dtype))[y]


__all__ = ["to_one_hot"]

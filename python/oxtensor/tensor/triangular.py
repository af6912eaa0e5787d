"""Lower and upper triangles: ``tri``, ``tril``, ``triu``, as in
``pytensor.tensor.basic``. ``tri`` compares two ``arange`` vectors, so
static ``N``/``M`` give a static shape; ``tril``/``triu`` keep ``m`` where a
boolean ``tri`` mask says so (a ``switch``, so infinities outside the
triangle become zeros, as in NumPy, rather than NaNs)."""

from typing import Any

import numpy as np

from oxtensor.configdefaults import config as _config
from oxtensor.tensor.basic import _dim, arange, as_tensor_variable


def tri(N: Any, M: Any = None, k: Any = 0, dtype: Any = None) -> Any:
    """An ``N`` by ``M`` array with ones at and below diagonal ``k`` and
    zeros elsewhere (floatX by default)."""
    dtype = _config.floatX if dtype is None else str(np.dtype(dtype))
    M = N if M is None else M
    rows = arange(N).dimshuffle(0, "x")
    cols = arange(M).dimshuffle("x", 0)
    mask = (rows + k) >= cols
    return mask if dtype == "bool" else mask.astype(dtype)


def _triangle(m: Any, k: Any, lower: bool, name: str) -> Any:
    from oxtensor.tensor.math import switch

    m = as_tensor_variable(m)
    if m.ndim == 0:
        raise ValueError(f"{name} needs an input of at least 1 dimension, got {m.type}")
    if m.ndim == 1:
        # NumPy's rule: a vector is broadcast to the rows of a square matrix.
        m = m.dimshuffle("x", 0)
        n_rows = _dim(m, 1)
    else:
        n_rows = _dim(m, m.ndim - 2)
    mask = tri(n_rows, _dim(m, m.ndim - 1), k if lower else k - 1, dtype="bool")
    zero = np.zeros((), dtype=m.dtype)
    return switch(mask, m, zero) if lower else switch(mask, zero, m)


def tril(m: Any, k: Any = 0) -> Any:
    """``m`` with the elements above diagonal ``k`` of its last two axes
    zeroed (a vector is first repeated into a square matrix, as in NumPy)."""
    return _triangle(m, k, True, "tril")


def triu(m: Any, k: Any = 0) -> Any:
    """``m`` with the elements below diagonal ``k`` of its last two axes
    zeroed (a vector is first repeated into a square matrix, as in NumPy)."""
    return _triangle(m, k, False, "triu")


__all__ = ["tri", "tril", "triu"]

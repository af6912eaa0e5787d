"""``nonzero``, ``flatnonzero`` and ``nonzero_values``: the positions and
values of an array's nonzero elements, built on the native ``Nonzero`` op
(one int64 vector per axis, of a length known only at run time), with
PyTensor's names and errors. ``oxtensor.tensor.basic`` re-exports them."""

from typing import Any as _Any

import numpy as np

from oxtensor import _core

Nonzero = _core.Nonzero


def _nonscalar(a: _Any) -> _Any:
    a = _core.as_tensor_variable(a)
    if a.ndim == 0:
        raise ValueError("Nonzero only supports non-scalar arrays.")
    return a


def _stack_rows(rows: list[_Any]) -> _Any:
    """The coordinate vectors as the rows of an ``(ndim, n)`` matrix: each
    row times a unit column, summed (oxtensor has no ``Join`` yet)."""
    eye = np.eye(len(rows), dtype="int64")
    terms = [_core.constant(eye[d])[:, None] * r[None, :] for d, r in enumerate(rows)]
    total = terms[0]
    for term in terms[1:]:
        total = total + term
    return total


def nonzero(a: _Any, return_matrix: bool = False) -> _Any:
    """The indices of ``a``'s nonzero elements: a tuple of int64 vectors,
    one per axis (NumPy's ``nonzero``), or with ``return_matrix`` an
    ``(a.ndim, n)`` matrix of them."""
    rows = Nonzero()(_nonscalar(a))
    rows = list(rows) if isinstance(rows, (list, tuple)) else [rows]
    return _stack_rows(rows) if return_matrix else tuple(rows)


def flatnonzero(a: _Any) -> _Any:
    """The indices of ``a``'s nonzero elements in its flattened form."""
    return nonzero(_nonscalar(a).flatten(1))[0]


def nonzero_values(a: _Any) -> _Any:
    """``a``'s nonzero elements, flattened, in C order."""
    a = _nonscalar(a)
    return a.flatten(1)[flatnonzero(a)]


__all__ = ["Nonzero", "flatnonzero", "nonzero", "nonzero_values"]

"""`may_share_memory(a, b)`: whether two values (ndarrays or scipy.sparse
matrices) may use the same memory, as `numpy.may_share_memory` decides for
arrays; a sparse matrix is the arrays it is made of."""

import sys
from typing import Any

import numpy as np


def _buffers(value: Any) -> list[np.ndarray] | None:
    """The arrays holding ``value``'s data, or None for another kind of value."""
    if isinstance(value, np.ndarray):
        return [value]
    sparse = sys.modules.get("scipy.sparse")
    if sparse is not None and sparse.issparse(value):
        parts = ("data", "indices", "indptr", "row", "col", "offsets")
        return [
            getattr(value, p)
            for p in parts
            if isinstance(getattr(value, p, None), np.ndarray)
        ]
    return None


def may_share_memory(a: Any, b: Any, raise_other_type: bool = True) -> bool:
    """Whether ``a`` and ``b`` may share memory. A value that is neither an
    ndarray nor a sparse matrix raises `TypeError` unless
    ``raise_other_type=False`` (then the answer is False)."""
    a_parts, b_parts = _buffers(a), _buffers(b)
    if a_parts is None or b_parts is None:
        if raise_other_type:
            other = a if a_parts is None else b
            raise TypeError(
                "may_share_memory supports ndarrays and scipy.sparse matrices, "
                f"got {type(other)}"
            )
        return False
    return any(np.may_share_memory(x, y) for x in a_parts for y in b_parts)


__all__ = ["may_share_memory"]

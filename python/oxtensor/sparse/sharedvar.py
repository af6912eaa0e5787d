"""Shared sparse matrices: ``oxtensor.shared(scipy_matrix)`` gives a
`SparseTensorSharedVariable` (through `sparse_constructor`)."""

from typing import Any

import scipy.sparse as sp

from oxtensor.compile.sharedvalue import SharedVariable
from oxtensor.sparse.type import SparseTensorType
from oxtensor.sparse.variable import _SparseOperators


class SparseTensorSharedVariable(_SparseOperators, SharedVariable):
    """A shared variable holding a csc or csr matrix."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        SharedVariable.__init__(self, *args, **kwargs)


def sparse_constructor(
    value: Any,
    name: str | None = None,
    strict: bool = False,
    allow_downcast: bool | None = None,
    borrow: bool = False,
    format: str | None = None,
    shape: Any = None,
) -> SparseTensorSharedVariable:
    """A shared variable of ``value`` (a scipy.sparse matrix, copied unless
    ``borrow``), in ``format`` (default: the value's)."""
    if not sp.issparse(value):
        raise TypeError(
            f"sparse_constructor expects a scipy.sparse matrix, got {type(value)}"
        )
    format = format or value.format
    ty = SparseTensorType(format, value.dtype, shape)
    if not borrow:
        value = value.copy()
    return SparseTensorSharedVariable(ty, value, strict, allow_downcast, name=name)


__all__ = ["SparseTensorSharedVariable", "sparse_constructor"]

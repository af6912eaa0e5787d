"""`SparseVariable` and `SparseConstant`: graph variables whose values are
scipy.sparse matrices, with the operators oxtensor.sparse implements."""

from operator import attrgetter
from typing import Any, NoReturn

from oxtensor.graph.basic import Constant, Variable


def _unsupported(what: str) -> Any:
    def method(self: Any, *args: Any, **kwargs: Any) -> NoReturn:
        raise NotImplementedError(
            f"{what} of the sparse variable {self} is not available: oxtensor.sparse "
            "implements sparse + sparse, sparse + dense and the dense/sparse "
            "conversions only (docs/for-pytensor-users.md); convert with "
            "dense_from_sparse(x) or x.toarray() first"
        )

    method.__name__ = what
    return method


class _SparseOperators:
    """What sparse variables (plain, constant, shared) can do."""

    ndim = 2
    # Read from the variable's type.
    format = property(attrgetter("type.format"))
    dtype = property(attrgetter("type.dtype"))
    broadcastable = property(attrgetter("type.broadcastable"))

    def __add__(self, other: Any) -> Any:
        from oxtensor.sparse.math import add

        return add(self, other)

    __radd__ = __add__

    def toarray(self) -> Any:
        """The dense matrix (`dense_from_sparse`)."""
        from oxtensor.sparse.basic import dense_from_sparse

        return dense_from_sparse(self)

    todense = toarray

    __sub__ = __rsub__ = _unsupported("subtraction")
    __mul__ = __rmul__ = _unsupported("multiplication")
    __truediv__ = __rtruediv__ = _unsupported("division")
    __matmul__ = __rmatmul__ = _unsupported("matrix product")
    __neg__ = _unsupported("negation")
    __pow__ = _unsupported("power")
    __getitem__ = _unsupported("indexing")
    sum = _unsupported("sum")
    dot = _unsupported("dot")


class SparseVariable(_SparseOperators, Variable):
    """A variable of a `SparseTensorType`."""

    def __str__(self) -> str:
        if self.name is not None:
            return str(self.name)
        return f"<{self.type}>"


class SparseConstant(_SparseOperators, Constant):
    """A sparse matrix fixed in the graph."""

    def __init__(self, type: Any, data: Any, name: str | None = None) -> None:
        Constant.__init__(self, type, type.filter(data), name)

    def signature(self) -> tuple[Any, ...]:
        # Hashable (a sparse matrix is not): the type and the entries.
        coo = self.data.tocoo()
        entries = (coo.row.tobytes(), coo.col.tobytes(), coo.data.tobytes())
        return (self.type, self.data.shape, entries)

    def __str__(self) -> str:
        if self.name is not None:
            return str(self.name)
        return f"SparseConstant{{{self.format}, nnz={self.data.nnz}}}"


__all__ = ["SparseConstant", "SparseVariable"]

"""Sparse variables from values and types (`as_sparse_variable`,
`csc_matrix`, `csr_matrix`, ...) and the conversions between sparse and
dense matrices (`dense_from_sparse`, `csc_from_dense`, `csr_from_dense`),
Python ops whose ``perform`` uses scipy.sparse."""

from typing import Any

import numpy as np
import scipy.sparse as sp

from oxtensor.configdefaults import config
from oxtensor.graph.basic import Apply, Variable
from oxtensor.graph.op import Op
from oxtensor.sparse.type import FORMATS, SparseTensorType
from oxtensor.sparse.variable import SparseConstant, SparseVariable
from oxtensor.tensor.basic import as_tensor_variable
from oxtensor.tensor.type import TensorType


def as_sparse_variable(x: Any, name: str | None = None) -> SparseVariable:
    """``x`` if it is a sparse variable; a `SparseConstant` if it is a
    scipy.sparse csc/csr matrix; `TypeError` otherwise (a dense variable
    becomes sparse through `csc_from_dense`/`csr_from_dense`, explicitly)."""
    if isinstance(getattr(x, "type", None), SparseTensorType):
        return x  # type: ignore[no-any-return]
    if isinstance(x, Variable):
        raise TypeError(
            f"as_sparse_variable: {x} has type {x.type}, not a sparse type; "
            "convert it with csc_from_dense or csr_from_dense"
        )
    if sp.issparse(x):
        if x.format not in FORMATS:
            raise TypeError(
                f"as_sparse_variable: scipy.sparse format {x.format!r} is not "
                f"supported; convert it to one of {FORMATS} first"
            )
        ty = SparseTensorType(x.format, x.dtype, x.shape)
        return SparseConstant(ty, x, name)  # type: ignore[return-value]
    raise TypeError(
        f"as_sparse_variable: cannot make a sparse variable of {type(x).__name__}"
    )


as_sparse = as_sparse_variable


def _matrix(format: str, name: str | None, dtype: Any, shape: Any) -> SparseVariable:
    dtype = config.floatX if dtype is None else dtype
    return SparseTensorType(format, dtype, shape)(name)  # type: ignore[no-any-return]


def csc_matrix(
    name: str | None = None, dtype: Any = None, shape: Any = None
) -> SparseVariable:
    """A csc sparse matrix variable (dtype: ``config.floatX`` by default)."""
    return _matrix("csc", name, dtype, shape)


def csr_matrix(
    name: str | None = None, dtype: Any = None, shape: Any = None
) -> SparseVariable:
    """A csr sparse matrix variable (dtype: ``config.floatX`` by default)."""
    return _matrix("csr", name, dtype, shape)


def _typed(format: str, dtype: str) -> Any:
    def make(name: str | None = None, shape: Any = None) -> SparseVariable:
        return _matrix(format, name, dtype, shape)

    make.__name__ = f"{format}_{dtype[0]}matrix"
    make.__doc__ = f"A {format} sparse matrix variable of dtype {dtype}."
    return make


csc_dmatrix = _typed("csc", "float64")
csr_dmatrix = _typed("csr", "float64")
csc_fmatrix = _typed("csc", "float32")
csr_fmatrix = _typed("csr", "float32")


class DenseFromSparse(Op):
    """The dense ndarray of a sparse matrix."""

    __props__ = ()

    def make_node(self, x: Any) -> Apply:
        x = as_sparse_variable(x)
        out = TensorType(x.type.dtype, shape=x.type.shape)()
        return Apply(self, [x], [out])

    def perform(
        self, node: Apply, inputs: list[Any], output_storage: list[Any]
    ) -> None:
        output_storage[0][0] = np.asarray(inputs[0].toarray())

    def grad(self, inputs: list[Any], output_grads: list[Any]) -> list[Any]:
        # Dense-to-sparse of the gradient, in the input's format.
        return [SparseFromDense(inputs[0].type.format)(output_grads[0])]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list[Any]) -> list[Any]:
        return [shapes[0]]


class SparseFromDense(Op):
    """A dense matrix as a sparse matrix of ``format``."""

    __props__ = ("format",)

    def __init__(self, format: str) -> None:
        if format not in FORMATS:
            raise NotImplementedError(
                f"SparseFromDense: format {format!r} is not supported"
            )
        self.format = format

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        if x.type.ndim != 2:
            raise TypeError(
                f"{self}: the input must be a matrix, got {x} of type {x.type} "
                f"({x.type.ndim} dims)"
            )
        out = SparseTensorType(self.format, x.type.dtype, x.type.shape)()
        return Apply(self, [x], [out])

    def perform(
        self, node: Apply, inputs: list[Any], output_storage: list[Any]
    ) -> None:
        make = sp.csc_matrix if self.format == "csc" else sp.csr_matrix
        output_storage[0][0] = make(inputs[0])

    def grad(self, inputs: list[Any], output_grads: list[Any]) -> list[Any]:
        return [dense_from_sparse(output_grads[0])]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list[Any]) -> list[Any]:
        return [shapes[0]]

    def __str__(self) -> str:
        return f"SparseFromDense{{{self.format}}}"


dense_from_sparse = DenseFromSparse()
csc_from_dense = SparseFromDense("csc")
csr_from_dense = SparseFromDense("csr")

__all__ = [
    "DenseFromSparse",
    "SparseFromDense",
    "as_sparse",
    "as_sparse_variable",
    "csc_dmatrix",
    "csc_fmatrix",
    "csc_from_dense",
    "csc_matrix",
    "csr_dmatrix",
    "csr_fmatrix",
    "csr_from_dense",
    "csr_matrix",
    "dense_from_sparse",
]

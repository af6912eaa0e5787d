"""Sparse addition: `add` of two sparse matrices (`AddSS`, sparse result)
or of a sparse and a dense matrix (`AddSD`, dense result)."""

from typing import Any

import numpy as np
import scipy.sparse as sp

from oxtensor.graph.basic import Apply
from oxtensor.graph.op import Op
from oxtensor.sparse.basic import as_sparse_variable
from oxtensor.sparse.type import SparseTensorType
from oxtensor.tensor.basic import as_tensor_variable
from oxtensor.tensor.type import TensorType


def _merged_shape(op: Op, x: Any, y: Any) -> tuple[Any, ...]:
    """The static shape both share, or `ValueError` naming them."""
    shape = []
    for a, b in zip(x.type.shape, y.type.shape, strict=True):
        if a is not None and b is not None and a != b:
            raise ValueError(
                f"{op}: shapes {x.type.shape} of {x} and {y.type.shape} of {y} differ"
            )
        shape.append(a if a is not None else b)
    return tuple(shape)


class _Add(Op):
    """What both additions share: equal runtime shapes, and the result's;
    each subclass's ``combine`` adds the two values."""

    __props__ = ()

    def perform(
        self, node: Apply, inputs: list[Any], output_storage: list[Any]
    ) -> None:
        x, y = inputs
        if x.shape != y.shape:
            raise ValueError(f"{self}: shapes {x.shape} and {y.shape} differ")
        output_storage[0][0] = self.combine(x, y, node.outputs[0].type)  # type: ignore[attr-defined]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list[Any]) -> list[Any]:
        return [shapes[0]]


class AddSS(_Add):
    """Sparse + sparse (same shape), a sparse matrix in the format of the
    first; the dtype is NumPy's promotion of both."""

    __props__ = ()

    def make_node(self, x: Any, y: Any) -> Apply:
        x, y = as_sparse_variable(x), as_sparse_variable(y)
        dtype = np.result_type(x.type.dtype, y.type.dtype)
        out = SparseTensorType(x.type.format, dtype, _merged_shape(self, x, y))()
        return Apply(self, [x, y], [out])

    def combine(self, x: Any, y: Any, out_type: Any) -> Any:
        result = (x + y).asformat(out_type.format)
        return result.astype(out_type.dtype, copy=False)

    def grad(self, inputs: list[Any], output_grads: list[Any]) -> list[Any]:
        (gz,) = output_grads
        return [gz, gz]


class AddSD(_Add):
    """Sparse + dense matrix (same shape), a dense matrix."""

    __props__ = ()

    def make_node(self, x: Any, y: Any) -> Apply:
        x, y = as_sparse_variable(x), as_tensor_variable(y)
        if y.type.ndim != 2:
            raise TypeError(f"{self}: {y} must be a matrix, got type {y.type}")
        dtype = np.result_type(x.type.dtype, y.type.dtype)
        out = TensorType(dtype, shape=_merged_shape(self, x, y))()
        return Apply(self, [x, y], [out])

    def combine(self, x: Any, y: Any, out_type: Any) -> Any:
        return np.asarray(x + y, dtype=out_type.dtype)

    def grad(self, inputs: list[Any], output_grads: list[Any]) -> list[Any]:
        from oxtensor.sparse.basic import SparseFromDense

        (gz,) = output_grads
        return [SparseFromDense(inputs[0].type.format)(gz), gz]


add_s_s = AddSS()
add_s_d = AddSD()


def add(x: Any, y: Any) -> Any:
    """``x + y`` where at least one is sparse: sparse if both are, dense
    if one is dense."""
    x_sparse, y_sparse = _is_sparse(x), _is_sparse(y)
    if x_sparse and y_sparse:
        return add_s_s(x, y)
    if x_sparse:
        return add_s_d(x, y)
    if y_sparse:
        return add_s_d(y, x)
    raise TypeError(
        f"sparse add: neither {x} nor {y} is sparse; use oxtensor.tensor.add"
    )


def _is_sparse(x: Any) -> bool:
    """A sparse variable (plain, constant or shared) or a scipy.sparse value."""
    return isinstance(getattr(x, "type", None), SparseTensorType) or bool(
        sp.issparse(x)
    )


__all__ = ["AddSD", "AddSS", "add", "add_s_d", "add_s_s"]

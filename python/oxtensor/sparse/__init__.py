"""Sparse matrices in graphs: scipy.sparse csc/csr values, their type and
variables, shared sparse variables, addition, and the conversions between
sparse and dense. Everything else of PyTensor's ``sparse`` module is not
available (docs/for-pytensor-users.md): looking it up raises an
`AttributeError` that says so."""

from typing import Any

from oxtensor.sparse import basic
from oxtensor.sparse.basic import *  # noqa: F403 (the conversions and constructors)
from oxtensor.sparse.math import AddSD, AddSS, add, add_s_d, add_s_s
from oxtensor.sparse.sharedvar import SparseTensorSharedVariable, sparse_constructor
from oxtensor.sparse.type import SparseTensorType
from oxtensor.sparse.variable import SparseConstant, SparseVariable


def __getattr__(name: str) -> Any:
    raise AttributeError(
        f"oxtensor.sparse has no {name!r}: only the sparse type and variables, "
        "shared sparse variables, add and the dense/sparse conversions are "
        "implemented (see docs/for-pytensor-users.md)"
    )


__all__ = [
    *basic.__all__,
    "AddSD",
    "AddSS",
    "SparseConstant",
    "SparseTensorSharedVariable",
    "SparseTensorType",
    "SparseVariable",
    "add",
    "add_s_d",
    "add_s_s",
    "sparse_constructor",
]

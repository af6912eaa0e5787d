"""`SparseTensorType`: the type of scipy.sparse matrices in a graph, of one
format (``"csc"`` or ``"csr"``) and one dtype."""

from typing import Any

import numpy as np
import scipy.sparse as sp

from oxtensor.graph.type import Type, imported

#: The formats a sparse type can have.
FORMATS = ("csc", "csr")


def _sparse_dtype(dtype: Any) -> str:
    """The dtype's name, or `TypeError` for one scipy.sparse cannot hold."""
    name = np.dtype(dtype).name
    if np.dtype(name).kind not in "iufc":
        raise TypeError(
            f"SparseTensorType: dtype {name} is not supported (numbers only)"
        )
    return name


def _static_shape(shape: Any) -> tuple[int | None, int | None]:
    if shape is None:
        return (None, None)
    shape = tuple(None if s is None else int(s) for s in shape)
    if len(shape) != 2:
        raise ValueError(
            f"SparseTensorType: sparse matrices have 2 dimensions, got shape {shape}"
        )
    return shape  # type: ignore[return-value]


class SparseTensorType(Type):
    """Values are scipy.sparse matrices (or arrays) of ``format`` and
    ``dtype``; ``shape`` gives static lengths (None: unknown).

    ``filter`` accepts only matrices of this format: a dense array or a
    matrix of the other format is refused with `TypeError` (convert it
    first, or build the graph with `csc_from_dense`/`csr_from_dense`).
    """

    ndim = 2

    def __init__(
        self, format: str, dtype: Any, shape: Any = None, name: str | None = None
    ):
        if format not in FORMATS:
            raise NotImplementedError(
                f"SparseTensorType: format {format!r} is not supported; "
                f"use one of {FORMATS}"
            )
        self.format = format
        self.dtype = _sparse_dtype(dtype)
        self.shape = _static_shape(shape)
        self.name = name

    @property
    def broadcastable(self) -> tuple[bool, bool]:
        return tuple(s == 1 for s in self.shape)  # type: ignore[return-value]

    variable_type = imported("oxtensor.sparse.variable", "SparseVariable")
    constant_type = imported("oxtensor.sparse.variable", "SparseConstant")

    def filter(
        self, data: Any, strict: bool = False, allow_downcast: bool | None = None
    ) -> Any:
        if not sp.issparse(data) or data.format != self.format:
            got = data.format if sp.issparse(data) else type(data).__name__
            raise TypeError(
                f"{self} expects a scipy.sparse {self.format} matrix, got {got}"
                f" (convert it with .asformat({self.format!r}) or scipy.sparse."
                f"{self.format}_matrix)"
            )
        if data.dtype != self.dtype:
            data = self._cast(data, strict, allow_downcast)
        for got, want in zip(data.shape, self.shape, strict=True):
            if want is not None and got != want:
                raise TypeError(f"{self} expects shape {self.shape}, got {data.shape}")
        return data

    def _cast(self, data: Any, strict: bool, allow_downcast: bool | None) -> Any:
        if not strict and (
            allow_downcast or np.can_cast(data.dtype, self.dtype, "safe")
        ):
            return data.astype(self.dtype)
        raise TypeError(
            f"{self} expects dtype {self.dtype}, got {data.dtype}"
            + ("" if strict else " (a lossy cast needs allow_downcast=True)")
        )

    def values_eq(self, a: Any, b: Any) -> bool:
        if not (sp.issparse(a) and sp.issparse(b)) or a.shape != b.shape:
            return False
        diff = abs(a - b)
        return diff.nnz == 0 or bool(diff.max() == 0)

    def values_eq_approx(
        self, a: Any, b: Any, rtol: float = 1e-5, atol: float = 1e-8
    ) -> bool:
        """As `numpy.allclose`, without densifying."""
        if not (sp.issparse(a) and sp.issparse(b)) or a.shape != b.shape:
            return False
        diff = abs(a - b)
        if diff.nnz == 0:
            return True
        return bool((diff - rtol * abs(b)).max() <= atol)

    def clone(
        self, format: Any = None, dtype: Any = None, shape: Any = None
    ) -> "SparseTensorType":  # type: ignore[override]
        return SparseTensorType(
            format or self.format,
            dtype or self.dtype,
            self.shape if shape is None else shape,
        )

    def __eq__(self, other: Any) -> bool:
        return type(other) is type(self) and (
            other.format,
            other.dtype,
            other.shape,
        ) == (
            self.format,
            self.dtype,
            self.shape,
        )

    def __hash__(self) -> int:
        return hash((type(self), self.format, self.dtype, self.shape))

    def __str__(self) -> str:
        shape = ", ".join("?" if s is None else str(s) for s in self.shape)
        return f"Sparse({self.format}, {self.dtype}, shape=({shape}))"

    __repr__ = __str__


__all__ = ["FORMATS", "SparseTensorType"]

"""Dense linear algebra (PyTensor's ``pytensor.tensor.linalg``): ``inv``,
``det``, ``slogdet``, ``solve``, ``cholesky``, ``eigh``, ``svd``, ``qr``, each a
native op computing in
float32 or float64 through the ``faer`` crate (integer inputs upcast as in
PyTensor; complex inputs are a ``TypeError``). Ops take single matrices:
stacked (batched) inputs are a ``NotImplementedError``.

>>> import numpy as np
>>> import oxtensor
>>> import oxtensor.tensor as ot
>>> a = ot.dmatrix("a")
>>> f = oxtensor.function([a], ot.linalg.det(a))
>>> float(f(np.array([[2.0, 1.0], [1.0, 3.0]])))
5.0
"""

from typing import Any

from oxtensor import _core
from oxtensor.tensor.basic import as_tensor_variable
from oxtensor.tensor.products import matmul

MatrixInverse = _core.MatrixInverse
Det = _core.Det
Solve = _core.Solve
Cholesky = _core.Cholesky
CholeskyGrad = _core.CholeskyGrad
Eigh = _core.Eigh
EighGrad = _core.EighGrad
SVD = _core.SVD
QR = _core.QR
QRGrad = _core.QRGrad


def inv(x: Any) -> Any:
    """The inverse of a square matrix (a ``ValueError`` if it is singular)."""
    return MatrixInverse()(x)


matrix_inverse = inverse = inv


def det(x: Any) -> Any:
    """The determinant of a square matrix."""
    return Det()(x)


def slogdet(x: Any) -> tuple[Any, Any]:
    """``(sign, log|det|)`` of a square matrix, from ``det`` as in PyTensor."""
    from oxtensor.tensor import math

    d = det(x)
    return math.sign(d), math.log(math.abs(d))


def solve(
    a: Any,
    b: Any,
    *,
    lower: bool = False,
    overwrite_a: bool = False,
    overwrite_b: bool = False,
    check_finite: bool = True,
    assume_a: str = "gen",
    transposed: bool = False,
    b_ndim: int | None = None,
) -> Any:
    """``x`` with ``a @ x = b`` (``aᵀ @ x = b`` if ``transposed``), ``b`` a vector
    or a matrix; a singular ``a`` is a ``ValueError``. Only ``assume_a="gen"``
    is supported; ``overwrite_*`` and ``check_finite`` are accepted and ignored.
    """
    del overwrite_a, overwrite_b, check_finite
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    if transposed:
        a = a.T
    op = Solve(
        assume_a=assume_a, lower=lower, b_ndim=b.ndim if b_ndim is None else b_ndim
    )
    return op(a, b)


def cholesky(
    x: Any,
    lower: bool = True,
    *,
    check_finite: bool = True,
    overwrite_a: bool = False,
    on_error: str = "nan",
) -> Any:
    """The Cholesky factor of a symmetric positive definite matrix: ``L`` with
    ``x = L @ L.T`` (or ``L.T`` if not ``lower``), read from that triangle of
    ``x``. A matrix that is not positive definite gives NaNs, or a
    ``ValueError`` with ``on_error="raise"``.
    """
    del check_finite, overwrite_a
    return Cholesky(lower=lower, on_error=on_error)(x)


def eigh(
    a: Any, b: Any = None, lower: bool = True, UPLO: str | None = None
) -> list[Any]:
    """``[w, v]``: eigenvalues (ascending) and eigenvectors (columns) of a
    symmetric matrix read from its lower (``lower``/``UPLO="L"``) or upper
    triangle. The generalized problem (``b``) is not supported.
    """
    if b is not None:
        raise NotImplementedError(
            "eigh(a, b), the generalized eigenproblem, is not supported"
        )
    if UPLO is not None:
        lower = UPLO.upper() == "L"
    return Eigh(lower=lower)(a)


def svd(a: Any, full_matrices: bool = True, compute_uv: bool = True) -> Any:
    """``[U, s, Vh]`` with ``a = U @ diag(s) @ Vh`` (``s`` alone without
    ``compute_uv``); the gradient covers the singular values only."""
    return SVD(full_matrices=full_matrices, compute_uv=compute_uv)(a)


def qr(
    a: Any, mode: str = "full", overwrite_a: bool = False, pivoting: bool = False
) -> Any:
    """``[Q, R]`` with ``a = Q @ R`` (``R`` alone for ``mode="r"``); ``"full"``
    gives a square ``Q``, ``"reduced"``/``"economic"`` ``min(m, n)`` columns."""
    del overwrite_a
    if pivoting:
        raise NotImplementedError("qr(pivoting=True) is not supported")
    return QR(mode=mode)(a)


__all__ = [
    "QR",
    "SVD",
    "Cholesky",
    "CholeskyGrad",
    "Det",
    "Eigh",
    "EighGrad",
    "MatrixInverse",
    "QRGrad",
    "Solve",
    "cholesky",
    "det",
    "eigh",
    "inv",
    "inverse",
    "matmul",
    "matrix_inverse",
    "qr",
    "slogdet",
    "solve",
    "svd",
]

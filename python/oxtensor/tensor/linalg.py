"""Dense linear algebra (PyTensor's ``pytensor.tensor.linalg``): ``inv``,
``det``, ``slogdet``, ``cholesky``, ``eigh``, ``eigvalsh``, ``svd``,
``qr``, and the solvers of ``oxtensor.tensor.solvers`` (``solve``,
``solve_triangular``, ``lu_factor``, ``lu_solve``, ...), each a native op
computing in float32 or float64, through the ``faer`` crate or the LAPACK
of the OpenBLAS NumPy loaded, whichever is the faster on this machine
(see ``oxtensor.tensor.blas.engines()``; integer inputs upcast as in
PyTensor; complex inputs are a ``TypeError``).
Stacked (batched) inputs are computed matrix by matrix through a
``Blockwise`` of the op, as PyTensor's; single matrices use the op itself.

>>> import numpy as np
>>> import oxtensor
>>> import oxtensor.tensor as ot
>>> a = ot.dmatrix("a")
>>> f = oxtensor.function([a], ot.linalg.det(a))
>>> round(float(f(np.array([[2.0, 1.0], [1.0, 3.0]]))), 12)
5.0
"""

from typing import Any

from oxtensor import _core
from oxtensor.tensor.basic import as_tensor_variable
from oxtensor.tensor.blockwise import Blockwise
from oxtensor.tensor.products import matmul

MatrixInverse = _core.MatrixInverse
Det = _core.Det
SLogDet = _core.SLogDet
Cholesky = _core.Cholesky
CholeskyGrad = _core.CholeskyGrad
Eigh = _core.Eigh
EighGrad = _core.EighGrad
Eigvalsh = _core.Eigvalsh
SVD = _core.SVD
Expm = _core.Expm
ExpmGrad = _core.ExpmGrad
SVDGrad = _core.SVDGrad
QR = _core.QR
QRGrad = _core.QRGrad


def _apply(op: Any, *args: Any) -> Any:
    """``op`` on ``args``, through a ``Blockwise`` when an input has more
    axes than the op's signature gives it (a stack of matrices)."""
    args = tuple(as_tensor_variable(a) for a in args)
    core_inputs = _core._parse_gufunc_signature(op.gufunc_signature)[0]
    if any(a.ndim > len(dims) for a, dims in zip(args, core_inputs, strict=True)):
        return Blockwise(op)(*args)
    return op(*args)


def inv(x: Any) -> Any:
    """The inverse of a square matrix (a ``ValueError`` if it is singular)."""
    return _apply(MatrixInverse(), x)


matrix_inverse = inverse = inv


def det(x: Any) -> Any:
    """The determinant of a square matrix."""
    return _apply(Det(), x)


def slogdet(x: Any) -> tuple[Any, Any]:
    """``(sign, log|det|)`` of a square matrix, one ``SLogDet`` node (what
    PyTensor's rewrites make of ``sign(det(x))``, ``log(abs(det(x)))``):
    the log is summed from the LU diagonal, finite where ``det`` overflows.
    """
    sign, logabsdet = _apply(SLogDet(), x)
    return sign, logabsdet


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
    return _apply(Cholesky(lower=lower, on_error=on_error), x)


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
    return _apply(Eigh(lower=lower), a)


def svd(a: Any, full_matrices: bool = True, compute_uv: bool = True) -> Any:
    """``[U, s, Vh]`` with ``a = U @ diag(s) @ Vh`` (``s`` alone without
    ``compute_uv``). The gradient flows through all three outputs of a thin
    SVD (``full_matrices=False``); with full matrices, through ``s`` only."""
    return _apply(SVD(full_matrices=full_matrices, compute_uv=compute_uv), a)


def expm(A: Any) -> Any:
    """The matrix exponential of a square matrix (SciPy's ``expm``: scaling
    and squaring with a degree-13 Pade approximant), with its gradient."""
    return _apply(Expm(), A)


def qr(
    a: Any, mode: str = "full", overwrite_a: bool = False, pivoting: bool = False
) -> Any:
    """``[Q, R]`` with ``a = Q @ R`` (``R`` alone for ``mode="r"``); ``"full"``
    gives a square ``Q``, ``"reduced"``/``"economic"`` ``min(m, n)`` columns."""
    del overwrite_a
    if pivoting:
        raise NotImplementedError("qr(pivoting=True) is not supported")
    return _apply(QR(mode=mode), a)


__all__ = [
    "QR",
    "SVD",
    "Cholesky",
    "CholeskyGrad",
    "Det",
    "Eigh",
    "EighGrad",
    "Eigvalsh",
    "Expm",
    "ExpmGrad",
    "MatrixInverse",
    "QRGrad",
    "SLogDet",
    "SVDGrad",
    "cholesky",
    "det",
    "eigh",
    "expm",
    "inv",
    "inverse",
    "matmul",
    "matrix_inverse",
    "qr",
    "slogdet",
    "svd",
]


# ---- NumPy's everyday linear algebra, composed of the ops above ------------


def eigvalsh(a: Any, b: Any = None, lower: bool = True) -> Any:
    """The eigenvalues (ascending) of a symmetric matrix, one ``Eigvalsh``
    node that computes no eigenvectors (its gradient computes them). The
    generalized problem (``b``) is not supported."""
    if b is not None:
        raise NotImplementedError(
            "eigvalsh(a, b), the generalized eigenproblem, is not supported"
        )
    return _apply(Eigvalsh(lower=lower), a)


def matrix_dot(*args: Any) -> Any:
    """``args[0] @ args[1] @ ...`` (``dot`` from the left)."""
    if not args:
        raise TypeError("matrix_dot needs at least one argument")
    out = as_tensor_variable(args[0])
    for m in args[1:]:
        out = out.dot(m)
    return out


def trace(X: Any) -> Any:
    """The sum of the diagonal of a matrix. Deprecated in PyTensor in favour
    of ``oxtensor.tensor.trace``, which it calls."""
    import warnings

    from oxtensor.tensor.diagonal import trace as _trace

    warnings.warn(
        "oxtensor.tensor.linalg.trace is deprecated. "
        "Use oxtensor.tensor.trace instead.",
        FutureWarning,
        stacklevel=2,
    )
    return _trace(X)


def kron(a: Any, b: Any) -> Any:
    """The Kronecker product: every element of ``a`` times ``b``, as blocks
    (NumPy's ``kron``; the lower-rank input gains leading axes). One
    broadcast product of interleaved axes, reshaped."""
    from oxtensor.tensor.basic import _dim, _reshape_to
    from oxtensor.tensor.padding import atleast_Nd

    a, b = as_tensor_variable(a), as_tensor_variable(b)
    ndim = max(a.ndim, b.ndim)
    a, b = atleast_Nd(a, n=ndim), atleast_Nd(b, n=ndim)
    left = a.dimshuffle(*[d for i in range(ndim) for d in (i, "x")])
    right = b.dimshuffle(*[d for i in range(ndim) for d in ("x", i)])
    dims = [_dim(a, i) * _dim(b, i) for i in range(ndim)]
    return _reshape_to(left * right, dims)


def _identity_like(M: Any) -> Any:
    from oxtensor.tensor.basic import _dim, eye
    from oxtensor.tensor.math import second

    n = _dim(M, M.ndim - 1)
    return second(M, eye(n, n, 0, dtype=M.dtype))


def matrix_power(M: Any, n: Any) -> Any:
    """``M`` (a square matrix or a stack of them) multiplied by itself
    ``n`` times by repeated squaring; ``n < 0`` powers the inverse."""
    import operator

    M = as_tensor_variable(M)
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"matrix_power: n must be an integer, got {n!r}") from None
    if M.ndim < 2:
        raise ValueError(f"matrix_power: M must be at least 2-d, got {M.type}")
    if n == 0:
        return _identity_like(M)
    if n < 0:
        M, n = inv(M), -n
    result = None
    while n:
        if n & 1:
            result = M if result is None else matmul(result, M)
        n >>= 1
        if n:
            M = matmul(M, M)
    return result


def _cutoff_rcond(x: Any) -> Any:
    import numpy as np

    from oxtensor.tensor.basic import _dim
    from oxtensor.tensor.math import maximum

    eps = np.finfo(x.dtype).eps
    m, k = _dim(x, 0), _dim(x, 1)
    biggest = max(m, k) if isinstance(m, int) and isinstance(k, int) else maximum(m, k)
    return biggest * eps


def _largest(s: Any) -> Any:
    """The largest of the non-negative ``s``, 0 when it is empty."""
    import numpy as np

    from oxtensor.tensor.basic import join

    return join(0, s, np.zeros(1, dtype=s.dtype)).max()


def pinv(x: Any, hermitian: bool = False) -> Any:
    """The Moore-Penrose pseudo-inverse of a matrix, from its SVD (from
    ``eigh`` when ``hermitian``), singular values below ``max(m, n) * eps *
    max(s)`` dropped as NumPy does; differentiable through the thin SVD
    (or ``eigh``)."""
    import numpy as np

    from oxtensor.tensor._float import as_float
    from oxtensor.tensor.math import abs, switch

    x = as_float(as_tensor_variable(x))
    if x.ndim != 2:
        raise ValueError(f"pinv: x must be a matrix, got {x.type}")
    zero = np.zeros((), dtype=x.dtype)
    if hermitian:
        w, v = eigh(x)
        keep = abs(w) > _cutoff_rcond(x) * _largest(abs(w))
        return (v * switch(keep, 1 / w, zero)) @ v.T
    u, s, vh = svd(x, full_matrices=False)
    keep = s > _cutoff_rcond(x) * _largest(s)
    return (vh.T * switch(keep, 1 / s, zero)) @ u.T


from oxtensor.tensor.linear_control import (  # noqa: E402
    solve_continuous_lyapunov,
    solve_discrete_lyapunov,
    solve_sylvester,
)
from oxtensor.tensor.norms import norm  # noqa: E402
from oxtensor.tensor.solvers import (  # noqa: E402
    LUFactor,
    LUFactorGrad,
    PivotToPermutations,
    Solve,
    SolveBase,
    SolveTriangular,
    cho_solve,
    lu,
    lu_factor,
    lu_solve,
    pivot_to_permutation,
    solve,
    solve_triangular,
)

_TENSOR_INVERSE = ("TensorInv", "TensorSolve", "tensorinv", "tensorsolve")


def __getattr__(name: str) -> Any:
    # `tensor_inverse`'s ops are `OpFromGraph`s, and compile imports this
    # package: they are looked up when first asked for.
    if name in _TENSOR_INVERSE:
        from oxtensor.tensor import tensor_inverse

        return getattr(tensor_inverse, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ += [
    "LUFactor",
    "LUFactorGrad",
    "PivotToPermutations",
    "Solve",
    "SolveBase",
    "SolveTriangular",
    "cho_solve",
    "eigvalsh",
    "kron",
    "lu",
    "lu_factor",
    "lu_solve",
    "matrix_dot",
    "matrix_power",
    "norm",
    "pinv",
    "pivot_to_permutation",
    "solve",
    "solve_continuous_lyapunov",
    "solve_discrete_lyapunov",
    "solve_sylvester",
    "solve_triangular",
    "trace",
]

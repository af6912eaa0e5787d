"""The linear matrix equations of control theory (PyTensor's
``linalg.solvers.linear_control``), re-exported by ``oxtensor.tensor.linalg``:
``solve_sylvester``, ``solve_continuous_lyapunov``, ``solve_discrete_lyapunov``.

Each is solved as the one linear system it is on ``vec(X)`` (the
Kronecker form, what PyTensor's ``solve_discrete_lyapunov(method="direct")``
does), a graph of ``kron``, ``solve`` and reshapes: it differentiates
through those ops, and runs on any backend. Its cost grows as ``(m n)³``
(PyTensor's Schur-based solvers: ``m³ + n³``), so it suits small matrices.
Stacks of matrices go through ``vectorize``.

>>> import numpy as np
>>> import oxtensor
>>> import oxtensor.tensor as ot
>>> a, q = ot.dmatrix("a"), ot.dmatrix("q")
>>> f = oxtensor.function([a, q], solve_discrete_lyapunov(a, q))
>>> x = f(np.diag([0.5, 0.1]), np.eye(2))
>>> bool(np.allclose(np.diag([0.5, 0.1]) @ x @ np.diag([0.5, 0.1]) - x + np.eye(2), 0))
True
"""

from typing import Any

from oxtensor.tensor.basic import as_tensor_variable


def _sylvester_core(A: Any, B: Any, Q: Any) -> Any:
    from oxtensor.tensor.basic import _dim, eye
    from oxtensor.tensor.linalg import kron, solve

    m, n = _dim(A, 0), _dim(B, 0)
    # Rows of X laid end to end (C order): vec(A X) = (A ⊗ I) vec(X) and
    # vec(X B) = (I ⊗ Bᵀ) vec(X).
    lhs = kron(A, eye(n, dtype=A.dtype)) + kron(eye(m, dtype=B.dtype), B.T)
    x = solve(lhs, Q.reshape((m * n,)), b_ndim=1)
    return x.reshape((m, n))


def _batched(core: Any, signature: str, *args: Any) -> Any:
    from oxtensor.tensor.functional import vectorize

    args = tuple(as_tensor_variable(a) for a in args)
    if any(a.ndim < 2 for a in args):
        raise ValueError(
            f"{core.__name__.strip('_')}: the inputs must be matrices, got "
            + ", ".join(str(a.type) for a in args)
        )
    if all(a.ndim == 2 for a in args):
        return core(*args)
    return vectorize(core, signature=signature)(*args)


def solve_sylvester(A: Any, B: Any, Q: Any) -> Any:
    """``X`` with ``A @ X + X @ B = Q`` (``A`` of shape ``(m, m)``, ``B``
    ``(n, n)``, ``Q`` and ``X`` ``(m, n)``): SciPy's ``solve_sylvester``."""
    return _batched(_sylvester_core, "(m,m),(n,n),(m,n)->(m,n)", A, B, Q)


def solve_continuous_lyapunov(A: Any, Q: Any) -> Any:
    """``X`` with ``A @ X + X @ Aᴴ = Q``: a Sylvester equation with ``B = Aᴴ``."""
    A = as_tensor_variable(A)
    return solve_sylvester(A, A.conj().mT, Q)


def _discrete_lyapunov_core(A: Any, Q: Any) -> Any:
    from oxtensor.tensor.basic import _dim, eye
    from oxtensor.tensor.linalg import kron, solve

    n = _dim(A, 0)
    # vec(A X Aᴴ) = (A ⊗ conj(A)) vec(X) in C order.
    lhs = eye(n * n, dtype=A.dtype) - kron(A, A.conj())
    return solve(lhs, Q.reshape((n * n,)), b_ndim=1).reshape((n, n))


def solve_discrete_lyapunov(A: Any, Q: Any, method: str = "bilinear") -> Any:
    """``X`` with ``A @ X @ Aᴴ - X + Q = 0`` (SciPy's
    ``solve_discrete_lyapunov``). ``method`` is accepted for PyTensor's
    signature; both ``"direct"`` and ``"bilinear"`` solve the Kronecker
    system."""
    if method not in ("direct", "bilinear"):
        raise ValueError(
            f'Parameter "method" must be one of "direct" or "bilinear", found {method}'
        )
    return _batched(_discrete_lyapunov_core, "(m,m),(m,m)->(m,m)", A, Q)


__all__ = ["solve_continuous_lyapunov", "solve_discrete_lyapunov", "solve_sylvester"]

"""Linear solvers (PyTensor's ``pytensor.tensor.linalg.solvers`` and
``decomposition.lu``), re-exported by ``oxtensor.tensor.linalg``: ``solve``
(general, symmetric, positive definite, tridiagonal, diagonal, triangular),
``solve_triangular``, ``lu_factor``/``lu_solve``, ``lu`` and ``cho_solve``.

``Solve``, ``SolveTriangular``, ``LUFactor`` and ``PivotToPermutations``
are native ops (faer kernels); a system without a unique solution gives
NaNs, as in PyTensor. ``SolveBase`` is the Python base class PyTensor users
subclass with a ``perform`` of their own: its ``make_node``, shapes and
gradient are the ones the native solvers share.

>>> import numpy as np
>>> import oxtensor
>>> import oxtensor.tensor as ot
>>> a, b = ot.dmatrix("a"), ot.dvector("b")
>>> f = oxtensor.function([a, b], solve_triangular(a, b, lower=True))
>>> f(np.array([[2.0, 0.0], [1.0, 1.0]]), np.array([2.0, 3.0]))
array([1., 2.])
"""

from typing import Any

import numpy as np

from oxtensor import _core
from oxtensor.graph.basic import Apply
from oxtensor.graph.op import Op
from oxtensor.tensor.basic import as_tensor_variable

Solve = _core.Solve
SolveTriangular = _core.SolveTriangular
LUFactor = _core.LUFactor
LUFactorGrad = _core.LUFactorGrad
PivotToPermutations = _core.PivotToPermutations


def _apply(op: Any, *args: Any) -> Any:
    from oxtensor.tensor.linalg import _apply as apply

    return apply(op, *args)


def _default_b_ndim(b: Any, b_ndim: int | None) -> int:
    if b_ndim is not None:
        if b_ndim not in (1, 2):
            raise ValueError(f"b_ndim must be 1 or 2, got {b_ndim}")
        return b_ndim
    # A stack of vectors needs b_ndim=1: without it, b's last two axes are a matrix.
    return min(as_tensor_variable(b).ndim, 2)


class _SolverFamily(type):
    """Makes the native solvers count as ``SolveBase``s, as in PyTensor's
    class tree (``isinstance(op, SolveBase)``), although their classes come
    from the extension and cannot derive from a Python class."""

    def __instancecheck__(cls, obj: Any) -> bool:
        native = cls is SolveBase and isinstance(obj, (Solve, SolveTriangular))
        return native or type.__instancecheck__(cls, obj)

    def __subclasscheck__(cls, sub: Any) -> bool:
        native = cls is SolveBase and issubclass(sub, (Solve, SolveTriangular))
        return native or type.__subclasscheck__(cls, sub)


class SolveBase(Op, metaclass=_SolverFamily):
    """Base class of ``scipy.linalg``'s matrix equation solvers, for a
    subclass that brings its own ``perform``: ``a`` a matrix and ``b`` of
    rank ``b_ndim``; ``x`` has ``b``'s shape. Its gradient is Giles's,
    built from ``type(self)`` with the other triangle (``lower`` flipped).
    The native ``Solve`` and ``SolveTriangular`` count as instances."""

    __props__: tuple[str, ...] = ("lower", "b_ndim", "overwrite_a", "overwrite_b")

    def __init__(
        self,
        *,
        lower: bool = False,
        b_ndim: int,
        overwrite_a: bool = False,
        overwrite_b: bool = False,
    ) -> None:
        if b_ndim not in (1, 2):
            raise ValueError(f"b_ndim must be 1 or 2, got {b_ndim}")
        if overwrite_a and overwrite_b:
            raise NotImplementedError(
                "It's not yet possible to overwrite_a and overwrite_b simultaneously"
            )
        self.lower = lower
        self.b_ndim = b_ndim
        self.overwrite_a = overwrite_a
        self.overwrite_b = overwrite_b
        self.gufunc_signature = (
            "(m,m),(m)->(m)" if b_ndim == 1 else "(m,m),(m,n)->(m,n)"
        )
        if overwrite_a:
            self.destroy_map = {0: [0]}
        elif overwrite_b:
            self.destroy_map = {0: [1]}

    def make_node(self, A: Any, b: Any) -> Apply:
        from oxtensor.tensor.type import tensor

        A, b = as_tensor_variable(A), as_tensor_variable(b)
        if A.ndim != 2:
            raise ValueError(f"`A` must be a matrix; got {A.type} instead.")
        if b.ndim != self.b_ndim:
            raise ValueError(f"`b` must have {self.b_ndim} dims; got {b.type} instead.")
        dtype = str(np.result_type(A.dtype, b.dtype, np.float32))
        return Apply(self, [A, b], [tensor(dtype=dtype, shape=b.type.shape)])

    def perform(self, node: Any, inputs: Any, outputs: Any) -> None:
        raise NotImplementedError(
            "SolveBase should be subclassed with a perform method"
        )

    def infer_shape(self, fgraph: Any, node: Any, shapes: Any) -> list[tuple[Any, ...]]:
        rows = shapes[0][1]
        return [(rows,)] if len(shapes[1]) == 1 else [(rows, shapes[1][1])]

    def pullback(self, inputs: Any, outputs: Any, output_grads: Any) -> list[Any]:
        from oxtensor.tensor.math import outer

        A = inputs[0]
        (x,), (gx,) = outputs, output_grads
        props = {name: getattr(self, name) for name in self.__props__}
        props["lower"] = not self.lower
        gb = type(self)(**props)(A.T, gx)
        gA = -outer(gb, x) if x.ndim == 1 else -gb.dot(x.T)
        return [gA, gb]


def solve_triangular(
    a: Any,
    b: Any,
    *,
    trans: int | str = 0,
    lower: bool = False,
    unit_diagonal: bool = False,
    check_finite: bool = True,
    b_ndim: int | None = None,
) -> Any:
    """``x`` with ``a @ x = b`` (``aᵀ @ x = b`` for ``trans`` 1/"T"/2/"C"),
    reading only ``a``'s triangle ``lower`` (its diagonal as ones with
    ``unit_diagonal``); NaNs if that diagonal holds an exact zero.
    ``check_finite`` is accepted and ignored."""
    del check_finite
    b_ndim = _default_b_ndim(b, b_ndim)
    a = as_tensor_variable(a)
    if trans in (1, 2, "T", "C", True):
        a, lower = a.mT, not lower
    elif trans not in (0, "N", False):
        raise ValueError(f"solve_triangular: invalid trans {trans!r}")
    op = SolveTriangular(lower=lower, unit_diagonal=unit_diagonal, b_ndim=b_ndim)
    return _apply(op, a, b)


def _solve_diagonal(a: Any, b: Any, b_ndim: int) -> Any:
    from oxtensor.tensor.diagonal import diagonal

    d = diagonal(as_tensor_variable(a), axis1=-2, axis2=-1)
    b = as_tensor_variable(b)
    return b / d if b_ndim == 1 else b / d.dimshuffle(*range(d.ndim), "x")


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
    """``x`` with ``a @ x = b`` (``aᵀ @ x = b`` if ``transposed``), ``b`` a
    vector or a matrix (``b_ndim``; stacks batch). ``assume_a``: ``"gen"``,
    ``"sym"``/``"her"`` (the triangle ``lower`` is read), ``"pos"``
    (Cholesky), ``"tridiagonal"``, ``"banded"``, ``"diagonal"`` (a
    division), ``"lower triangular"``/``"upper triangular"``
    (``solve_triangular``), or the long names. A system without a unique
    solution gives NaNs; ``overwrite_*`` and ``check_finite`` are ignored.
    """
    del overwrite_a, overwrite_b, check_finite
    assume_a = assume_a.lower()
    if assume_a in ("lower triangular", "upper triangular"):
        return solve_triangular(
            a, b, lower=assume_a == "lower triangular", trans=transposed, b_ndim=b_ndim
        )
    b_ndim = _default_b_ndim(b, b_ndim)
    if assume_a == "diagonal":
        return _solve_diagonal(a, b, b_ndim)
    a = as_tensor_variable(a)
    if transposed:
        a, lower = a.mT, not lower
    return _apply(Solve(assume_a=assume_a, lower=lower, b_ndim=b_ndim), a, b)


def lu_factor(
    a: Any, *, check_finite: bool = True, overwrite_a: bool = False
) -> tuple[Any, Any]:
    """``(LU, pivots)`` as ``scipy.linalg.lu_factor``: ``L`` (unit diagonal
    implied) and ``U`` packed in one matrix, and LAPACK's 0-based int32 row
    swaps; an exactly singular ``a`` gives a factor of NaNs. Differentiable
    through ``LU``."""
    del check_finite, overwrite_a
    lu_, piv = _apply(LUFactor(), a)
    return lu_, piv


def pivot_to_permutation(p: Any, inverse: bool = False) -> Any:
    """The row permutation of LAPACK's pivots ``p``: ``perm`` with
    ``a = (L @ U)[perm]``, or (``inverse``) ``p_inv`` with ``a[p_inv] = L @ U``."""
    return _apply(PivotToPermutations(inverse=inverse), p)


def _lu_solve_core(LU: Any, piv: Any, b: Any, trans: bool, b_ndim: int) -> Any:
    from oxtensor.tensor.sort import argsort

    order = pivot_to_permutation(piv, inverse=True)
    x = b if trans else b[order]
    x = solve_triangular(
        LU, x, lower=not trans, unit_diagonal=not trans, trans=trans, b_ndim=b_ndim
    )
    x = solve_triangular(
        LU, x, lower=trans, unit_diagonal=trans, trans=trans, b_ndim=b_ndim
    )
    return x[argsort(order)] if trans else x


def lu_solve(
    LU_and_pivots: tuple[Any, Any],
    b: Any,
    trans: bool = False,
    b_ndim: int | None = None,
    check_finite: bool = True,
    overwrite_b: bool = False,
) -> Any:
    """``x`` with ``a @ x = b`` (``aᵀ @ x = b`` with ``trans``) from
    ``lu_factor(a)``: the pivots' row order, then two triangular solves."""
    from functools import partial

    from oxtensor.tensor.functional import vectorize

    del check_finite, overwrite_b
    b_ndim = _default_b_ndim(b, b_ndim)
    signature = "(m,m),(m),(m)->(m)" if b_ndim == 1 else "(m,m),(m),(m,n)->(m,n)"
    core = partial(_lu_solve_core, trans=bool(trans), b_ndim=b_ndim)
    return vectorize(core, signature=signature)(*LU_and_pivots, b)


def lu(
    a: Any,
    permute_l: bool = False,
    check_finite: bool = True,
    p_indices: bool = False,
    overwrite_a: bool = False,
) -> tuple[Any, ...]:
    """``(P, L, U)`` with ``a = P @ L @ U`` (``scipy.linalg.lu``): ``P`` a
    permutation matrix (its row indices with ``p_indices``), ``L`` unit
    lower, ``U`` upper triangular; ``(P @ L, U)`` with ``permute_l``.
    Composed of ``lu_factor``, so differentiable through ``L`` and ``U``."""
    from oxtensor.tensor.basic import identity_like
    from oxtensor.tensor.triangular import tril, triu

    del check_finite, overwrite_a
    if permute_l and p_indices:
        raise ValueError("Only one of permute_l and p_indices can be True")
    a = as_tensor_variable(a)
    if a.ndim != 2:
        raise TypeError(f"LU only allowed on matrix (2-D) inputs, got {a.ndim}-D input")
    packed, piv = lu_factor(a)
    L = tril(packed, -1) + identity_like(packed)
    U = triu(packed)
    # Row i of L @ U is row order[i] of a, so a = (L @ U)[perm], perm its inverse.
    perm = pivot_to_permutation(piv, inverse=False)
    if permute_l:
        return L[perm], U
    if p_indices:
        return perm, L, U
    P = identity_like(packed)[perm]
    return P, L, U


def cho_solve(
    c_and_lower: tuple[Any, bool],
    b: Any,
    *,
    check_finite: bool = True,
    b_ndim: int | None = None,
) -> Any:
    """``x`` with ``A @ x = b``, given ``(c, lower)``: ``A``'s Cholesky
    factor ``c`` (``A = c @ c.T`` when ``lower``, else ``c.T @ c``), as
    two triangular solves."""
    del check_finite
    c, lower = c_and_lower
    y = solve_triangular(c, b, lower=lower, trans=not lower, b_ndim=b_ndim)
    return solve_triangular(c, y, lower=lower, trans=lower, b_ndim=b_ndim)


__all__ = [
    "LUFactor",
    "LUFactorGrad",
    "PivotToPermutations",
    "Solve",
    "SolveBase",
    "SolveTriangular",
    "cho_solve",
    "lu",
    "lu_factor",
    "lu_solve",
    "pivot_to_permutation",
    "solve",
    "solve_triangular",
]

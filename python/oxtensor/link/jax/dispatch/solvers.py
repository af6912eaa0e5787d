"""The linear solvers on JAX: `Solve` (each structure), `SolveTriangular`,
`LUFactor`, `PivotToPermutations`, and `LUFactorGrad` as JAX's pullback of
`lu_factor` at the matrix the factors rebuild. A system without a unique
solution gives what JAX gives (infinities or NaNs), not always NaNs."""

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl

from oxtensor import _core
from oxtensor.link.jax.dispatch.basic import jax_funcify


def _mirrored(a: Any, lower: bool) -> Any:
    """The symmetric matrix of `a`'s triangle `lower` (the one the native
    kernel reads)."""
    tri = jnp.tril(a) if lower else jnp.triu(a)
    return tri + jnp.swapaxes(tri, -1, -2) - jnp.diag(jnp.diagonal(a))


def _band(a: Any) -> Any:
    n = a.shape[-1]
    rows, cols = jnp.arange(n)[:, None], jnp.arange(n)[None, :]
    return jnp.where(jnp.abs(rows - cols) <= 1, a, jnp.zeros_like(a))


@jax_funcify.register(_core.Solve)
def _solve(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    kind, lower = op.assume_a, op.lower

    def solve(a: Any, b: Any) -> Any:
        if kind in ("sym", "her", "pos"):
            a = _mirrored(a, lower)
        elif kind == "tridiagonal":
            a = _band(a)
        if kind == "pos":
            return jsl.cho_solve(jsl.cho_factor(a, lower=True), b)
        return jsl.solve(a, b)

    return solve


@jax_funcify.register(_core.SolveTriangular)
def _solve_triangular(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    lower, unit = op.lower, op.unit_diagonal
    return lambda a, b: jsl.solve_triangular(a, b, lower=lower, unit_diagonal=unit)


@jax_funcify.register(_core.LUFactor)
def _lu_factor(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    return lambda a: tuple(jsl.lu_factor(a))


def _row_order(pivots: Any) -> Any:
    """Row `i` of the factors is row `order[i]` of the factored matrix."""
    return jax.lax.linalg.lu_pivots_to_permutation(pivots, pivots.shape[-1])


@jax_funcify.register(_core.PivotToPermutations)
def _pivot_to_permutation(
    op: Any, node: Any = None, **kwargs: Any
) -> Callable[..., Any]:
    inverse = op.inverse

    def permutation(pivots: Any) -> Any:
        order = _row_order(pivots.astype(jnp.int32)).astype(jnp.int64)
        return order if inverse else jnp.argsort(order).astype(jnp.int64)

    return permutation


@jax_funcify.register(_core.LUFactorGrad)
def _lu_factor_grad(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    def lu_factor_grad(lu: Any, pivots: Any, g: Any) -> Any:
        n = lu.shape[-1]
        low = jnp.tril(lu, -1) + jnp.eye(n, dtype=lu.dtype)
        a = jnp.zeros_like(lu).at[_row_order(pivots)].set(low @ jnp.triu(lu))
        _, pullback = jax.vjp(lambda x: jsl.lu_factor(x)[0], a)
        return pullback(g)[0]

    return lu_factor_grad

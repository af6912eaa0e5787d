"""Linear algebra: inverse, determinants, Cholesky, eigh, SVD, QR, and the
gradient ops of the decompositions (as JAX's own pullbacks at the matrix
the factors rebuild); the solvers are in `solvers.py`."""

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

from oxtensor import _core
from oxtensor.link.jax.dispatch.basic import JAXUnsupportedError, jax_funcify


@jax_funcify.register(_core.MatrixInverse)
def _inv(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    return jnp.linalg.inv


@jax_funcify.register(_core.Det)
def _det(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    return jnp.linalg.det


@jax_funcify.register(_core.SLogDet)
def _slogdet(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    return lambda x: tuple(jnp.linalg.slogdet(x))


def _cholesky_of(lower: bool) -> Callable[..., Any]:
    def cholesky(x: Any) -> Any:
        # The lower triangle alone is read, as by the native kernel (and so
        # the gradient is lower triangular, not symmetrised).
        factor = jax.lax.linalg.cholesky(x, symmetrize_input=False)
        return factor if lower else jnp.swapaxes(factor, -1, -2).conj()

    return cholesky


@jax_funcify.register(_core.Cholesky)
def _cholesky(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    # on_error="raise" cannot raise inside a traced function: like "nan",
    # a matrix that is not positive definite gives NaNs.
    return _cholesky_of(op.lower)


@jax_funcify.register(_core.CholeskyGrad)
def _cholesky_grad(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    def cholesky_grad(factor: Any, g: Any) -> Any:
        low = factor if op.lower else jnp.swapaxes(factor, -1, -2)
        g_low = g if op.lower else jnp.swapaxes(g, -1, -2)
        # JAX's pullback is symmetric; the native gradient is that of the
        # triangle read: off-diagonal entries count twice, the other
        # triangle is zero.
        _, pullback = jax.vjp(jnp.linalg.cholesky, low @ jnp.swapaxes(low, -1, -2))
        sym = pullback(g_low)[0]
        tri = jnp.tril(2 * sym, -1) + jnp.tril(jnp.triu(sym))
        return tri if op.lower else jnp.swapaxes(tri, -1, -2)

    return cholesky_grad


def _uplo(lower: bool) -> str:
    return "L" if lower else "U"


@jax_funcify.register(_core.Eigh)
def _eigh(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    uplo = _uplo(op.lower)
    return lambda x: tuple(jnp.linalg.eigh(x, UPLO=uplo))


@jax_funcify.register(_core.Eigvalsh)
def _eigvalsh(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    uplo = _uplo(op.lower)
    return lambda x: jnp.linalg.eigvalsh(x, UPLO=uplo)


@jax_funcify.register(_core.EighGrad)
def _eigh_grad(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    uplo = _uplo(op.lower)

    def eigh_grad(w: Any, v: Any, gw: Any, gv: Any) -> Any:
        x = (v * w[..., None, :]) @ jnp.swapaxes(v, -1, -2).conj()
        _, pullback = jax.vjp(lambda a: tuple(jnp.linalg.eigh(a, UPLO=uplo)), x)
        return pullback((gw, gv))[0]

    return eigh_grad


@jax_funcify.register(_core.SVD)
def _svd(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    full, uv = op.full_matrices, op.compute_uv
    if uv:
        return lambda x: tuple(jnp.linalg.svd(x, full_matrices=full, compute_uv=True))
    return lambda x: jnp.linalg.svd(x, full_matrices=full, compute_uv=False)


#: SciPy's modes (ours) as NumPy's (JAX's): "full" and "r" keep the
#: complete factors.
_QR_MODES = {"full": "complete", "complete": "complete", "reduced": "reduced", "r": "r"}


@jax_funcify.register(_core.QR)
def _qr(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    if op.mode not in _QR_MODES:
        raise JAXUnsupportedError(f"{op}: QR mode {op.mode!r} has no JAX counterpart")
    mode = _QR_MODES[op.mode]
    if mode == "r":
        return lambda x: jnp.linalg.qr(x, mode="complete")[1]
    return lambda x: tuple(jnp.linalg.qr(x, mode=mode))


@jax_funcify.register(_core.QRGrad)
def _qr_grad(op: Any, node: Any = None, **kwargs: Any) -> Callable[..., Any]:
    def qr_grad(q: Any, r: Any, gq: Any, gr: Any) -> Any:
        mode = "complete" if q.shape[-1] > r.shape[-1] else "reduced"
        _, pullback = jax.vjp(lambda a: tuple(jnp.linalg.qr(a, mode=mode)), q @ r)
        return pullback((gq, gr))[0]

    return qr_grad

"""Products and linear algebra on JAX against the native VM, with gradients."""

import numpy as np
import pytest

from tests.link.jax import SKIP_REASON

pytest.importorskip("jax", reason=SKIP_REASON)

import oxtensor
import oxtensor.tensor as ot
from oxtensor.tensor import linalg

from tests.link.jax.compare import compare, rng


def _spd(n: int = 4) -> np.ndarray:
    a = rng(3).normal(size=(n, n))
    return a @ a.T + n * np.eye(n)


def test_dot_and_matmul() -> None:
    a, b, v = ot.dmatrix("a"), ot.dmatrix("b"), ot.dvector("v")
    t = ot.dtensor3("t")
    outs = [ot.dot(a, b), ot.dot(a, v), ot.dot(v, v), a @ b, t @ b]
    # Transposed operands are read untransposed (dispatch/blas.py).
    outs += [ot.dot(a.T, b), ot.dot(a, b.T), ot.dot(a.T, b.T), ot.dot(a.T, v), a.T @ b]
    outs += [ot.dot(v, a.T)]
    r = rng()
    values = [
        r.normal(size=(3, 3)),
        r.normal(size=(3, 3)),
        r.normal(size=3),
        r.normal(size=(2, 3, 3)),
    ]
    compare([a, b, v, t], outs, values, rtol=1e-10)


def test_transposed_operands_of_other_shapes() -> None:
    a, b, v = ot.dmatrix("a"), ot.dmatrix("b"), ot.dvector("v")
    outs = [ot.dot(a.T, b), ot.dot(a.T, b).T, ot.dot(a.T, v), ot.dot(b.T, b), a.T @ b]
    r = rng()
    values = [r.normal(size=(5, 2)), r.normal(size=(5, 3)), r.normal(size=5)]
    compare([a, b, v], outs, values, rtol=1e-10)


def test_decompositions() -> None:
    a, b = ot.dmatrix("a"), ot.dvector("b")
    outs = [
        linalg.inv(a),
        linalg.det(a),
        *linalg.slogdet(a),
        linalg.solve(a, b),
        linalg.cholesky(a),
        linalg.eigvalsh(a),
        linalg.svd(a, compute_uv=False),
    ]
    compare([a, b], outs, [_spd(), rng().normal(size=4)], rtol=1e-9)


def test_gradients() -> None:
    a = ot.dmatrix("a")
    cost = ot.log(linalg.det(a)) + linalg.inv(a).sum() + linalg.cholesky(a).sum()
    compare([a], [cost, oxtensor.grad(cost, a)], [_spd()], rtol=1e-8)


def test_eigh_and_qr_gradients() -> None:
    a = ot.dmatrix("a")
    w, v = linalg.eigh(a)
    q, r = linalg.qr(a)
    cost = w.sum() + (v**2).sum() + (q * 2).sum() + r.sum()
    compare([a], [cost, oxtensor.grad(cost, a)], [_spd()], rtol=1e-7, atol=1e-9)


def test_factors_up_to_sign() -> None:
    """Eigenvectors and singular vectors are defined up to sign, so the
    products they rebuild are compared."""
    a, b = ot.dmatrix("a"), ot.dmatrix("b")
    w, v = linalg.eigh(a)
    u, s, vh = linalg.svd(b, full_matrices=False)
    q, r = linalg.qr(b)
    outs = [
        w,
        (v * w) @ v.T,
        s,
        (u * s) @ vh,
        q @ r,
        abs(r),
        linalg.cholesky(a, lower=False),
        linalg.solve(a, b[:4, :2]),
    ]
    compare([a, b], outs, [_spd(), rng().normal(size=(5, 4))], rtol=1e-9)

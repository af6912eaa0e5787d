"""Decompositions through NumPy's LAPACK (``oxtensor.tensor.blas`` installs
it) and through faer: the same answers as NumPy either way, in every
layout, size and dtype, with the same errors and working gradients."""

from collections.abc import Iterator

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.gradient import verify_grad
from oxtensor.tensor import blas, linalg

HAS_OPENBLAS = blas._loaded_openblas() != []
BACKENDS = ["numpy", "faer"] if HAS_OPENBLAS else ["faer"]
SHAPES = [(0, 0), (1, 1), (2, 2), (5, 5), (7, 3), (3, 8), (40, 40), (65, 31)]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Iterator[str]:
    """Every family on NumPy's LAPACK, or every family on faer, whichever
    this machine's facts prefer."""
    before = blas.blas_mode()
    blas.use_blas(request.param)
    yield request.param
    blas.use_blas(before)


def tol(dtype: str) -> float:
    return 2e-4 if dtype == "float32" else 1e-10


def close(got: np.ndarray, want: np.ndarray, dtype: str) -> None:
    assert got.dtype == np.dtype(dtype)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=tol(dtype), atol=tol(dtype))


def layouts(a: np.ndarray) -> dict[str, np.ndarray]:
    """C order, F order, and every other column of a wider matrix."""
    stepped = np.zeros((a.shape[0], a.shape[1] * 2), a.dtype)
    stepped[:, ::2] = a
    return {"C": a.copy(), "F": np.asfortranarray(a), "stepped": stepped[:, ::2]}


def symmetric(n: int, dtype: str, rng: np.random.Generator) -> np.ndarray:
    m = rng.standard_normal((n, n))
    return ((m + m.T) / 2).astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [0, 1, 2, 9, 64])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("layout", ["C", "F", "stepped"])
def test_eigh(backend: str, dtype: str, n: int, lower: bool, layout: str) -> None:
    rng = np.random.default_rng(n)
    s = symmetric(n, dtype, rng)
    # Garbage in the triangle not read: the result must not depend on it.
    s[np.triu_indices(n, 1) if lower else np.tril_indices(n, -1)] = 7.0
    a = layouts(s)[layout]
    x = ot.matrix("x", dtype=dtype)
    w, v = oxtensor.function([x], linalg.eigh(x, lower=lower))(a)
    want_w, want_v = np.linalg.eigh(s, UPLO="L" if lower else "U")
    close(w, want_w, dtype)
    assert v.shape == want_v.shape
    sym = np.tril(s) + np.tril(s, -1).T if lower else np.triu(s) + np.triu(s, 1).T
    close(v @ np.diag(w) @ v.T, sym.astype(dtype), dtype)
    close(v.T @ v, np.eye(n, dtype=dtype), dtype)
    assert np.array_equal(a, layouts(s)[layout])  # the input is not written
    # Values alone (no eigenvectors computed): the same values.
    only_w = oxtensor.function([x], linalg.eigvalsh(x, lower=lower))(a)
    close(only_w, want_w, dtype)
    close(only_w, w, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("full", [True, False])
@pytest.mark.parametrize("layout", ["C", "F", "stepped"])
def test_svd(backend: str, dtype: str, shape: tuple, full: bool, layout: str) -> None:
    rng = np.random.default_rng(sum(shape))
    m = rng.standard_normal(shape).astype(dtype)
    a = layouts(m)[layout]
    x = ot.matrix("x", dtype=dtype)
    u, s, vh = oxtensor.function([x], linalg.svd(x, full_matrices=full))(a)
    want_u, want_s, want_vh = np.linalg.svd(m, full_matrices=full)
    assert (u.shape, vh.shape) == (want_u.shape, want_vh.shape)
    assert (u.dtype, vh.dtype) == (want_u.dtype, want_vh.dtype)
    close(s, want_s, dtype)
    k = len(s)
    close((u[:, :k] * s) @ vh[:k], m, dtype)
    close(u.T @ u, np.eye(u.shape[1], dtype=dtype), dtype)
    close(vh @ vh.T, np.eye(vh.shape[0], dtype=dtype), dtype)
    only_s = oxtensor.function([x], linalg.svd(x, compute_uv=False))(a)
    close(only_s, want_s, dtype)
    assert np.array_equal(a, layouts(m)[layout])


def test_host_lapack_gives_numpys_values(blas_engine) -> None:
    """The same routine as NumPy: the same values, up to threading order."""
    if not HAS_OPENBLAS:
        pytest.skip("NumPy's OpenBLAS is not loaded")
    blas_engine("numpy")
    rng = np.random.default_rng(5)
    a = rng.standard_normal((120, 90))
    s = a.T @ a
    x = ot.dmatrix("x")
    w, v = oxtensor.function([x], linalg.eigh(x))(s)
    want_w, want_v = np.linalg.eigh(s)
    np.testing.assert_allclose(w, want_w, rtol=1e-13, atol=1e-10)
    np.testing.assert_allclose(np.abs(v), np.abs(want_v), atol=1e-9)
    u, sv, vh = oxtensor.function([x], linalg.svd(x))(a)
    want_u, want_s, want_vh = np.linalg.svd(a)
    np.testing.assert_allclose(sv, want_s, rtol=1e-13)
    np.testing.assert_allclose(np.abs(u[:, :90]), np.abs(want_u[:, :90]), atol=1e-9)
    np.testing.assert_allclose(np.abs(vh), np.abs(want_vh), atol=1e-9)


def test_nan_input_fails_like_numpy(backend: str) -> None:
    a = np.full((3, 3), np.nan)
    x = ot.dmatrix("x")
    for build, np_fn in (
        (lambda t: linalg.svd(t, compute_uv=False), np.linalg.svd),
        (lambda t: linalg.eigh(t)[0], np.linalg.eigvalsh),
        (linalg.eigvalsh, np.linalg.eigvalsh),
    ):
        with pytest.raises(np.linalg.LinAlgError, match="did not converge"):
            np_fn(a)
        f = oxtensor.function([x], build(x))
        with pytest.raises(ValueError, match="did not converge"):
            f(a)


def test_eigh_errors(backend: str) -> None:
    x = ot.dmatrix("x")
    with pytest.raises(ValueError, match="square"):
        oxtensor.function([x], linalg.eigh(x)[0])(np.ones((2, 3)))


def test_gradients_still_pass(backend: str) -> None:
    rng = np.random.default_rng(9)
    a = rng.standard_normal((4, 4))
    s = a + a.T

    def eigh_cost(t):
        w, v = linalg.eigh(t)
        # Sign-independent in v: each column squared.
        return w.sum() + (v**2 * np.arange(1.0, 5.0)).sum()

    verify_grad(eigh_cost, [s], rng=rng)
    verify_grad(lambda t: linalg.eigvalsh(t) * np.arange(1.0, 5.0), [s], rng=rng)
    verify_grad(lambda t: linalg.eigvalsh(t, lower=False)[-1], [s], rng=rng)
    verify_grad(lambda t: linalg.svd(t, compute_uv=False), [a[:, :3]], rng=rng)


def well_conditioned(n: int, dtype: str, rng: np.random.Generator) -> np.ndarray:
    """A non-symmetric matrix that needs row pivoting, far from singular, with a
    determinant near 2^n (finite in float32 at n = 64)."""
    m = rng.standard_normal((n, n)) / np.sqrt(n + 1)
    return (m + np.roll(np.eye(n), 1, axis=1) * 2).astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [0, 1, 2, 9, 64])
@pytest.mark.parametrize("layout", ["C", "F", "stepped"])
def test_inv_det_slogdet(backend: str, dtype: str, n: int, layout: str) -> None:
    rng = np.random.default_rng(n + 1)
    m = well_conditioned(n, dtype, rng)
    a = layouts(m)[layout]
    x = ot.matrix("x", dtype=dtype)
    sign, logdet = linalg.slogdet(x)
    f = oxtensor.function([x], [linalg.inv(x), linalg.det(x), sign, logdet])
    inv, det, got_sign, got_log = f(a)
    close(inv, np.linalg.inv(m), dtype)
    want_det = np.linalg.det(m)
    assert det.dtype == np.dtype(dtype)
    np.testing.assert_allclose(det, want_det, rtol=50 * tol(dtype))
    want_sign, want_log = np.linalg.slogdet(m)
    assert got_sign == want_sign
    np.testing.assert_allclose(got_log, want_log, rtol=tol(dtype), atol=tol(dtype))
    assert np.array_equal(a, layouts(m)[layout])  # the input is not written


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [0, 1, 2, 9, 64])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("layout", ["C", "F", "stepped"])
def test_cholesky(backend: str, dtype: str, n: int, lower: bool, layout: str) -> None:
    rng = np.random.default_rng(n + 4)
    m = rng.standard_normal((n, n))
    spd = (m @ m.T + n * np.eye(n)).astype(dtype)
    # Garbage in the triangle not read: the result must not depend on it.
    junk = spd.copy()
    junk[np.triu_indices(n, 1) if lower else np.tril_indices(n, -1)] = 7.0
    a = layouts(junk)[layout]
    x = ot.matrix("x", dtype=dtype)
    got = oxtensor.function([x], linalg.cholesky(x, lower=lower))(a)
    want = np.linalg.cholesky(spd)
    close(got, want if lower else want.T, dtype)
    assert np.array_equal(a, layouts(junk)[layout])


def test_cholesky_of_matrices_that_are_not_positive_definite(backend: str) -> None:
    x = ot.dmatrix("x")
    bad = np.array([[1.0, 2.0], [2.0, 1.0]])
    nan = oxtensor.function([x], linalg.cholesky(x))(bad)
    assert nan.shape == (2, 2)
    assert np.isnan(nan).all()
    f = oxtensor.function([x], linalg.cholesky(x, lower=False, on_error="raise"))
    with pytest.raises(ValueError, match="not positive definite"):
        f(bad)
    with pytest.raises(ValueError, match="not positive definite"):
        f(np.full((3, 3), np.nan))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_slogdet_where_det_overflows(backend: str, dtype: str) -> None:
    """``log|det|`` summed from the LU diagonal, as NumPy: finite where the
    determinant itself overflows (and ``log(abs(det))`` would be inf)."""
    n = 64 if dtype == "float32" else 400
    rng = np.random.default_rng(7)
    m = (well_conditioned(n, "float64", rng) * 10.0).astype(dtype)
    m[[0, 1]] = m[[1, 0]]  # one more row swap: the sign flips
    with np.errstate(over="ignore"):
        assert np.isinf(np.linalg.det(m))
    want_sign, want_log = np.linalg.slogdet(m)
    x = ot.matrix("x", dtype=dtype)
    sign, logdet = oxtensor.function([x], list(linalg.slogdet(x)))(m)
    assert (sign.dtype, logdet.dtype) == (np.dtype(dtype), np.dtype(dtype))
    assert sign == want_sign
    assert np.isfinite(logdet)
    np.testing.assert_allclose(
        logdet, want_log, rtol=1e-5 if dtype == "float32" else 1e-12
    )
    # The determinant overflows as NumPy's does.
    det = oxtensor.function([x], linalg.det(x))(m)
    assert np.isinf(det)
    assert np.sign(det) == want_sign


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [0, 1, 2, 9, 64])
@pytest.mark.parametrize("rhs", [None, 0, 1, 3])
@pytest.mark.parametrize("layout", ["C", "F", "stepped"])
def test_solve(backend: str, dtype: str, n: int, rhs: int | None, layout: str) -> None:
    rng = np.random.default_rng(n + 2)
    m = well_conditioned(n, dtype, rng)
    bm = rng.standard_normal((n, 1 if rhs is None else rhs)).astype(dtype)
    a, b = layouts(m)[layout], layouts(bm)[layout]
    if rhs is None:
        bm, b = bm[:, 0], b[:, 0]
    x = ot.matrix("x", dtype=dtype)
    y = ot.tensor("y", dtype=dtype, shape=(None,) * bm.ndim)
    got = oxtensor.function([x, y], linalg.solve(x, y))(a, b)
    close(got, np.linalg.solve(m, bm), dtype)
    assert np.array_equal(a, layouts(m)[layout])
    assert np.array_equal(b, bm)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("mode", ["full", "reduced", "r"])
@pytest.mark.parametrize("layout", ["C", "F", "stepped"])
def test_qr(backend: str, dtype: str, shape: tuple, mode: str, layout: str) -> None:
    rng = np.random.default_rng(sum(shape) + 3)
    m = rng.standard_normal(shape).astype(dtype)
    a = layouts(m)[layout]
    x = ot.matrix("x", dtype=dtype)
    np_mode = "reduced" if mode == "reduced" else "complete"
    want_q, want_r = np.linalg.qr(m, mode=np_mode)
    if mode == "r":
        # R alone keeps the complete form's rows, as PyTensor's.
        r = oxtensor.function([x], linalg.qr(x, mode="r"))(a)
        close(np.abs(r), np.abs(want_r), dtype)
        assert np.array_equal(a, layouts(m)[layout])
        return
    q, r = oxtensor.function([x], linalg.qr(x, mode=mode))(a)
    assert (q.shape, r.shape) == (want_q.shape, want_r.shape)
    close(q @ r, m, dtype)
    close(q.T @ q, np.eye(q.shape[1], dtype=dtype), dtype)
    close(np.tril(r, -1), np.zeros_like(r), dtype)
    # Up to the signs of Q's columns (R's rows), NumPy's factors.
    close(np.abs(r), np.abs(want_r), dtype)
    k = min(shape)
    close(np.abs(q[:, :k]), np.abs(want_q[:, :k]), dtype)
    assert np.array_equal(a, layouts(m)[layout])


def test_host_lapack_gives_numpys_lu_and_qr(blas_engine) -> None:
    """inv, det and qr by NumPy's very routines: NumPy's values, signs
    included (the same factorisation, so the same pivots and signs)."""
    if not HAS_OPENBLAS:
        pytest.skip("NumPy's OpenBLAS is not loaded")
    blas_engine("numpy")
    rng = np.random.default_rng(6)
    x = ot.dmatrix("x")
    for n in (3, 50, 130):
        a = well_conditioned(n, "float64", rng)
        # Not bit for bit: the blocked LU's updates are threaded ?gemm
        # calls, whose sums no BLAS promises to add in one order. For these
        # well-conditioned matrices two LUs' determinants (products of n
        # pivots, each from sums of up to n terms) agree within n²·eps.
        det = oxtensor.function([x], linalg.det(x))(a)
        eps = np.finfo(np.float64).eps
        np.testing.assert_allclose(det, np.linalg.det(a), rtol=4 * n * n * eps)
        inv = oxtensor.function([x], linalg.inv(x))(a)
        np.testing.assert_allclose(inv, np.linalg.inv(a), rtol=1e-12, atol=1e-14)
    tall = rng.standard_normal((90, 60))
    for mode, np_mode in (("full", "complete"), ("reduced", "reduced")):
        q, r = oxtensor.function([x], linalg.qr(x, mode=mode))(tall)
        want_q, want_r = np.linalg.qr(tall, mode=np_mode)
        np.testing.assert_allclose(q, want_q, rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(r, want_r, rtol=1e-12, atol=1e-13)


def test_singular_matrices(backend: str) -> None:
    x, b = ot.dmatrix("x"), ot.dvector("b")
    sign, logdet = linalg.slogdet(x)
    for s in (np.zeros((3, 3)), np.array([[1.0, 2.0], [2.0, 4.0]])):
        with pytest.raises(np.linalg.LinAlgError):
            np.linalg.inv(s)
        f = oxtensor.function([x], linalg.inv(x))
        with pytest.raises(ValueError, match="singular") as info:
            f(s)
        assert "MatrixInverse(x)" in str(info.value)
        g = oxtensor.function([x, b], linalg.solve(x, b))
        assert np.isnan(g(s, np.ones(len(s)))).all()
        h = oxtensor.function([x], [linalg.det(x), sign, logdet])
        det, got_sign, got_log = h(s)
        assert det == np.linalg.det(s) == 0.0
        assert (got_sign, got_log) == tuple(np.linalg.slogdet(s)) == (0.0, -np.inf)


def test_lu_and_qr_of_nan_input(backend: str) -> None:
    """LAPACK does not stop on NaNs here: NaNs out, no error, as NumPy (which
    warns about the invalid values)."""
    a = np.array([[np.nan, 1.0, 2.0], [1.0, 3.0, 0.5], [2.0, 0.0, 1.0]])
    x = ot.dmatrix("x")
    inv, det = oxtensor.function([x], [linalg.inv(x), linalg.det(x)])(a)
    with np.errstate(invalid="ignore"):
        want_inv, want_det = np.linalg.inv(a), np.linalg.det(a)
    assert np.isnan(want_inv).any()
    assert np.isnan(inv).any()
    assert np.isnan(want_det)
    assert np.isnan(det)
    q, r = oxtensor.function([x], linalg.qr(x))(a)
    with np.errstate(invalid="ignore"):
        want_q, want_r = np.linalg.qr(a)
    assert np.isnan(want_r).any()
    assert np.isnan(r).any()
    assert np.isnan(want_q).any()
    # faer's Householder step keeps NaNs out of Q (a known difference).
    assert np.isnan(q).any() == (backend == "numpy")


def test_lu_and_qr_gradients_still_pass(backend: str) -> None:
    rng = np.random.default_rng(10)
    a = well_conditioned(4, "float64", rng)
    verify_grad(linalg.inv, [a], rng=rng)
    verify_grad(linalg.solve, [a, a[:, :2] + 1], rng=rng)
    verify_grad(linalg.det, [a], rng=rng)
    verify_grad(lambda t: linalg.slogdet(t)[1], [a], rng=rng)
    verify_grad(lambda t: linalg.qr(t, mode="reduced")[0] * 2 + 1, [a[:, :3]], rng=rng)
    verify_grad(lambda t: linalg.qr(t)[1], [a], rng=rng)

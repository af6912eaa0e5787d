"""`oxtensor.tensor.linalg` against NumPy: inv, det, slogdet, solve,
cholesky over float32/float64 (integer inputs upcast), strided inputs,
0x0 and 1x1 matrices, errors at build and run time, `str` forms,
`verify_grad` and `infer_shape`."""

import pickle

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.gradient import verify_grad
from oxtensor.tensor import linalg

from tests.helpers import check_infer_shape

RTOL = {"float32": 2e-4, "float64": 1e-10}


def spd(n, rng, dtype="float64"):
    a = rng.normal(size=(n, n))
    return (a @ a.T + n * np.eye(n)).astype(dtype)


def well_conditioned(n, rng, dtype="float64"):
    return (rng.normal(size=(n, n)) + 2 * n * np.eye(n)).astype(dtype)


def close(got, want, dtype):
    assert got.dtype == np.dtype(dtype), f"dtype {got.dtype}, expected {dtype}"
    np.testing.assert_allclose(got, want, rtol=RTOL[dtype], atol=RTOL[dtype])


def run(fn, *values, dtype=None):
    xs = [
        ot.tensor(f"x{i}", dtype=dtype or str(v.dtype), shape=(None,) * v.ndim)
        for i, v in enumerate(values)
    ]
    return oxtensor.function(xs, fn(*xs))(*values)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [0, 1, 4, 9])
def test_values_match_numpy(dtype, n):
    rng = np.random.default_rng(n)
    a, s = well_conditioned(n, rng, dtype), spd(n, rng, dtype)
    b, bm = rng.normal(size=n).astype(dtype), rng.normal(size=(n, 2)).astype(dtype)
    close(run(linalg.inv, a), np.linalg.inv(a), dtype)
    close(run(linalg.det, a), np.linalg.det(a.astype("float64")), dtype)
    close(run(linalg.solve, a, b), np.linalg.solve(a, b), dtype)
    close(run(linalg.solve, a, bm), np.linalg.solve(a, bm), dtype)
    close(run(linalg.cholesky, s), np.linalg.cholesky(s), dtype)
    up = run(lambda x: linalg.cholesky(x, lower=False), s)
    close(up, np.linalg.cholesky(s).T, dtype)
    sign, logdet = run(lambda x: list(linalg.slogdet(x)), a)
    want_sign, want_log = np.linalg.slogdet(a.astype("float64"))
    close(sign, want_sign, dtype)
    close(logdet, want_log, dtype)


def test_strided_inputs():
    rng = np.random.default_rng(2)
    big = well_conditioned(12, rng)
    a = big[::2, ::2].T
    s = spd(6, rng)[:, ::-1][::-1]
    b = rng.normal(size=12)[::2]
    close(run(linalg.inv, a), np.linalg.inv(a), "float64")
    close(run(linalg.det, a), np.linalg.det(a), "float64")
    close(run(linalg.solve, a, b), np.linalg.solve(a, b), "float64")
    close(run(linalg.cholesky, s), np.linalg.cholesky(s), "float64")


@pytest.mark.parametrize(
    ("dtype", "out"),
    [
        ("int8", "float32"),
        ("int16", "float32"),
        ("int32", "float64"),
        ("int64", "float64"),
        ("bool", "float32"),
        ("float16", "float32"),
    ],
)
def test_integer_inputs_upcast(dtype, out):
    m = ot.matrix("m", dtype=dtype)
    assert linalg.inv(m).dtype == out
    assert linalg.det(m).type == ot.TensorType(out, ())
    assert linalg.cholesky(m).dtype == out
    a = (
        np.array([[2, 1], [1, 3]], dtype=dtype)
        if dtype != "bool"
        else np.eye(2, dtype=bool)
    )
    got = oxtensor.function([m], linalg.inv(m))(a)
    close(
        got, np.linalg.inv(a.astype("float64")), out if out != "float32" else "float32"
    )


def test_static_types():
    x = ot.tensor("x", shape=(3, None))
    assert linalg.inv(x).type.shape == (3, 3)
    assert linalg.solve(x, ot.tensor("b", shape=(None, 2))).type.shape == (None, 2)
    assert linalg.solve(ot.fmatrix("a"), ot.dvector("b")).dtype == "float64"


def test_build_errors():
    with pytest.raises(ValueError, match=r"square matrix.*\(2, 3\)"):
        linalg.inv(ot.tensor("x", shape=(2, 3)))
    with pytest.raises(ValueError, match="takes a matrix"):
        linalg.det(ot.vector("v"))
    with pytest.raises(TypeError, match="complex"):
        linalg.inv(ot.zmatrix("z"))
    with pytest.raises(ValueError, match=r"Determinant not defined .* is \(5, 7\)"):
        linalg.det(ot.tensor("x", shape=(5, 7)))
    with pytest.raises(ValueError, match="do not match"):
        linalg.solve(ot.tensor("a", shape=(3, 3)), ot.tensor("b", shape=(2,)))
    with pytest.raises(ValueError, match="Invalid assume_a: posdef"):
        linalg.solve(ot.matrix("a"), ot.vector("b"), assume_a="posdef")
    with pytest.raises(ValueError, match="on_error"):
        linalg.cholesky(ot.matrix("a"), on_error="ignore")


def test_runtime_errors_name_the_node():
    a, b = ot.dmatrix("a"), ot.dvector("b")
    f = oxtensor.function([a], linalg.inv(a))
    with pytest.raises(ValueError, match="singular") as info:
        f(np.zeros((2, 2)))
    assert "MatrixInverse(a)" in str(info.value)
    with pytest.raises(ValueError, match="square"):
        f(np.ones((2, 3)))
    s = oxtensor.function([a, b], linalg.solve(a, b))
    # A singular system gives NaNs, as PyTensor's Solve (it catches LinAlgError).
    assert np.isnan(s(np.zeros((2, 2)), np.ones(2))).all()
    with pytest.raises(ValueError, match="do not match") as info:
        s(np.eye(3), np.ones(2))
    assert "Solve{assume_a='gen', lower=False, b_ndim=1" in str(info.value)
    g = oxtensor.function([a], linalg.cholesky(a, on_error="raise"))
    with pytest.raises(ValueError, match="not positive definite") as info:
        g(-np.eye(2))
    assert "Cholesky{lower=True}(a)" in str(info.value)
    nan = oxtensor.function([a], linalg.cholesky(a))(-np.eye(2))
    assert np.isnan(nan).all()


def test_str_forms():
    m, v = ot.matrix("m"), ot.vector("v")
    assert str(linalg.inv(m).owner.op) == "MatrixInverse"
    assert str(linalg.det(m).owner.op) == "Det"
    assert (
        str(linalg.solve(m, v).owner.op)
        == "Solve{assume_a='gen', lower=False, b_ndim=1, overwrite_a=False, "
        "overwrite_b=False}"
    )
    assert str(linalg.cholesky(m).owner.op) == "Cholesky{lower=True}"
    assert linalg.Cholesky() == linalg.Cholesky(lower=True)
    assert linalg.Cholesky() != linalg.Cholesky(lower=False)
    assert linalg.Solve(b_ndim=2).b_ndim == 2


@pytest.mark.parametrize("name", ["inv", "det", "slogdet", "solve_vec", "solve_mat"])
def test_verify_grad(name):
    rng = np.random.default_rng(11)
    a = well_conditioned(4, rng)
    funs = {
        "inv": (linalg.inv, [a]),
        "det": (linalg.det, [a]),
        "slogdet": (lambda x: linalg.slogdet(x)[1], [a]),
        "solve_vec": (linalg.solve, [a, rng.normal(size=4)]),
        "solve_mat": (linalg.solve, [a, rng.normal(size=(4, 3))]),
    }
    fun, point = funs[name]
    verify_grad(fun, point, rng=rng)


@pytest.mark.parametrize("lower", [True, False])
def test_cholesky_verify_grad(lower):
    rng = np.random.default_rng(12)
    verify_grad(lambda x: linalg.cholesky(x, lower=lower), [spd(4, rng)], rng=rng)
    sym = lambda x: linalg.cholesky(x @ x.T + 4 * np.eye(4), lower=lower)  # noqa: E731
    verify_grad(sym, [rng.normal(size=(4, 4))], rng=rng)


def test_infer_shape():
    rng = np.random.default_rng(13)
    a, bv, bm = ot.dmatrix("a"), ot.dvector("b"), ot.dmatrix("c")
    outs = [
        linalg.inv(a),
        linalg.det(a),
        linalg.solve(a, bv),
        linalg.solve(a, bm),
        linalg.cholesky(a),
    ]
    values = [spd(3, rng), rng.normal(size=3), rng.normal(size=(3, 2))]
    for out in outs:
        check_infer_shape([a, bv, bm], [out], values, type(out.owner.op))
    grad = oxtensor.grad(linalg.cholesky(a).sum(), a)
    check_infer_shape([a, bv, bm], [grad], values, linalg.CholeskyGrad)


# --- eigh, svd, qr ---


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [0, 1, 5])
@pytest.mark.parametrize("lower", [True, False])
def test_eigh_matches_numpy(dtype, n, lower):
    rng = np.random.default_rng(20 + n)
    s = spd(n, rng, dtype)
    x = ot.matrix("x", dtype=dtype)
    w, v = oxtensor.function([x], linalg.eigh(x, lower=lower))(s)
    close(w, np.linalg.eigvalsh(s, UPLO="L" if lower else "U"), dtype)
    close(v @ np.diag(w) @ v.T, s, dtype)
    close(v.T @ v, np.eye(n), dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (1, 1), (0, 0)], ids=str)
@pytest.mark.parametrize("full", [True, False])
def test_svd_matches_numpy(dtype, shape, full):
    rng = np.random.default_rng(21)
    a = rng.normal(size=shape).astype(dtype)
    x = ot.matrix("x", dtype=dtype)
    u, s, vh = oxtensor.function([x], linalg.svd(x, full_matrices=full))(a)
    want_u, want_s, want_vh = np.linalg.svd(a, full_matrices=full)
    assert (u.shape, vh.shape) == (want_u.shape, want_vh.shape)
    close(s, want_s, dtype)
    k = len(s)
    close(u[:, :k] * s @ vh[:k], a, dtype)
    only_s = oxtensor.function([x], linalg.svd(x, compute_uv=False))(a)
    close(only_s, want_s, dtype)


@pytest.mark.parametrize("mode", ["full", "complete", "reduced", "economic", "r"])
@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (0, 0)], ids=str)
def test_qr_matches_numpy(mode, shape):
    rng = np.random.default_rng(22)
    a = rng.normal(size=shape)
    x = ot.dmatrix("x")
    out = linalg.qr(x, mode=mode)
    np_mode = {"full": "complete", "economic": "reduced"}.get(mode, mode)
    if mode == "r":
        r = oxtensor.function([x], out)(a)
        want_r = np.linalg.qr(a, mode="complete")[1]
        close(np.abs(r), np.abs(want_r), "float64")
        return
    q, r = oxtensor.function([x], out)(a)
    want_q, want_r = np.linalg.qr(a, mode=np_mode)
    assert (q.shape, r.shape) == (want_q.shape, want_r.shape)
    close(q @ r, a, "float64")
    close(q.T @ q, np.eye(q.shape[1]), "float64")
    close(np.tril(r, -1), np.zeros_like(r), "float64")


def test_decomposition_types_and_str_forms():
    x = ot.tensor("x", shape=(5, 3))
    u, s, vh = linalg.svd(x)
    assert (u.type.shape, s.type.shape, vh.type.shape) == ((5, 5), (3,), (3, 3))
    assert linalg.svd(x, full_matrices=False)[0].type.shape == (5, 3)
    assert linalg.qr(x, mode="reduced")[0].type.shape == (5, 3)
    assert linalg.qr(x, mode="r").type.shape == (5, 3)
    w, v = linalg.eigh(ot.imatrix("i"))
    assert (w.dtype, w.ndim, v.ndim) == ("float64", 1, 2)
    assert str(w.owner.op) == "Eigh{lower=True}"
    assert str(u.owner.op) == "SVD{full_matrices=True, compute_uv=True}"
    assert str(linalg.qr(x)[0].owner.op) == "QR{mode='full'}"
    with pytest.raises(NotImplementedError, match="raw"):
        linalg.qr(x, mode="raw")
    with pytest.raises(ValueError, match="square"):
        linalg.eigh(x)


def test_slogdet_and_eigvalsh_are_one_node_each():
    m = ot.matrix("m")
    sign, logdet = linalg.slogdet(m)
    assert sign.owner is logdet.owner
    assert str(sign.owner.op) == "SLogDet"
    assert (sign.type.shape, logdet.type.shape) == ((), ())
    assert (sign.dtype, logdet.dtype) == ("float64", "float64")
    assert linalg.slogdet(ot.fmatrix())[1].dtype == "float32"
    w = linalg.eigvalsh(m, lower=False)
    assert str(w.owner.op) == "Eigvalsh{lower=False}"
    assert linalg.Eigvalsh() == linalg.Eigvalsh(lower=True)
    assert w.owner.op.lower is False
    assert linalg.eigvalsh(ot.tensor("s", shape=(4, 4))).type.shape == (4,)
    with pytest.raises(NotImplementedError, match="generalized"):
        linalg.eigvalsh(m, m)
    with pytest.raises(ValueError, match="square"):
        linalg.eigvalsh(ot.tensor("t", shape=(2, 3)))
    for op in (linalg.SLogDet(), linalg.Eigvalsh(lower=False)):
        assert pickle.loads(pickle.dumps(op)) == op


def test_slogdet_of_singular_and_sign_only_gradient():
    x = ot.dmatrix("x")
    sign, logdet = linalg.slogdet(x)
    f = oxtensor.function([x], [sign, logdet])
    assert tuple(f(np.zeros((3, 3)))) == (0.0, -np.inf)
    assert tuple(f(np.zeros((0, 0)))) == (1.0, 0.0)
    # The sign is piecewise constant: its gradient is zero.
    g = oxtensor.function([x], oxtensor.grad(sign, x))(np.eye(3) * 2)
    np.testing.assert_array_equal(g, np.zeros((3, 3)))


@pytest.mark.parametrize(
    "name",
    [
        "eigh_w",
        "eigh_v",
        "eigh_sym",
        "svd_s",
        "svd_uv_s",
        "svd_wide",
        "qr_reduced",
        "qr_r_only",
        "qr_square",
    ],
)
def test_decomposition_verify_grad(name):
    rng = np.random.default_rng(23)
    s, a = spd(4, rng), rng.normal(size=(4, 3))
    funs = {
        "eigh_w": (lambda x: linalg.eigh(x)[0], s),
        "eigh_v": (lambda x: linalg.eigh(x, lower=False)[1] ** 2, s),
        "eigh_sym": (lambda x: linalg.eigh(x + x.T)[0], a @ a.T),
        "svd_s": (lambda x: linalg.svd(x, compute_uv=False), a),
        "svd_uv_s": (lambda x: linalg.svd(x)[1], a),
        "svd_wide": (lambda x: linalg.svd(x, compute_uv=False), a.T),
        "qr_reduced": (lambda x: linalg.qr(x, mode="reduced")[0] + 0, a),
        "qr_r_only": (lambda x: linalg.qr(x, mode="economic")[1], a),
        "qr_square": (lambda x: linalg.qr(x)[0] * 2 + linalg.qr(x)[1], s),
    }
    fun, point = funs[name]
    verify_grad(fun, [point], rng=rng)


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (3, 3)])
@pytest.mark.parametrize("use", ["u", "vh", "u_s_vh", "u_vh"])
def test_thin_svd_gradients_through_every_output(shape, use):
    # Weights on U and Vh make the cost depend on their signs' pairing,
    # which the decomposition fixes (u_i s_i vh_i); a plain sum of U or Vh
    # would too, but with weights every entry of the gradient is exercised.
    rng = np.random.default_rng(7)
    a = rng.normal(size=shape)
    k = min(shape)

    def cost(x):
        u, s, vh = linalg.svd(x, full_matrices=False)
        terms = {
            "u": [(u * np.arange(1.0, shape[0] * k + 1).reshape(shape[0], k)).sum()],
            "vh": [(vh**2 * np.arange(k * shape[1]).reshape(k, shape[1])).sum()],
            "u_s_vh": [u.sum(), s.sum(), vh.sum()],
            "u_vh": [(u[:, 0] * vh[0, 0]).sum()],
        }[use]
        out = terms[0]
        for t in terms[1:]:
            out = out + t
        return out

    verify_grad(cost, [a], rng=rng)


def test_full_svd_gradient_through_u_is_refused():
    x = ot.dmatrix("x")
    message = "Gradient of svd not implemented for full_matrices=True"
    with pytest.raises(NotImplementedError, match=message):
        oxtensor.grad(linalg.svd(x)[0].sum(), x)
    # The singular values alone have a gradient with full matrices too.
    g = oxtensor.function([x], oxtensor.grad(linalg.svd(x)[1].sum(), x))
    a = np.random.default_rng(3).normal(size=(4, 3))
    u, _, vh = np.linalg.svd(a, full_matrices=False)
    np.testing.assert_allclose(g(a), u @ vh, atol=1e-12)


def test_qr_grad_limits():
    x = ot.dmatrix("x")
    with pytest.raises(NotImplementedError, match="mode='r'"):
        oxtensor.grad(linalg.qr(x, mode="r").sum(), x)
    gx = oxtensor.grad(linalg.qr(x)[1].sum(), x)
    with pytest.raises(NotImplementedError, match="square R") as info:
        oxtensor.function([x], gx)(np.ones((4, 2)))
    assert "QRGrad" in str(info.value)


def test_decomposition_infer_shape():
    rng = np.random.default_rng(24)
    x = ot.dmatrix("x")
    for value in (rng.normal(size=(4, 3)), rng.normal(size=(2, 5))):
        outs = [*linalg.svd(x), *linalg.svd(x, full_matrices=False)]
        outs += [linalg.svd(x, compute_uv=False), linalg.qr(x, mode="r")]
        outs += [*linalg.qr(x), *linalg.qr(x, mode="reduced")]
        check_infer_shape([x], outs, [value], (linalg.SVD, linalg.QR))
    w, v = linalg.eigh(x)
    check_infer_shape([x], [w, v], [spd(3, rng)], linalg.Eigh)
    gx = oxtensor.grad(w.sum() + v.sum(), x)
    check_infer_shape([x], [gx], [spd(3, rng)], linalg.EighGrad)
    check_infer_shape([x], [linalg.eigvalsh(x)], [spd(3, rng)], linalg.Eigvalsh)
    check_infer_shape([x], list(linalg.slogdet(x)), [spd(3, rng)], linalg.SLogDet)


@pytest.mark.parametrize("n", [70, 420])
def test_large_decompositions_match_numpy(n):
    """Sizes past faer's divide-and-conquer recursion threshold (eigh, svd)
    and, at 420, past the threading thresholds of eigh and svd."""
    rng = np.random.default_rng(23 + n)
    s = spd(n, rng)
    a = well_conditioned(n, rng)
    x = ot.dmatrix("x")
    w, v = oxtensor.function([x], linalg.eigh(x))(s)
    close(w, np.linalg.eigvalsh(s), "float64")
    np.testing.assert_allclose(v @ np.diag(w) @ v.T, s, rtol=1e-9, atol=1e-9 * n)
    tall = a[:, : n - 7]
    u, sv, vh = oxtensor.function([x], linalg.svd(x, full_matrices=False))(tall)
    close(sv, np.linalg.svd(tall, compute_uv=False), "float64")
    np.testing.assert_allclose(u * sv @ vh, tall, atol=1e-9 * n)
    inv = oxtensor.function([x], linalg.inv(x))(a)
    np.testing.assert_allclose(inv, np.linalg.inv(a), rtol=1e-10, atol=1e-13)
    wide = a[: n - 5]
    q, r = oxtensor.function([x], linalg.qr(x))(wide)
    np.testing.assert_allclose(q @ r, wide, atol=1e-10 * n)
    close(q.T @ q, np.eye(q.shape[1]), "float64")


@pytest.mark.parametrize("scale", [0.01, 1.0, 30.0])
def test_expm_matches_the_eigendecomposition_of_symmetric_matrices(scale):
    # expm(S) = V diag(exp(w)) Vᵀ for symmetric S; large norms go through
    # scaling and squaring.
    rng = np.random.default_rng(5)
    a = rng.standard_normal((5, 5))
    s = (a + a.T) * scale / 2
    w, v = np.linalg.eigh(s)
    want = (v * np.exp(w)) @ v.T
    x = ot.dmatrix("x")
    got = oxtensor.function([x], linalg.expm(x))(s)
    np.testing.assert_allclose(got, want, rtol=1e-11 * max(1.0, scale), atol=1e-13)


def test_expm_of_a_rotation_generator_and_float32():
    t = 2.5
    gen = np.array([[0.0, -t], [t, 0.0]])
    want = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    x = ot.dmatrix("x")
    np.testing.assert_allclose(
        oxtensor.function([x], linalg.expm(x))(gen), want, atol=1e-14
    )
    f = ot.fmatrix("f")
    out = linalg.expm(f)
    assert out.dtype == "float32"
    got = oxtensor.function([f], out)(gen.astype("float32"))
    np.testing.assert_allclose(got, want, atol=1e-5)


@pytest.mark.parametrize("kind", ["symmetric", "nonsymmetric"])
def test_expm_gradient(kind):
    rng = np.random.default_rng(9)
    a = rng.standard_normal((4, 4))
    if kind == "symmetric":
        a = a + a.T
    verify_grad(linalg.expm, [a], rng=rng, abs_tol=1e-6, rel_tol=1e-6)


def test_expm_refuses_non_square_input():
    with pytest.raises(ValueError, match="square"):
        linalg.expm(ot.tensor("x", shape=(2, 3)))

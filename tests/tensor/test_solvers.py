"""The linear solvers (``oxtensor.tensor.solvers``, re-exported by
``linalg``): ``solve`` for each ``assume_a``, ``solve_triangular``,
``lu_factor``/``lu_solve``/``lu``, single and batched, float32/float64,
against SciPy; NaNs for systems without a unique solution; gradients with
``verify_grad``; the op classes' props and errors."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
import scipy.linalg
from oxtensor.gradient import verify_grad
from oxtensor.tensor import linalg as la

from tests.helpers import check_infer_shape

RNG = np.random.default_rng(28)


def structured(kind, n=4, dtype="float64"):
    """A well-conditioned matrix of the structure ``kind`` (junk in the
    triangle a symmetric solve does not read is left to SciPy to ignore)."""
    x = RNG.normal(size=(n, n))
    if kind == "pos":
        x = x @ x.T + n * np.eye(n)
    elif kind in ("sym", "her"):
        x = x + x.T + n * np.eye(n)
    elif kind in ("tridiagonal", "banded"):
        x = (x + 2 * n * np.eye(n)) * (
            np.abs(np.subtract.outer(range(n), range(n))) <= 1
        )
    elif kind == "diagonal":
        x = np.diag(x.diagonal() + n)
    else:
        x = x + n * np.eye(n)
    return x.astype(dtype)


def tol(dtype):
    return {"rtol": 1e-4, "atol": 1e-4} if dtype == "float32" else {"rtol": 1e-9}


KINDS = ["gen", "sym", "her", "pos", "tridiagonal", "banded", "diagonal"]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("b_shape", [(4,), (4, 3)])
def test_solve_matches_scipy(dtype, kind, lower, transposed, b_shape):
    a_val, b_val = structured(kind, dtype=dtype), RNG.normal(size=b_shape).astype(dtype)
    a, b = (
        ot.matrix("a", dtype=dtype),
        ot.tensor("b", dtype=dtype, shape=(None,) * len(b_shape)),
    )
    x = la.solve(a, b, assume_a=kind, lower=lower, transposed=transposed)
    got = oxtensor.function([a, b], x)(a_val, b_val)
    assert got.dtype == dtype
    want = scipy.linalg.solve(
        a_val, b_val, assume_a=kind, lower=lower, transposed=transposed
    )
    np.testing.assert_allclose(got, want, **tol(dtype))


def test_solve_reads_one_triangle_and_long_names():
    a_val = structured("pos")
    junk = a_val + np.triu(RNG.normal(size=(4, 4)), 1)  # upper triangle spoiled
    b_val = RNG.normal(size=4)
    a, b = ot.dmatrix("a"), ot.dvector("b")
    for name in ("sym", "symmetric", "SYM", "positive definite"):
        f = oxtensor.function([a, b], la.solve(a, b, assume_a=name, lower=True))
        np.testing.assert_allclose(
            f(junk, b_val), np.linalg.solve(a_val, b_val), rtol=1e-9
        )
    assert la.Solve(assume_a="Positive Definite", b_ndim=1).assume_a == "pos"


def test_batched_solve_and_b_ndim():
    a_val = np.stack([structured("pos") for _ in range(3)])
    vecs = RNG.normal(size=(3, 4))
    a, b = ot.dtensor3("a"), ot.dmatrix("b")
    for kind in ("gen", "pos"):
        as_vectors = oxtensor.function([a, b], la.solve(a, b, assume_a=kind, b_ndim=1))
        want = np.stack(
            [np.linalg.solve(m, v) for m, v in zip(a_val, vecs, strict=True)]
        )
        np.testing.assert_allclose(as_vectors(a_val, vecs), want, rtol=1e-9)
    # Without b_ndim a matrix b is one matrix of right-hand sides per batch.
    rhs = RNG.normal(size=(4, 2))
    as_matrix = oxtensor.function([a, b], la.solve(a, b))
    np.testing.assert_allclose(
        as_matrix(a_val, rhs), np.linalg.solve(a_val, rhs), rtol=1e-9
    )


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("trans", [0, 1, "T", "N"])
@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("unit_diagonal", [False, True])
def test_solve_triangular_matches_scipy(dtype, trans, lower, unit_diagonal):
    a_val = (RNG.normal(size=(4, 4)) + 4 * np.eye(4)).astype(dtype)
    b_val = RNG.normal(size=(4, 2)).astype(dtype)
    a, b = ot.matrix("a", dtype=dtype), ot.matrix("b", dtype=dtype)
    x = la.solve_triangular(a, b, trans=trans, lower=lower, unit_diagonal=unit_diagonal)
    got = oxtensor.function([a, b], x)(a_val, b_val)
    want = scipy.linalg.solve_triangular(
        a_val, b_val, trans=trans, lower=lower, unit_diagonal=unit_diagonal
    )
    assert got.dtype == dtype
    np.testing.assert_allclose(got, want, **tol(dtype))


def test_batched_solve_triangular_and_triangular_names():
    a_val = np.tril(RNG.normal(size=(2, 4, 4))) + 4 * np.eye(4)
    b_val = RNG.normal(size=(2, 4))
    a, b = ot.dtensor3("a"), ot.dmatrix("b")
    got = oxtensor.function([a, b], la.solve_triangular(a, b, lower=True, b_ndim=1))
    want = [
        scipy.linalg.solve_triangular(m, v, lower=True)
        for m, v in zip(a_val, b_val, strict=True)
    ]
    np.testing.assert_allclose(got(a_val, b_val), want, rtol=1e-9)
    x = la.solve(a, b, assume_a="lower triangular", b_ndim=1)
    assert isinstance(x.owner.op.core_op, la.SolveTriangular)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lu_factor_and_lu_match_scipy(dtype):
    # Row swaps needed: the largest entry of the first column is not on top.
    a_val = np.array([[1.0, 2, 0], [4, 1, 1], [2, 8, 2]], dtype=dtype)
    a = ot.matrix("a", dtype=dtype)
    lu_, piv = oxtensor.function([a], list(la.lu_factor(a)))(a_val)
    want_lu, want_piv = scipy.linalg.lu_factor(a_val)
    np.testing.assert_allclose(lu_, want_lu, **tol(dtype))
    np.testing.assert_array_equal(piv, want_piv)
    assert (lu_.dtype, piv.dtype) == (np.dtype(dtype), np.dtype("int32"))
    p, l_, u = oxtensor.function([a], list(la.lu(a)))(a_val)
    for got, want in zip((p, l_, u), scipy.linalg.lu(a_val), strict=True):
        np.testing.assert_allclose(got, want, **tol(dtype))
    perm, _, _ = oxtensor.function([a], list(la.lu(a, p_indices=True)))(a_val)
    np.testing.assert_array_equal(perm, scipy.linalg.lu(a_val, p_indices=True)[0])
    pl, _ = oxtensor.function([a], list(la.lu(a, permute_l=True)))(a_val)
    np.testing.assert_allclose(
        pl, scipy.linalg.lu(a_val, permute_l=True)[0], **tol(dtype)
    )


@pytest.mark.parametrize("trans", [False, True])
@pytest.mark.parametrize("b_shape", [(4,), (4, 3)])
def test_lu_solve_single_and_batched(trans, b_shape):
    a_val, b_val = structured("gen"), RNG.normal(size=b_shape)
    a, b = (
        ot.dmatrix("a"),
        ot.tensor("b", dtype="float64", shape=(None,) * len(b_shape)),
    )
    f = oxtensor.function([a, b], la.lu_solve(la.lu_factor(a), b, trans=trans))
    want = scipy.linalg.lu_solve(scipy.linalg.lu_factor(a_val), b_val, trans=trans)
    np.testing.assert_allclose(f(a_val, b_val), want, rtol=1e-9)
    stack = np.stack([a_val, structured("gen")])
    a3, b2 = ot.dtensor3("a3"), ot.dmatrix("b2")
    batched = la.lu_solve(la.lu_factor(a3), b2, trans=trans, b_ndim=1)
    vecs = RNG.normal(size=(2, 4))
    want = [
        np.linalg.solve(m.T if trans else m, v)
        for m, v in zip(stack, vecs, strict=True)
    ]
    np.testing.assert_allclose(
        oxtensor.function([a3, b2], batched)(stack, vecs), want, rtol=1e-9
    )


def test_unsolvable_systems_give_nans_and_inv_raises_linalgerror():
    a, b = ot.dmatrix("a"), ot.dvector("b")
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    for kind in ("gen", "sym", "tridiagonal"):
        f = oxtensor.function([a, b], la.solve(a, b, assume_a=kind))
        assert np.isnan(f(singular, np.ones(2))).all()
    pos = oxtensor.function([a, b], la.solve(a, b, assume_a="pos"))
    assert np.isnan(pos(-np.eye(2), np.ones(2))).all()
    tri = oxtensor.function([a, b], la.solve_triangular(a, b, lower=True))
    assert np.isnan(tri(np.array([[1.0, 0], [1, 0]]), np.ones(2))).all()
    lu_, _ = oxtensor.function([a], list(la.lu_factor(a)))(np.zeros((2, 2)))
    assert np.isnan(lu_).all()
    inv = oxtensor.function([a], la.inv(a))
    with pytest.raises(np.linalg.LinAlgError, match="singular"):
        inv(singular)


@pytest.mark.parametrize("kind", ["gen", "sym", "pos", "tridiagonal", "diagonal"])
@pytest.mark.parametrize("b_shape", [(4,), (4, 2)])
def test_solve_gradients(kind, b_shape):
    # As PyTensor, the gradient is the general solve's (not kept to the
    # entries the structure reads): the input is given that structure first.
    band = np.abs(np.subtract.outer(range(4), range(4))) <= 1
    shape = {
        "pos": lambda x: x @ x.T,
        "sym": lambda x: (x + x.T) / 2,
        "tridiagonal": lambda x: x * band,
    }.get(kind, lambda x: x)
    a_val = structured("gen")
    verify_grad(
        lambda a, b: la.solve(shape(a), b, assume_a=kind, b_ndim=len(b_shape)),
        [a_val, RNG.normal(size=b_shape)],
        rng=RNG,
    )


@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("unit_diagonal", [False, True])
@pytest.mark.parametrize("trans", [0, 1])
def test_solve_triangular_gradients(lower, unit_diagonal, trans):
    a_val = RNG.normal(size=(4, 4)) + 4 * np.eye(4)
    verify_grad(
        lambda a, b: la.solve_triangular(
            a, b, lower=lower, unit_diagonal=unit_diagonal, trans=trans
        ),
        [a_val, RNG.normal(size=(4, 2))],
        rng=RNG,
    )
    # Entries outside the triangle read get no gradient.
    a, b = ot.dmatrix("a"), ot.dvector("b")
    x = la.solve_triangular(a, b, lower=lower, unit_diagonal=unit_diagonal)
    ga = oxtensor.function([a, b], oxtensor.grad(x.sum(), a))(a_val, np.ones(4))
    outside = np.triu(ga, 1) if lower else np.tril(ga, -1)
    assert not outside.any()
    if unit_diagonal:
        assert not ga.diagonal().any()


@pytest.mark.parametrize("trans", [False, True])
def test_lu_factor_and_lu_gradients(trans):
    a_val = structured("gen")
    verify_grad(
        lambda a, b: la.lu_solve(la.lu_factor(a), b, trans=trans),
        [a_val, RNG.normal(size=4)],
        rng=RNG,
    )
    verify_grad(lambda a: la.lu_factor(a)[0], [a_val], rng=RNG)
    verify_grad(lambda a: la.lu(a)[1] + la.lu(a)[2], [a_val], rng=RNG)


def test_op_props_shapes_and_errors():
    op = la.Solve(b_ndim=2)
    assert str(op) == (
        "Solve{assume_a='gen', lower=False, b_ndim=2, overwrite_a=False, "
        "overwrite_b=False}"
    )
    assert la.Solve.__props__ == (
        "assume_a",
        "lower",
        "b_ndim",
        "overwrite_a",
        "overwrite_b",
    )
    assert op == la.Solve(assume_a="general", b_ndim=2) != la.Solve(b_ndim=1)
    assert str(la.SolveTriangular(b_ndim=1, lower=True)) == (
        "SolveTriangular{unit_diagonal=False, lower=True, b_ndim=1, overwrite_b=False}"
    )
    assert str(la.LUFactor()) == "LUFactor{overwrite_a=False}"
    with pytest.raises(ValueError, match=r"Invalid assume_a: test\. It must be one of"):
        la.Solve(assume_a="test", b_ndim=2)
    with pytest.raises(ValueError, match="overwrite_a is not supported"):
        la.SolveTriangular(b_ndim=1, overwrite_a=True)
    with pytest.raises(NotImplementedError, match="simultaneously"):
        la.Solve(b_ndim=1, overwrite_a=True, overwrite_b=True)
    with pytest.raises(ValueError, match="`b` must have 2 dims"):
        la.Solve(b_ndim=2)(ot.dmatrix(), ot.dvector())
    with pytest.raises(ValueError, match="`A` must be a matrix"):
        la.SolveTriangular(b_ndim=1)(ot.dvector(), ot.dvector())
    with pytest.raises(ValueError, match="invalid trans"):
        la.solve_triangular(ot.dmatrix(), ot.dvector(), trans="X")
    with pytest.raises(TypeError, match="2-D"):
        la.LUFactor()(ot.dvector())
    p = ot.ivector("p")
    with pytest.raises(IndexError, match="out of range"):
        oxtensor.function([p], la.pivot_to_permutation(p))(np.array([0, 5], "int32"))
    a, b, bm = ot.dmatrix("a"), ot.dvector("b"), ot.dmatrix("bm")
    outs = [
        la.solve(a, b, assume_a="pos"),
        la.solve_triangular(a, bm),
        *la.lu_factor(a),
    ]
    spd = structured("pos")
    check_infer_shape([a, b, bm], outs, [spd, np.ones(4), np.ones((4, 2))])


class _ScipySolve(la.SolveBase):
    def perform(self, node, inputs, outputs):
        outputs[0][0] = scipy.linalg.solve(*inputs)


def test_solvebase_subclass():
    assert isinstance(la.Solve(b_ndim=1), la.SolveBase)
    assert issubclass(la.SolveTriangular, la.SolveBase)
    assert not isinstance(la.LUFactor(), la.SolveBase)
    assert issubclass(_ScipySolve, la.SolveBase)
    assert not isinstance(_ScipySolve(b_ndim=1), la.Solve)
    a, b = ot.dmatrix("a"), ot.dvector("b")
    x = _ScipySolve(b_ndim=1)(a, b)
    assert (
        repr(x)
        == "_ScipySolve{lower=False, b_ndim=1, overwrite_a=False, overwrite_b=False}.0"
    )
    a_val, b_val = structured("gen"), RNG.normal(size=4)
    np.testing.assert_allclose(
        oxtensor.function([a, b], x)(a_val, b_val), np.linalg.solve(a_val, b_val)
    )
    verify_grad(lambda a, b: _ScipySolve(b_ndim=1)(a, b), [a_val, b_val], rng=RNG)
    with pytest.raises(ValueError, match="`A` must be a matrix"):
        _ScipySolve(b_ndim=1)(ot.dtensor3(), b)


def test_linear_control_equations():
    A, B = RNG.normal(size=(3, 3)), RNG.normal(size=(2, 2))
    Q, Q3 = RNG.normal(size=(3, 2)), RNG.normal(size=(3, 3))
    a, b, q = ot.dmatrix("a"), ot.dmatrix("b"), ot.dmatrix("q")
    sylvester = oxtensor.function([a, b, q], la.solve_sylvester(a, b, q))
    np.testing.assert_allclose(
        sylvester(A, B, Q), scipy.linalg.solve_sylvester(A, B, Q), rtol=1e-9
    )
    lyap = oxtensor.function([a, q], la.solve_continuous_lyapunov(a, q))
    np.testing.assert_allclose(
        lyap(A, Q3), scipy.linalg.solve_continuous_lyapunov(A, Q3), rtol=1e-9
    )
    stable = A / 4
    for method in ("direct", "bilinear"):
        f = oxtensor.function([a, q], la.solve_discrete_lyapunov(a, q, method=method))
        want = scipy.linalg.solve_discrete_lyapunov(stable, Q3)
        np.testing.assert_allclose(f(stable, Q3), want, rtol=1e-9)
    stack = RNG.normal(size=(2, 3, 3)) / 4
    t = ot.dtensor3("t")
    batched = oxtensor.function([t, q], la.solve_discrete_lyapunov(t, q))
    want = [scipy.linalg.solve_discrete_lyapunov(s, Q3) for s in stack]
    np.testing.assert_allclose(batched(stack, Q3), want, rtol=1e-9)
    verify_grad(la.solve_sylvester, [A, B, Q], rng=RNG)
    verify_grad(la.solve_discrete_lyapunov, [stable, Q3], rng=RNG)
    with pytest.raises(ValueError, match="method"):
        la.solve_discrete_lyapunov(a, q, method="schur")
    with pytest.raises(ValueError, match="must be matrices"):
        la.solve_sylvester(ot.dvector(), b, q)

"""``norm``, ``matrix_power``, ``pinv``, ``eigvalsh``, ``trace``, ``kron``,
``matrix_dot``, ``cho_solve`` (``oxtensor.tensor.linalg``): values against
NumPy/SciPy, dtypes, static shapes, ``infer_shape``, gradients, errors."""

import warnings

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
import scipy.linalg
from numpy.exceptions import AxisError
from oxtensor.gradient import verify_grad
from oxtensor.tensor import linalg as la

from tests.helpers import assert_matches, check_infer_shape

RNG = np.random.default_rng(11)
VECTOR_ORDS = [None, 2, 1, -1, np.inf, -np.inf, 0, 3, 0.5]
MATRIX_ORDS = [None, "fro", "nuc", 2, -2, 1, -1, np.inf, -np.inf]


def close(got, want, rtol=1e-10):
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-12)


@pytest.mark.parametrize("ord", VECTOR_ORDS)
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_vector_norms(ord, axis, keepdims):
    v = RNG.normal(size=(3, 4, 5))
    x = ot.dtensor3("x")
    got = oxtensor.function([x], la.norm(x, ord, axis, keepdims))(v)
    close(got, np.linalg.norm(v, ord, axis, keepdims))


@pytest.mark.parametrize("ord", MATRIX_ORDS)
@pytest.mark.parametrize("axis", [None, (0, 1), (1, 0)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_matrix_norms(ord, axis, keepdims):
    m = RNG.normal(size=(4, 5))[:, ::-1]
    close(
        la.norm(m, ord, axis, keepdims).eval(), np.linalg.norm(m, ord, axis, keepdims)
    )


@pytest.mark.parametrize("ord", [None, 1, -1, np.inf, -np.inf, "fro"])
def test_matrix_norms_of_stacks(ord):
    v = RNG.normal(size=(3, 4, 5))
    for axis in [(0, 2), (2, 1)]:
        close(la.norm(v, ord, axis).eval(), np.linalg.norm(v, ord, axis))


def test_norm_dtypes_edges_and_errors():
    assert la.norm(ot.imatrix()).dtype == "float64"
    assert la.norm(ot.fmatrix()).dtype == "float32"
    assert la.norm(ot.fmatrix(), keepdims=True).type.shape == (1, 1)
    v = RNG.normal(size=(2, 3, 4))
    # axis=None on a stack: each matrix over the last two axes, as PyTensor.
    close(la.norm(v).eval(), np.linalg.norm(v, axis=(1, 2)))
    close(la.norm(np.zeros((0, 3))).eval(), 0.0)
    i = np.array([3, 4], dtype="int32")
    close(la.norm(i).eval(), 5.0)
    with pytest.raises(ValueError, match="Invalid norm order for matrices: 3"):
        la.norm(ot.dmatrix(), ord=3)
    with pytest.raises(ValueError, match="Invalid norm order 'fro' for vectors"):
        la.norm(ot.dvector(), ord="fro")
    with pytest.raises(ValueError, match="found: core_dims = 0"):
        la.norm(ot.dscalar(), ord=2)
    with pytest.raises(TypeError, match="'axis' must be None, an integer"):
        la.norm(ot.dmatrix(), axis=ot.iscalar())
    with pytest.raises(AxisError, match="norm: axis 3 is out of bounds"):
        la.norm(ot.dmatrix(), axis=3)
    with pytest.raises(ValueError, match="two distinct axes"):
        la.norm(ot.dmatrix(), axis=(0, 0))


@pytest.mark.parametrize("ord", [None, "fro", "nuc", np.inf, -np.inf, 1, -1, 2, -2])
@pytest.mark.parametrize("keepdims", [False, True])
def test_norms_of_stacks_are_per_matrix(ord, keepdims):
    v = RNG.normal(size=(2, 3, 4, 5))
    want = np.linalg.norm(v, ord=ord, axis=(-2, -1), keepdims=keepdims)
    close(la.norm(v, ord=ord, keepdims=keepdims).eval(), want, rtol=1e-10)
    # The same with the matrix axes named, in either order.
    want = np.linalg.norm(v, ord=ord, axis=(2, 0))
    close(la.norm(v, ord=ord, axis=(2, 0)).eval(), want, rtol=1e-10)


def test_norm_grads_and_shapes():
    m = RNG.normal(size=(3, 4))
    for ord, axis in [(None, None), (1, 0), (3, -1), ("fro", None), ("nuc", None)]:
        verify_grad(lambda a, o=ord, ax=axis: la.norm(a, o, ax), [m], rng=RNG)
    verify_grad(lambda a: la.norm(a, 2), [m], rng=RNG)
    x = ot.dmatrix("x")
    outs = [la.norm(x, axis=1), la.norm(x, 1, keepdims=True), la.norm(x, 2)]
    check_infer_shape([x], outs, [m])


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, -1, -3])
def test_matrix_power(n):
    a = RNG.normal(size=(4, 4)) + 3 * np.eye(4)
    close(la.matrix_power(a, n).eval(), np.linalg.matrix_power(a, n), rtol=1e-9)
    s = RNG.normal(size=(2, 3, 3))
    if n >= 0:
        close(la.matrix_power(s, n).eval(), np.linalg.matrix_power(s, n))


def test_matrix_power_dtypes_grad_and_errors():
    i = np.arange(9, dtype="int32").reshape(3, 3)
    assert_matches(la.matrix_power(i, 3).eval(), np.linalg.matrix_power(i, 3))
    assert la.matrix_power(ot.tensor(shape=(3, 3)), 0).type.shape == (3, 3)
    verify_grad(lambda a: la.matrix_power(a, 3), [RNG.normal(size=(3, 3))], rng=RNG)
    x = ot.dmatrix("x")
    check_infer_shape([x], [la.matrix_power(x, 2), la.matrix_power(x, 0)], [np.eye(3)])
    with pytest.raises(TypeError, match=r"n must be an integer, got 2\.5"):
        la.matrix_power(x, 2.5)
    with pytest.raises(ValueError, match="M must be at least 2-d"):
        la.matrix_power(ot.dvector(), 2)


@pytest.mark.parametrize("shape", [(4, 6), (6, 4), (4, 4), (0, 3)])
def test_pinv_matches_numpy(shape):
    b = RNG.normal(size=shape)
    close(la.pinv(b).eval(), np.linalg.pinv(b), rtol=1e-8)


def test_pinv_rank_deficient_hermitian_dtypes_and_grad():
    ones = np.ones((3, 3))
    close(la.pinv(ones).eval(), np.linalg.pinv(ones))
    a = RNG.normal(size=(4, 4))
    h = a + a.T
    close(la.pinv(h, hermitian=True).eval(), np.linalg.pinv(h, hermitian=True), 1e-8)
    assert la.pinv(ot.fmatrix()).dtype == "float32"
    assert la.pinv(ot.imatrix()).dtype == "float64"
    f = a.astype("float32")
    np.testing.assert_allclose(
        la.pinv(f).eval(), np.linalg.pinv(f), rtol=1e-3, atol=1e-4
    )
    spd = a @ a.T + 4 * np.eye(4)
    verify_grad(lambda m: la.pinv(m, hermitian=True), [spd], rng=RNG)
    with pytest.raises(ValueError, match="pinv: x must be a matrix"):
        la.pinv(ot.dtensor3())


def test_eigvalsh_trace_matrix_dot():
    a = RNG.normal(size=(4, 4))
    h = a + a.T
    close(la.eigvalsh(h).eval(), np.linalg.eigvalsh(h))
    close(la.eigvalsh(np.triu(h), lower=False).eval(), np.linalg.eigvalsh(h, "U"))
    assert la.eigvalsh(ot.fmatrix()).dtype == "float32"
    verify_grad(la.eigvalsh, [h], rng=RNG)
    with pytest.raises(NotImplementedError, match="generalized"):
        la.eigvalsh(h, h)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        close(la.trace(a).eval(), np.trace(a))
    assert caught[0].category is FutureWarning
    close(la.matrix_dot(a, a, a[0]).eval(), a @ a @ a[0])
    verify_grad(lambda x, y: la.matrix_dot(x, y, x), [a, a.T], rng=RNG)
    with pytest.raises(TypeError, match="at least one argument"):
        la.matrix_dot()


KRON_SHAPES = [
    ((2, 3), (4,)),
    ((2, 3), (4, 5)),
    ((3,), (2,)),
    ((2, 1, 3), (3, 2)),
    ((0, 2), (3, 1)),
]


@pytest.mark.parametrize(("sa", "sb"), KRON_SHAPES)
def test_kron(sa, sb):
    a, b = RNG.normal(size=sa), RNG.normal(size=sb)
    assert_matches(la.kron(a, b).eval(), np.kron(a, b))
    static = la.kron(ot.tensor(shape=sa), ot.tensor(shape=sb))
    assert static.type.shape == np.kron(a, b).shape


def test_kron_dtypes_grad_and_shape():
    assert la.kron(ot.fmatrix(), ot.imatrix()).dtype == "float64"
    i = np.arange(4, dtype="int16").reshape(2, 2)
    assert_matches(la.kron(i, i).eval(), np.kron(i, i))
    verify_grad(la.kron, [RNG.normal(size=(2, 3)), RNG.normal(size=(3, 2))], rng=RNG)
    x, y = ot.dmatrix("x"), ot.dvector("y")
    check_infer_shape([x, y], [la.kron(x, y)], [np.ones((2, 3)), np.ones(4)])


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("b_shape", [(4,), (4, 2)])
def test_cho_solve(lower, b_shape):
    a = RNG.normal(size=(4, 4))
    spd = a @ a.T + 4 * np.eye(4)
    c = scipy.linalg.cholesky(spd, lower=lower)
    b = RNG.normal(size=b_shape)
    close(la.cho_solve((c, lower), b).eval(), scipy.linalg.cho_solve((c, lower), b))
    assert la.cho_solve((ot.fmatrix(), True), ot.fvector()).dtype == "float32"
    tril = np.linalg.cholesky(spd)
    verify_grad(lambda cc, bb: la.cho_solve((cc, True), bb), [tril, b], rng=RNG)


def test_infer_shape_of_the_others():
    x, b = ot.dmatrix("x"), ot.dvector("b")
    a = RNG.normal(size=(4, 4))
    spd = a @ a.T + 4 * np.eye(4)
    outs = [
        la.pinv(x),
        la.eigvalsh(x),
        la.cho_solve((x, True), b),
        la.matrix_dot(x, x, b),
    ]
    check_infer_shape([x, b], outs, [np.linalg.cholesky(spd), np.ones(4)])


@pytest.mark.parametrize("shape", [(4, 3), (3, 4)])
def test_pinv_gradient_through_the_thin_svd(shape):
    verify_grad(la.pinv, [RNG.normal(size=shape)], rng=RNG)

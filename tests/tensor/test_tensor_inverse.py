"""`linalg.tensorinv` and `tensorsolve` against NumPy's, their ops
(`TensorInv`, `TensorSolve`), shapes and gradient."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.tensor.linalg import TensorInv, TensorSolve, tensorinv, tensorsolve

RNG = np.random.default_rng(20261130)


@pytest.mark.parametrize(
    ("shape", "ind"), [((4, 6, 8, 3), 2), ((30, 2, 15), 1), ((2, 3, 6), 2), ((5, 5), 1)]
)
def test_tensorinv_matches_numpy(shape, ind):
    a = RNG.random(shape)
    x = ot.tensor(dtype="float64", shape=(None,) * len(shape))
    y = tensorinv(x, ind=ind)
    assert isinstance(y.owner.op, TensorInv)
    assert y.owner.op.ind == ind
    f = oxtensor.function([x], [y, y.shape])
    got, shape_of = f(a)
    expected = np.linalg.tensorinv(a, ind=ind)
    np.testing.assert_allclose(got, expected, rtol=1e-8, atol=1e-10)
    assert tuple(shape_of) == expected.shape


def test_tensorinv_static_shape_gradient_and_errors():
    assert tensorinv(ot.tensor(shape=(4, 6, 8, 3))).type.shape == (8, 3, 4, 6)
    # d/dA sum(inv(A)) = -inv(A).T @ ones @ inv(A).T, through the op's graph.
    m = RNG.random((4, 4)) + 4 * np.eye(4)
    a = ot.dmatrix("a")
    inv = np.linalg.inv(m)
    np.testing.assert_allclose(
        oxtensor.grad(tensorinv(a, ind=1).sum(), a).eval({a: m}),
        -inv.T @ np.ones((4, 4)) @ inv.T,
        rtol=1e-8,
    )
    with pytest.raises(ValueError, match="Invalid ind"):
        tensorinv(ot.tensor3(), ind=0)
    # The products of the two sides differ: no square matrix to invert.
    with pytest.raises((ValueError, np.linalg.LinAlgError)):
        tensorinv(a, ind=1).eval({a: np.ones((2, 3))})


def test_tensorsolve_matches_numpy():
    a = RNG.random((6, 4, 2, 3, 4))
    b = RNG.random((6, 4))
    y = tensorsolve(a, b)
    assert isinstance(y.owner.op, TensorSolve)
    np.testing.assert_allclose(y.eval(), np.linalg.tensorsolve(a, b), rtol=1e-8)
    a = RNG.random((3, 4, 2, 6))
    b = RNG.random((2, 6))
    np.testing.assert_allclose(
        tensorsolve(a, b, axes=(0, 1)).eval(),
        np.linalg.tensorsolve(a, b, axes=(0, 1)),
        rtol=1e-8,
    )

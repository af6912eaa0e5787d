"""``polygamma(n, x)``: an integer order and a real argument, against
SciPy; its gradient in ``x`` is the next order's value, in ``n`` undefined."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
import scipy.special as sp
from oxtensor.gradient import NullTypeGradError, verify_grad


def test_values_match_scipy_over_orders_and_signs():
    n = ot.lvector("n")
    x = ot.dvector("x")
    f = oxtensor.function([n, x], ot.polygamma(n, x))
    orders = np.array([0, 1, 2, 3, 4, 5, 1, 2, 3], "int64")
    points = np.array([0.5, 2.5, 0.3, 7.0, 30.0, 1e-2, -1.5, -0.3, -2.7])
    np.testing.assert_allclose(
        f(orders, points), sp.polygamma(orders, points), rtol=1e-12
    )


def test_poles_and_broadcasting():
    n = ot.lscalar("n")
    x = ot.dmatrix("x")
    f = oxtensor.function([n, x], ot.polygamma(n, x))
    xs = np.array([[0.0, -1.0], [3.5, 1.25]])
    # The poles 0 and -1 give SciPy's infinities.
    np.testing.assert_allclose(f(2, xs), sp.polygamma(2, xs), rtol=1e-12)
    np.testing.assert_allclose(f(1, xs), sp.polygamma(1, xs), rtol=1e-12)


def test_float32_argument_keeps_float32():
    n = ot.lscalar("n")
    x = ot.fvector("x")
    y = ot.polygamma(n, x)
    assert y.dtype == "float32"
    got = oxtensor.function([n, x], y)(1, np.array([0.5, 3.0], "float32"))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, sp.polygamma(1, [0.5, 3.0]), rtol=1e-6)
    assert ot.polygamma(n, ot.ivector()).dtype == "float64"


def test_refuses_a_float_order_and_complex_arguments():
    # PyTensor's messages say what is wrong.
    with pytest.raises(TypeError, match="order must be discrete"):
        ot.polygamma(ot.dscalar(), ot.dscalar())
    with pytest.raises(TypeError, match="complex argument not supported"):
        ot.polygamma(ot.lscalar(), ot.zscalar())


def test_gradient_in_x_against_finite_differences():
    rng = np.random.default_rng(0)
    for order in (0, 1, 2):
        verify_grad(
            lambda x, k=order: ot.polygamma(k, x), [rng.uniform(0.5, 3.0, 4)], rng=rng
        )


def test_gradient_in_the_order_is_undefined():
    n = ot.lscalar("n")
    with pytest.raises(NullTypeGradError):
        oxtensor.grad(ot.polygamma(n, 0.5), wrt=n)


def test_tri_gamma_gradient_is_polygamma_two():
    x = ot.dscalar("x")
    g = oxtensor.grad(ot.tri_gamma(x), x)
    np.testing.assert_allclose(g.eval({x: 0.9}), sp.polygamma(2, 0.9), rtol=1e-12)

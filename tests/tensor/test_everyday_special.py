"""``logit``, ``xlogy``, ``xlog1py``, ``betaln``, ``beta``, ``factorial``,
``poch`` (``oxtensor.tensor.special``): values against SciPy, including
zeros, infinities, NaNs and negative arguments; dtypes as PyTensor;
``infer_shape`` and gradients."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
import scipy.special as S
from oxtensor.gradient import verify_grad
from oxtensor.tensor import special

from tests.helpers import assert_matches, check_infer_shape

RNG = np.random.default_rng(3)


def run(out, *inputs_values):
    inputs = list(inputs_values[0::2])
    return oxtensor.function(inputs, out)(*inputs_values[1::2])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_logit(dtype):
    v = np.array([0.1, 0.5, 0.9, 0.0, 1.0, 1e-7], dtype=dtype)
    x = ot.tensor("x", dtype=dtype, shape=(None,))
    with np.errstate(divide="ignore"):
        assert_matches(run(special.logit(x), x, v), S.logit(v), scale=4)


def test_xlogy_and_xlog1py():
    x = np.array([0.0, 0.0, 0.0, 1.5, 2.0, -1.0, 0.0])
    y = np.array([0.0, np.nan, np.inf, 0.0, 3.0, 2.0, -1.0])
    with np.errstate(all="ignore"):
        assert_matches(special.xlogy(x, y).eval(), S.xlogy(x, y))
        assert_matches(special.xlog1py(x, y - 1).eval(), S.xlog1py(x, y - 1))
    a, b = ot.dmatrix("a"), ot.dvector("b")
    check_infer_shape([a, b], [special.xlogy(a, b)], [np.ones((2, 3)), np.ones(3)])
    verify_grad(special.xlogy, [RNG.random(4) + 0.1, RNG.random(4) + 0.5], rng=RNG)
    verify_grad(special.xlog1py, [RNG.random(4) + 0.1, RNG.random(4)], rng=RNG)


def test_beta_family():
    a = np.array([0.5, 100.0, 300.0, -0.5, 2.0, 1.0, 1e-3])
    b = np.array([0.25, 100.0, 300.0, 0.25, 3.0, 1.0, 2.5])
    # exp(betaln) with the gammas' signs: no overflow where Γ(300) does.
    assert_matches(special.beta(a, b).eval(), S.beta(a, b), scale=1e3)
    assert_matches(special.betaln(a, b).eval(), S.betaln(a, b), scale=1e3)
    n = np.arange(8, dtype="int8")
    assert_matches(special.factorial(n).eval(), S.factorial(n), "float32")
    z, m = np.array([3.0, -0.5, 1.5, 10.0]), np.array([2.0, 1.0, 2.5, 0.0])
    assert_matches(special.poch(z, m).eval(), S.poch(z, m), scale=1e3)


def test_special_dtypes():
    assert special.logit(ot.ivector()).dtype == "float64"
    assert special.xlogy(ot.ivector(), ot.ivector()).dtype == "float64"
    assert special.betaln(ot.fvector(), ot.fvector()).dtype == "float32"
    assert special.beta(ot.fvector(), ot.fvector()).dtype == "float32"
    assert special.factorial(ot.ivector()).dtype == "float64"
    assert special.poch(ot.dvector(), ot.ivector()).dtype == "float64"
    # int8 127 + 1 would wrap to Γ(-128) = NaN; the float cast comes first
    # and 127! overflows float32 to inf.
    assert special.factorial(np.int8(127)).eval() == np.inf


def test_special_grads_and_shapes():
    pos = [RNG.random(3) + 0.5, RNG.random(3) + 0.5]
    verify_grad(special.logit, [RNG.random(3) * 0.8 + 0.1], rng=RNG)
    verify_grad(special.betaln, pos, rng=RNG)
    verify_grad(special.beta, pos, rng=RNG)
    verify_grad(special.poch, pos, rng=RNG)
    verify_grad(special.factorial, [RNG.random(3) + 0.5], rng=RNG)
    x = ot.dmatrix("x")
    outs = [special.logit(x), special.beta(x, x), special.factorial(x)]
    check_infer_shape([x], outs, [RNG.random((2, 3))])

"""``ceil_intdiv``, ``smallest``, ``isnan_`` and ``cov`` against NumPy."""

import itertools

import numpy as np
import oxtensor.tensor as ot
import pytest
from oxtensor.tensor.math import ceil_intdiv, cov, isnan_, smallest

RNG = np.random.default_rng(11)


def test_ceil_intdiv_matches_numpy():
    a, b = ot.ivector("a"), ot.ivector("b")
    av = np.array([7, -7, 6, 5, 0], dtype="int32")
    bv = np.array([2, 2, 3, -2, 4], dtype="int32")
    got = ceil_intdiv(a, b).eval({a: av, b: bv})
    np.testing.assert_array_equal(got, av // bv + (av % bv != 0))
    assert got.dtype == np.int32


def test_smallest_and_isnan_():
    x, y, z = ot.dvectors("x", "y", "z")
    vals = [RNG.normal(size=4) for _ in range(3)]
    got = smallest(x, y, z).eval(dict(zip([x, y, z], vals, strict=True)))
    np.testing.assert_array_equal(got, np.minimum.reduce(vals))
    assert smallest(ot.constant(-4.0), ot.constant(-2.0)).eval() == -4.0
    with pytest.raises(TypeError, match="at least one argument"):
        smallest()
    v = np.array([1.0, np.nan])
    np.testing.assert_array_equal(isnan_(x).eval({x: v}), np.isnan(v))


CASES = list(itertools.product([True, False], [True, False], [None, 2]))


@pytest.mark.parametrize(("rowvar", "bias", "ddof"), CASES)
def test_cov_matches_numpy(rowvar, bias, ddof):
    x, y = ot.dmatrix("x"), ot.dmatrix("y")
    xv, yv = RNG.random((3, 5)), RNG.random((3, 5))
    got = cov(x, rowvar=rowvar, bias=bias, ddof=ddof).eval({x: xv})
    np.testing.assert_allclose(got, np.cov(xv, rowvar=rowvar, bias=bias, ddof=ddof))
    got = cov(x, y=y, rowvar=rowvar, bias=bias, ddof=ddof).eval({x: xv, y: yv})
    want = np.cov(xv, y=yv, rowvar=rowvar, bias=bias, ddof=ddof)
    np.testing.assert_allclose(got, want)


def test_cov_vector_and_weights():
    v = ot.dvector("v")
    vv = RNG.random(6)
    np.testing.assert_allclose(cov(v).eval({v: vv}), np.cov(vv))
    with pytest.raises(NotImplementedError, match="fweights"):
        cov(v, fweights=[1, 2])

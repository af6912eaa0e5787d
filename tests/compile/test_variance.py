"""`var` and `std` run their sum of squared deviations as one op (the
specialize rewrite `local_sum_sqr_deviations` makes `CentredSquares`, one
pass over memory with blocks combined by Chan's rule, on calls over 2048
elements). Answers must be NumPy's two-pass
answers for every axis choice and layout, stay accurate far from zero,
and graphs that only look like `var` must keep their own answers."""

import warnings

import numpy as np
import oxtensor.tensor as ot
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oxtensor import function

RNG = np.random.default_rng(11)


def tensor_like(v):
    return ot.tensor("x", dtype=str(v.dtype), shape=(None,) * v.ndim)


def numpy_var(value, **kwargs):
    """NumPy's var without its warnings for empty or too short lanes."""
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.var(value, **kwargs)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("axis", [0, 1, 2, (0, 1), (1, 2), (0, 2), None, -1])
@pytest.mark.parametrize("layout", ["C", "F", "sliced"])
def test_three_d_axes_and_layouts_match_numpy(dtype, axis, layout):
    base = (RNG.standard_normal((9, 40, 30)) * 2 + 3).astype(dtype)
    value = {
        "C": base,
        "F": np.asfortranarray(base),
        "sliced": np.repeat(base, 2, axis=2)[:, :, ::2],
    }[layout]
    x = tensor_like(value)
    f = function([x], [ot.var(x, axis=axis), ot.std(x, axis=axis, ddof=1)])
    var, std = f(value)
    wide = value.astype("float64")
    tol = 1e-12 if dtype == "float64" else 2e-6
    np.testing.assert_allclose(var, np.var(wide, axis=axis), rtol=tol)
    np.testing.assert_allclose(std, np.std(wide, axis=axis, ddof=1), rtol=tol)
    assert var.dtype == dtype
    assert var.shape == np.var(wide, axis=axis).shape


@pytest.mark.parametrize("axis", [0, 1, None])
def test_values_far_from_zero_keep_their_digits(axis):
    # A spread of 1 around 1e9: `sum(x**2) - sum(x)**2 / n` would lose
    # every digit; the blocks are shifted by a value of their own lane.
    # The reference is the two-pass formula in extended precision: NumPy's
    # own float64 sum down columns is itself off by ~3e-10 here.
    value = 1e9 + RNG.random((3000, 700))
    x = ot.dmatrix("x")
    got = function([x], ot.var(x, axis=axis))(value)
    wide = value.astype(np.longdouble)
    centred = wide - wide.mean(axis=axis, keepdims=True)
    want = (centred**2).mean(axis=axis).astype("float64")
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(got, np.var(value, axis=axis), rtol=1e-9)


def test_keepdims_ddof_nan_and_infinity():
    value = RNG.standard_normal((500, 60))
    value[7, 3] = np.nan
    value[9, 5] = np.inf
    x = ot.dmatrix("x")
    outs = [
        ot.var(x, axis=0, keepdims=True, ddof=2),
        ot.std(x, axis=1, keepdims=True),
    ]
    got = function([x], outs)(value)
    with np.errstate(invalid="ignore"):
        want = [
            np.var(value, axis=0, keepdims=True, ddof=2),
            np.std(value, axis=1, keepdims=True),
        ]
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-12, equal_nan=True)


def test_a_mean_also_returned_and_a_divisor_that_is_not_the_count():
    value = RNG.standard_normal((400, 50)) + 4.0
    x = ot.dmatrix("x")
    mean = x.mean(axis=0)
    centred = ot.sqr(x - mean).sum(axis=0)
    got_mean, got_var = function([x], [mean, centred / 400])(value)
    np.testing.assert_allclose(got_mean, value.mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(got_var, value.var(axis=0), rtol=1e-12)
    # Looks like var's graph, but the mean divides by 7.
    odd = ot.sqr(x - x.sum(axis=0) / 7.0).sum(axis=0)
    want = ((value - value.sum(axis=0) / 7.0) ** 2).sum(axis=0)
    np.testing.assert_allclose(function([x], odd)(value), want, rtol=1e-12)


def test_empty_lanes_and_empty_outputs():
    x = ot.dmatrix("x")
    f = function([x], [ot.var(x, axis=0), ot.var(x, axis=1)])
    for value in (np.zeros((0, 3000)), np.zeros((3000, 0))):
        for g, axis in zip(f(value), (0, 1), strict=True):
            w = numpy_var(value, axis=axis)
            assert g.shape == w.shape
            np.testing.assert_array_equal(np.isnan(g), np.isnan(w))


@settings(max_examples=30, deadline=None)
@given(
    shape=st.lists(st.integers(1, 70), min_size=1, max_size=3),
    data=st.data(),
    ddof=st.integers(0, 1),
)
def test_random_shapes_and_axes_match_numpy(shape, data, ddof):
    value = RNG.standard_normal(shape) * 5 - 2
    nd = len(shape)
    axes = data.draw(st.lists(st.integers(0, nd - 1), unique=True, max_size=nd))
    axis = tuple(sorted(axes)) if axes else None
    x = tensor_like(value)
    got = function([x], ot.var(x, axis=axis, ddof=ddof))(value)
    want = numpy_var(value, axis=axis, ddof=ddof)
    np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-12, equal_nan=True)

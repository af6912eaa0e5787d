"""Reductions of arrays large enough (2^20 elements and more) for the paths
that read lanes or rows without a cast copy (`kernels/reduce/mapped.rs`:
float32 sums into float64, `all`/`any` of non-bools), float32 `argmax`
through the AVX2 pass, and `logsumexp` of one long lane in pieces.
Answers must be NumPy's (float32 sums: NumPy's float64 sum of the float32
values, PyTensor's accumulator)."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest

RNG = np.random.default_rng(21)


def compiled(value, build):
    x = ot.tensor("x", dtype=str(value.dtype), shape=(None,) * value.ndim)
    return oxtensor.function([x], build(x))


@pytest.mark.parametrize("axis", [0, 1, None, (0, 1), (1, 2), 2])
@pytest.mark.parametrize("layout", ["C", "F"])
def test_float32_sums_accumulate_in_float64(axis, layout):
    base = RNG.standard_normal((8, 400, 350)).astype("float32") * 1000
    value = base if layout == "C" else np.asfortranarray(base)
    got = compiled(value, lambda x: x.sum(axis=axis))(value)
    want = value.astype("float64").sum(axis=axis).astype("float32")
    assert got.dtype == np.float32
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-6)
    mean = compiled(value, lambda x: x.mean(axis=axis))(value)
    np.testing.assert_allclose(mean, value.astype("float64").mean(axis=axis), rtol=1e-5)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32"])
@pytest.mark.parametrize("axis", [0, 1, None])
def test_all_and_any_read_non_bools_as_not_zero(dtype, axis):
    value = np.ones((1200, 1000), dtype=dtype)
    value[5, 7] = 0
    if dtype.startswith("float"):
        value[9, 8] = np.nan  # NaN is true
        value[11, 9] = -0.0  # -0.0 is false
    f = compiled(value, lambda x: [ot.all(x, axis=axis), ot.any(x, axis=axis)])
    got_all, got_any = f(value)
    np.testing.assert_array_equal(got_all, np.all(value, axis=axis))
    np.testing.assert_array_equal(got_any, np.any(value, axis=axis))
    zeros = np.zeros_like(value)
    zeros[-1, -1] = 3
    np.testing.assert_array_equal(f(zeros)[1], np.any(zeros, axis=axis))


@pytest.mark.parametrize("axis", [0, 1, None])
@pytest.mark.parametrize("fn", ["argmax", "argmin"])
def test_float32_argmax_first_extreme_and_first_nan(axis, fn):
    value = RNG.integers(-50, 50, (1100, 1000)).astype("float32")
    f = compiled(value, lambda x: getattr(ot, fn)(x, axis=axis))
    np.testing.assert_array_equal(f(value), getattr(value, fn)(axis=axis))
    value[600, 3] = np.nan
    value[700, 3] = np.nan
    value[2, 999] = np.nan
    np.testing.assert_array_equal(f(value), getattr(value, fn)(axis=axis))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_logsumexp_of_one_long_lane(dtype):
    value = (RNG.standard_normal((700, 900)) * 30).astype(dtype)
    f = compiled(value, lambda x: ot.logsumexp(x))
    wide = value.astype("float64")
    m = wide.max()
    want = np.log(np.exp(wide - m).sum()) + m
    got = f(value)
    assert got.dtype == dtype
    np.testing.assert_allclose(got, want, rtol=1e-12 if dtype == "float64" else 1e-6)
    value[123, 456] = np.inf
    assert f(value) == np.inf
    value[321, 654] = np.nan
    assert np.isnan(f(value))
    assert f(np.full((700, 900), -np.inf, dtype=dtype)) == -np.inf

"""``argmax``/``argmin`` over the leading axes of a C-contiguous array run
row by row over strips of columns (no transposing copy). NumPy's answers:
first extreme in row order, first NaN."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

RNG = np.random.default_rng(11)


def compiled(fn, value, axis):
    x = ot.tensor("x", dtype=str(value.dtype), shape=(None,) * value.ndim)
    return oxtensor.function([x], fn(x, axis=axis))


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "uint8", "bool"])
@pytest.mark.parametrize("shape", [(2, 16), (300, 1100), (5, 3, 700)])
@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_leading_axes_match_numpy(dtype, shape, name):
    value = RNG.integers(0, 9, shape).astype(dtype)
    axes = [0] if len(shape) == 2 else [0, (0, 1)]
    for axis in axes:
        got = compiled(getattr(ot, name), value, axis)(value)
        if isinstance(axis, tuple):
            flat = value.reshape(-1, value.shape[-1])
            want = getattr(flat, name)(axis=0)
        else:
            want = getattr(value, name)(axis=axis)
        np.testing.assert_array_equal(got, want)


def test_nan_columns_infinities_and_ties():
    v = RNG.standard_normal((400, 2100))
    v[17, 5] = np.nan
    v[300, 5] = np.nan
    v[399, 2099] = np.nan
    v[:, 7] = 1.0
    v[250, 9] = np.inf
    v[251, 9] = -np.inf
    for name in ["argmax", "argmin"]:
        got = compiled(getattr(ot, name), v, 0)(v)
        np.testing.assert_array_equal(got, getattr(v, name)(axis=0))
    assert compiled(ot.argmax, v, 0)(v)[5] == 17


FUNCTIONS = {}


def column_function(name, dtype):
    """One compiled function per (name, dtype), reused across examples."""
    key = (name, dtype)
    if key not in FUNCTIONS:
        x = ot.matrix("x", dtype=dtype)
        FUNCTIONS[key] = oxtensor.function([x], getattr(ot, name)(x, axis=0))
    return FUNCTIONS[key]


@settings(max_examples=60, deadline=None)
@given(
    rows=st.integers(2, 160),
    cols=st.integers(16, 90),
    dtype=st.sampled_from(["float64", "float32", "int64", "int16"]),
    seed=st.integers(0, 2**32 - 1),
    specials=st.integers(0, 6),
)
def test_random_columns_with_ties_and_nans(rows, cols, dtype, seed, specials):
    """Few distinct values (ties everywhere) past the rows folded without
    the test, with NaNs and infinities scattered in float columns."""
    rng = np.random.default_rng(seed)
    v = rng.integers(-3, 4, (rows, cols)).astype(dtype)
    if dtype.startswith("float"):
        for value in [np.nan, np.inf, -np.inf][: specials % 4]:
            for _ in range(specials):
                v[rng.integers(rows), rng.integers(cols)] = value
    for name in ["argmax", "argmin"]:
        got = column_function(name, dtype)(v)
        np.testing.assert_array_equal(got, getattr(v, name)(axis=0))

"""`var` and `std` compiled (over 2048 elements their squared deviations
run as one `CentredSquares` op, a specialize rewrite; `sum(sqr(a - b))` groups of
other origins take the fused summed group, `fusion_sqdiff.rs`): against
NumPy for every axis choice, ddof, keepdims, dtype and layout, below and
above 2048 elements, and against the unfused run (profiling links without
fusion): bit-identical for calls of at most 2048 elements."""

import numpy as np
import oxtensor.tensor as ot
import pytest
from oxtensor import function

# Below a block, one block with a short tail, rows longer than a block,
# and many blocks in parallel ranges.
SHAPES = [(7, 9), (45, 45), (3, 5000), (700, 900), (1024, 513)]
AXES = [0, 1, None, (0, 1), -1]


def layouts(v):
    """`v` as given, transposed (a copy made F-ordered, same values) and as
    every other column of a wider array."""
    wide = np.repeat(v, 2, axis=1)
    wide[:, 1::2] = -1.0
    return {
        "c": v,
        "f": np.asfortranarray(v),
        "strided": wide[:, ::2],
    }


def sample(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * 3.0 + 5.0).astype(dtype)


def tolerance(dtype):
    return 1e-12 if dtype == "float64" else 2e-5


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("axis", AXES)
def test_var_std_match_numpy(dtype, shape, axis):
    x = ot.matrix("x", dtype=dtype)
    exprs = [
        ot.var(x, axis=axis),
        ot.std(x, axis=axis),
        ot.var(x, axis=axis, ddof=1, keepdims=True),
        ot.std(x, axis=axis, ddof=1),
    ]
    fused = function([x], exprs)
    plain = function([x], exprs, profile=True)
    tol = tolerance(dtype)
    for name, v in layouts(sample(shape, dtype, sum(shape))).items():
        got = fused(v)
        wide = v.astype("float64")
        want = [
            np.var(wide, axis=axis),
            np.std(wide, axis=axis),
            np.var(wide, axis=axis, ddof=1, keepdims=True),
            np.std(wide, axis=axis, ddof=1),
        ]
        for g, w, u in zip(got, want, plain(v), strict=True):
            case = f"{dtype} {shape} axis={axis} {name}"
            assert g.dtype == dtype, case
            assert g.shape == w.shape, case
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol, err_msg=case)
            if np.prod(shape) <= 2048:
                # Exact by construction: up to one block the values are
                # materialised and reduced by the unfused run's kernel, on
                # one thread (fusion_sum.rs).
                np.testing.assert_array_equal(g, u, err_msg=case)
            else:
                np.testing.assert_allclose(g, u, rtol=tol, atol=tol, err_msg=case)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("axis", [0, 2, (0, 2), (1, 2), None])
def test_three_d_var_matches_numpy(dtype, axis):
    x = ot.tensor3("x", dtype=dtype)
    f = function([x], ot.var(x, axis=axis))
    v = sample((6, 50, 70), dtype, 1)
    for w in (v, v.transpose(2, 0, 1).copy().transpose(1, 2, 0), v[:, ::2]):
        want = np.var(w.astype("float64"), axis=axis)
        got = f(w)
        assert got.dtype == dtype
        tol = tolerance(dtype)
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", [(9, 11), (900, 700)])
def test_nan_and_inf_propagate(dtype, shape):
    x = ot.matrix("x", dtype=dtype)
    f = function([x], [ot.var(x, axis=0), ot.var(x, axis=1), ot.std(x)])
    v = sample(shape, dtype, 2)
    v[3, 4] = np.nan
    v[5, 6] = np.inf
    with np.errstate(invalid="ignore"):
        want = [np.var(v, axis=0), np.var(v, axis=1), np.std(v)]
    for got, w in zip(f(v), want, strict=True):
        np.testing.assert_array_equal(np.isnan(got), np.isnan(w))
    a, b, c = f(v)
    assert np.isnan(a[[4, 6]]).all()
    assert np.isnan(b[[3, 5]]).all()
    assert np.isnan(c)


def test_empty_and_single_rows():
    x = ot.dmatrix("x")
    f = function([x], ot.var(x, axis=1))
    assert f(np.zeros((0, 5))).shape == (0,)
    np.testing.assert_array_equal(f(np.full((3, 1), 2.5)), np.zeros(3))
    v = sample((1, 4099), "float64", 3)
    np.testing.assert_allclose(f(v), v.var(axis=1), rtol=1e-12)

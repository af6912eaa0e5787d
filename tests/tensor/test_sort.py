"""Sorting (``sort``, ``argsort``) and running ops (``cumsum``, ``cumprod``):
values against NumPy over dtypes, axes (``None``, negative), 0-d/empty and
strided inputs; types, ``str`` forms, errors and gradients."""

import pickle

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from hypothesis import given
from hypothesis import strategies as st
from oxtensor.gradient import grad, verify_grad
from oxtensor.tensor.extra_ops import CumOp, cumprod, cumsum, diff
from oxtensor.tensor.sort import ArgSortOp, SortOp, argsort, sort

from tests.helpers import (
    DTYPES,
    REAL_DTYPES,
    assert_matches,
    check_infer_shape,
    run1,
)

RNG = np.random.default_rng(0)


def sample(dtype, shape):
    if dtype == "bool":
        return RNG.random(shape) > 0.5
    if dtype.startswith(("float", "complex")):
        return (RNG.normal(size=shape) * 3).astype(dtype)
    return RNG.integers(0, 50, size=shape).astype(dtype)


@pytest.mark.parametrize("dtype", REAL_DTYPES)
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_sort_argsort_values(dtype, axis):
    x = ot.matrix("x", dtype=dtype)
    v = sample(dtype, (5, 7))
    assert_matches(run1(sort(x, axis=axis), x, v), np.sort(v, axis=axis))
    idx = run1(argsort(x, axis=axis), x, v)
    assert idx.dtype == "int64"
    flat = v.reshape(-1) if axis is None else v
    ax = 0 if axis is None else axis
    # Ties may be ordered differently from NumPy's quicksort: compare the
    # values the indices pick, and the indices against a stable sort.
    assert_matches(np.take_along_axis(flat, idx, axis=ax), np.sort(flat, axis=ax))
    assert_matches(idx, np.argsort(flat, axis=ax, kind="stable"))


def test_sort_nan_strided_edges():
    x = ot.dmatrix("x")
    v = np.array([[3.0, np.nan, 1.0, -np.inf], [np.nan, 2.0, np.nan, 0.0]])
    assert_matches(run1(sort(x), x, v), np.sort(v))
    assert_matches(run1(argsort(x), x, v), np.argsort(v, kind="stable"))
    w = RNG.normal(size=(6, 8))
    for view in (w.T, w[::2, ::-3]):
        assert_matches(run1(sort(x, axis=0), x, view), np.sort(view, axis=0))
    assert run1(sort(x), x, np.zeros((0, 3))).shape == (0, 3)
    assert run1(sort(x, axis=None), x, np.zeros((2, 0))).shape == (0,)


# Past the radix threshold (256 elements), the vector sort's register block
# (128 or 256 keys) and its split across threads (65536 keys).
@pytest.mark.parametrize("n", [300, 5000, 70_000])
@pytest.mark.parametrize("dtype", REAL_DTYPES)
def test_sort_argsort_long_lanes(dtype, n):
    v = sample(dtype, (n,))
    if dtype.startswith("float"):
        specials = [np.nan, -np.nan, 0.0, -0.0, np.inf, -np.inf]
        v[RNG.integers(0, n, size=n // 10)] = RNG.choice(specials, size=n // 10)
        v[RNG.integers(0, n, size=n // 10)] = np.round(v[: n // 10])
    x = ot.vector("x", dtype=dtype)
    got = run1(sort(x), x, v)
    # NumPy 2.4's default float16 sort misorders some -inf (its vector
    # sort); the stable kind is a correct reference.
    np.testing.assert_array_equal(got, np.sort(v, kind="stable"))
    if dtype.startswith("float"):
        # -0.0 sorts with 0.0 (either order), but stays -0.0.
        assert np.signbit(got).sum() == np.signbit(v).sum()
    np.testing.assert_array_equal(run1(argsort(x), x, v), np.argsort(v, kind="stable"))


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "uint16"])
def test_sort_argsort_long_matrix_axes(dtype):
    x = ot.matrix("x", dtype=dtype)
    v = sample(dtype, (40, 700))
    for view in (v, v.T, v[::3, ::-2]):
        for axis in (0, 1, -1, None):
            want = np.sort(view, axis=axis)
            np.testing.assert_array_equal(run1(sort(x, axis=axis), x, view), want)
            got = run1(argsort(x, axis=axis), x, view)
            stable = np.argsort(view, axis=axis, kind="stable")
            np.testing.assert_array_equal(got, stable)


def test_sort_kind_and_stable():
    x = ot.dvector("x")
    assert str(sort(x, stable=True).owner.op) == "SortOp{kind='stable'}"
    assert str(argsort(x, kind="heapsort").owner.op) == "ArgSortOp{kind='heapsort'}"
    assert str(argsort(x, stable=False).owner.op) == "ArgSortOp{kind='quicksort'}"
    with pytest.raises(ValueError, match="at the same time"):
        sort(x, kind="stable", stable=True)
    with pytest.raises(ValueError, match="kind must be one of"):
        argsort(x, kind="bogus")


def test_sort_types_str_errors():
    x = ot.dmatrix("x")
    out = sort(x)
    assert out.type == x.type
    assert argsort(x).dtype == "int64"
    assert str(out.owner.op) == "SortOp{kind='quicksort'}"
    assert str(argsort(x, kind="mergesort").owner.op) == "ArgSortOp{kind='mergesort'}"
    assert sort(x, axis=None).ndim == 1
    assert SortOp("quicksort") == out.owner.op
    assert SortOp.__props__ == ("kind",)
    assert pickle.loads(pickle.dumps(ArgSortOp("heapsort"))) == ArgSortOp("heapsort")
    with pytest.raises(ValueError, match="out of bounds"):
        sort(x, axis=2)
    with pytest.raises(TypeError, match="axis"):
        argsort(x, axis=1.0)
    with pytest.raises(ValueError, match="order"):
        sort(x, order="f")
    with pytest.raises(TypeError):
        sort(ot.zvector())


def test_sort_and_argsort_gradients():
    x = ot.dvector("x")
    g = grad(argsort(x).astype("float64").sum() + x.sum(), x)
    assert_matches(run1(g, x, np.array([3.0, 1.0, 2.0])), np.ones(3))
    m = ot.dmatrix("m")
    w = ot.dmatrix("w")
    v, wv = RNG.normal(size=(3, 4)), RNG.normal(size=(3, 4))
    for axis in (0, 1, -1):
        gx = oxtensor.function([m, w], grad((sort(m, axis=axis) * w).sum(), m))
        want = np.zeros_like(v)
        np.put_along_axis(want, np.argsort(v, axis=axis), wv, axis=axis)
        assert_matches(gx(v, wv), want)
    verify_grad(lambda a: sort(a, axis=None), [v], rng=np.random.default_rng(3))
    verify_grad(lambda a: sort(a, axis=0), [v], rng=np.random.default_rng(4))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_cumsum_cumprod_values(dtype, axis):
    x = ot.matrix("x", dtype=dtype)
    v = sample(dtype, (4, 5))
    if not dtype.startswith(("float", "complex", "bool")):
        v = v % 4
    if dtype == "float16":
        v = (v / 3).astype(dtype)
    for f, ref in ((cumsum, np.cumsum), (cumprod, np.cumprod)):
        out = f(x, axis=axis)
        assert out.dtype == dtype
        want = ref(v, axis=axis)
        scale = 50 if dtype == "float16" else 1
        assert_matches(run1(out, x, v), want.astype(dtype), dtype, scale=scale)


def test_cumulative_edges_str_errors():
    x = ot.dmatrix("x")
    w = RNG.normal(size=(5, 6))
    for view in (w.T, w[::-1, ::2]):
        assert_matches(run1(cumsum(x, axis=0), x, view), np.cumsum(view, axis=0))
    assert run1(cumsum(x, axis=1), x, np.zeros((3, 0))).shape == (3, 0)
    i8 = ot.vector("i", dtype="int8")
    got = run1(cumsum(i8), i8, np.array([100, 100], dtype="int8"))
    assert_matches(got, np.array([100, -56], dtype="int8"))
    assert str(cumsum(x, axis=-1).owner.op) == "Cumsum{axis=1}"
    assert str(cumprod(x, axis=0).owner.op) == "Cumprod{axis=0}"
    assert str(cumsum(x).owner.op) == "Cumsum{axis=0}"
    assert cumsum(x).ndim == 1
    op = CumOp(1, "mul")
    assert op == cumprod(x, axis=1).owner.op
    assert CumOp.__props__ == ("axis", "mode")
    assert op.axis == 1
    assert op.mode == "mul"
    assert pickle.loads(pickle.dumps(op)) == op
    with pytest.raises(ValueError, match="out of bounds"):
        cumsum(x, axis=2)
    with pytest.raises(TypeError, match="axis"):
        cumprod(x, axis=0.5)
    with pytest.raises(TypeError, match="integer"):
        CumOp(None)
    with pytest.raises(ValueError, match="mode"):
        CumOp(0, "max")


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_cumulative_gradients(axis):
    v = RNG.normal(size=(3, 4))
    verify_grad(lambda a: cumsum(a, axis=axis), [v], rng=np.random.default_rng(1))
    verify_grad(lambda a: cumprod(a, axis=axis), [v], rng=np.random.default_rng(2))


@given(
    st.sampled_from(["int32", "float64", "uint8", "float32"]),
    st.integers(0, 4),
    st.integers(1, 6),
    st.sampled_from([None, 0, 1, -1, -2]),
)
def test_sort_cumsum_hypothesis(dtype, rows, cols, axis):
    x = ot.matrix("x", dtype=dtype)
    v = sample(dtype, (rows, cols))
    assert_matches(run1(sort(x, axis=axis), x, v), np.sort(v, axis=axis))
    assert_matches(
        run1(cumsum(x, axis=axis), x, v), np.cumsum(v, axis=axis, dtype=dtype)
    )


def test_infer_shape():
    x = ot.tensor3("x")
    v = RNG.normal(size=(2, 3, 4))
    check_infer_shape([x], [sort(x), argsort(x, axis=0)], [v], SortOp)
    check_infer_shape([x], [argsort(x, axis=1)], [v], ArgSortOp)
    check_infer_shape([x], [cumsum(x, axis=1), cumprod(x, axis=-1)], [v], CumOp)
    m = ot.dmatrix("m")
    g = grad((sort(m, axis=1) * m).sum(), m)
    check_infer_shape([m], [g], [RNG.normal(size=(3, 5))])


@pytest.mark.parametrize(("n", "axis"), [(1, -1), (2, 0), (1, 1), (3, -1)])
def test_diff(n, axis):
    x = ot.dmatrix("x")
    v = RNG.normal(size=(5, 6))
    assert_matches(run1(diff(x, n=n, axis=axis), x, v), np.diff(v, n=n, axis=axis))
    i = ot.matrix("i", dtype="int32")
    iv = RNG.integers(-9, 9, size=(4, 5)).astype("int32")
    assert_matches(run1(diff(i, n=n, axis=axis), i, iv), np.diff(iv, n=n, axis=axis))
    verify_grad(lambda a: diff(a, n=n, axis=axis), [v], rng=np.random.default_rng(5))
    with pytest.raises(ValueError, match="out of bounds"):
        diff(x, axis=2)

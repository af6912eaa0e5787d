"""Reductions beyond ``CAReduce``: ``argmax``/``argmin`` (PyTensor's
``Argmax`` op), ``max_and_argmax``, ``var``/``std`` with ``ddof`` and
``corrected``, ``ptp``, and ``acc_dtype`` of ``sum``/``prod``: values against
NumPy over dtypes, axes, keepdims, 0-d/empty/strided inputs; errors."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from hypothesis import given
from hypothesis import strategies as st
from oxtensor.gradient import grad, verify_grad
from oxtensor.tensor.math import Argmax

from tests.helpers import (
    REAL_DTYPES,
    assert_matches,
    check_infer_shape,
    run1,
)

RNG = np.random.default_rng(0)


def sample(dtype, shape):
    if dtype == "bool":
        return RNG.random(shape) > 0.5
    if dtype.startswith("float"):
        return RNG.normal(size=shape).astype(dtype)
    info = np.iinfo(dtype)
    return RNG.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)


@pytest.mark.parametrize("dtype", REAL_DTYPES)
@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2), (2, 0)])
def test_argmax_argmin_over_dtypes_and_axes(dtype, axis):
    x = ot.tensor3("x", dtype=dtype)
    v = sample(dtype, (3, 4, 5))
    np_axis = axis
    if isinstance(axis, tuple):
        # NumPy takes one axis: move the reduced ones last (sorted), flatten.
        kept = [d for d in range(3) if d not in {a % 3 for a in axis}]
        moved = np.transpose(v, kept + sorted(a % 3 for a in axis))
        flat = moved.reshape((*moved.shape[: len(kept)], -1))
        want_max, want_min = flat.argmax(axis=-1), flat.argmin(axis=-1)
    else:
        want_max, want_min = v.argmax(axis=np_axis), v.argmin(axis=np_axis)
    assert_matches(run1(ot.argmax(x, axis=axis), x, v), want_max)
    assert_matches(run1(ot.argmin(x, axis=axis), x, v), want_min)


@pytest.mark.parametrize("axis", [None, 1, -1])
def test_argmax_keepdims_and_max_and_argmax(axis):
    x = ot.dmatrix("x")
    v = RNG.normal(size=(4, 6))
    assert_matches(
        run1(ot.argmax(x, axis=axis, keepdims=True), x, v),
        np.argmax(v, axis=axis, keepdims=True),
    )
    m, a = ot.max_and_argmax(x, axis=axis)
    got = oxtensor.function([x], [m, a])(v)
    assert_matches(got[0], v.max(axis=axis))
    assert_matches(got[1], v.argmax(axis=axis))


def test_argmax_nan_ties_strided_and_edges():
    x = ot.dvector("x")
    assert run1(ot.argmax(x), x, np.array([1.0, np.nan, 3.0, np.nan])) == 1
    assert run1(ot.argmin(x), x, np.array([1.0, np.nan, -3.0])) == 1
    assert run1(ot.argmax(x), x, np.array([2.0, 5.0, 5.0])) == 1
    m = ot.dmatrix("m")
    v = RNG.normal(size=(5, 7))
    for view in (v.T, v[::2, ::-2]):
        assert_matches(run1(ot.argmax(m, axis=0), m, view), view.argmax(axis=0))
    i = ot.vector("i", dtype="int8")
    assert run1(ot.argmin(i), i, np.array([3, -128, 127], dtype="int8")) == 1
    s = ot.dscalar("s")
    assert run1(ot.argmax(s), s, np.array(2.0)) == 0
    with pytest.raises(ValueError, match="empty sequence"):
        run1(ot.argmax(x), x, np.zeros(0))


def test_argmax_types_str_errors():
    x = ot.tensor3("x")
    out = ot.argmax(x, axis=-1)
    assert out.type == ot.lmatrix().type
    assert str(out.owner.op) == "Argmax{axis=(2,)}"
    assert str(ot.argmax(x, axis=(2, 0)).owner.op) == "Argmax{axis=(0, 2)}"
    assert str(ot.argmax(x).owner.op) == "Argmax{axis=None}"
    assert out.name == "argmax"
    assert Argmax(axis=[2]) == out.owner.op
    assert Argmax.__props__ == ("axis",)
    with pytest.raises(ValueError, match="out of bounds"):
        ot.argmax(x, axis=3)
    with pytest.raises(TypeError, match="axis"):
        ot.argmax(x, axis=1.0)
    with pytest.raises(TypeError, match="Argmax"):
        ot.argmax(ot.zvector())
    g = grad(ot.argmax(x).astype("float64") + x.sum(), x)
    v = RNG.normal(size=(2, 2, 2))
    assert_matches(run1(g, x, v), np.ones_like(v))


@pytest.mark.parametrize("dtype", ["int8", "int32", "float32", "float64"])
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 1)])
@pytest.mark.parametrize("ddof", [0, 1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_var_std(dtype, axis, ddof, keepdims):
    x = ot.matrix("x", dtype=dtype)
    v = (RNG.normal(size=(4, 5)) * 10).astype(dtype)
    want_dtype = "float32" if dtype == "float32" else "float64"
    for f, ref in ((ot.var, np.var), (ot.std, np.std)):
        out = f(x, axis=axis, ddof=ddof, keepdims=keepdims)
        assert out.dtype == want_dtype
        want = ref(v.astype("float64"), axis=axis, ddof=ddof, keepdims=keepdims)
        assert_matches(run1(out, x, v), want, want_dtype, scale=10)


def test_var_corrected_and_names():
    x = ot.dmatrix("x")
    v = RNG.normal(size=(6, 3)) + 1e6
    out = ot.var(x, axis=0, corrected=True)
    np.testing.assert_allclose(run1(out, x, v), v.var(axis=0), rtol=1e-9)
    assert out.name == "var"
    assert ot.std(x).name == "std"
    verify_grad(lambda a: ot.var(a, axis=1), [RNG.normal(size=(3, 4))])
    verify_grad(lambda a: ot.std(a, axis=0, ddof=1), [RNG.normal(size=(3, 4))])


def test_ptp():
    x = ot.matrix("x", dtype="int16")
    v = sample("int16", (3, 4)) // 4
    assert_matches(run1(ot.ptp(x, axis=1), x, v), np.ptp(v, axis=1))
    assert_matches(run1(ot.ptp(x, keepdims=True), x, v), np.ptp(v, keepdims=True))


def test_sum_prod_acc_dtype():
    b = ot.bvector("b")
    s = ot.sum(b, acc_dtype="int8")
    assert s.owner.op.acc_dtype == "int8"
    assert s.dtype == "int64"
    v = np.array([100, 100, -50], dtype="int8")
    # The int8 accumulator wraps, as it does in PyTensor's C code.
    assert run1(s, b, v) == np.int64(np.int8(100 + 100 - 50 - 256))
    assert ot.sum(b, acc_dtype="float64").owner.op.acc_dtype == "float64"
    assert ot.prod(b, acc_dtype="int16").owner.op.acc_dtype == "int16"
    assert b.sum(acc_dtype="int32").owner.op.acc_dtype == "int32"
    with pytest.raises(TypeError, match="precision would be lost"):
        ot.sum(ot.ivector(), acc_dtype="int8")
    assert ot.sum(ot.ivector(), dtype="int8").dtype == "int8"


@given(
    st.sampled_from(["int16", "float64", "uint8"]),
    st.integers(1, 4),
    st.integers(1, 4),
    st.sampled_from([None, 0, 1, -1, -2]),
)
def test_argmax_hypothesis(dtype, rows, cols, axis):
    x = ot.matrix("x", dtype=dtype)
    v = sample(dtype, (rows, cols))
    assert_matches(run1(ot.argmax(x, axis=axis), x, v), v.argmax(axis=axis))
    assert_matches(run1(ot.argmin(x, axis=axis), x, v), v.argmin(axis=axis))


def test_infer_shape():
    x = ot.tensor3("x")
    v = RNG.normal(size=(2, 3, 4))
    outs = [
        ot.argmax(x, axis=1),
        ot.argmin(x),
        ot.argmax(x, axis=(0, 2), keepdims=True),
    ]
    check_infer_shape([x], outs, [v], Argmax)
    check_infer_shape([x], [ot.var(x, axis=1), ot.std(x, keepdims=True)], [v])


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32"])
def test_argmax_long_lanes_with_nan_ties_and_infinities(dtype):
    # Lanes longer than the kernel's blocks of 16, of lengths that leave
    # tails, with the special value early, late, and in the tail.
    x = ot.matrix("x", dtype=dtype)
    for n in (17, 33, 100, 1001):
        v = RNG.integers(-50, 50, size=(6, n)).astype(dtype)
        if dtype != "int32":
            v[0, n - 1] = np.nan
            v[1, [3, n - 2]] = np.nan
            v[2, :] = -np.inf
            v[3, n // 2] = np.inf
        v[4, [5, n - 1]] = 99
        for axis in (0, 1):
            assert_matches(run1(ot.argmax(x, axis=axis), x, v), v.argmax(axis=axis))
            assert_matches(run1(ot.argmin(x, axis=axis), x, v), v.argmin(axis=axis))

"""Softmax, log-softmax and logsumexp: values against NumPy over dtypes,
axes, 0-d/empty/strided inputs and extreme values; types and ``str`` forms
as in PyTensor; gradients (``verify_grad``) and pushforwards (``Rop``)."""

import pickle

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from hypothesis import given
from hypothesis import strategies as st
from oxtensor.gradient import Rop, grad, verify_grad
from oxtensor.tensor.special import LogSoftmax, Softmax, log_softmax, softmax

from tests.helpers import assert_matches, check_infer_shape


def np_logsumexp(x, axis=None, keepdims=False):
    m = np.max(x, axis=axis, keepdims=True) if x.size else np.zeros(())
    m = np.where(np.isfinite(m), m, 0)
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


def np_softmax(x, axis=None):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def np_log_softmax(x, axis=None):
    s = x - np.max(x, axis=axis, keepdims=True)
    return s - np.log(np.sum(np.exp(s), axis=axis, keepdims=True))


def run(out, *inputs_values):
    inputs = list(inputs_values[0::2])
    values = inputs_values[1::2]
    return oxtensor.function(inputs, out)(*values)


RNG = np.random.default_rng(0)


@pytest.mark.parametrize("axis", [None, 0, 1, -1, 2])
@pytest.mark.parametrize("kind", ["softmax", "log_softmax"])
def test_softmax_values_over_axes(kind, axis):
    x = ot.tensor3("x")
    v = RNG.normal(size=(3, 4, 5)) * 10
    f, ref = (
        (softmax, np_softmax) if kind == "softmax" else (log_softmax, np_log_softmax)
    )
    assert_matches(run(f(x, axis=axis), x, v), ref(v, axis=axis))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int8", "int32"])
def test_softmax_dtypes(dtype):
    x = ot.matrix("x", dtype=dtype)
    v = (RNG.normal(size=(4, 7)) * 3).astype(dtype)
    out = softmax(x, axis=1)
    want_dtype = {"int8": "float32", "int32": "float64"}.get(dtype, dtype)
    assert out.dtype == want_dtype
    got = run(out, x, v)
    assert_matches(got, np_softmax(v.astype("float64"), axis=1), want_dtype, scale=2)
    got = run(log_softmax(x, axis=0), x, v)
    assert_matches(
        got, np_log_softmax(v.astype("float64"), axis=0), want_dtype, scale=2
    )


def test_softmax_is_stable_and_handles_edges():
    x = ot.dmatrix("x")
    v = np.array([[1000.0, 1001.0, 999.0], [-1000.0, -1e308, -1001.0]])
    assert_matches(run(softmax(x, axis=1), x, v), np_softmax(v, axis=1))
    assert_matches(run(log_softmax(x, axis=1), x, v), np_log_softmax(v, axis=1))
    nan = np.array([[0.0, np.nan, 1.0], [0.0, 1.0, 2.0]])
    got = run(softmax(x, axis=1), x, nan)
    assert np.isnan(got[0]).all()
    assert np.isfinite(got[1]).all()
    empty = np.zeros((0, 3))
    assert run(softmax(x, axis=1), x, empty).shape == (0, 3)
    s = ot.dscalar("s")
    assert_matches(run(softmax(s), s, np.array(3.0)), np.array(1.0))


def test_softmax_strided_input():
    x = ot.dmatrix("x")
    v = RNG.normal(size=(6, 8))
    for view in (v.T, v[::2, ::3], v[:, ::-1]):
        for axis in (0, 1):
            assert_matches(
                run(softmax(x, axis=axis), x, view), np_softmax(view, axis=axis)
            )


def test_softmax_large_rows_run_in_parallel():
    x = ot.dmatrix("x")
    v = RNG.normal(size=(300, 700)) * 5
    assert_matches(run(softmax(x, axis=-1), x, v), np_softmax(v, axis=-1))
    assert_matches(run(ot.logsumexp(x, axis=1), x, v), np_logsumexp(v, axis=1))


def test_softmax_types_str_and_props():
    x = ot.dmatrix("x")
    assert str(softmax(x, axis=-1).owner.op) == "Softmax{axis=(1,)}"
    assert str(softmax(x).owner.op) == "Softmax{axis=None}"
    assert str(log_softmax(x, axis=0).owner.op) == "LogSoftmax{axis=(0,)}"
    assert Softmax(axis=1) == softmax(x, axis=1).owner.op
    assert hash(Softmax(axis=1)) == hash(Softmax(axis=1))
    assert Softmax(axis=1) != LogSoftmax(axis=1)
    assert Softmax(axis=1).axis == (1,)
    assert Softmax().axis is None
    assert Softmax.__props__ == ("axis",)
    op = pickle.loads(pickle.dumps(Softmax(axis=1)))
    assert op == Softmax(axis=1)
    assert softmax(x, axis=1).type == x.type


def test_softmax_errors():
    x = ot.dmatrix("x")
    with pytest.raises(ValueError, match="out of bounds"):
        softmax(x, axis=2)
    with pytest.raises(ValueError, match="out of bounds"):
        log_softmax(x, axis=-3)
    with pytest.raises(TypeError, match="axis"):
        softmax(x, axis=1.0)
    with pytest.raises(TypeError, match="Softmax"):
        softmax(ot.vector(dtype="bool"))


@pytest.mark.parametrize("cls", [Softmax, LogSoftmax])
def test_op_built_with_a_negative_axis(cls):
    # As in PyTensor: the op keeps the axis as given, and applying it counts
    # it against the input's rank; each node gets the normalised op.
    x = ot.tensor3("x")
    op = cls(axis=-1)
    assert op.axis == (-1,)
    assert op == cls(axis=-1)
    assert hash(op) == hash(cls(axis=-1))
    assert op != cls(axis=2)
    assert op != cls(axis=-2)
    assert pickle.loads(pickle.dumps(op)) == op
    assert str(op) == f"{cls.__name__}{{axis=(-1,)}}"
    out = op(x)
    assert out.owner.op == cls(axis=2)
    v = RNG.normal(size=(2, 3, 4))
    want = np_softmax(v, axis=2) if cls is Softmax else np_log_softmax(v, axis=2)
    assert_matches(run(out, x, v), want)
    assert cls(axis=-3)(x).owner.op == cls(axis=0)
    with pytest.raises(ValueError, match="out of bounds"):
        cls(axis=-4)(x)
    with pytest.raises(ValueError, match="out of bounds"):
        cls(axis=3)(x)
    with pytest.raises(TypeError):
        cls(1.5)


@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1), -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_logsumexp_values(axis, keepdims):
    x = ot.dmatrix("x")
    v = RNG.normal(size=(5, 6)) * 50
    out = ot.logsumexp(x, axis=axis, keepdims=keepdims)
    assert_matches(run(out, x, v), np_logsumexp(v, axis=axis, keepdims=keepdims))


def test_logsumexp_edges_and_dtypes():
    x = ot.dmatrix("x")
    v = np.array([[-np.inf, -np.inf], [np.inf, 0.0], [1e308, 1e308]])
    got = run(ot.logsumexp(x, axis=1), x, v)
    assert got[0] == -np.inf
    assert got[1] == np.inf
    np.testing.assert_allclose(got[2], 1e308 + np.log(2))
    got = run(ot.logsumexp(x, axis=1), x, np.zeros((3, 0)))
    assert_matches(got, np.full(3, -np.inf))
    i = ot.matrix("i", dtype="int8")
    out = ot.logsumexp(i, axis=0)
    assert out.dtype == "float32"
    iv = np.arange(6, dtype="int8").reshape(2, 3)
    assert_matches(
        run(out, i, iv), np_logsumexp(iv.astype("float64"), axis=0), "float32"
    )
    assert str(out.owner.op) == "LogSumExp{axis=0}"
    assert str(ot.logsumexp(x).owner.op) == "LogSumExp{axes=None}"
    with pytest.raises(ValueError, match="out of bounds"):
        ot.logsumexp(x, axis=2)
    with pytest.raises(TypeError):
        ot.logsumexp(x, axis=0.5)


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_gradients(axis):
    v = RNG.normal(size=(3, 4))
    verify_grad(lambda a: softmax(a, axis=axis), [v], rng=np.random.default_rng(1))
    verify_grad(lambda a: log_softmax(a, axis=axis), [v], rng=np.random.default_rng(2))
    verify_grad(lambda a: ot.logsumexp(a, axis=axis), [v], rng=np.random.default_rng(3))


@pytest.mark.parametrize(
    "build",
    [
        lambda a: softmax(a, axis=1),
        lambda a: log_softmax(a, axis=0),
        lambda a: ot.logsumexp(a, axis=1),
    ],
)
def test_pushforward_matches_jacobian(build):
    x = ot.dmatrix("x")
    t = ot.dmatrix("t")
    y = build(x)
    jvp = oxtensor.function([x, t], Rop(y, x, t))
    vjp_y = ot.dmatrix("u") if y.ndim == 2 else ot.dvector("u")
    vjp = oxtensor.function([x, vjp_y], grad((y * vjp_y).sum(), x))
    xv, tv = RNG.normal(size=(3, 4)), RNG.normal(size=(3, 4))
    uv = RNG.normal(size=(3, 4) if y.ndim == 2 else (3,))
    # <u, J t> == <J^T u, t>
    np.testing.assert_allclose((jvp(xv, tv) * uv).sum(), (vjp(xv, uv) * tv).sum())


@given(
    st.integers(1, 4),
    st.integers(1, 5),
    st.sampled_from(["float32", "float64"]),
    st.integers(-2, 1),
)
def test_softmax_hypothesis(rows, cols, dtype, axis):
    x = ot.matrix("x", dtype=dtype)
    v = np.random.default_rng(rows * 7 + cols).normal(size=(rows, cols)).astype(dtype)
    got = run(softmax(x, axis=axis), x, v)
    assert_matches(got, np_softmax(v.astype("float64"), axis=axis), dtype, scale=2)


def test_infer_shape():
    x = ot.tensor3("x")
    v = RNG.normal(size=(2, 3, 4))
    outs = [softmax(x, axis=1), log_softmax(x), ot.logsumexp(x, axis=(0, 2))]
    outs.append(ot.logsumexp(x, axis=-1, keepdims=True))
    check_infer_shape([x], outs, [v])
    check_infer_shape([x], [softmax(x, axis=0)], [v], Softmax)
    check_infer_shape([x], [ot.logsumexp(x, axis=1)], [v], ot.LogSumExp)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_softmax_long_lanes_with_special_values(dtype):
    # Lanes longer than the exp kernel's blocks of 32, with tails, and
    # -inf/+inf/NaN lanes, against NumPy's formulas.
    x = ot.matrix("x", dtype=dtype)
    for n in (33, 100, 1001):
        v = (RNG.normal(size=(5, n)) * 30).astype(dtype)
        v[1, :] = -np.inf
        v[2, n - 1] = np.nan
        v[3, n // 3] = np.inf
        v[4, [0, n - 1]] = -np.inf
        with np.errstate(all="ignore"):
            assert_matches(run(softmax(x, axis=1), x, v), np_softmax(v, axis=1))
            assert_matches(run(log_softmax(x, axis=1), x, v), np_log_softmax(v, axis=1))
            assert_matches(run(ot.logsumexp(x, axis=1), x, v), np_logsumexp(v, axis=1))

"""The everyday composites that compute values: ``linspace``/``logspace``/
``geomspace``, ``isclose``/``allclose``, ``isposinf``/``isneginf``/
``nan_to_num``, ``logaddexp``, ``power``/``divmod``/``iround``,
``take_along_axis``/``compress``/``bincount``, ``batched_dot`` and the
constants: values against NumPy, dtypes as NumPy/PyTensor give them,
``infer_shape``, gradients and errors."""

import pickle

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.exceptions import AxisError
from oxtensor.gradient import grad, verify_grad
from oxtensor.tensor.exceptions import NotScalarConstantError

from tests.helpers import assert_matches, check_infer_shape

RNG = np.random.default_rng(7)


def run(out, *inputs_values):
    inputs = list(inputs_values[0::2])
    return oxtensor.function(inputs, out)(*inputs_values[1::2])


# ---- linspace, logspace, geomspace -----------------------------------------


@pytest.mark.parametrize("num", [0, 1, 2, 7])
@pytest.mark.parametrize("endpoint", [True, False])
def test_spacing_values(num, endpoint):
    got, step = ot.linspace(-1.5, 2.25, num, endpoint=endpoint, retstep=True)
    want, want_step = np.linspace(-1.5, 2.25, num, endpoint=endpoint, retstep=True)
    assert got.type.shape == (num,)
    assert_matches(got.eval(), want)
    np.testing.assert_allclose(step.eval(), want_step, equal_nan=True)
    np.testing.assert_allclose(
        ot.logspace(-1.5, 2.25, num, endpoint=endpoint).eval(),
        np.logspace(-1.5, 2.25, num, endpoint=endpoint),
        rtol=1e-13,
    )
    for a, b in [(1.0, 1000.0), (-2.0, -0.5)]:
        got = ot.geomspace(a, b, num, endpoint=endpoint).eval()
        want = np.geomspace(a, b, num, endpoint=endpoint)
        np.testing.assert_allclose(got, want, rtol=1e-13)
        assert got[:1].tolist() == want[:1].tolist()  # ends exact, as NumPy


def test_spacing_dtypes_arrays_axis_and_symbolic_num():
    assert ot.linspace(0, 1, 5).dtype == "float64"
    assert ot.linspace(ot.fscalar(), ot.fscalar(), 5).dtype == "float64"
    ints = ot.linspace(0, 10, 5, dtype="int32")
    assert_matches(ints.eval(), np.linspace(0, 10, 5, dtype="int32"))
    neg = ot.linspace(-3, 2, 6, dtype="int64").eval()
    assert_matches(neg, np.linspace(-3, 2, 6, dtype="int64"))
    start, stop = np.array([0.0, 1, 2]), np.array([[1.0], [3]])
    for axis in (0, 1, -1):
        got = ot.linspace(start, stop, 4, axis=axis)
        assert_matches(got.eval(), np.linspace(start, stop, 4, axis=axis))
    assert ot.linspace(ot.tensor(shape=(3,)), 1, 5, axis=1).type.shape == (3, 5)
    n = ot.lscalar("n")
    f = oxtensor.function([n], ot.linspace(0.0, 1.0, n))
    for k in (0, 1, 3):
        assert_matches(f(k), np.linspace(0, 1, k))
    assert_matches(ot.linspace(0, 1, end=2, steps=3).eval(), np.linspace(0, 2, 3))
    check_infer_shape([n], [ot.linspace(0.0, 1.0, n), ot.geomspace(1, 2, n)], [4])


def test_linspace_grad_wrt_ends():
    verify_grad(
        lambda a, b: ot.linspace(a, b, 5), [np.array(0.5), np.array(2.0)], rng=RNG
    )
    verify_grad(
        lambda a, b: ot.logspace(a, b, 4, base=2.0),
        [np.array([0.5, 1.0]), np.array(2.0)],
        rng=RNG,
    )


# ---- isclose, allclose -------------------------------------------------------

SPECIAL = np.array([1.0, np.nan, np.inf, -np.inf, 1e-9, 1 + 1e-6, 0.0, 3e4])


@pytest.mark.parametrize("equal_nan", [False, True])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_isclose_special_values(equal_nan, dtype):
    a = SPECIAL.astype(dtype)
    b = np.array([1.0, np.nan, np.inf, np.inf, 0, 1, 1e-300, 3e4])
    got = ot.isclose(a, b, equal_nan=equal_nan)
    assert got.dtype == "bool"
    assert_matches(got.eval(), np.isclose(a, b, equal_nan=equal_nan))
    for x in (a, a[::-1]):
        want = np.allclose(x, x, equal_nan=equal_nan)
        assert bool(ot.allclose(x, x, equal_nan=equal_nan).eval()) == want


def test_isclose_integers_do_not_wrap():
    u = np.array([0, 5, 255], dtype="uint8")
    assert_matches(ot.isclose(u, u[::-1]).eval(), np.isclose(u, u[::-1]))
    i = np.array([1, 2, 300], dtype="int32")
    assert_matches(ot.isclose(i, i + 1, atol=1).eval(), np.isclose(i, i + 1, atol=1))
    assert ot.isclose(ot.ivector(), ot.ivector()).dtype == "bool"
    assert ot.allclose(ot.dvector(), ot.dvector()).type.shape == ()


@given(
    st.lists(
        st.floats(allow_nan=True, allow_infinity=True, width=64), min_size=1, max_size=6
    ),
    st.sampled_from([(1e-5, 1e-8), (0.0, 0.0), (0.1, 1.0)]),
    st.booleans(),
    st.booleans(),
)
def test_isclose_hypothesis(xs, tols, equal_nan, as_row):
    a = np.array(xs)
    with np.errstate(all="ignore"):
        b = a * (1 + 1e-6) if as_row else np.array(xs[:1])
    rtol, atol = tols
    av, bv = ot.dvector("a"), ot.tensor("b", shape=(len(b) == 1 or None,))
    got = run(
        ot.isclose(av, bv, rtol=rtol, atol=atol, equal_nan=equal_nan), av, a, bv, b
    )
    with np.errstate(all="ignore"):
        want = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    assert_matches(got, want)


# ---- isposinf, isneginf, nan_to_num -----------------------------------------


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
def test_nonfinite_functions(dtype):
    v = SPECIAL.astype(dtype)
    x = ot.tensor("x", dtype=dtype, shape=(None,))
    assert_matches(run(ot.isposinf(x), x, v), np.isposinf(v))
    assert_matches(run(ot.isneginf(x), x, v), np.isneginf(v))
    assert_matches(run(ot.nan_to_num(x), x, v), np.nan_to_num(v))
    got = run(ot.nan_to_num(x, 5.0, 6.0, -7.0), x, v)
    assert_matches(got, np.nan_to_num(v, nan=5.0, posinf=6.0, neginf=-7.0))


def test_nonfinite_integers_and_errors():
    i = np.array([-3, 0, 7], dtype="int16")
    assert_matches(ot.isposinf(i).eval(), np.isposinf(i))
    assert_matches(ot.isneginf(i).eval(), np.isneginf(i))
    # NumPy's rule: integers come back unchanged (PyTensor casts to float64).
    x = ot.ivector("x")
    assert ot.nan_to_num(x) is x
    with pytest.raises(TypeError, match="nan_to_num: complex inputs are not supported"):
        ot.nan_to_num(ot.zvector())
    m = ot.dmatrix("m")
    check_infer_shape(
        [m], [ot.nan_to_num(m), ot.isposinf(m)], [RNG.normal(size=(2, 3))]
    )
    verify_grad(ot.nan_to_num, [RNG.normal(size=(3, 2))], rng=RNG)


# ---- logaddexp ----------------------------------------------------------------


def test_logaddexp_values_and_special_cases():
    a = np.array([1.0, -np.inf, np.inf, -np.inf, np.inf, np.nan, 3, -1e300, 800, 0])
    b = np.array([2.0, -np.inf, np.inf, np.inf, 1, 1, np.nan, 5, 800, -800])
    with np.errstate(invalid="ignore"):
        want = np.logaddexp(a, b)
    assert_matches(ot.logaddexp(a, b).eval(), want)
    c = np.array([0.5, -1.0])
    assert_matches(
        ot.logaddexp(c, c[::-1], np.array([[3.0], [-2.0]])).eval(),
        np.logaddexp(np.logaddexp(c, c[::-1]), np.array([[3.0], [-2.0]])),
    )


def test_logaddexp_dtypes_grad_and_errors():
    assert ot.logaddexp(ot.bvector(), ot.bvector()).dtype == "float32"
    assert ot.logaddexp(ot.ivector(), ot.ivector()).dtype == "float64"
    assert ot.logaddexp(ot.fvector(), ot.fvector()).dtype == "float32"
    i = np.array([1, 2, 3], dtype="int32")
    assert_matches(ot.logaddexp(i, i[::-1]).eval(), np.logaddexp(i, i[::-1]))
    verify_grad(ot.logaddexp, [RNG.normal(size=4), RNG.normal(size=4)], rng=RNG)
    x = ot.dvector("x")
    # At a tie each side gets half: d/dx log(2 e^x) = 1.
    assert_matches(grad(ot.logaddexp(x, x).sum(), x).eval({x: np.ones(2)}), np.ones(2))
    m = ot.dmatrix("m")
    check_infer_shape([m, x], [ot.logaddexp(m, x)], [np.ones((2, 3)), np.ones(3)])
    with pytest.raises(TypeError, match="logaddexp needs at least two inputs, got 1"):
        ot.logaddexp(x)


@given(
    st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=5),
    st.floats(-1e3, 1e3),
    st.sampled_from(["float32", "float64"]),
)
def test_logaddexp_hypothesis(xs, y, dtype):
    a = np.array(xs, dtype=dtype)
    b = np.array(y, dtype=dtype)
    av = ot.tensor("a", dtype=dtype, shape=(None,))
    bv = ot.tensor("b", dtype=dtype, shape=())
    got = run(ot.logaddexp(av, bv), av, a, bv, b)
    assert_matches(got, np.logaddexp(a, b), dtype, scale=4)


# ---- power, divmod, iround ---------------------------------------------------


def test_numpy_names():
    i = np.array([-7, -1, 0, 5, 9], dtype="int32")
    assert ot.power(ot.ivector(), 2).dtype == "int32"
    assert_matches(ot.power(i, 2).eval(), np.power(i, 2))
    q, r = ot.divmod(i, np.int32(3))
    assert_matches(q.eval(), np.divmod(i, 3)[0])
    assert_matches(r.eval(), np.divmod(i, 3)[1])
    f = np.array([-2.5, -0.5, 0.5, 1.5, 2.4], dtype="float32")
    assert ot.iround(ot.fvector()).dtype == "int64"
    assert_matches(ot.iround(f).eval(), np.round(f).astype("int64"))
    away = ot.iround(f, "half_away_from_zero").eval()
    assert_matches(away, np.array([-3, -1, 1, 2, 2]))
    verify_grad(lambda a: ot.power(a, 3.0), [RNG.normal(size=3)], rng=RNG)


# ---- take_along_axis, compress, bincount -----------------------------------


@pytest.mark.parametrize("axis", [0, 1, 2, -1, None])
@pytest.mark.parametrize("dtype", ["float64", "int8", "bool"])
def test_take_along_axis_values(axis, dtype):
    v = RNG.normal(size=(3, 4, 5))
    v = (v > 0) if dtype == "bool" else (v * 10).astype(dtype)
    idx = np.argsort(v, axis=axis)
    x = ot.tensor("x", dtype=dtype, shape=(None, None, None))
    i = ot.tensor("i", dtype="int64", shape=(None,) * idx.ndim)
    assert_matches(
        run(ot.take_along_axis(x, i, axis), x, v, i, idx),
        np.take_along_axis(v, idx, axis),
    )
    if axis is not None:
        # Indices of another length along the axis, broadcast on the others.
        few = np.take(idx, [0, 0], axis=axis)[..., :1] % 3
        i_b = ot.tensor("i", dtype="int64", shape=(None, None, 1))
        got = run(ot.take_along_axis(x, i_b, axis), x, v, i_b, few)
        assert_matches(got, np.take_along_axis(v, few, axis))


def test_take_along_axis_static_shape_grad_and_errors():
    x = ot.tensor("x", shape=(3, 4))
    assert ot.take_along_axis(
        x, ot.tensor(dtype="int64", shape=(2, 4)), 0
    ).type.shape == (2, 4)
    idx = np.array([[2, 0], [1, 1]])
    verify_grad(
        lambda a: ot.take_along_axis(a, idx, 1), [RNG.normal(size=(2, 3))], rng=RNG
    )
    m, i = ot.dmatrix("m"), ot.lmatrix("i")
    check_infer_shape([m, i], [ot.take_along_axis(m, i, -1)], [np.ones((2, 3)), idx])
    with pytest.raises(IndexError, match="`indices` must be an integer array"):
        ot.take_along_axis(m, ot.dmatrix(), 0)
    with pytest.raises(ValueError, match="same number of dimensions, got 1 and 2"):
        ot.take_along_axis(m, ot.lvector(), 0)
    with pytest.raises(ValueError, match="with axis=None, `indices` must be 1-d"):
        ot.take_along_axis(m, i, None)
    with pytest.raises(AxisError, match="axis 2 is out of bounds"):
        ot.take_along_axis(m, i, 2)


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_compress(axis):
    v = RNG.normal(size=(3, 4))
    cond = np.array([1, 0, 1], dtype="int8")
    c, x = ot.bvector("c"), ot.dmatrix("x")
    assert_matches(
        run(ot.compress(c, x, axis), c, cond, x, v), np.compress(cond, v, axis)
    )
    flags = np.array([True, False, True])
    assert_matches(ot.compress(flags, v, 0).eval(), np.compress(flags, v, 0))
    verify_grad(lambda a: ot.compress(cond, a, 0), [v], rng=RNG)
    with pytest.raises(ValueError, match="compress: condition must be a vector"):
        ot.compress(ot.bmatrix(), x)


def test_bincount():
    x, w = ot.ivector("x"), ot.fvector("w")
    xv = np.array([0, 1, 1, 4, 4, 4], dtype="int32")
    wv = np.arange(6, dtype="float32")
    assert_matches(run(ot.bincount(x), x, xv), np.bincount(xv))
    got = run(ot.bincount(x, w, minlength=9), x, xv, w, wv)
    # The weights' dtype, as PyTensor (NumPy sums in float64).
    assert_matches(got, np.bincount(xv, wv, minlength=9).astype("float32"))
    empty = np.zeros(0, dtype="int32")
    assert_matches(
        run(ot.bincount(x, minlength=3), x, empty), np.bincount(empty, minlength=3)
    )
    assert_matches(run(ot.bincount(x), x, empty), np.bincount(empty))
    with pytest.raises(IndexError, match="out of bounds"):
        run(ot.bincount(x), x, np.array([1, -1], dtype="int32"))
    with pytest.raises(TypeError, match="bincount: x must be a vector of integers"):
        ot.bincount(ot.dvector())
    with pytest.raises(ValueError, match="minlength must be non-negative, got -1"):
        ot.bincount(x, minlength=-1)
    dw = ot.dvector("dw")
    verify_grad(lambda a: ot.bincount(xv, a), [RNG.normal(size=6)], rng=RNG)
    check_infer_shape([x, dw], [ot.bincount(x, dw)], [xv, np.ones(6)])


INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("minlength", [None, 0, 12])
def test_bincount_x_dtypes_and_minlength(dtype, minlength):
    xv = RNG.integers(0, 9, size=40).astype(dtype)
    x = ot.vector("x", dtype=dtype)
    out = ot.bincount(x, minlength=minlength)
    assert (out.dtype, out.type.shape) == ("int64", (None,))
    want = np.bincount(xv.astype("int64"), minlength=minlength or 0)
    assert_matches(run(out, x, xv), want)
    # A strided and a reversed view read the same values.
    assert_matches(
        run(out, x, xv[::3]),
        np.bincount(xv[::3].astype("int64"), minlength=minlength or 0),
    )
    assert_matches(run(out, x, xv[::-1]), want)


@pytest.mark.parametrize(
    "wdtype", ["float16", "float32", "float64", "int8", "int32", "uint16", "uint64"]
)
def test_bincount_weights_dtypes(wdtype):
    xv = RNG.integers(0, 7, size=30).astype("uint8")
    if wdtype.startswith(("int", "uint")):
        info = np.iinfo(wdtype)
        wv = RNG.integers(info.min, info.max, size=30, dtype=wdtype, endpoint=True)
    else:
        wv = (RNG.normal(size=30) * 5).astype(wdtype)
    x, w = ot.vector("x", dtype="uint8"), ot.vector("w", dtype=wdtype)
    out = ot.bincount(x, w, minlength=10)
    assert out.dtype == wdtype

    def want(xs, ws):
        if wdtype.startswith(("int", "uint")):
            # Sums wrap in the weights' dtype, as inc_subtensor's.
            bins = np.zeros(10, wdtype)
            np.add.at(bins, xs, ws)
            return bins
        # NumPy sums in float64; oxtensor too, rounding once at the end.
        return np.bincount(xs, ws.astype("float64"), 10).astype(wdtype)

    assert_matches(run(out, x, xv, w, wv), want(xv, wv))
    # Strided on both sides, the weights read backwards.
    xs, ws = xv[::2], wv[::-2]
    assert_matches(run(out, x, xs, w, ws), want(xs, ws))


def test_bincount_long_inputs_match_numpy():
    # Long enough to be counted in pieces on several threads.
    xv = RNG.integers(0, 1000, size=300_000)
    wv = RNG.normal(size=300_000)
    x, w = ot.lvector("x"), ot.dvector("w")
    assert_matches(run(ot.bincount(x), x, xv), np.bincount(xv))
    got = run(ot.bincount(x, w), x, xv, w, wv)
    np.testing.assert_allclose(got, np.bincount(xv, wv), rtol=1e-12, atol=1e-12)
    # Bins as many as the values: one pass, no pieces.
    wide = RNG.integers(0, 300_000, size=300_000)
    assert_matches(run(ot.bincount(x), x, wide), np.bincount(wide))


def test_bincount_empty_and_static_lengths():
    x, w = ot.bvector("x"), ot.fvector("w")
    empty = np.zeros(0, "int8")
    got = run(ot.bincount(x, w), x, empty, w, np.zeros(0, "float32"))
    assert_matches(got, np.zeros(0, "float32"))
    got = run(ot.bincount(x, w, minlength=4), x, empty, w, np.zeros(0, "float32"))
    assert_matches(got, np.zeros(4, "float32"))
    # A statically empty x gives a static length of minlength.
    none = ot.tensor("n", dtype="int32", shape=(0,))
    assert ot.bincount(none, minlength=5).type.shape == (5,)
    assert_matches(ot.bincount(empty, minlength=5).eval(), np.zeros(5, "int64"))


def test_bincount_runtime_errors_name_the_node_and_values():
    x, w = ot.ivector("x"), ot.dvector("w")
    f = oxtensor.function([x], ot.bincount(x, minlength=2))
    with pytest.raises(IndexError, match=r"index -7 \(x\[2\]\) is out of bounds") as e:
        f(np.array([0, 3, -7, -1], "int32"))
    assert "Apply node that caused the error: Bincount{minlength=2}(x)" in str(e.value)
    g = oxtensor.function([x, w], ot.bincount(x, w))
    with pytest.raises(ValueError, match="got 3 weights for 2 values") as e:
        g(np.array([0, 1], "int32"), np.ones(3))
    assert "Bincount(x, w)" in str(e.value)


def test_bincount_type_errors():
    with pytest.raises(TypeError, match="bincount: x must be a vector of integers"):
        ot.bincount(ot.imatrix())
    with pytest.raises(TypeError, match="weights must be a vector of integers or"):
        ot.bincount(ot.ivector(), ot.bvector().astype("bool"))
    with pytest.raises(TypeError, match="weights must be a vector of integers or"):
        ot.bincount(ot.ivector(), ot.dmatrix())
    with pytest.raises(ValueError, match="got 3 weights for 2 values"):
        ot.bincount(np.array([0, 1]), np.ones(3))
    with pytest.raises(ValueError, match="minlength must be non-negative, got -2"):
        ot.extra_ops.Bincount(-2)


def test_bincount_op_props_and_print_form():
    from oxtensor.tensor.extra_ops import Bincount

    assert Bincount.__props__ == ("minlength",)
    assert Bincount(3) == Bincount(minlength=3)
    assert hash(Bincount(3)) == hash(Bincount(3))
    assert Bincount(3) != Bincount(4)
    assert Bincount() == Bincount(0) == ot.bincount(ot.ivector()).owner.op
    assert Bincount(3).minlength == 3
    assert pickle.loads(pickle.dumps(Bincount(3))) == Bincount(3)
    x, w = ot.lvector("x"), ot.dvector("w")
    lines = oxtensor.dprint(ot.bincount(x, w, minlength=3), file="str").splitlines()
    assert lines == ["Bincount{minlength=3} [id A]", " ├─ x [id B]", " └─ w [id C]"]
    assert str(ot.bincount(x).owner.op) == "Bincount"


@pytest.mark.parametrize("minlength", [None, 9])
def test_bincount_infer_shape(minlength):
    from oxtensor.tensor.extra_ops import Bincount

    x, w = ot.ivector("x"), ot.dvector("w")
    xv = np.array([0, 2, 2, 5], "int32")
    for xs in [xv, np.zeros(0, "int32")]:
        out = ot.bincount(x, w, minlength=minlength)
        check_infer_shape([x, w], [out], [xs, np.ones(len(xs))], op_class=Bincount)
    u = ot.vector("u", dtype="uint8")
    high = np.array([255, 3], "uint8")  # max + 1 must not wrap in uint8
    check_infer_shape([u], [ot.bincount(u, minlength=minlength)], [high], Bincount)
    fixed = ot.tensor("f", dtype="int16", shape=(3,))
    out = ot.bincount(fixed, minlength=minlength)
    check_infer_shape([fixed], [out], [np.array([4, 0, 1], "int16")], Bincount)


def test_bincount_gradients():
    from oxtensor.tensor.extra_ops import Bincount

    xv = np.array([3, 0, 3, 1, 5], "int64")
    verify_grad(
        lambda a: ot.bincount(xv, a, minlength=8), [RNG.normal(size=5)], rng=RNG
    )
    x, w = ot.lvector("x"), ot.dvector("w")
    out = ot.bincount(x, w)
    gw = grad((out * np.arange(6.0)).sum(), w)
    assert_matches(run(gw, x, xv, w, np.ones(5)), np.arange(6.0)[xv])
    with pytest.raises(oxtensor.gradient.DisconnectedInputError):
        grad(out.sum(), x)
    assert (
        grad(out.sum(), x, disconnected_inputs="ignore").eval({x: xv}).tolist()
        == [0] * 5
    )
    # Linear in the weights: the R-operator is bincount of the tangent.
    v = ot.dvector("v")
    rop = oxtensor.gradient.Rop(out, w, v)
    vv = RNG.normal(size=5)
    assert isinstance(rop.owner.op, Bincount)
    got = oxtensor.function([x, v], rop)(xv, vv)
    np.testing.assert_allclose(got, np.bincount(xv, vv))


# ---- batched_dot -------------------------------------------------------------

BATCHED = [
    ((4,), (4,)),
    ((4,), (4, 3)),
    ((4, 3), (4,)),
    ((4, 3), (4, 3)),
    ((4, 2, 3), (4, 3, 5)),
    ((4, 2, 3), (4, 3)),
    ((4, 3), (4, 3, 5)),
    ((4, 2, 6, 3), (4, 3, 5)),
    ((4, 2, 3), (4, 5, 3, 6)),
    ((0, 2, 3), (0, 3, 5)),
]


@pytest.mark.parametrize(("sa", "sb"), BATCHED)
def test_batched_dot_matches_a_loop_of_dots(sa, sb):
    a, b = RNG.normal(size=sa), RNG.normal(size=sb)
    want = np.array([np.dot(a[i], b[i]) for i in range(sa[0])]).reshape(
        (sa[0], *np.dot(np.zeros(sa[1:]), np.zeros(sb[1:])).shape)
    )
    av = ot.tensor("a", shape=(None,) * len(sa))
    bv = ot.tensor("b", shape=(None,) * len(sb))
    assert_matches(run(ot.batched_dot(av, bv), av, a, bv, b), want)


def test_batched_dot_dtypes_grad_and_errors():
    out = ot.batched_dot(ot.ftensor3(), ot.ftensor3())
    assert out.dtype == "float32"
    assert ot.batched_dot(
        ot.tensor(shape=(2, 3)), ot.tensor(shape=(2, 3))
    ).type.shape == (2,)
    i = np.arange(24, dtype="int32").reshape(2, 3, 4)
    got = ot.batched_dot(i, i.transpose(0, 2, 1)).eval()
    assert_matches(got, np.matmul(i, i.transpose(0, 2, 1)).astype(got.dtype))
    verify_grad(
        ot.batched_dot,
        [RNG.normal(size=(2, 3, 4)), RNG.normal(size=(2, 4, 2))],
        rng=RNG,
    )
    verify_grad(
        ot.batched_dot, [RNG.normal(size=(2, 3)), RNG.normal(size=(2, 3))], rng=RNG
    )
    a, b = ot.dtensor3("a"), ot.dmatrix("b")
    check_infer_shape(
        [a, b], [ot.batched_dot(a, b)], [np.ones((2, 3, 4)), np.ones((2, 4))]
    )
    with pytest.raises(TypeError, match="batched_dot: a must have a batch axis"):
        ot.batched_dot(ot.dscalar(), ot.dvector())


# ---- constants ------------------------------------------------------------------


def test_constants_match_numpy():
    assert ot.pi == np.pi
    assert ot.e == np.e
    assert ot.inf == np.inf
    assert np.isnan(ot.nan)
    assert ot.newaxis is None
    x = ot.dmatrix("x")
    assert x[:, ot.newaxis].ndim == 3


def test_get_underlying_scalar_constant_value():
    g = ot.get_underlying_scalar_constant_value
    assert g(3) == 3
    assert g(ot.constant(np.array([[4, 4]]))) == 4
    assert g(ot.tensor(shape=(3, 4)).shape[1]) == 4
    assert g(ot.shape_i(ot.tensor(shape=(3, 4)), 0)) == 3
    folded = g(ot.cast(ot.constant(3.5), "int32") + 2)
    assert folded == 5
    assert folded.dtype == "int32"
    assert g(ot.alloc(ot.constant(5.0), 3)) == 5.0
    assert g(ot.constant(5.0).dimshuffle("x")) == 5.0
    v = ot.dvector("v")
    assert g(v, raise_not_constant=False) is v
    for bad in (ot.constant(np.array([1, 2])), v, ot.exp(ot.constant(1.0)), np.ones(2)):
        with pytest.raises(NotScalarConstantError):
            g(bad)
    with pytest.raises(NotScalarConstantError):
        g(ot.constant(2) + 1, elemwise=False)
    with pytest.raises(NotScalarConstantError):
        g(ot.constant(2.0).dimshuffle("x"), only_process_constants=True)


def test_infer_shape_of_the_others():
    n, x, c = ot.lscalar("n"), ot.dmatrix("x"), ot.bvector("c")
    outs = [
        ot.tri(n, 3, 1),
        ot.logspace(0.0, 1.0, n),
        ot.power(x, 2.0),
        *ot.divmod(x, 3.0),
        ot.iround(x),
        ot.compress(c, x, axis=1),
    ]
    vals = [4, RNG.normal(size=(2, 3)), np.array([1, 0, 1], dtype="int8")]
    check_infer_shape([n, x, c], outs, vals)

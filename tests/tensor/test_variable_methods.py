"""`TensorVariable` methods that call `oxtensor.tensor` functions (PyTensor's
`_tensor_py_operators`): each against NumPy's method or function."""

import warnings

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oxtensor.tensor.exceptions import NotScalarConstantError

RNG = np.random.default_rng(7)
A = RNG.standard_normal((3, 4))
POSITIVE = RNG.uniform(0.1, 0.9, (3, 4))


def run(build, value):
    x = ot.tensor("x", dtype=str(value.dtype), shape=(None,) * value.ndim)
    out = build(x)
    return out, oxtensor.function([x], out)(value)


def call(value, name, *args, **kwargs):
    """``x.name(*args, **kwargs)`` compiled and run on ``value``."""
    return run(lambda x: getattr(x, name)(*args, **kwargs), value)


@pytest.mark.parametrize(
    "name",
    "arccos arcsin arctan arctanh ceil cos cosh deg2rad exp exp2 expm1 floor "
    "log log10 log1p log2 rad2deg sin sinh sqrt tan tanh".split(),
)
def test_unary_methods_match_numpy(name):
    out, got = run(lambda x: getattr(x, name)(), POSITIVE)
    np.testing.assert_allclose(got, getattr(np, name)(POSITIVE), rtol=1e-12)
    assert out.dtype == "float64"


def test_inverse_hyperbolic_methods_outside_the_unit_interval():
    big = POSITIVE + 1.5
    np.testing.assert_allclose(run(lambda x: x.arccosh(), big)[1], np.arccosh(big))
    np.testing.assert_allclose(run(lambda x: x.arcsinh(), A)[1], np.arcsinh(A))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 1)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduction_methods(dtype, axis, keepdims):
    a = (A * 10).astype(dtype)
    for name, kwargs in [("var", {}), ("std", {"ddof": 1})]:
        out, got = call(a, name, axis, keepdims=keepdims, **kwargs)
        want = getattr(a, name)(axis=axis, keepdims=keepdims, **kwargs)
        np.testing.assert_allclose(got, want, rtol=1e-5)
        assert got.shape == want.shape
    if not isinstance(axis, tuple):
        for name in ["argmax", "argmin"]:
            out, got = call(a, name, axis, keepdims=keepdims)
            want = getattr(a, name)(axis=axis, keepdims=keepdims)
            np.testing.assert_array_equal(got, want)
            assert out.dtype == "int64"
    out, got = run(lambda x: x.ptp(axis), a)
    np.testing.assert_allclose(got, np.ptp(a, axis=axis))
    assert got.dtype == a.dtype


def test_sort_argsort_cumulative_take():
    a = A[:, ::-1]  # not contiguous
    np.testing.assert_array_equal(run(lambda x: x.sort(), a)[1], np.sort(a))
    np.testing.assert_array_equal(run(lambda x: x.sort(0), a)[1], np.sort(a, 0))
    np.testing.assert_array_equal(run(lambda x: x.sort(None), a)[1], np.sort(a, None))
    np.testing.assert_array_equal(run(lambda x: x.argsort(0), a)[1], a.argsort(0))
    np.testing.assert_allclose(run(lambda x: x.cumsum(), a)[1], a.cumsum())
    np.testing.assert_allclose(run(lambda x: x.cumprod(1), a)[1], a.cumprod(1))
    np.testing.assert_array_equal(run(lambda x: x.take([2, 0]), a)[1], a.take([2, 0]))
    np.testing.assert_array_equal(
        run(lambda x: x.take([1, -1], axis=1), a)[1], a.take([1, -1], axis=1)
    )


def test_nonzero_methods():
    a = np.array([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]])
    x = ot.dmatrix("x")
    rows, cols = oxtensor.function([x], list(x.nonzero()))(a)
    want = a.nonzero()
    np.testing.assert_array_equal(rows, want[0])
    np.testing.assert_array_equal(cols, want[1])
    matrix = run(lambda x: x.nonzero(return_matrix=True), a)[1]
    np.testing.assert_array_equal(matrix, np.vstack(want))
    np.testing.assert_array_equal(run(lambda x: x.nonzero_values(), a)[1], a[a != 0])


@pytest.mark.parametrize("order", [1, 2, 3.5, -1.5, np.inf, -np.inf, 0])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_norm_matches_numpy_vector_norms(order, axis):
    if axis is None:
        want = np.linalg.norm(A.ravel(), order)
    else:
        want = np.linalg.norm(A, order, axis=axis)
    got = call(A, "norm", order, axis=axis)[1]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    kept = run(lambda x: x.norm(order, axis=axis, keepdims=True), A)[1]
    assert kept.ndim == 2


def test_norm_of_integers_is_float64_and_bad_orders_raise():
    ints = np.array([[3, -4], [0, 12]], dtype="int32")
    out, got = run(lambda x: x.norm(2), ints)
    assert out.dtype == "float64"
    np.testing.assert_allclose(got, 13.0)
    x = ot.dmatrix("x")
    with pytest.raises(ValueError, match="L must not be NaN"):
        x.norm(np.nan)
    with pytest.raises(TypeError, match="L must be a real number"):
        x.norm("fro")


def test_fill_copy_like_ravel():
    got = call(A, "fill", 2.5)[1]
    np.testing.assert_array_equal(got, np.full_like(A, 2.5))
    x = ot.dmatrix("x")
    c = x.copy(name="c")
    assert c.name == "c"
    assert c.owner is not None
    assert c is not x
    np.testing.assert_array_equal(oxtensor.function([x], c)(A), A)
    ones = run(lambda x: x.ones_like(dtype="int32"), A)[1]
    np.testing.assert_array_equal(ones, np.ones_like(A, dtype="int32"))
    assert run(lambda x: x.zeros_like(), A)[1].dtype == np.float64
    np.testing.assert_array_equal(run(lambda x: x.ravel(), A.T)[1], A.T.ravel())


def test_size_mt_transfer_and_owner():
    b = RNG.standard_normal((2, 3, 4))
    out, got = run(lambda x: x.size, b)
    assert out.dtype == "int64"
    assert out.ndim == 0
    assert got == b.size
    np.testing.assert_array_equal(run(lambda x: x.mT, b)[1], b.swapaxes(-1, -2))
    x = ot.dmatrix("x")
    assert x.transfer("cpu") is x
    with pytest.raises(ValueError, match="Can't transfer to target gpu"):
        x.transfer("gpu")
    with pytest.raises(ValueError, match="mT needs at least 2 dimensions"):
        _ = ot.dvector("v").mT
    assert x.owner_op_and_inputs == (None,)
    y = x + 1
    op, *inputs = y.owner_op_and_inputs
    assert op == y.owner.op
    assert inputs == y.owner.inputs


def test_gradients_flow_through_methods():
    x = ot.dvector("x")
    cost = x.var() + x.norm(2) + x.exp().sum()
    g = oxtensor.function([x], oxtensor.grad(cost, x))
    v = np.array([0.5, -1.0, 2.0])
    want = 2 * (v - v.mean()) / v.size + v / np.linalg.norm(v) + np.exp(v)
    np.testing.assert_allclose(g(v), want, rtol=1e-12)


@settings(max_examples=30, deadline=None)
@given(
    shape=st.lists(st.integers(0, 4), min_size=1, max_size=3),
    ddof=st.integers(0, 1),
    data=st.data(),
)
def test_var_std_axes_match_numpy(shape, ddof, data):
    a = RNG.standard_normal(shape)
    axis = data.draw(st.sampled_from([None, *range(-len(shape), len(shape))]))
    for name in ["var", "std"]:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # empty slices
            want = getattr(a, name)(axis=axis, ddof=ddof)
        got = call(a, name, axis, ddof=ddof)[1]
        np.testing.assert_allclose(got, want, rtol=1e-10, equal_nan=True)


def test_too_few_elements_for_ddof_divide_by_zero_as_numpy():
    v = np.array([1.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for ddof in [2, 3]:
            got = call(v, "var", ddof=ddof)[1]
            np.testing.assert_array_equal(got, v.var(ddof=ddof))
        np.testing.assert_array_equal(run(lambda x: x.std(ddof=1), v[:0])[1], np.nan)


def test_diagonal_trace_compress_and_constants():
    b = RNG.standard_normal((3, 4, 5))
    got = call(b, "diagonal", 1, 1, 2)[1]
    np.testing.assert_array_equal(got, b.diagonal(1, 1, 2))
    # `x.trace()` is deprecated, as in PyTensor: `ot.trace(x)` is the function.
    with pytest.warns(FutureWarning, match="Use oxtensor.tensor.trace instead"):
        np.testing.assert_allclose(call(A, "trace")[1], np.trace(A))
    cond = np.array([True, False, True])
    x = ot.bvector("c")
    y = ot.dmatrix("y")
    f = oxtensor.function([x, y], x.compress(y, axis=0))
    np.testing.assert_array_equal(f(cond, A), np.compress(cond, A, axis=0))
    assert ot.constant(np.float64(2.5)).get_underlying_scalar_constant() == 2.5
    with pytest.raises(NotScalarConstantError):
        ot.dscalar("s").get_underlying_scalar_constant()


def test_item_assignment_points_to_set_and_inc():
    x = ot.matrix("x")
    msg = "Use the output of `x\\[idx\\].set` or `x\\[idx\\].inc` instead"
    with pytest.raises(TypeError, match=msg):
        x[0] = 5
    with pytest.raises(TypeError, match=msg):
        x[0] += 5


@pytest.mark.parametrize("axes", [(1, 0, 2), [1, 0, 2], np.array([1, 0, 2])])
def test_transpose_takes_one_sequence_of_axes(axes):
    value = RNG.standard_normal((2, 3, 4))
    out, got = run(lambda x: x.transpose(axes), value)
    np.testing.assert_array_equal(got, value.transpose(1, 0, 2))
    assert out.type.ndim == 3


def test_none_const_index_is_a_new_axis():
    from oxtensor.tensor.type_other import NoneConst

    value = RNG.standard_normal((3, 4))
    out, got = run(lambda x: x[NoneConst, :, NoneConst], value)
    np.testing.assert_array_equal(got, value[None, :, None])
    assert out.broadcastable == (True, False, True, False)

"""``xlogy``/``xlog1py`` at their boundary (the core's ``XLogY`` and
``XLog1pY`` scalar ops) against SciPy on every path; ``sort``/``argsort``
with a symbolic axis and PyTensor's argument checks; ``Softmax`` over
several axes and its vectorize rule."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
import scipy.special as sp
from oxtensor.gradient import grad, verify_grad
from oxtensor.graph.replace import vectorize_graph
from oxtensor.tensor.sort import argsort, sort
from oxtensor.tensor.special import (
    LogSoftmax,
    Softmax,
    log_softmax,
    softmax,
    xlog1py,
    xlogy,
)

X = np.array([0.0, 0.0, 0.0, 0.5, 1.0, 2.0, 0.0, 3.0])
Y = np.array([0.0, -1.0, np.nan, 0.5, 1.0, 2.0, np.inf, 0.0])
CASES = [(xlogy, sp.xlogy, "XLogY"), (xlog1py, sp.xlog1py, "XLog1pY")]


@pytest.mark.parametrize(("fn", "ref", "cls"), CASES)
@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])
def test_values_match_scipy_fused_and_unfused(fn, ref, cls, mode):
    x, y = ot.vectors("x", "y")
    # A second elemwise op after it gives the fusion pass a chain to fuse
    # (FAST_RUN); FAST_COMPILE runs the op's own kernel.
    out = fn(x, y) + 0.0 * x
    f = oxtensor.function([x, y], out, mode=mode)
    y_in = Y - 1.0 if cls == "XLog1pY" else Y
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(f(X, y_in), ref(X, y_in))


@pytest.mark.parametrize(("fn", "ref", "cls"), CASES)
def test_constant_folding_agrees(fn, ref, cls):
    y_in = Y - 1.0 if cls == "XLog1pY" else Y
    out = fn(ot.constant(X), ot.constant(y_in))
    f = oxtensor.function([], out)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(f(), ref(X, y_in))


@pytest.mark.parametrize(("fn", "cls"), [(xlogy, "XLogY"), (xlog1py, "XLog1pY")])
def test_the_graph_is_one_scalar_op(fn, cls):
    x, y = ot.vectors("x", "y")
    out = fn(x, y)
    assert type(out.owner.op.scalar_op).__name__ == cls


def test_no_distribution_at_the_boundary():
    # (a - 1) * log(0) must stay -inf, not a*(-inf) - (-inf) = NaN.
    nu = ot.tensor("nu", shape=(), dtype="int64")
    x = ot.vector("x")
    f = oxtensor.function([nu, x], xlogy(nu / 2 - 1, x))
    out = f(np.int64(3), np.array([0.0, 1.0, 2.0]))
    np.testing.assert_array_equal(out, [-np.inf, 0.0, 0.5 * np.log(2.0)])


def test_integer_inputs_upgrade_to_float():
    x = ot.vector("x", dtype="int32")
    y = ot.vector("y", dtype="int8")
    out = xlogy(x, y)
    assert out.dtype == "float64"
    f = oxtensor.function([x, y], out)
    xv, yv = np.array([0, 2], "int32"), np.array([0, 3], "int8")
    np.testing.assert_allclose(f(xv, yv), sp.xlogy(xv, yv))


@pytest.mark.parametrize("fn", [xlogy, xlog1py])
def test_gradient_matches_finite_differences(fn):
    rng = np.random.default_rng(3)
    verify_grad(fn, [rng.random((3, 4)) + 0.1, rng.random((3, 4)) + 0.1], rng=rng)


def test_gradient_at_the_boundary_is_pytensors():
    x, y = ot.vectors("x", "y")
    gx, gy = grad(xlogy(x, y).sum(), [x, y])
    f = oxtensor.function([x, y], [gx, gy])
    [gxv], [gyv] = f(np.array([0.0]), np.array([0.0]))
    assert gxv == -np.inf
    assert np.isnan(gyv)
    gx, gy = grad(xlog1py(x, y).sum(), [x, y])
    f = oxtensor.function([x, y], [gx, gy])
    [gxv], [gyv] = f(np.array([0.0]), np.array([-1.0]))
    assert gxv == -np.inf
    assert np.isnan(gyv)


def test_complex_inputs_are_refused():
    with pytest.raises(TypeError, match="complex"):
        xlogy(ot.vector(dtype="complex128"), ot.vector())


M = np.array([[3.0, 1.0, 2.0], [0.5, 4.0, -1.0]])


@pytest.mark.parametrize(("fn", "ref"), [(sort, np.sort), (argsort, np.argsort)])
@pytest.mark.parametrize("dtype", ["int8", "int64", "uint8"])
def test_symbolic_axis(fn, ref, dtype):
    a = ot.matrix("a")
    axis = ot.scalar("axis", dtype=dtype)
    f = oxtensor.function([a, axis], fn(a, axis))
    for v in (0, 1):
        np.testing.assert_array_equal(f(M, np.array(v, dtype)), ref(M, v))
    if dtype != "uint8":
        np.testing.assert_array_equal(f(M, np.array(-1, dtype)), ref(M, -1))


def test_symbolic_axis_out_of_bounds_at_run_time():
    a = ot.matrix("a")
    axis = ot.lscalar("axis")
    f = oxtensor.function([a, axis], sort(a, axis))
    with pytest.raises(Exception, match="axis"):
        f(M, 2)


def test_symbolic_axis_gradient():
    axis = ot.constant(np.int64(0))
    rng = np.random.default_rng(4)
    verify_grad(lambda a: sort(a, axis), [rng.random((3, 4))], rng=rng)


def test_constant_axis_is_checked_when_built():
    with pytest.raises(np.exceptions.AxisError, match="out of bounds"):
        sort(ot.matrix(), ot.constant(np.int64(2)))


@pytest.mark.parametrize(("fn", "what"), [(sort, "Sort"), (argsort, "ArgSort")])
def test_axis_dtype_and_rank_errors(fn, what):
    msg = f"^{what} axis must have an integer dtype, got float32"
    with pytest.raises(ValueError, match=msg):
        fn(ot.dmatrix(), ot.fscalar())
    with pytest.raises(ValueError, match="0-d integer"):
        fn(ot.dmatrix(), ot.lvector())


@pytest.mark.parametrize("fn", [sort, argsort])
def test_argument_checks(fn):
    x = ot.matrix("x")
    with pytest.raises(ValueError, match="kind must be one of"):
        fn(x, kind="hanoi")
    msg = "kind and stable cannot be set at the same time"
    with pytest.raises(ValueError, match=msg):
        fn(x, kind="quicksort", stable=True)
    with pytest.raises(ValueError, match="order argument is not applicable"):
        fn(x, order=[])


@pytest.mark.parametrize(
    ("op", "ref"),
    [(Softmax, sp.softmax), (LogSoftmax, sp.log_softmax)],
)
def test_softmax_over_several_axes(op, ref):
    x = ot.tensor3("x")
    out = op(axis=(2, 0))(x)
    assert out.owner.op.axis == (0, 2)
    assert str(out.owner.op) == f"{op.__name__}{{axis=(0, 2)}}"
    xv = np.random.default_rng(5).standard_normal((2, 3, 4))
    f = oxtensor.function([x], out)
    np.testing.assert_allclose(f(xv), ref(xv, axis=(0, 2)), rtol=1e-12)
    verify_grad(op(axis=(0, 2)), [xv], rng=np.random.default_rng(6))


@pytest.mark.parametrize(
    ("fn", "op", "ref"),
    [(softmax, Softmax, sp.softmax), (log_softmax, LogSoftmax, sp.log_softmax)],
)
def test_vectorize_softmax_over_all_elements(fn, op, ref):
    x = ot.tensor(shape=(4, 5))
    bx = ot.tensor(shape=(3, 4, 5))
    new = vectorize_graph(fn(x, axis=None), {x: bx})
    assert isinstance(new.owner.op, op)
    assert new.owner.op.axis == (1, 2)
    xv = np.random.default_rng(7).standard_normal((3, 4, 5))
    got = oxtensor.function([bx], new)(xv)
    np.testing.assert_allclose(got, ref(xv, axis=(1, 2)), rtol=1e-12)


def test_constructed_softmax_axis_checks():
    with pytest.raises(ValueError, match="out of bounds"):
        Softmax(axis=(0, 3))(ot.tensor3())
    # A negative axis is kept as given and normalised per input, as in
    # PyTensor (tests/tensor/test_special.py checks the values).
    assert Softmax(axis=-1)(ot.tensor3()).type.ndim == 3


def test_jax_agrees():
    pytest.importorskip("jax")
    x, y = ot.vectors("x", "y")
    m = ot.tensor3("m")
    outs = [xlogy(x, y), xlog1py(x, y - 1.0)]
    f = oxtensor.function([x, y], outs, mode="JAX")
    got = f(X, Y)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(got[0], sp.xlogy(X, Y))
        np.testing.assert_array_equal(got[1], sp.xlog1py(X, Y - 1.0))
    g = oxtensor.function([m], Softmax(axis=(0, 2))(m), mode="JAX")
    mv = np.random.default_rng(8).random((2, 3, 4))
    np.testing.assert_allclose(g(mv), sp.softmax(mv, axis=(0, 2)), rtol=1e-12)

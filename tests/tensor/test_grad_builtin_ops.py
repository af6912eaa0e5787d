"""Gradients of the built-in ops, checked against NumPy and finite differences:
elemwise (first and second derivatives, float32 dtypes, zero-gradient ops),
broadcasting, DimShuffle, reductions, Reshape, Dot and `ifelse`; a small MLP;
`jacobian`/`hessian`; `Rop`/`pushforward`/`Lop` against the Jacobian; the
gradient markers; and `verify_grad` itself."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from hypothesis import given
from hypothesis import strategies as st
from oxtensor import gradient
from oxtensor.gradient import (
    DisconnectedInputError,
    GradientError,
    Lop,
    NullTypeGradError,
    Rop,
    grad,
    hessian,
    hessian_vector_product,
    jacobian,
    pushforward,
    verify_grad,
)
from oxtensor.graph.basic import Apply
from oxtensor.graph.null_type import NullType
from oxtensor.graph.op import Op
from oxtensor.ifelse import ifelse

from tests.helpers import UnaryPythonOp


def compile_(inputs, outputs):
    return oxtensor.function(inputs, outputs, on_unused_input="ignore")


def close(got, want, rtol=1e-10, atol=1e-12):
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, f"shape {got.shape}, expected {want.shape}"
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def fd_jacobian(fn, x, eps=1e-6):
    """Central finite differences of ``fn`` (array -> array) at ``x``,
    shaped ``fn(x).shape + x.shape``."""
    out_shape = np.shape(fn(x))
    jac = np.zeros((*out_shape, x.size))
    for k in range(x.size):
        plus, minus = x.copy(), x.copy()
        plus.reshape(-1)[k] += eps
        minus.reshape(-1)[k] -= eps
        jac[..., k] = (np.asarray(fn(plus)) - np.asarray(fn(minus))) / (2 * eps)
    return jac.reshape((*out_shape, *x.shape))


def normalize_axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, tuple) else (axis,)
    return tuple(sorted(a % ndim for a in axes))


# --- elemwise: unary ops ---

# name -> (derivative in NumPy, domain: "real" or "positive")
UNARY = {
    "exp": (np.exp, "real"),
    "log": (lambda x: 1 / x, "positive"),
    "log1p": (lambda x: 1 / (1 + x), "positive"),
    "expm1": (np.exp, "real"),
    "sqrt": (lambda x: 0.5 / np.sqrt(x), "positive"),
    "sqr": (lambda x: 2 * x, "real"),
    "neg": (lambda x: -np.ones_like(x), "real"),
    "abs": (np.sign, "real"),
    "sin": (np.cos, "real"),
    "cos": (lambda x: -np.sin(x), "real"),
    "tan": (lambda x: 1 + np.tan(x) ** 2, "real"),
    "tanh": (lambda x: 1 - np.tanh(x) ** 2, "real"),
    "sigmoid": (lambda x: np.exp(-x) / (1 + np.exp(-x)) ** 2, "real"),
    "expit": (lambda x: np.exp(-x) / (1 + np.exp(-x)) ** 2, "real"),
    "softplus": (lambda x: 1 / (1 + np.exp(-x)), "real"),
    "reciprocal": (lambda x: -1 / x**2, "real"),
    "identity": (np.ones_like, "real"),
}


def unary_point(rng, domain, shape=(2, 3), dtype="float64"):
    """Values in [0.2, 1.2) in magnitude (away from 0, the kinks and poles)."""
    x = rng.uniform(0.2, 1.2, size=shape)
    if domain == "real":
        x *= rng.choice([-1.0, 1.0], size=shape)
    return x.astype(dtype)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_grad_matches_numpy_derivative(name):
    deriv, domain = UNARY[name]
    x = ot.dmatrix("x")
    g = grad(getattr(ot, name)(x).sum(), x)
    assert g.type == x.type
    value = unary_point(np.random.default_rng(1), domain)
    close(compile_([x], g)(value), deriv(value))


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_verify_grad(name):
    _, domain = UNARY[name]
    rng = np.random.default_rng(2)
    verify_grad(getattr(ot, name), [unary_point(rng, domain)], rng=rng)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_second_derivative(name):
    """The gradient graph is itself differentiable."""
    _, domain = UNARY[name]
    op = getattr(ot, name)
    rng = np.random.default_rng(3)
    verify_grad(lambda x: grad(op(x).sum(), x), [unary_point(rng, domain)], rng=rng)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_float32(name):
    deriv, domain = UNARY[name]
    x = ot.fmatrix("x")
    g = grad(getattr(ot, name)(x).sum(), x)
    assert g.dtype == "float32"
    rng = np.random.default_rng(4)
    value = unary_point(rng, domain, dtype="float32")
    got = compile_([x], g)(value)
    assert got.dtype == np.float32
    close(got, deriv(value.astype("float64")), rtol=1e-5, atol=1e-6)
    verify_grad(getattr(ot, name), [value], rng=rng)


# --- elemwise: binary ops ---

BINARY = {
    "add": lambda x, y: (np.ones_like(x), np.ones_like(y)),
    "sub": lambda x, y: (np.ones_like(x), -np.ones_like(y)),
    "mul": lambda x, y: (y, x),
    "true_div": lambda x, y: (1 / y, -x / y**2),
    "pow": lambda x, y: (y * x ** (y - 1), x**y * np.log(x)),
    "maximum": lambda x, y: ((x > y) * 1.0, (x < y) * 1.0),
    "minimum": lambda x, y: ((x < y) * 1.0, (x > y) * 1.0),
    "mod": lambda x, y: (np.ones_like(x), -np.floor(x / y)),
}

# x > 0 (for pow), x != y (for maximum/minimum), x / y away from integers (mod).
X_BIN = np.array([[0.3, 1.7, 0.45], [2.3, 0.8, 1.1]])
Y_BIN = np.array([[0.5, 0.4, 0.2], [0.7, 1.3, 0.3]])


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_grad_matches_numpy_derivative(name):
    x, y = ot.dmatrices("x", "y")
    gx, gy = grad(getattr(ot, name)(x, y).sum(), [x, y])
    got = compile_([x, y], [gx, gy])(X_BIN, Y_BIN)
    want = BINARY[name](X_BIN, Y_BIN)
    close(got[0], want[0])
    close(got[1], want[1])


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_verify_grad(name):
    rng = np.random.default_rng(5)
    verify_grad(getattr(ot, name), [X_BIN, Y_BIN], rng=rng)


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("wrt", [0, 1])
def test_binary_second_derivative(name, wrt):
    op = getattr(ot, name)
    rng = np.random.default_rng(6)
    verify_grad(lambda x, y: grad(op(x, y).sum(), [x, y][wrt]), [X_BIN, Y_BIN], rng=rng)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_float32(name):
    x, y = ot.fmatrices("x", "y")
    gx, gy = grad(getattr(ot, name)(x, y).sum(), [x, y])
    assert (gx.dtype, gy.dtype) == ("float32", "float32")
    got = compile_([x, y], [gx, gy])(X_BIN.astype("float32"), Y_BIN.astype("float32"))
    assert [g.dtype for g in got] == [np.float32, np.float32]
    want = BINARY[name](X_BIN, Y_BIN)
    close(got[0], want[0], rtol=1e-5, atol=1e-5)
    close(got[1], want[1], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "make",
    [
        lambda x: x * 2.5,
        lambda x: x / 3,
        lambda x: x**2,
        lambda x: x**2.5,
        lambda x: 2**x,
        lambda x: x * np.float64(2.5),
        lambda x: x.astype("float64") * 2.5,
        lambda x: ot.switch(x > 0, x, 0.0),
        lambda x: ot.maximum(x, 0),
        lambda x: ot.mod(x, 1.5),
        lambda x: x.mean(axis=0),
        lambda x: x.prod(axis=1),
        lambda x: x.max(axis=0),
        lambda x: x.T.reshape((-1,)),
        lambda x: ot.dot(x, x.T),
        lambda x: x + ot.constant(np.ones(3)),
    ],
)
def test_float32_gradients_stay_float32(make):
    x = ot.fmatrix("x")
    g = grad(make(x).sum(), x)
    assert g.dtype == "float32"
    value = np.random.default_rng(7).uniform(0.5, 1.5, size=(2, 3)).astype("float32")
    got = compile_([x], g)(value)
    assert got.dtype == np.float32
    xd = ot.dmatrix("xd")
    want = compile_([xd], grad(make(xd).sum(), xd))(value.astype("float64"))
    close(got, want, rtol=1e-4, atol=1e-5)


# --- elemwise: casts, switch and zero gradients ---


@pytest.mark.parametrize(
    "make",
    [
        ot.floor,
        ot.ceil,
        ot.sign,
        ot.isnan,
        lambda x: ot.int_div(x, 0.7),
        lambda x: ot.lt(x, 0.5),
        lambda x: ot.gt(x, 0.5),
        lambda x: ot.le(x, 0.5),
        lambda x: ot.ge(x, 0.5),
        lambda x: ot.eq(x, 0.5),
        lambda x: ot.neq(x, 0.5),
        lambda x: x.astype("int32"),
        lambda x: x.astype("int64"),
        lambda x: x.astype("uint8"),
        lambda x: x.astype("bool"),
    ],
)
def test_piecewise_constant_ops_have_zero_gradient(make):
    x = ot.dvector("x")
    g = grad(make(x).sum(), x)
    assert g.dtype == "float64"
    close(compile_([x], g)(np.array([0.3, 1.7, -2.2])), np.zeros(3), atol=0)


@pytest.mark.parametrize(
    ("src", "dst"), [("float64", "float32"), ("float32", "float64")]
)
def test_float_casts_pass_the_gradient_in_the_source_dtype(src, dst):
    x = ot.vector("x", dtype=src)
    g = grad((x.astype(dst) ** 2).sum(), x)
    assert g.dtype == src
    value = np.array([0.5, -1.25, 2.0], dtype=src)
    got = compile_([x], g)(value)
    assert got.dtype == np.dtype(src)
    close(got, 2 * value, rtol=1e-6)


def test_second_is_disconnected_from_its_first_input():
    x, y = ot.dvector("x"), ot.dscalar("y")
    with pytest.raises(DisconnectedInputError):
        grad(ot.second(x, y).sum(), x)
    gx, gy = grad(ot.second(x, y).sum(), [x, y], disconnected_inputs="ignore")
    got = compile_([x, y], [gx, gy])(np.ones(4), 2.0)
    close(got[0], np.zeros(4), atol=0)
    close(got[1], 4.0)


def test_switch_routes_the_gradient_by_the_condition():
    x, y = ot.dvectors("x", "y")
    out = ot.switch(ot.gt(x, y), x**2, 3 * y)
    gx, gy = grad(out.sum(), [x, y])
    xv, yv = np.array([1.0, -1.0, 2.0, 0.5]), np.array([0.0, 1.0, 3.0, 0.25])
    got = compile_([x, y], [gx, gy])(xv, yv)
    mask = xv > yv
    close(got[0], np.where(mask, 2 * xv, 0.0))
    close(got[1], np.where(mask, 0.0, 3.0))
    verify_grad(lambda a, b: ot.switch(ot.gt(a, b), a**2, 3 * b), [xv, yv])


def test_switch_with_a_broadcast_condition():
    c, x, y = ot.bvector("c"), ot.dmatrix("x"), ot.dmatrix("y")
    gx, gy = grad(ot.switch(c, x, y).sum(), [x, y])
    cv = np.array([1, 0, 1], dtype="int8")
    got = compile_([c, x, y], [gx, gy])(cv, np.ones((2, 3)), np.ones((2, 3)))
    close(got[0], np.tile(cv, (2, 1)).astype(float))
    close(got[1], 1 - np.tile(cv, (2, 1)).astype(float))


# --- broadcasting ---

# How each axis of b relates to x's: full length, a broadcast 1, or dropped
# (only leading axes can be dropped: b then has fewer dimensions).
PATTERNS = st.integers(1, 3).flatmap(
    lambda nd: st.tuples(
        st.lists(st.integers(1, 4), min_size=nd, max_size=nd),
        st.lists(st.sampled_from(["full", "one"]), min_size=nd, max_size=nd),
        st.integers(0, nd),
    )
)


@given(pattern=PATTERNS, seed=st.integers(0, 2**16), op=st.sampled_from(["mul", "add"]))
def test_broadcast_gradients_sum_over_broadcast_axes(pattern, seed, op):
    shape, kinds, dropped = pattern
    nd = len(shape)
    b_static = tuple(1 if k == "one" else None for k in kinds[dropped:])
    b_shape = tuple(1 if k == "one" else n for k, n in zip(kinds, shape, strict=True))
    b_shape = b_shape[dropped:]
    x = ot.TensorType("float64", shape=(None,) * nd)("x")
    b = ot.TensorType("float64", shape=b_static)("b")
    w = ot.TensorType("float64", shape=(None,) * nd)("w")
    gx, gb = grad((w * getattr(ot, op)(x, b)).sum(), [x, b])
    assert gb.type.shape == b.type.shape
    rng = np.random.default_rng(seed)
    xv, bv, wv = (
        rng.normal(size=shape),
        rng.normal(size=b_shape),
        rng.normal(size=shape),
    )
    got_x, got_b = compile_([x, b, w], [gx, gb])(xv, bv, wv)
    along_b = wv * xv if op == "mul" else wv
    want_b = along_b.sum(axis=tuple(range(dropped)))
    ones = tuple(i for i, n in enumerate(b_static) if n == 1)
    want_b = want_b.sum(axis=ones, keepdims=True)
    close(got_b, want_b)
    close(got_x, wv * bv if op == "mul" else wv)


@pytest.mark.parametrize(
    "b",
    [2.5, np.float64(-1.5), np.array([1.0, -2.0, 0.5]), np.array([[2.0], [3.0]])],
    ids=["float", "np-scalar", "vector", "column"],
)
def test_broadcast_constant_operand(b):
    x = ot.dmatrix("x")
    g = grad((x * b + b).sum(), x)
    close(compile_([x], g)(np.ones((2, 3))), np.broadcast_to(b, (2, 3)))


def test_scalar_operand_of_a_matrix_gets_the_total():
    x, s = ot.dmatrix("x"), ot.dscalar("s")
    gs = grad((x * s + s).sum(), s)
    xv = np.arange(6.0).reshape(2, 3)
    close(compile_([x, s], gs)(xv, 0.5), xv.sum() + 6)


# --- DimShuffle, Reshape ---


@pytest.mark.parametrize(
    ("make", "shape"),
    [
        (lambda x: x.T, (2, 3)),
        (lambda x: x.dimshuffle("x", 0), (4,)),
        (lambda x: x.dimshuffle(0, "x"), (4,)),
        (lambda x: x.dimshuffle(1, "x", 0), (2, 3)),
        (lambda x: x.transpose(2, 0, 1), (2, 3, 4)),
        (lambda x: x.dimshuffle(1, 2, 0), (2, 3, 4)),
        (lambda x: x.reshape((3, 2)), (2, 3)),
        (lambda x: x.reshape((-1,)), (2, 3, 4)),
        (lambda x: x.reshape((4, -1, 2)), (2, 3, 4)),
    ],
)
def test_dimshuffle_and_reshape_gradients(make, shape):
    """grad of sum(w * f(x)) is w moved back: f's inverse applied to w."""
    rng = np.random.default_rng(8)
    x = ot.TensorType("float64", shape=(None,) * len(shape))("x")
    out = make(x)
    w = ot.TensorType("float64", shape=(None,) * out.ndim)("w")
    g = grad((w * out).sum(), x)
    xv = rng.normal(size=shape)
    out_shape = compile_([x], out)(xv).shape
    wv = rng.normal(size=out_shape)
    # f is linear: its Jacobian is f applied to the unit vectors.
    jac = fd_jacobian(compile_([x], out), xv)
    close(compile_([x, w], g)(xv, wv), np.tensordot(wv, jac, axes=wv.ndim), atol=1e-8)
    verify_grad(make, [xv], rng=rng)


def test_dimshuffle_dropping_a_broadcastable_axis():
    r = ot.drow("r")
    g = grad((r.dimshuffle(1) ** 2).sum(), r)
    assert g.type == r.type
    close(compile_([r], g)(np.array([[1.0, 2.0, 3.0]])), [[2.0, 4.0, 6.0]])


# --- reductions ---

AXES = [None, 0, 1, -1, (0, 2), (-1, 0), (0, 1, 2)]


def expand_back(w, axes, shape):
    """``w`` (a reduction's output) broadcast back to the input's ``shape``."""
    return np.broadcast_to(np.expand_dims(w, axes), shape)


@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("name", ["sum", "mean", "max", "min", "prod"])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduction_gradients(name, axis, keepdims):
    rng = np.random.default_rng(9)
    x = ot.dtensor3("x")
    out = getattr(x, name)(axis=axis, keepdims=keepdims)
    w = ot.TensorType("float64", shape=(None,) * out.ndim)("w")
    g = grad((w * out).sum(), x)
    xv = rng.uniform(0.5, 1.5, size=(2, 3, 4)) * rng.choice([-1, 1], size=(2, 3, 4))
    axes = normalize_axes(axis, 3)
    out_np = getattr(np, name)(xv, axis=axes, keepdims=True)
    wv = rng.normal(size=out_np.shape if keepdims else np.squeeze(out_np, axes).shape)
    wk = wv if keepdims else np.expand_dims(wv, axes)
    if name == "sum":
        want = np.broadcast_to(wk, xv.shape)
    elif name == "mean":
        want = np.broadcast_to(wk, xv.shape) / (xv.size / out_np.size)
    elif name in ("max", "min"):
        want = wk * (xv == out_np)
    else:
        want = wk * out_np / xv  # no zeros here
    close(compile_([x, w], g)(xv, wv), want)
    verify_grad(lambda t: getattr(t, name)(axis=axis, keepdims=keepdims), [xv], rng=rng)


def prod_grad_by_definition(xv, axes):
    """d prod(x, axes) / dx_i: the product of the other elements of i's slice."""
    want = np.zeros_like(xv)
    for idx in np.ndindex(xv.shape):
        others = xv.copy()
        others[idx] = 1.0
        want[idx] = np.broadcast_to(others.prod(axis=axes, keepdims=True), xv.shape)[
            idx
        ]
    return want


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2)])
@pytest.mark.parametrize(
    "zeros",
    [
        [],
        [(0, 1, 2)],
        [(0, 1, 2), (1, 0, 3)],
        [(0, 1, 2), (0, 1, 3)],
        [(1, 2, 0), (0, 2, 0)],
    ],
    ids=["none", "one", "two-apart", "two-same-row", "two-same-column"],
)
def test_prod_gradient_with_zeros(axis, zeros):
    xv = np.random.default_rng(10).uniform(0.5, 2.0, size=(2, 3, 4))
    for idx in zeros:
        xv[idx] = 0.0
    x = ot.dtensor3("x")
    g = grad(x.prod(axis=axis).sum(), x)
    want = prod_grad_by_definition(xv, normalize_axes(axis, 3))
    close(compile_([x], g)(xv), want)


def test_max_gradient_of_negative_values():
    x = ot.dmatrix("x")
    xv = np.array([[-3.0, -1.0, -2.0], [-0.5, -4.0, -6.0]])
    g = grad(x.max(axis=-1).sum(), x)
    close(compile_([x], g)(xv), [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])


def test_mean_float32_gradient():
    x = ot.fmatrix("x")
    g = grad(x.mean(axis=(0, 1)), x)
    assert g.dtype == "float32"
    got = compile_([x], g)(np.ones((4, 5), dtype="float32"))
    assert got.dtype == np.float32
    close(got, np.full((4, 5), 1 / 20), rtol=1e-6)


# --- dot ---

DOT_CASES = {
    "vector.vector": ((3,), (3,), lambda a, b, w: (w * b, w * a)),
    "matrix.vector": ((2, 3), (3,), lambda a, b, w: (np.outer(w, b), a.T @ w)),
    "vector.matrix": ((2,), (2, 3), lambda a, b, w: (b @ w, np.outer(a, w))),
    "matrix.matrix": ((2, 3), (3, 4), lambda a, b, w: (w @ b.T, a.T @ w)),
}


@pytest.mark.parametrize("case", sorted(DOT_CASES))
@pytest.mark.parametrize("spelling", ["dot", "method", "matmul"])
def test_dot_gradients(case, spelling):
    sa, sb, analytic = DOT_CASES[case]
    rng = np.random.default_rng(11)
    a = ot.TensorType("float64", shape=(None,) * len(sa))("a")
    b = ot.TensorType("float64", shape=(None,) * len(sb))("b")
    product = {"dot": ot.dot, "method": lambda p, q: p.dot(q)}.get(
        spelling, lambda p, q: p @ q
    )
    out = product(a, b)
    w = ot.TensorType("float64", shape=(None,) * out.ndim)("w")
    ga, gb = grad((w * out).sum(), [a, b])
    av, bv = rng.normal(size=sa), rng.normal(size=sb)
    wv = rng.normal(size=np.dot(av, bv).shape)
    got = compile_([a, b, w], [ga, gb])(av, bv, wv)
    want = analytic(av, bv, wv)
    close(got[0], want[0])
    close(got[1], want[1])
    verify_grad(product, [av, bv], rng=rng)


def test_dot_float32_gradients():
    a, b = ot.fmatrix("a"), ot.fvector("b")
    ga, gb = grad(ot.dot(a, b).sum(), [a, b])
    assert (ga.dtype, gb.dtype) == ("float32", "float32")


# --- ifelse ---


@pytest.mark.parametrize("cond", [1, 0])
def test_ifelse_gradient_follows_the_chosen_branch(cond):
    c, x, y = ot.bscalar("c"), ot.dvector("x"), ot.dvector("y")
    out = ifelse(c, x * y, x**2 + ot.exp(y))
    gx, gy = grad(out.sum(), [x, y])
    xv, yv = np.array([0.5, -1.5]), np.array([2.0, 0.25])
    got = compile_([c, x, y], [gx, gy])(cond, xv, yv)
    want = (yv, xv) if cond else (2 * xv, np.exp(yv))
    close(got[0], want[0])
    close(got[1], want[1])


@pytest.mark.parametrize("cond", [1, 0])
def test_ifelse_with_several_outputs(cond):
    c, x = ot.bscalar("c"), ot.dvector("x")
    a, b = ifelse(c, [x * 2, x**2], [x**3, ot.sin(x)])
    g = grad((a + 3 * b).sum(), x)
    xv = np.array([0.5, 1.5])
    want = 2 + 6 * xv if cond else 3 * xv**2 + 3 * np.cos(xv)
    close(compile_([c, x], g)(cond, xv), want)


@pytest.mark.parametrize("cond", [1, 0])
def test_ifelse_hessian(cond):
    c, x = ot.bscalar("c"), ot.dvector("x")
    h = hessian(ifelse(c, (x**3).sum(), (x**2).sum()), x)
    xv = np.array([1.0, 3.0])
    close(compile_([c, x], h)(cond, xv), np.diag(6 * xv if cond else [2.0, 2.0]))


# --- a small MLP ---


def mlp_numpy(x, t, w1, b1, w2, b2):
    h = np.tanh(x @ w1 + b1)
    o = h @ w2 + b2
    p = 1 / (1 + np.exp(-o))
    squared = np.mean((o - t) ** 2)
    cross_entropy = -np.mean(t * np.log(p) + (1 - t) * np.log(1 - p))
    return squared + cross_entropy


def mlp_symbolic(x, t, w1, b1, w2, b2):
    h = ot.tanh(ot.dot(x, w1) + b1)
    o = ot.dot(h, w2) + b2
    p = ot.sigmoid(o)
    squared = ((o - t) ** 2).mean()
    cross_entropy = -(t * ot.log(p) + (1 - t) * ot.log(1 - p)).mean()
    return squared + cross_entropy


def test_mlp_gradients_match_central_differences():
    rng = np.random.default_rng(12)
    xv, tv = rng.normal(size=(5, 3)), rng.integers(0, 2, size=(5, 2)).astype(float)
    params = [
        rng.normal(size=(3, 4)),
        rng.normal(size=4),
        rng.normal(size=(4, 2)),
        rng.normal(size=2),
    ]
    x, t = ot.dmatrix("x"), ot.dmatrix("t")
    w1, b1, w2, b2 = sym = [
        ot.dmatrix("W1"),
        ot.dvector("b1"),
        ot.dmatrix("W2"),
        ot.dvector("b2"),
    ]
    loss = mlp_symbolic(x, t, w1, b1, w2, b2)
    grads = grad(loss, sym)
    assert [g.type for g in grads] == [p.type for p in sym]
    f = compile_([x, t, *sym], [loss, *grads])
    value, *got = f(xv, tv, *params)
    close(value, mlp_numpy(xv, tv, *params))
    for k, p in enumerate(params):

        def loss_of(v, k=k):
            return mlp_numpy(xv, tv, *params[:k], v, *params[k + 1 :])

        close(got[k], fd_jacobian(loss_of, p), rtol=1e-6, atol=1e-8)
    verify_grad(lambda *ps: mlp_symbolic(xv, tv, *ps), params, rng=rng)


# --- jacobian and hessian ---


def test_hessian_of_a_quadratic_form():
    rng = np.random.default_rng(13)
    av, bv, xv, pv = (rng.normal(size=s) for s in [(4, 4), 4, 4, 4])
    a, x, p = ot.dmatrix("A"), ot.dvector("x"), ot.dvector("p")
    cost = 0.5 * ot.dot(x, ot.dot(a, x)) + ot.dot(ot.constant(bv), x)
    want_h = (av + av.T) / 2
    g, h, hv = grad(cost, x), hessian(cost, x), hessian_vector_product(cost, x, p)
    assert h.type.ndim == 2
    got = compile_([a, x, p], [g, h, hv])(av, xv, pv)
    close(got[0], want_h @ xv + bv)
    close(got[1], want_h)
    close(got[2], want_h @ pv)


def test_hessian_of_a_matrix_and_of_several_variables():
    rng = np.random.default_rng(14)
    m, x, y = ot.dmatrix("m"), ot.dvector("x"), ot.dvector("y")
    mv, xv, yv = rng.normal(size=(2, 3)), rng.normal(size=3), rng.normal(size=3)
    hm = hessian((m**3).sum(), m)
    assert hm.type.ndim == 4
    close(compile_([m], hm)(mv), np.diag(6 * mv.ravel()).reshape(2, 3, 2, 3))
    hx, hy = hessian((x**2 * ot.exp(y)).sum(), [x, y])
    got = compile_([x, y], [hx, hy])(xv, yv)
    close(got[0], np.diag(2 * np.exp(yv)))
    close(got[1], np.diag(xv**2 * np.exp(yv)))


def test_jacobian_of_an_elemwise_square_is_diagonal():
    x = ot.dvector("x")
    j = jacobian(x**2, x)
    assert j.type.ndim == 2
    xv = np.array([1.0, -2.0, 0.5])
    close(compile_([x], j)(xv), np.diag(2 * xv))


@pytest.mark.parametrize(
    ("make", "wrt_shape"),
    [
        (lambda m: ot.exp(m), (2, 3)),
        (lambda m: ot.dot(m, m.T), (2, 3)),
        (lambda m: m.sum(axis=0), (2, 3)),
        (lambda v: ot.dot(v.dimshuffle(0, "x"), v.dimshuffle("x", 0)), (3,)),
        (lambda v: v.reshape((2, 2)) * 3, (4,)),
        (lambda t: t.max(axis=1), (2, 3, 2)),
    ],
)
def test_jacobian_shape_and_values(make, wrt_shape):
    rng = np.random.default_rng(15)
    x = ot.TensorType("float64", shape=(None,) * len(wrt_shape))("x")
    y = make(x)
    j = jacobian(y, x)
    assert j.type.ndim == y.ndim + x.ndim
    xv = rng.normal(size=wrt_shape)
    got = compile_([x], j)(xv)
    want = fd_jacobian(compile_([x], y), xv)
    assert got.shape == want.shape == (*compile_([x], y)(xv).shape, *wrt_shape)
    close(got, want, rtol=1e-6, atol=1e-8)


def test_jacobian_of_a_scalar_is_the_gradient_and_lists_keep_their_form():
    x, y = ot.dvector("x"), ot.dvector("y")
    xv, yv = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    j = jacobian((x * y).sum(), x)
    close(compile_([x, y], j)(xv, yv), yv)
    jl = jacobian(x * y, [x, y])
    jt = jacobian(x * y, (x, y))
    assert isinstance(jl, list)
    assert isinstance(jt, tuple)
    got = compile_([x, y], [*jl, *jt])(xv, yv)
    for g, want in zip(got, [np.diag(yv), np.diag(xv)] * 2, strict=True):
        close(g, want)


def test_jacobian_float32():
    x = ot.fvector("x")
    j = jacobian(x**2, x)
    assert j.dtype == "float32"
    got = compile_([x], j)(np.array([1.0, 2.0], dtype="float32"))
    assert got.dtype == np.float32
    close(got, np.diag([2.0, 4.0]))


# --- Rop, pushforward and Lop against the Jacobian ---

VECTOR_FUNCTIONS = {
    "exp*x": lambda x: ot.exp(x) * x,
    "sqr": lambda x: x**2,
    "tanh/sin": lambda x: ot.tanh(x) / (2 + ot.sin(x)),
    "dot-const": lambda x: ot.dot(ot.constant(np.arange(12.0).reshape(2, 6)), x),
    "dot-self": lambda x: ot.dot(x, x),
    "sum": lambda x: x.sum(),
    "reshape": lambda x: x.reshape((2, 3)),
    "dimshuffle": lambda x: x.dimshuffle("x", 0),
    "max": lambda x: x.max(),
    "max-axis": lambda x: x.reshape((2, 3)).max(axis=1),
    "prod": lambda x: x.prod(),
    "prod-axis": lambda x: x.reshape((3, 2)).prod(axis=0),
    "mean": lambda x: x.reshape((2, 3)).mean(axis=-1),
    "switch": lambda x: ot.switch(ot.gt(x, 0), x**3, -x),
    "maximum": lambda x: ot.maximum(x, 0.1) * x,
    "softplus": lambda x: ot.softplus(x) + ot.sigmoid(x),
    "cast": lambda x: (x.astype("float32") * 2).astype("float64"),
}

# The tangent or cotangent passes through float32 in "cast".
VECTOR_RTOL = {"cast": 1e-6}

MATRIX_FUNCTIONS = {
    "T": lambda m: m.T,
    "gram": lambda m: ot.dot(m, m.T),
    "sum0": lambda m: m.sum(axis=0),
    "prod1": lambda m: m.prod(axis=1),
    "min-1": lambda m: m.min(axis=-1),
    "tanh": lambda m: ot.tanh(m),
    "reshape": lambda m: m.reshape((4, 3)),
    "broadcast": lambda m: m * ot.constant(np.array([1.0, 2.0, 3.0, 4.0])),
}

FORWARD_MODES = {
    "Rop": lambda f, x, v: Rop(f, x, v),
    "pushforward": lambda f, x, v: pushforward(f, x, v),
    "pushforward-op": lambda f, x, v: pushforward(f, x, v, use_op_pushforward=True),
}

X_VEC = np.array([0.3, -1.2, 0.8, 2.0, -0.4, 1.1])
V_VEC = np.array([1.0, 0.5, -2.0, 0.25, 3.0, -1.0])


@pytest.mark.parametrize(
    ("functions", "name"),
    [("vector", n) for n in sorted(VECTOR_FUNCTIONS) if n != "cast"]
    + [("matrix", n) for n in sorted(MATRIX_FUNCTIONS)],
)
def test_jacobian_matches_finite_differences(functions, name):
    """The reference the forward- and reverse-mode tests below compare with."""
    if functions == "vector":
        x, xv = ot.dvector("x"), X_VEC
        f = VECTOR_FUNCTIONS[name](x)
    else:
        x, xv = ot.dmatrix("m"), np.random.default_rng(16).normal(size=(3, 4))
        f = MATRIX_FUNCTIONS[name](x)
    got = compile_([x], jacobian(f, x))(xv)
    close(got, fd_jacobian(compile_([x], f), xv), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("mode", sorted(FORWARD_MODES))
@pytest.mark.parametrize("name", sorted(VECTOR_FUNCTIONS))
def test_forward_mode_equals_jacobian_times_vector(name, mode):
    x, v = ot.dvector("x"), ot.dvector("v")
    f = VECTOR_FUNCTIONS[name](x)
    jv = FORWARD_MODES[mode](f, x, v)
    assert jv.type.ndim == f.ndim
    got = compile_([x, v], jv)(X_VEC, V_VEC)
    jac = compile_([x], jacobian(f, x))(X_VEC)
    close(got, np.tensordot(jac, V_VEC, axes=1), rtol=VECTOR_RTOL.get(name, 1e-10))


@pytest.mark.parametrize("mode", sorted(FORWARD_MODES))
@pytest.mark.parametrize("name", sorted(MATRIX_FUNCTIONS))
def test_forward_mode_on_matrices(name, mode):
    rng = np.random.default_rng(16)
    m, v = ot.dmatrix("m"), ot.dmatrix("v")
    f = MATRIX_FUNCTIONS[name](m)
    mv, vv = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    got = compile_([m, v], FORWARD_MODES[mode](f, m, v))(mv, vv)
    jac = compile_([m], jacobian(f, m))(mv)
    close(got, np.tensordot(jac, vv, axes=2))


@pytest.mark.parametrize("mode", sorted(FORWARD_MODES))
def test_forward_mode_with_several_outputs_and_inputs(mode):
    x, y, v, w = ot.dvectors("x", "y", "v", "w")
    fs = [x * y, ot.exp(x) + y**2]
    push = FORWARD_MODES[mode]
    outs = push(fs, [x, y], [v, w])
    assert isinstance(outs, list)
    assert len(outs) == 2
    xv, yv = np.array([0.5, -1.0]), np.array([2.0, 3.0])
    vv, wv = np.array([1.0, 2.0]), np.array([-1.0, 0.5])
    got = compile_([x, y, v, w], outs)(xv, yv, vv, wv)
    close(got[0], vv * yv + xv * wv)
    close(got[1], np.exp(xv) * vv + 2 * yv * wv)


@pytest.mark.parametrize("name", sorted(VECTOR_FUNCTIONS))
def test_lop_equals_vector_times_jacobian(name):
    x = ot.dvector("x")
    f = VECTOR_FUNCTIONS[name](x)
    u = ot.TensorType("float64", shape=(None,) * f.ndim)("u")
    vjp = Lop(f, x, u)
    assert (vjp.type.ndim, vjp.dtype) == (1, "float64")
    jac = compile_([x], jacobian(f, x))(X_VEC)
    uv = np.random.default_rng(17).normal(size=jac.shape[: f.ndim])
    got = compile_([x, u], vjp)(X_VEC, uv)
    close(got, np.tensordot(uv, jac, axes=f.ndim), rtol=VECTOR_RTOL.get(name, 1e-10))


@pytest.mark.parametrize("name", sorted(MATRIX_FUNCTIONS))
def test_lop_on_matrices(name):
    rng = np.random.default_rng(18)
    m = ot.dmatrix("m")
    f = MATRIX_FUNCTIONS[name](m)
    u = ot.TensorType("float64", shape=(None,) * f.ndim)("u")
    mv = rng.normal(size=(3, 4))
    jac = compile_([m], jacobian(f, m))(mv)
    uv = rng.normal(size=jac.shape[: f.ndim])
    close(compile_([m, u], Lop(f, m, u))(mv, uv), np.tensordot(uv, jac, axes=f.ndim))


def test_lop_with_several_outputs_and_inputs():
    x, y, u1, u2 = ot.dvectors("x", "y", "u1", "u2")
    gx, gy = Lop([x * y, ot.exp(x)], [x, y], [u1, u2])
    xv, yv = np.array([0.5, -1.0]), np.array([2.0, 3.0])
    uv1, uv2 = np.array([1.0, 2.0]), np.array([-1.0, 0.5])
    got = compile_([x, y, u1, u2], [gx, gy])(xv, yv, uv1, uv2)
    close(got[0], uv1 * yv + uv2 * np.exp(xv))
    close(got[1], uv1 * xv)


@pytest.mark.parametrize("op", ["floor", "ceil", "sign"])
def test_rop_of_a_piecewise_constant_op_is_zero(op):
    x, v = ot.dvector("x"), ot.dvector("v")
    jv = Rop(getattr(ot, op)(x), x, v)
    close(compile_([x, v], jv)(np.array([0.3, 1.7]), np.array([1.0, 2.0])), [0.0, 0.0])


# --- the gradient markers ---

MARKERS = {
    "zero_grad": gradient.zero_grad,
    "consider_constant": gradient.consider_constant,
    "disconnected_grad": gradient.disconnected_grad,
    "undefined_grad": gradient.undefined_grad,
    "grad_clip": lambda x: gradient.grad_clip(x, -1.0, 2.0),
    "grad_scale": lambda x: gradient.grad_scale(x, 3.0),
}


@pytest.mark.parametrize("name", sorted(MARKERS))
def test_markers_are_the_identity_forward(name):
    x = ot.dmatrix("x")
    out = MARKERS[name](x)
    assert out.type == x.type
    xv = np.array([[1.0, -2.0], [3.5, 0.0]])
    got = compile_([x], out * 1)(xv)
    close(got, xv, atol=0, rtol=0)


@pytest.mark.parametrize("name", ["zero_grad", "consider_constant"])
def test_zero_grad_blocks_only_its_own_path(name):
    mark = MARKERS[name]
    x, y = ot.dvectors("x", "y")
    xv, yv = np.array([0.5, -2.0]), np.array([3.0, 1.5])
    gx, gy = grad((mark(x) * y).sum(), [x, y])
    got = compile_([x, y], [gx, gy])(xv, yv)
    close(got[0], np.zeros(2), atol=0)
    close(got[1], xv)
    g = grad((mark(x) * x**2).sum(), x)
    close(compile_([x], g)(xv), 2 * xv * xv)
    h = hessian((mark(x) * x**2).sum(), x)
    close(compile_([x], h)(xv), np.diag(2 * xv))


def test_consider_constant_argument_of_grad():
    x, y = ot.dvectors("x", "y")
    z = x * y
    g = grad((z * x).sum(), x, consider_constant=[z])
    xv, yv = np.array([0.5, -2.0]), np.array([3.0, 1.5])
    close(compile_([x, y], g)(xv, yv), xv * yv)


def test_disconnected_grad():
    x, y = ot.dvectors("x", "y")
    cost = (gradient.disconnected_grad(x) * y).sum()
    with pytest.raises(DisconnectedInputError):
        grad(cost, x)
    with pytest.raises(DisconnectedInputError):
        grad(cost, [x, y])
    gx, gy = grad(cost, [x, y], disconnected_inputs="ignore")
    xv, yv = np.array([0.5, -2.0]), np.array([3.0, 1.5])
    got = compile_([x, y], [gx, gy])(xv, yv)
    close(got[0], np.zeros(2), atol=0)
    close(got[1], xv)
    g = grad((gradient.disconnected_grad(x) * x).sum(), x)
    close(compile_([x], g)(xv), xv)


def test_undefined_grad():
    x, y = ot.dvectors("x", "y")
    cost = (gradient.undefined_grad(x) * y).sum()
    assert issubclass(NullTypeGradError, TypeError)
    with pytest.raises(NullTypeGradError, match="undefined"):
        grad(cost, x)
    with pytest.raises(TypeError):
        grad(cost, [y, x])
    gy = grad(cost, y)
    close(compile_([x, y], gy)(np.array([0.5, 2.0]), np.ones(2)), [0.5, 2.0])
    gx, _ = grad(cost, [x, y], null_gradients="return")
    assert isinstance(gx.type, NullType)


def test_grad_clip():
    m = ot.dmatrix("m")
    mv = np.array([[-2.0, -0.5], [0.5, 1.5]])
    g = grad((gradient.grad_clip(m, -1.0, 2.0) ** 3).sum(), m)
    close(compile_([m], g)(mv), np.clip(3 * mv**2, -1.0, 2.0))
    g = grad((gradient.grad_clip(m, -1.0, 2.0) * -3).sum(), m)
    close(compile_([m], g)(mv), np.full((2, 2), -1.0))
    # Only the gradient flowing through the marker is clipped.
    g = grad((gradient.grad_clip(m, -0.1, 0.1) * 5 + m * 5).sum(), m)
    close(compile_([m], g)(mv), np.full((2, 2), 5.1))


@pytest.mark.parametrize("multiplier", [3.0, -0.5, 0.0])
def test_grad_scale(multiplier):
    x = ot.dvector("x")
    xv = np.array([0.5, -2.0, 1.0])
    g = grad((gradient.grad_scale(x, multiplier) ** 2).sum(), x)
    close(compile_([x], g)(xv), multiplier * 2 * xv)
    g = grad((gradient.grad_scale(x**2, multiplier) + x).sum(), x)
    close(compile_([x], g)(xv), multiplier * 2 * xv + 1)


@pytest.mark.parametrize("name", ["zero_grad", "disconnected_grad"])
@pytest.mark.parametrize("mode", sorted(FORWARD_MODES))
def test_forward_mode_through_blocking_markers(name, mode):
    """No tangent flows through a marker that blocks the gradient."""
    x, v = ot.dvectors("x", "v")
    f = MARKERS[name](x) * x
    xv, vv = np.array([0.5, -2.0]), np.array([3.0, 1.5])
    close(compile_([x, v], FORWARD_MODES[mode](f, x, v))(xv, vv), xv * vv)


# --- verify_grad itself ---


class Square(UnaryPythonOp):
    """x ** 2 through NumPy, with a gradient ``factor * x * g`` (2 is right)."""

    __props__ = ("factor",)

    def __init__(self, factor: float = 2.0) -> None:
        self.factor = factor

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = np.asarray(inputs[0] ** 2)

    def grad(self, inputs, output_grads):
        return [output_grads[0] * self.factor * inputs[0]]


class ScaledProduct(Op):
    """x * y through NumPy; the gradient of y is off by ``error``."""

    __props__ = ("error",)

    def __init__(self, error: float) -> None:
        self.error = error

    def make_node(self, x, y):
        x, y = ot.as_tensor_variable(x), ot.as_tensor_variable(y)
        return Apply(self, [x, y], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = np.asarray(inputs[0] * inputs[1])

    def grad(self, inputs, output_grads):
        (x, y), (g,) = inputs, output_grads
        return [g * y, g * x * (1 + self.error)]


def test_verify_grad_passes_for_a_correct_python_op():
    rng = np.random.default_rng(19)
    verify_grad(Square(), [rng.normal(size=(2, 3))], rng=rng)
    verify_grad(ScaledProduct(0.0), [rng.normal(size=3), rng.normal(size=3)], rng=rng)


def test_verify_grad_fails_for_a_wrong_python_op():
    rng = np.random.default_rng(20)
    point = rng.uniform(0.5, 1.5, size=(2, 3))
    with pytest.raises(GradientError) as info:
        verify_grad(Square(3.0), [point], rng=rng)
    error = info.value
    assert error.arg == 0
    assert error.shape == (2, 3)
    assert error.abs_err > error.abs_tol
    assert error.rel_err > error.rel_tol
    assert "argument 0" in str(error)


def test_verify_grad_names_the_wrong_argument():
    rng = np.random.default_rng(21)
    pt = [rng.uniform(0.5, 1.5, size=3), rng.uniform(0.5, 1.5, size=3)]
    with pytest.raises(GradientError) as info:
        verify_grad(ScaledProduct(1e-2), pt, rng=rng)
    assert info.value.arg == 1
    assert "argument 1" in str(info.value)


def test_verify_grad_tolerances():
    rng = np.random.default_rng(22)
    pt = [rng.uniform(0.5, 1.5, size=3), rng.uniform(0.5, 1.5, size=3)]
    # A relative error of 1e-3 is above float64's default tolerance (1e-4)...
    with pytest.raises(GradientError):
        verify_grad(ScaledProduct(1e-3), pt, rng=rng)
    # ...but within a looser one, and 1e-7 is within the default.
    verify_grad(ScaledProduct(1e-3), pt, rng=rng, abs_tol=1e-2, rel_tol=1e-2)
    verify_grad(ScaledProduct(1e-7), pt, rng=rng)


def test_verify_grad_catches_a_wrong_op_inside_a_graph():
    rng = np.random.default_rng(23)
    point = rng.uniform(0.5, 1.5, size=4)
    verify_grad(lambda x: ot.exp(Square()(x)).sum(), [point], rng=rng)
    with pytest.raises(GradientError):
        verify_grad(lambda x: ot.exp(Square(2.1)(x)).sum(), [point], rng=rng)


def test_python_op_gradient_in_grad():
    x = ot.dvector("x")
    g = grad((Square()(x) * 3).sum(), x)
    close(compile_([x], g)(np.array([1.0, -2.0])), [6.0, -12.0])

"""The vectorised trigonometric and hyperbolic kernels (``kernels/vmath``:
sin, cos, tan, arcsin, arccos, arctan, arctan2, sinh, cosh, tanh, arcsinh, arccosh,
arctanh) against a long-double reference in ulps, and
against NumPy on special values (NaN, infinities, signed zeros, domain
errors, arctan2's quadrants), on contiguous, strided, broadcast, 0-d and
empty inputs, in fused expressions, and on sizes on both sides of the
threshold where loops split across threads."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest

# Below this many elements a loop runs on one thread (kernels::PARALLEL_MIN).
PARALLEL_MIN = 1 << 16
SIZES = [1, 7, 64, 1000, PARALLEL_MIN + 3]
# name -> log2 of the smallest and largest magnitude tested (arccosh: of
# x - 1)
UNARY = {
    "sin": (-30, 21),
    "cos": (-30, 21),
    "tan": (-30, 21),
    "arcsin": (-30, 0),
    "arccos": (-30, 0),
    "arctan": (-40, 40),
    "sinh": (-40, 9.4),
    "cosh": (-40, 9.4),
    "tanh": (-40, 5),
    "arcsinh": (-60, 60),
    "arccosh": (-50, 60),
    "arctanh": (-60, 0),
}
# Stated bounds: float64 within 2 ulp of libm's (itself within 1 of the
# correctly rounded value; the long-double reference is exact to 2^-64);
# float32 computed in float64 and rounded once, but sin, cos, tan, sinh,
# cosh and tanh in float32 (measured on every float32 in their fast range:
# 1.56, 1.56, 2.49, 1.62, 1.51, 1.2 ulp).
MAX_ULP = {"float64": 3.0, "float32": 1.0}
F32_ULP = {"sin": 1.6, "cos": 1.6, "tan": 2.5, "sinh": 1.7, "cosh": 1.6, "tanh": 1.5}
F32_ULP["arctan"] = 1.5  # measured 1.47 over every third float32 in [2^-12, 2^14]
# float32 pairs into a float32 logarithm: measured 0.548, 0.542 and 0.541 ulp
# over every float32 (the FMA builds; the baseline one computes in float64).
F32_ULP |= {"arcsinh": 0.55, "arccosh": 0.55, "arctanh": 0.55}
# The baseline build (OXTENSOR_SIMD=baseline, or a CPU without AVX2) has no
# FMA: float32 sin, cos and tan round each float32 step separately, and
# reach 2.08, 1.89 and 2.97 ulp on this file's inputs (the same bits on
# every x86-64 CPU: SSE2 arithmetic only).
F32_BASELINE_ULP = {"sin": 2.5, "cos": 2.5, "tan": 3.5}
BASELINE = oxtensor._core._simd()[0] == "baseline"
EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -3.5, 1e-310, -1e-310, 1e300]
EDGES += [np.inf, -np.inf, np.nan, 1e6, -2e6, 1e22]


def log_uniform(n, lo, hi, seed=0):
    rng = np.random.default_rng(seed)
    mag = np.exp2(rng.uniform(lo, hi, n))
    return np.where(rng.random(n) < 0.5, -mag, mag)


def compiled(name, dtype, nargs=1):
    xs = [ot.vector(f"x{i}", dtype=dtype) for i in range(nargs)]
    return oxtensor.function(xs, getattr(ot, name)(*xs))


def reference(name, *args):
    """NumPy's function in long double (80-bit here), ignoring warnings."""
    with np.errstate(all="ignore"):
        return getattr(np, name)(*(np.asarray(a, np.longdouble) for a in args))


def bound(name, dtype):
    """The ulp bound of `name` in `dtype` against the long-double reference,
    for the SIMD build this process runs."""
    if dtype != "float32":
        return MAX_ULP[dtype]
    if BASELINE and name in F32_BASELINE_ULP:
        return F32_BASELINE_ULP[name]
    return F32_ULP.get(name, 1.0)


def assert_ulps(got, want, dtype, bound):
    """`got` within `bound` ulp (of `dtype`) of `want`; NaN where it is NaN."""
    assert got.dtype == np.dtype(dtype)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    got, want = got[ok], want[ok]
    with np.errstate(over="ignore"):
        rounded = want.astype(dtype)
    # Results past the type's range: exactly the infinity.
    inf = np.isinf(rounded)
    np.testing.assert_array_equal(got[inf], rounded[inf])
    got, want, rounded = got[~inf], want[~inf], rounded[~inf]
    spacing = np.spacing(np.abs(rounded)).astype(np.longdouble)
    err = np.abs(got.astype(np.longdouble) - want) / spacing
    worst = int(np.argmax(err)) if err.size else 0
    assert err.size == 0 or err[worst] <= bound, (
        f"{err[worst]} ulp at {got[worst]!r} (reference {want[worst]!r})"
    )


def assert_same_specials(got, want):
    """NaN, infinities and signed zeros exactly where NumPy has them."""
    want = np.asarray(want)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    special = np.isinf(want) | (want == 0)
    np.testing.assert_array_equal(got[special], want[special])
    assert np.array_equal(np.signbit(got[special]), np.signbit(want[special]))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_within_ulps_of_long_double(name, dtype):
    lo, hi = UNARY[name]
    x = log_uniform(PARALLEL_MIN + 5000, lo, hi)
    if name in ("arcsin", "arccos", "arctanh"):
        x = np.concatenate([x, np.random.default_rng(1).uniform(-1, 1, 5000)])
    if name == "arccosh":
        x = 1 + np.abs(x)
    x = x.astype(dtype)
    got = compiled(name, dtype)(x)
    assert_ulps(got, reference(name, x), dtype, bound(name, dtype))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_arctan2_within_ulps_of_long_double(dtype):
    y = log_uniform(PARALLEL_MIN + 5000, -60, 60, seed=2).astype(dtype)
    x = log_uniform(PARALLEL_MIN + 5000, -60, 60, seed=3).astype(dtype)
    got = compiled("arctan2", dtype, 2)(y, x)
    assert_ulps(got, reference("arctan2", y, x), dtype, MAX_ULP[dtype])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_special_values_as_numpy(name, dtype):
    with np.errstate(all="ignore"):
        x = np.array(EDGES).astype(dtype)
    got = compiled(name, dtype)(x)
    with np.errstate(all="ignore"):
        want = getattr(np, name)(x)
    assert_same_specials(got, want)
    assert_ulps(got, reference(name, x), dtype, bound(name, dtype))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_arctan2_quadrants_and_signed_zeros_as_numpy(dtype):
    e = np.array([0.0, -0.0, 1.0, -1.0, 0.3, np.inf, -np.inf, np.nan, 1e-310, 1e305])
    with np.errstate(all="ignore"):
        y, x = (a.ravel().astype(dtype) for a in np.meshgrid(e, e))
    got = compiled("arctan2", dtype, 2)(y, x)
    with np.errstate(all="ignore"):
        want = np.arctan2(y, x)
    assert_same_specials(got, want)
    assert_ulps(got, reference("arctan2", y, x), dtype, MAX_ULP[dtype])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_contiguous_strided_and_sizes(name, n, dtype):
    x = np.random.default_rng(n).uniform(-0.99, 0.99, 2 * n)
    x = (1 + np.abs(x) if name == "arccosh" else x).astype(dtype)
    f = compiled(name, dtype)
    for part in [x[:n], x[::2], x[::-2]]:
        assert_ulps(f(part), reference(name, part), dtype, bound(name, dtype))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_arctan2_broadcast_strided_scalar_operands(dtype):
    rng = np.random.default_rng(5)
    a = rng.uniform(-3, 3, (300, 250)).astype(dtype)
    row = rng.uniform(-3, 3, 250).astype(dtype)
    y, x = ot.matrix("y", dtype=dtype), ot.vector("x", dtype=dtype)
    f = oxtensor.function([y, x], ot.arctan2(y, x))
    g = oxtensor.function([y], ot.arctan2(y, np.array(0.7, dtype)))
    h = oxtensor.function([y], ot.arctan2(np.array(-0.7, dtype), y))
    bound = MAX_ULP[dtype]
    assert_ulps(f(a, row), reference("arctan2", a, row), dtype, bound)
    assert_ulps(f(a.T[:250, :300].T, row), reference("arctan2", a, row), dtype, bound)
    assert_ulps(f(a[:, ::-1], row), reference("arctan2", a[:, ::-1], row), dtype, bound)
    assert_ulps(g(a), reference("arctan2", a, np.array(0.7, dtype)), dtype, bound)
    assert_ulps(h(a), reference("arctan2", np.array(-0.7, dtype), a), dtype, bound)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_zero_dim_and_empty(name):
    s = ot.scalar("s", dtype="float64")
    f = oxtensor.function([s], getattr(ot, name)(s))
    v = np.float64(1.25 if name == "arccosh" else 0.25)
    got = f(v)
    assert got.shape == ()
    assert_ulps(np.asarray(got), reference(name, v), "float64", MAX_ULP["float64"])
    empty = compiled(name, "float64")(np.zeros(0))
    assert empty.shape == (0,)
    assert empty.dtype == np.float64


@pytest.mark.parametrize("n", [10, 64, 65, PARALLEL_MIN + 1])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_fused_expression(n, dtype):
    x, y = ot.vector("x", dtype=dtype), ot.vector("y", dtype=dtype)
    expr = ot.tan(x) * 2 + ot.arcsin(x / 2) - ot.arctan2(y, x) + ot.arccos(y * 0.5)
    expr = expr + ot.sinh(x) * ot.cosh(y) - ot.arcsinh(y) + ot.arctanh(x / 2)
    expr = ot.tanh(expr) + ot.arccosh(2 + y * y)
    f = oxtensor.function([x, y], ot.arctan(expr))
    rng = np.random.default_rng(n)
    a = rng.uniform(-1.5, 1.5, n).astype(dtype)
    b = rng.uniform(-1.5, 1.5, n).astype(dtype)
    with np.errstate(all="ignore"):
        e = np.tan(a) * 2 + np.arcsin(a / 2) - np.arctan2(b, a) + np.arccos(b * 0.5)
        e = e + np.sinh(a) * np.cosh(b) - np.arcsinh(b) + np.arctanh(a / 2)
        want = np.arctan(np.tanh(e) + np.arccosh(2 + b * b))
    got = f(a, b)
    assert got.dtype == np.dtype(dtype)
    tol = 1e-12 if dtype == "float64" else 5e-5
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)

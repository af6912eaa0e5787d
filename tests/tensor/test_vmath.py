"""The vectorised exp/log family, ``pow``, ``sigmoid`` and ``softplus``
(``kernels/vmath``) against NumPy within a few ulp: float32 and float64,
contiguous, strided, transposed and broadcast inputs, sizes on both sides of
the threading threshold (2**16 elements) and of the tiny fused path (64),
edge values (NaN, infinities, signed zeros, subnormals, overflow and
underflow thresholds, out-of-domain arguments), NumPy's special cases of
``pow``, and fused expressions."""

import io
import os
import subprocess
import sys

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
import scipy.special as sp

from tests.helpers import SPECIAL_FLOATS


def expit(v):
    """The logistic function without SciPy's underflow to 0 below -709
    (``1 / (1 + exp(-v))`` there is ``exp(v)``, a subnormal)."""
    with np.errstate(over="ignore"):
        e = np.exp(-np.abs(v))
        return np.where(v >= 0, 1 / (1 + e), e / (1 + e))


# name -> (NumPy's function, a domain of log-uniform magnitudes or values)
FUNCS = {
    "exp": (np.exp, (-750, 720)),
    "exp2": (np.exp2, (-1080, 1030)),
    "expm1": (np.expm1, (-750, 720)),
    "log": (np.log, None),
    "log2": (np.log2, None),
    "log10": (np.log10, None),
    "log1p": (np.log1p, None),
    "sigmoid": (expit, (-750, 720)),
    "softplus": (lambda v: np.logaddexp(0, v), (-750, 720)),
}
SIZES = [5, 1000, 70_000]  # tiny fused path, one thread, several threads
EDGES = [
    *SPECIAL_FLOATS,
    0.5,
    2.0,
    1e-300,
    5e-324,
    2.2250738585072014e-308,
    709.78,
    709.79,
    -745.13,
    -745.14,
    88.72,
    88.73,
    -103.97,
    1 + 2**-52,
    1 - 2**-53,
    -(1 - 2**-53),
    1e-17,
    -1e-17,
    1e300,
    -1e300,
]


def ulps(got, want):
    """Distance in units of ``want``'s last place (NaN to NaN and equal
    infinities 0, a NaN against a number infinite)."""
    got, want = np.asarray(got), np.asarray(want)
    with np.errstate(all="ignore"):
        d = np.abs(got.astype(np.float64) - want) / np.spacing(np.abs(want))
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    return np.where(same, 0.0, np.where(np.isnan(d), np.inf, d))


def assert_ulps(got, want, within, x=None):
    d = ulps(got, want)
    bad = np.flatnonzero(d > within)
    if bad.size:
        i = bad[0]
        at = "" if x is None else f" at x={np.ravel(x)[i]!r}"
        raise AssertionError(
            f"{bad.size} elements off by more than {within} ulp, first{at}: "
            f"{np.ravel(got)[i]!r} vs {np.ravel(want)[i]!r}"
        )


def values(name, size, dtype, seed=0):
    rng = np.random.default_rng(seed)
    domain = FUNCS[name][1]
    if domain is None:  # the logarithms: magnitudes over the whole range
        v = 2.0 ** rng.uniform(-1074, 1023, size) * rng.choice([1, 1, 1, -1], size)
        v[::3] = 1 + rng.uniform(-0.5, 0.5, v[::3].size)
    else:
        v = rng.uniform(*domain, size)
        n = v[::3].size
        v[::3] = 2.0 ** rng.uniform(-60, 8, n) * rng.choice([-1, 1], n)
    v[: len(EDGES)] = np.array(EDGES)[: min(size, len(EDGES))]
    with np.errstate(all="ignore"):
        return v.astype(dtype)


def reference(name, v):
    """NumPy's result, for float32 computed in float64 and rounded once
    (NumPy's own float32 loops are a few ulp off)."""
    with np.errstate(all="ignore"):
        return FUNCS[name][0](v.astype(np.float64)).astype(v.dtype)


def compiled(name, dtype, ndim=1):
    x = ot.tensor("x", dtype=dtype, shape=(None,) * ndim)
    return oxtensor.function([x], getattr(ot, name)(x))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("name", sorted(FUNCS))
def test_contiguous_values(name, size, dtype):
    v = values(name, size, dtype)
    out = compiled(name, dtype)(v)
    assert out.dtype == dtype
    assert_ulps(out, reference(name, v), 4, v)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(FUNCS))
def test_strided_and_transposed_inputs_give_the_contiguous_bits(name, dtype):
    v = values(name, 2 * 300 * 250, dtype, seed=3)
    f = compiled(name, dtype)
    whole = f(v)
    np.testing.assert_array_equal(f(v[::2]), whole[::2])
    m = v[: 300 * 250].reshape(300, 250)
    out = compiled(name, dtype, 2)(m.T)
    np.testing.assert_array_equal(out, whole[: 300 * 250].reshape(300, 250).T)


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_signed_zeros_and_edges(name):
    v = np.array(EDGES)
    out = compiled(name, "float64")(v)
    want = reference(name, v)
    assert_ulps(out, want, 2, v)
    zeros = want == 0
    np.testing.assert_array_equal(np.signbit(out[zeros]), np.signbit(want[zeros]))


POW_BASES = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 2.5, -2.5]
POW_LARGE = [1e300, -1e300, 2.0**53, 2.0**53 + 2, 2.0**52 + 1, 1e-310]
POW_SPECIAL = np.array([*POW_BASES, *POW_LARGE, np.inf, -np.inf, np.nan])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_pow_special_cases_as_numpy(dtype):
    x, y = np.meshgrid(POW_SPECIAL, POW_SPECIAL)
    with np.errstate(all="ignore"):
        x, y = x.ravel().astype(dtype), y.ravel().astype(dtype)
        want = np.power(x.astype(np.float64), y.astype(np.float64)).astype(dtype)
    a, b = ot.vector("a", dtype=dtype), ot.vector("b", dtype=dtype)
    out = oxtensor.function([a, b], a**b)(x, y)
    assert_ulps(out, want, 2)
    zeros = want == 0
    np.testing.assert_array_equal(np.signbit(out[zeros]), np.signbit(want[zeros]))
    assert np.array_equal(
        np.signbit(out[np.isinf(want)]), np.signbit(want[np.isinf(want)])
    )


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("size", SIZES)
def test_pow_values_and_broadcast_forms(size, dtype):
    rng = np.random.default_rng(5)
    x = (2.0 ** rng.uniform(-20, 20, size)).astype(dtype)
    y = rng.uniform(-30, 30, size).astype(dtype)
    y[::4] = np.round(y[::4])
    x[1::4] *= -1  # negative bases: NaN unless the exponent is an integer
    a, b = ot.vector("a", dtype=dtype), ot.vector("b", dtype=dtype)
    with np.errstate(all="ignore"):
        want = np.power(x.astype(np.float64), y.astype(np.float64)).astype(dtype)
        assert_ulps(oxtensor.function([a, b], a**b)(x, y), want, 4)
        s = ot.scalar("s", dtype=dtype)
        want = np.power(x.astype(np.float64), 2.5).astype(dtype)
        assert_ulps(oxtensor.function([a, s], a**s)(x, np.asarray(2.5, dtype)), want, 4)
        want = np.power(1.5, y.astype(np.float64)).astype(dtype)
        assert_ulps(oxtensor.function([s, b], s**b)(np.asarray(1.5, dtype), y), want, 4)


def test_pow_matrix_to_a_row_of_exponents():
    rng = np.random.default_rng(6)
    x = rng.uniform(0.1, 3, (400, 300))
    y = rng.uniform(-5, 5, 300)
    a, b = ot.dmatrix("a"), ot.dvector("b")
    out = oxtensor.function([a, b], a ** b[None, :])(x, y)
    assert_ulps(out, x**y, 4)
    assert_ulps(oxtensor.function([a, b], a ** b[None, :])(x.T.copy().T, y), x**y, 4)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("size", SIZES)
def test_fused_expression(size, dtype):
    rng = np.random.default_rng(7)
    x = rng.uniform(-5, 5, size).astype(dtype)
    y = rng.uniform(-0.9, 5, size).astype(dtype)
    a, b = ot.vector("a", dtype=dtype), ot.vector("b", dtype=dtype)
    expr = ot.exp(a) * 2 + ot.log1p(b) - ot.sigmoid(a) * ot.log2(b + 1)
    out = oxtensor.function([a, b], expr)(x, y)
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    want = np.exp(x64) * 2 + np.log1p(y64) - sp.expit(x64) * np.log2(y64 + 1)
    tol = 1e-13 if dtype == "float64" else 1e-5
    np.testing.assert_allclose(out, want, rtol=tol, atol=tol)


LEVELS = ["baseline", "avx2", "avx512"]


def run_capped(level: str) -> tuple[str, np.ndarray]:
    """The level a fresh process runs with ``OXTENSOR_SIMD=level``, and its
    ``exp``, ``log1p`` and ``x ** 1.7`` of 100,003 points in [0.01, 700]."""
    code = (
        "import sys, numpy as np, oxtensor, oxtensor.tensor as ot\n"
        "x = ot.dvector('x')\n"
        "f = oxtensor.function([x], [ot.exp(x), ot.log1p(x), x ** 1.7])\n"
        "v = np.linspace(0.01, 700, 100_003)\n"
        "sys.stdout.buffer.write(oxtensor._core._simd()[0].encode() + b'\\n')\n"
        "np.save(sys.stdout.buffer, np.stack(f(v)))\n"
    )
    env = dict(os.environ, OXTENSOR_SIMD=level)
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, check=True
    )
    ran, data = done.stdout.split(b"\n", 1)
    return ran.decode(), np.load(io.BytesIO(data))


@pytest.mark.parametrize("level", ["baseline", "avx2"])
def test_capped_builds_agree(level):
    """``OXTENSOR_SIMD`` (read once per process) caps the build: its values
    stay within the same bounds."""
    ran, got = run_capped(level)
    hardware = oxtensor._core._simd()[1]
    assert ran == min(level, hardware, key=LEVELS.index)
    v = np.linspace(0.01, 700, 100_003)
    for out, want in zip(got, [np.exp(v), np.log1p(v), v**1.7], strict=True):
        assert_ulps(out, want, 4)
    if level == "avx2":
        # Exact by construction: each element is computed alone, by the
        # same operations with FMA, in the AVX2 and AVX-512 builds; only
        # how many elements go at once differs. (The baseline build has no
        # FMA, so it rounds differently.)
        np.testing.assert_array_equal(got, run_capped("native")[1])

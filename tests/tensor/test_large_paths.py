"""Inputs large enough for the kernels' vectorised and threaded paths
(blocks of 256 and more, 2^16 elements and more), against NumPy: bool
logic on checked bool bytes, complex ``abs``/``angle``, float-to-integer
``astype``, running sums along every axis, softmax along a leading axis,
matrix-vector products in every layout, and column gathers ``x[:, idx]``.
"""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.tensor import special

RNG = np.random.default_rng(42)


def run(inputs, output, *values):
    return oxtensor.function(inputs, output)(*values)


def test_bool_logic_on_large_and_non_canonical_bool_arrays():
    a, b = RNG.random(70_001) > 0.5, RNG.random(70_001) > 0.3
    x, y = ot.vector("x", dtype="bool"), ot.vector("y", dtype="bool")
    got = run([x, y], [ot.and_(x, y), ot.xor(x, y), ot.invert(x)], a, b)
    for g, want in zip(got, [a & b, a ^ b, ~a], strict=True):
        assert g.dtype == np.bool_
        np.testing.assert_array_equal(g, want)
    # Bytes other than 0/1 read as bool: NumPy calls them true.
    raw = RNG.integers(0, 4, 70_001).astype("uint8")
    odd = raw.view(np.bool_)
    np.testing.assert_array_equal(run([x], ot.invert(x), odd), raw == 0)
    # Reductions of such bytes, on the threaded paths.
    m = ot.matrix("m", dtype="bool")
    big = RNG.integers(0, 3, (700, 600)).astype("uint8") * 0x41
    big[:, 5] = 0x80
    outs = [m.all(axis=0), m.any(axis=0), m.all(axis=1), m.any(axis=1), m.any()]
    got = run([m], outs, big.view(np.bool_))
    nz = big != 0
    wants = [nz.all(axis=0), nz.any(axis=0), nz.all(axis=1), nz.any(axis=1), nz.any()]
    for g, want in zip(got, wants, strict=True):
        np.testing.assert_array_equal(g, want)
        assert np.asarray(g).view(np.uint8).max() <= 1
    # Rows past the thread split (12 MiB) of any/all along the last axis.
    rows = np.ones((3300, 4000), np.uint8) * 0x10
    rows[::7, 3999] = 0
    rows[1::5] = 0
    rows[1::10, 17] = 0x80
    got = run([m], [m.all(axis=1), m.any(axis=1)], rows.view(np.bool_))
    for g, want in zip(
        got, [(rows != 0).all(axis=1), (rows != 0).any(axis=1)], strict=True
    ):
        np.testing.assert_array_equal(g, want)


@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_complex_abs_and_angle_match_numpy(dtype):
    parts = RNG.normal(size=(2, 5000)) * 10.0 ** RNG.integers(-30, 30, (2, 5000))
    z = (parts[0] + 1j * parts[1]).astype(dtype)
    info = np.finfo(z.real.dtype)
    special_values = [0, -0.0, np.inf, -np.inf, np.nan]
    special_values += [info.tiny, info.max, info.smallest_subnormal]
    z[: len(special_values) ** 2] = [
        complex(r, i) for r in special_values for i in special_values
    ]
    x = ot.vector("x", dtype=dtype)
    f = oxtensor.function([x], [abs(x), ot.angle(x)])
    real = np.float64 if dtype == "complex128" else np.float32
    for values in (z, z[::3]):
        got_abs, got_angle = f(values)
        assert got_abs.dtype == real
        # `angle` is float64 for every input, as PyTensor stores it.
        assert got_angle.dtype == np.float64
        # Ours is within 2 ulp of the exact modulus (1 of libm's hypot);
        # NumPy's within 1, by libm or by its own AVX-512 loop, whichever its
        # CPU dispatch picks: 3 ulp apart at most (float32: computed in
        # float64 and rounded once, against NumPy's 1 ulp).
        rtol = 3 * np.finfo(np.float64).eps if real is np.float64 else 2.5e-7
        np.testing.assert_allclose(got_abs, np.abs(values), rtol=rtol)
        wide = values.astype("complex128")
        np.testing.assert_allclose(got_angle, np.angle(wide), rtol=1e-15, atol=0)


@pytest.mark.parametrize("to", ["int64", "int32", "uint8", "uint64"])
@pytest.mark.parametrize("source", ["float64", "float32"])
def test_float_to_integer_astype_in_range(source, to):
    hi = min(np.iinfo(to).max, 2**53)
    lo = max(np.iinfo(to).min, -(2**53))
    values = RNG.uniform(lo, hi, 100_000).astype(source)
    values[:6] = [0.0, -0.0, 0.5, -0.5, 1.9999, lo]
    values = values[(values >= lo) & (values < hi)]
    x = ot.vector("x", dtype=source)
    got = run([x], x.astype(to), values)
    assert got.dtype == to
    np.testing.assert_array_equal(got, values.astype(to))


def test_float_to_int64_out_of_range_saturates():
    # Documented in docs/for-pytensor-users.md: NumPy's C cast leaves these
    # undefined (INT64_MIN on x86); oxtensor saturates and maps NaN to 0.
    values = np.array([np.nan, np.inf, -np.inf, 1e30, -1e30] * 20_000)
    x = ot.dvector("x")
    got = run([x], x.astype("int64"), values)
    want = np.array([0, 2**63 - 1, -(2**63), 2**63 - 1, -(2**63)] * 20_000)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_running_sums_and_products_along_every_axis(axis):
    a = RNG.normal(size=(7, 300, 40))
    x = ot.dtensor3("x")
    for values in (a, a.transpose(1, 0, 2)):
        got_sum, got_prod = run(
            [x], [ot.cumsum(x, axis=axis), ot.cumprod(x, axis=axis)], values
        )
        np.testing.assert_allclose(got_sum, np.cumsum(values, axis=axis), rtol=1e-12)
        np.testing.assert_allclose(got_prod, np.cumprod(values, axis=axis), rtol=1e-12)
    ints = RNG.integers(-5, 5, (300, 500))
    i = ot.lmatrix("i")
    np.testing.assert_array_equal(
        run([i], ot.cumsum(i, axis=0), ints), np.cumsum(ints, axis=0)
    )


def np_softmax(a, axis, log):
    shifted = a - a.max(axis=axis, keepdims=True)
    log_sum = np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
    return shifted - log_sum if log else np.exp(shifted - log_sum)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("axis", [0, 1])
def test_softmax_along_leading_axes(dtype, axis):
    a = RNG.normal(size=(5, 400, 70)).astype(dtype) * 4
    a[:, :, 3] = -np.inf  # a column of -inf: NaN, as NumPy's formula gives
    a[2, 7, 5] = np.nan
    x = ot.tensor3("x", dtype=dtype)
    f = oxtensor.function(
        [x], [special.softmax(x, axis=axis), special.log_softmax(x, axis=axis)]
    )
    tol = 1e-12 if dtype == "float64" else 2e-5
    with np.errstate(invalid="ignore"):
        for values in (a, a[:, ::2]):
            soft, log_soft = f(values)
            assert soft.dtype == dtype
            assert log_soft.dtype == dtype
            np.testing.assert_allclose(
                soft,
                np_softmax(values.astype("float64"), axis, False),
                rtol=tol,
                atol=tol,
            )
            np.testing.assert_allclose(
                log_soft,
                np_softmax(values.astype("float64"), axis, True),
                rtol=tol,
                atol=tol,
            )


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_matrix_vector_products_in_every_layout(dtype):
    m = RNG.normal(size=(700, 600)).astype(dtype)
    v, w = RNG.normal(size=600).astype(dtype), RNG.normal(size=700).astype(dtype)
    a, x = ot.matrix("a", dtype=dtype), ot.vector("x", dtype=dtype)
    tol = 1e-10 if dtype == "float64" else 2e-3
    cases = [
        (ot.dot(a, x), (m, v), m @ v),
        (ot.dot(x, a), (m, w), w @ m),
        (ot.dot(a.T, x), (m, w), m.T @ w),
        (ot.dot(x, a.T), (m, v), v @ m.T),
        (ot.matmul(a, x), (m, v), m @ v),
    ]
    for out, (mv, xv), want in cases:
        f = oxtensor.function([a, x], out)
        np.testing.assert_allclose(f(mv, xv), want, rtol=tol, atol=tol)
        strided = np.repeat(xv, 2)[::2]  # non-contiguous vector
        np.testing.assert_allclose(f(mv, strided), want, rtol=tol, atol=tol)
    f = oxtensor.function([a, x], ot.dot(a, x))
    nan = m.copy()
    nan[3, 5] = np.nan
    got = f(nan, v)
    assert np.isnan(got[3])
    assert np.isfinite(np.delete(got, 3)).all()


@pytest.mark.parametrize("dtype", ["float64", "int32", "complex128"])
def test_column_gathers(dtype):
    a = (RNG.normal(size=(400, 900)) * 100).astype(dtype)
    idx = RNG.integers(-900, 900, 700)
    x, i = ot.matrix("x", dtype=dtype), ot.lvector("i")
    f = oxtensor.function([x, i], x[:, i])
    np.testing.assert_array_equal(f(a, idx), a[:, idx])
    inner = idx[(idx >= -899) & (idx < 899)]
    np.testing.assert_array_equal(f(a[::2, 1:], inner), a[::2, 1:][:, inner])


# Memory-bound loops split across threads from 12 MiB read and written:
# element counts on both sides of that for the 2-, 3-, 9-, 12- and 24-byte
# loops below.
@pytest.mark.parametrize("n", [262_147, 600_001, 1_400_003, 6_700_001])
def test_light_loops_on_both_sides_of_the_thread_split(n):
    a, b = RNG.random(n) > 0.5, RNG.random(n) > 0.5
    v, w = RNG.normal(size=n), RNG.normal(size=n)
    p, q = ot.vector("p", dtype="bool"), ot.vector("q", dtype="bool")
    x, y = ot.dvector("x"), ot.dvector("y")
    outs = [ot.invert(p), ot.and_(p, q), x > 0, x + y, x.astype("float32")]
    got = run([p, q, x, y], outs, a, b, v, w)
    wants = [~a, a & b, v > 0, v + w, v.astype("float32")]
    for g, want in zip(got, wants, strict=True):
        assert g.dtype == want.dtype
        np.testing.assert_array_equal(g, want)


@pytest.mark.parametrize("dtype", ["float64", "int32", "complex128", "float16", "bool"])
def test_ones_like_and_fill_write_without_reading_the_template(dtype):
    x = ot.matrix("x", dtype=dtype)
    v = np.zeros((700, 1500), dtype=dtype)[:, ::3]  # strided template
    ones, zeros = run([x], [ot.ones_like(x), ot.zeros_like(x)], v)
    np.testing.assert_array_equal(ones, np.ones_like(v))
    np.testing.assert_array_equal(zeros, np.zeros_like(v))
    assert ones.dtype == np.dtype(dtype)
    assert ones.shape == v.shape
    # An array fill value broadcasts over the template's shape.
    r = ot.vector("r", dtype=dtype)
    row = np.arange(500).astype(dtype)
    got = run([x, r], ot.second(x, r), v, row)
    np.testing.assert_array_equal(got, np.broadcast_to(row, v.shape))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_scalar_special_functions_on_threaded_and_strided_paths(dtype):
    # gammaln/erfcx/tri_gamma run one element at a time: split across
    # threads from 2**16 elements, and strided inputs gathered in blocks.
    sp = pytest.importorskip("scipy.special")
    v = RNG.uniform(0.3, 6.0, 2 * 70_001).astype(dtype)
    x = ot.vector("x", dtype=dtype)
    outs = [ot.gammaln(x), ot.erfcx(x), ot.tri_gamma(x)]
    f = oxtensor.function([x], outs)
    for a in [v, v[::2]]:
        wants = [sp.gammaln(a), sp.erfcx(a), sp.polygamma(1, a.astype("float64"))]
        for g, want in zip(f(a), wants, strict=True):
            assert g.dtype == np.dtype(dtype)
            # Absolute slack for gammaln near its zeros at 1 and 2.
            tol = (2e-6, 1e-7) if dtype == "float32" else (1e-12, 1e-14)
            np.testing.assert_allclose(g, want, rtol=tol[0], atol=tol[1])

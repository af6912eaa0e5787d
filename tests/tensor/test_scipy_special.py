"""SciPy's special functions as elementwise ops (incomplete gamma and beta
and their inverses, Bessel functions, Owen's T, ``hyp2f1``): values against
``scipy.special`` over ranges and at SciPy's edge values, float32 computed in
float64 and rounded, gradients by ``verify_grad`` and against published
tables, undefined gradients where PyTensor's are, and refused inputs."""

import warnings

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
import scipy.special as sp
from oxtensor.gradient import NullTypeGradError, grad, verify_grad

RNG = np.random.default_rng(28)


def grid(lo, hi, n=7):
    return RNG.uniform(lo, hi, n)


def evaluate(out, *pairs):
    variables, values = pairs[0::2], pairs[1::2]
    return oxtensor.function(list(variables), out)(*values)


def run(out, variables, values):
    return oxtensor.function(list(variables), out)(*values)


# name: (SciPy's function, a value range per input, relative tolerance).
CASES = {
    "gammainc": (sp.gammainc, [(0.01, 30), (0.0, 60)], 1e-12),
    "gammaincc": (sp.gammaincc, [(0.01, 30), (0.0, 60)], 1e-11),
    "gammaincinv": (sp.gammaincinv, [(0.05, 100), (0.0, 1.0)], 1e-11),
    "gammainccinv": (sp.gammainccinv, [(0.05, 100), (0.0, 1.0)], 1e-11),
    "gammau": (
        lambda k, x: sp.gammaincc(k, x) * sp.gamma(k),
        [(0.1, 9), (0, 20)],
        1e-11,
    ),
    "gammal": (
        lambda k, x: sp.gammainc(k, x) * sp.gamma(k),
        [(0.1, 9), (0, 20)],
        1e-11,
    ),
    "j0": (sp.j0, [(-40, 40)], 1e-11),
    "j1": (sp.j1, [(-40, 40)], 1e-11),
    "i0": (sp.i0, [(-30, 30)], 1e-13),
    "i1": (sp.i1, [(-30, 30)], 1e-13),
    "jv": (sp.jv, [(-6, 6), (0, 60)], 1e-10),
    "iv": (sp.iv, [(-6, 6), (0, 40)], 1e-11),
    "ive": (sp.ive, [(-6, 6), (0, 900)], 1e-11),
    "kve": (sp.kve, [(-6, 6), (0.01, 900)], 1e-11),
    "owens_t": (sp.owens_t, [(-6, 6), (-8, 8)], 1e-9),
    "betainc": (sp.betainc, [(0.05, 1000), (0.05, 1000), (0, 1)], 1e-10),
    "betaincinv": (sp.betaincinv, [(0.05, 1000), (0.05, 1000), (0, 1)], 1e-10),
    "hyp2f1": (sp.hyp2f1, [(0, 20), (0, 20), (0, 20), (-0.9, 0.9)], 1e-10),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_match_scipy(name):
    ref, ranges, rtol = CASES[name]
    args = [grid(lo, hi, 40) for lo, hi in ranges]
    xs = [ot.vector(dtype="float64") for _ in args]
    got = run(getattr(ot, name)(*xs), xs, args)
    want = ref(*args)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-300)


@pytest.mark.parametrize("name", sorted(CASES))
def test_float32_is_float64_rounded(name):
    ref, ranges, _ = CASES[name]
    args = [grid(lo, hi, 12).astype("float32") for lo, hi in ranges]
    xs = [ot.vector(dtype="float32") for _ in args]
    out = getattr(ot, name)(*xs)
    assert out.dtype == "float32"
    got = run(out, xs, args)
    want = ref(*[a.astype("float64") for a in args]).astype("float32")
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-37)


EDGES = {
    "gammainc": [(0, 1), (0, 0), (-1, 1), (2, -1), (2, 0), (2, np.inf), (np.nan, 1)],
    "gammaincc": [(0, 1), (0, 0), (2, 0), (2, np.inf), (120, 25)],
    "gammaincinv": [(2, 0), (2, 1), (0, 0.5), (2, 1.5), (0.01, 1e-12)],
    "gammainccinv": [(2, 0), (2, 1), (2, -0.5)],
    "jv": [(0, 0), (2, 0), (-0.5, 0), (-1, 0), (0.5, -1), (2, -1.5), (-3, 1.5)],
    "iv": [(0, 0), (-0.5, 0), (0.5, -1), (3, -2.0), (-2, 3.0), (2.5, 800)],
    "ive": [(0, 0), (-1.5, 0), (1, -3.0), (4.5, 2000.0)],
    "kve": [(1, 0), (1, -1), (4, 1005.0), (-3.7, 1e-3)],
    "owens_t": [(0, 1), (3, 0), (2, np.inf), (-2, -np.inf), (40, 0.5)],
    "betainc": [
        (0, 1, 0.5),
        (1, 0, 0.5),
        (0, 0, 0.5),
        (2, 3, 0),
        (2, 3, 1),
        (2, 3, 1.5),
    ],
    "betaincinv": [(2, 3, 0), (2, 3, 1), (2, 3, -0.1)],
    "hyp2f1": [
        (1, 1, 2, -5),
        (2, 13, 21, 1.2),
        (1, 12, 10, 1),
        (3, 4, 12.5, 1),
        (-3, 2, 1.5, 2),
    ],
}


@pytest.mark.parametrize("name", sorted(EDGES))
def test_edges_are_scipys(name):
    ref = CASES[name][0]
    cols = list(np.array(EDGES[name], dtype="float64").T)
    xs = [ot.vector(dtype="float64") for _ in cols]
    got = run(getattr(ot, name)(*xs), xs, cols)
    with np.errstate(all="ignore"):
        want = ref(*cols)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-300)


def test_integer_inputs_upgrade_to_float():
    k = ot.vector(dtype="int8")
    x = ot.vector(dtype="int64")
    assert ot.gammainc(k, k).dtype == "float32"
    out = ot.gammainc(k, x)
    assert out.dtype == "float64"
    got = evaluate(out, k, np.array([1, 2, 3], "int8"), x, np.array([2, 2, 9]))
    np.testing.assert_allclose(got, sp.gammainc([1, 2, 3], [2, 2, 9]), rtol=1e-13)


def test_complex_inputs_are_refused():
    z = ot.vector(dtype="complex128")
    for f in (ot.gammainc, ot.jv, ot.owens_t):
        with pytest.raises(TypeError):
            f(z, z)
    with pytest.raises(TypeError):
        ot.hyp2f1(z, z, z, z)


def test_kv_kn_and_chi2sf():
    v, x = ot.vector("v"), ot.vector("x")
    vs, xsv = np.array([-3.7, 4.0, 4.5, 0.0]), np.array([0.5, 3.0, 40.0, 512.0])
    np.testing.assert_allclose(
        evaluate(ot.kv(v, x), v, vs, x, xsv), sp.kv(vs, xsv), rtol=1e-11
    )
    ns = np.array([-3.0, 4.0, 0.0, 5.0])
    np.testing.assert_allclose(
        evaluate(ot.kn(v, x), v, ns, x, xsv), sp.kn(ns, xsv), rtol=1e-11
    )
    with pytest.warns(UserWarning, match="deprecated"):
        out = ot.chi2sf(x, v)
    ks = np.array([1.0, 2.0, 7.0, 30.0])
    got = evaluate(out, x, xsv, v, ks)
    np.testing.assert_allclose(got, sp.gammaincc(ks / 2, xsv / 2), rtol=1e-11)


# Differentiable inputs per function: the others' gradients are undefined.
GRADS = {
    "gammainc": ([(0.3, 9), (0.2, 12)], [0, 1]),
    "gammaincc": ([(0.3, 9), (0.2, 12)], [0, 1]),
    "gammau": ([(0.3, 6), (0.2, 8)], [0, 1]),
    "gammal": ([(0.3, 6), (0.2, 8)], [0, 1]),
    "gammaincinv": ([(0.5, 9), (0.1, 0.9)], [1]),
    "gammainccinv": ([(0.5, 9), (0.1, 0.9)], [1]),
    "j0": ([(-9, 9)], [0]),
    "j1": ([(-9, 9)], [0]),
    "i0": ([(-5, 5)], [0]),
    "i1": ([(-5, 5)], [0]),
    "jv": ([(1, 5), (0.5, 10)], [1]),
    "iv": ([(1, 5), (0.5, 10)], [1]),
    "ive": ([(1, 5), (0.5, 10)], [1]),
    "kve": ([(1, 5), (0.5, 10)], [1]),
    "owens_t": ([(-4, 4), (-4, 4)], [0, 1]),
    "betainc": ([(0.5, 30), (0.5, 30), (0.05, 0.95)], [0, 1, 2]),
    "betaincinv": ([(0.5, 30), (0.5, 30), (0.05, 0.95)], [2]),
    "hyp2f1": ([(0.5, 5), (0.5, 5), (0.5, 5), (-0.6, 0.6)], [0, 1, 2, 3]),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_verify_grad(name):
    ranges, smooth = GRADS[name]
    values = [grid(lo, hi, 4) for lo, hi in ranges]
    f = getattr(ot, name)

    def partial(*free):
        args = [ot.as_tensor_variable(v) for v in values]
        for i, var in zip(smooth, free, strict=True):
            args[i] = var
        return f(*args)

    verify_grad(partial, [values[i] for i in smooth], rng=np.random.default_rng(3))


@pytest.mark.parametrize(
    "name", ["jv", "iv", "ive", "kve", "gammaincinv", "betaincinv"]
)
def test_order_and_shape_gradients_are_undefined(name):
    ranges, smooth = GRADS[name]
    xs = [ot.vector() for _ in ranges]
    out = getattr(ot, name)(*xs).sum()
    with pytest.raises(NullTypeGradError):
        grad(out, xs[0])
    grad(out, xs[smooth[0]])


def scalar_grads(f, wrt, *values):
    xs = [ot.scalar() for _ in values]
    gs = grad(f(*xs), [xs[i] for i in wrt])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.array(oxtensor.function(xs, gs)(*values))


def test_gammainc_shape_derivative_matches_tables():
    # STAN's grad_reg_lower_inc_gamma values; the first and last are
    # mpmath's (STAN's -8.62594024578651 and -8.26e-15 are off).
    for k, x, want in [
        (0.0001, 0.0001, -8.625938912587238),
        (4.7501, 6.2501, -0.1330287013623819),
        (14.2501, 29.7501, -0.0004793406401524598),
        (19.0001, 0.0001, -1.0000308815385115e-92),
    ]:
        got = scalar_grads(ot.gammainc, [0], k, x)[0]
        np.testing.assert_allclose(got, want, rtol=1e-9)
        back = scalar_grads(ot.gammaincc, [0], k, x)[0]
        np.testing.assert_allclose(back, -want, rtol=1e-9)
    assert scalar_grads(ot.gammainc, [0], 0.5, 0.0)[0] == 0


def test_betainc_shape_derivatives_match_boik_robison_cox():
    for a, b, x, da, db in [
        (1.5, 11.0, 0.001, -4.5720356e-03, 1.1845673e-04),
        (1000.0, 1000.0, 0.5, -8.9224793e-03, 8.9224793e-03),
        (1.0, 1.0, 0.4, -0.36651629, 0.30649537),
    ]:
        got = scalar_grads(ot.betainc, [0, 1], a, b, x)
        np.testing.assert_allclose(got, [da, db], rtol=1e-6)
    got = scalar_grads(ot.betainc, [0, 1], 1.0, 1.0, 1.0)
    assert got[0] == 0
    assert np.isnan(got[1])


def test_hyp2f1_derivatives_match_stan():
    case = (3.70975, 1.0, 2.70975, 0.999696)
    want = [
        29369830.002773938,
        36347869.41885337,
        -30843032.10697079,
        26278034019.28811,
    ]
    np.testing.assert_allclose(
        scalar_grads(ot.hyp2f1, [0, 1, 2, 3], *case), want, rtol=1e-9
    )
    # Outside the series' convergence: NaN, the value's own derivative stays.
    got = scalar_grads(ot.hyp2f1, [0, 1, 2, 3], 1.0, 1.0, 2.0, -5.0)
    assert np.isnan(got[:3]).all()
    np.testing.assert_allclose(got[3], 0.0383370454357889, rtol=1e-12)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_erf_of_complex_numbers_is_scipys(dtype):
    z = ot.vector(dtype=dtype)
    parts = RNG.uniform(-4, 4, (2, 40))
    values = (parts[0] + 1j * parts[1]).astype(dtype)
    values[:4] = [0.3 + 0j, -2.5 + 0j, 3j, 1e-12 - 4j]
    out = ot.erf(z)
    assert out.dtype == dtype
    got = evaluate(out, z, values)
    rtol = 1e-12 if dtype == "complex128" else 2e-6
    np.testing.assert_allclose(got, sp.erf(values.astype("complex128")), rtol=rtol)
    with pytest.raises(NotImplementedError):
        grad(ot.real(out).sum(), z)

"""The vectorised special functions (``erf``, ``erfc``, ``erfinv``,
``erfcinv``, ``gamma``, ``psi``, ``log1mexp``) and ``pow`` with a small
constant exponent, on dense ranges against SciPy and NumPy: float64 within a
few ulp of SciPy (the kernels are within 1-5 ulp of mpmath's values, SciPy
within 1-9 in these ranges), float32 within an ulp of SciPy's float32 (which
computes in float64 and rounds); edge values exactly as SciPy gives them; the
strided, broadcast and contiguous paths giving the same bits."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
import scipy.special as sp
from oxtensor.compile.mode import get_mode

from tests.helpers import SPECIAL_FLOATS

RNG = np.random.default_rng(11)


def log1mexp_ref(x):
    """PyTensor's split, with NumPy's functions."""
    with np.errstate(all="ignore"):
        return np.where(x < -np.log(2), np.log1p(-np.exp(x)), np.log(-np.expm1(x)))


# name: (SciPy's or NumPy's function, dense range, relative tolerance in
# float64 against it: the sum of both sides' errors, SciPy's erfc reaching
# 32 ulp on [1, 6] and its gamma 9)
CASES = {
    "erf": (sp.erf, (-6.5, 6.5), 1e-15),
    "erfc": (sp.erfc, (-6.0, 6.0), 1e-14),
    "erfinv": (sp.erfinv, (-1.0, 1.0), 1e-15),
    "erfcinv": (sp.erfcinv, (0.0, 2.0), 1e-15),
    "gamma": (sp.gamma, (1e-3, 171.0), 4e-15),
    "psi": (sp.psi, (1e-3, 40.0), 2e-15),
    "log1mexp": (log1mexp_ref, (-40.0, -1e-6), 1e-15),
}


def run(name, value):
    x = ot.tensor("x", dtype=value.dtype, shape=(None,) * value.ndim)
    return oxtensor.function([x], getattr(ot, name)(x))(value)


@pytest.mark.parametrize("name", sorted(CASES))
def test_float64_dense_against_scipy(name):
    ref, (lo, hi), rtol = CASES[name]
    x = RNG.uniform(lo, hi, 200_000)
    with np.errstate(all="ignore"):
        want = ref(x)
    np.testing.assert_allclose(run(name, x), want, rtol=rtol, atol=0)


@pytest.mark.parametrize("name", sorted(CASES))
def test_float32_within_an_ulp_of_scipy(name):
    ref, (lo, hi), _ = CASES[name]
    x = RNG.uniform(lo, hi, 100_000).astype("float32")
    with np.errstate(all="ignore"):
        want = np.asarray(ref(x.astype("float64"))).astype("float32")
    got = run(name, x)
    assert got.dtype == np.float32
    # One float32 ulp (log1mexp's float32 loop, in float32 arithmetic: 3).
    ulps = 3 if name == "log1mexp" else 1
    finite = np.isfinite(want)
    spacing = np.spacing(np.abs(want[finite]))
    assert np.all(np.abs(got[finite] - want[finite]) <= ulps * spacing)
    np.testing.assert_array_equal(got[~finite], want[~finite])


def test_tails_keep_relative_precision():
    # erfc down to its underflow, erfinv and erfcinv near their poles,
    # gamma near its overflow and pole, psi near its positive root.
    q = np.logspace(-300, -1, 500)
    p = 1 - np.logspace(-16, -1, 300)
    cases = [
        ("erfc", np.linspace(6, 26.5, 500), sp.erfc, 1e-13),
        ("erfcinv", q, sp.erfcinv, 1e-15),
        ("erfinv", np.concatenate([p, -p]), sp.erfinv, 1e-15),
        (
            "gamma",
            np.concatenate([np.logspace(-300, -3, 100), [171.6]]),
            sp.gamma,
            2e-15,
        ),
        ("psi", 1.4616321449683623 + np.linspace(-1e-6, 1e-6, 101), sp.psi, 1e-9),
    ]
    for name, x, ref, rtol in cases:
        np.testing.assert_allclose(
            run(name, x), ref(x), rtol=rtol, atol=0, err_msg=name
        )


EDGES = np.array(
    [
        *SPECIAL_FLOATS,
        2.0,
        -2.0,
        -2.5,
        0.5,
        1e-310,
        -1e-310,
        5e-324,
        1e300,
        -1e300,
        171.7,
        27.0,
        -27.0,
    ]
)


def erfc_asymptotic(x):
    """erfc for x > 20 by its asymptotic series (four terms are exact to
    float64 there), evaluated in logs so a subnormal result is rounded once."""
    u = 1 / (2 * x * x)
    series = 1 - u + 3 * u**2 - 15 * u**3
    return np.exp(-x * x - np.log(x * np.sqrt(np.pi)) + np.log(series))


# SciPy's erfc flushes to zero past 26.55, where the true value is a
# subnormal float64, so its erfcinv of the smallest subnormal is inf; ours
# keep the subnormal range. The references there are the asymptotic series.
SUBNORMAL_TAIL = {"erfc": (27.0, erfc_asymptotic(27.0)), "erfcinv": (5e-324, None)}


def test_subnormal_tail_of_erfc_and_erfcinv():
    x, want = SUBNORMAL_TAIL["erfc"]
    assert 0 < want < 1e-300
    assert run("erfc", np.array([x]))[0] == pytest.approx(want, rel=1e-5)
    q, _ = SUBNORMAL_TAIL["erfcinv"]
    t = run("erfcinv", np.array([q]))[0]
    # The subnormal q holds one bit: t is right when erfc(t) rounds to it.
    assert 27 < t < 27.5
    assert erfc_asymptotic(t) == q


@pytest.mark.parametrize("name", sorted(CASES))
def test_edge_values_are_scipys(name):
    ref = CASES[name][0]
    with np.errstate(all="ignore"):
        want = ref(EDGES)
    if name in SUBNORMAL_TAIL:
        want[EDGES == SUBNORMAL_TAIL[name][0]] = run(
            name, np.array([SUBNORMAL_TAIL[name][0]])
        )[0]
    got = run(name, EDGES)
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    close = np.isclose(got, want, rtol=1e-12, atol=0)
    assert np.all(same | close), (EDGES[~(same | close)], got[~(same | close)])
    zeros = want == 0
    np.testing.assert_array_equal(np.signbit(got[zeros]), np.signbit(want[zeros]))


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_strided_and_contiguous_give_the_same_bits(name, dtype):
    lo, hi = CASES[name][1]
    base = RNG.uniform(lo, hi, (40, 30)).astype(dtype)
    whole = run(name, base)
    for view, same in [(base[::2, 1::3], whole[::2, 1::3]), (base.T, whole.T)]:
        np.testing.assert_array_equal(run(name, view), same)
    np.testing.assert_array_equal(run(name, base[:1, :1]), whole[:1, :1])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("y", [2.0, 2.5, 0.5, -1.0, -1.5, 3.0, 16.0, -7.5, 0.3])
def test_pow_with_a_constant_exponent(dtype, y):
    edges = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-310, 1e200, -1e200, 1.0, -1.0]
    with np.errstate(over="ignore"):
        x = np.concatenate(
            [RNG.uniform(0.1, 5, 10_000), -RNG.uniform(0.1, 5, 100), edges]
        ).astype(dtype)
    v = ot.vector("v", dtype=dtype)
    # The kernel's constant-exponent path, not specialize's nested squaring
    # (x**16 as four squarings rounds up to four times).
    f = oxtensor.function(
        [v],
        v ** np.asarray(y, dtype=dtype),
        mode=get_mode("FAST_RUN").excluding("local_pow_to_nested_squaring"),
    )
    got = f(x)
    with np.errstate(all="ignore"):
        # NumPy with one exponent of 1/2 takes sqrt (sqrt(-inf) is NaN and
        # sqrt(-0) -0, where C's pow gives inf and +0); an exponent array
        # takes C's pow.
        want = np.power(x, np.asarray(y, dtype=dtype))
        want_array = np.power(x, np.full_like(x, y))
    finite = np.isfinite(want) & (want != 0)
    spacing = np.spacing(np.abs(want[finite]).astype(dtype))
    assert np.all(np.abs(got[finite] - want[finite]) <= spacing), y
    np.testing.assert_array_equal(got[~finite], want[~finite])
    # A strided operand (element by element) and an exponent array of the
    # same value give the same bits.
    np.testing.assert_array_equal(f(x[::-1].copy()[::-1]), got)
    w = ot.vector("w", dtype=dtype)
    g = oxtensor.function([v, w], v**w)
    from_array = g(x, np.full_like(x, y))
    edge = ~(np.isfinite(want_array) & (want_array != 0))
    np.testing.assert_array_equal(from_array[edge], want_array[edge])
    signed = ~np.isnan(want_array)
    np.testing.assert_array_equal(
        np.signbit(from_array[signed]), np.signbit(want_array[signed])
    )
    np.testing.assert_array_equal(from_array[~edge], got[~edge])
    np.testing.assert_array_equal(f(np.stack([x, x])[:, ::1][0, ::2]), got[::2])


def test_half_power_is_sqrt_inside_fused_groups_too():
    # A fused group hands its constant exponent over broadcast: the same
    # sqrt semantics as the op alone (NumPy's for one exponent).
    v = ot.dvector("v")
    x = np.array([-0.0, -np.inf, 4.0, -1.0] * 300)
    alone = oxtensor.function([v], v**0.5)(x)
    fused = oxtensor.function([v], ot.exp(v**0.5) - 1.0)(x)
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(fused, np.exp(np.sqrt(x)) - 1.0, rtol=1e-15)
        np.testing.assert_array_equal(alone, np.sqrt(x))
    assert np.signbit(alone[0])

"""The math-library elementwise ops (exp2 ... angle, issue 4 section 1)
against NumPy and SciPy: values over dtypes (integers raised to floats,
float32 staying float32), edge cases (NaN, infinities, signed zeros,
out-of-domain inputs), 0-d, empty, strided and broadcast inputs; gradients
with ``verify_grad`` and ``Rop``; dtype refusals; PyTensor's ``str`` forms;
and a hypothesis test of the output dtype rules."""

import functools
import warnings

import numpy as np
import oxtensor
import oxtensor.scalar as S
import oxtensor.tensor as ot
import pytest
import scipy.special as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from oxtensor.gradient import Rop, verify_grad

from tests.helpers import DTYPES, assert_matches, check_infer_shape
from tests.tensor.elemwise_table import TO_FLOAT


def log1mexp(x):
    with np.errstate(all="ignore"):
        return np.where(
            x < np.log(0.5), np.log1p(-np.exp(x)), np.log(-np.expm1(x))
        ).astype(np.result_type(x, np.float16))


def round_away(x):
    return np.copysign(np.floor(np.abs(x) + 0.5), x)


# name -> (reference, (low, high) of a domain where the op is smooth)
UNARY = {
    "exp2": (np.exp2, (-3, 3)),
    "log2": (np.log2, (0.2, 5)),
    "log10": (np.log10, (0.2, 5)),
    "trunc": (np.trunc, (-3, 3)),
    "arcsin": (np.arcsin, (-0.9, 0.9)),
    "arccos": (np.arccos, (-0.9, 0.9)),
    "arctan": (np.arctan, (-3, 3)),
    "sinh": (np.sinh, (-3, 3)),
    "cosh": (np.cosh, (-3, 3)),
    "arcsinh": (np.arcsinh, (-3, 3)),
    "arccosh": (np.arccosh, (1.2, 5)),
    "arctanh": (np.arctanh, (-0.9, 0.9)),
    "deg2rad": (np.deg2rad, (-200, 200)),
    "rad2deg": (np.rad2deg, (-3, 3)),
    "log1mexp": (log1mexp, (-5, -0.1)),
    "erf": (sp.erf, (-2, 2)),
    "erfc": (sp.erfc, (-2, 2)),
    "erfcx": (sp.erfcx, (-2, 5)),
    "erfinv": (sp.erfinv, (-0.9, 0.9)),
    "erfcinv": (sp.erfcinv, (0.1, 1.9)),
    "gamma": (sp.gamma, (0.3, 5)),
    "gammaln": (sp.gammaln, (0.3, 5)),
    "psi": (sp.psi, (0.3, 5)),
    "tri_gamma": (functools.partial(sp.polygamma, 1), (0.3, 5)),
}
ZERO_GRAD = {"trunc", "round_half_to_even", "round_half_away_from_zero"}


def run(outputs, *pairs):
    """Compiles ``outputs`` of the ``(variable, value)`` pairs and runs it."""
    inputs = [v for v, _ in pairs]
    return oxtensor.function(inputs, outputs)(*[val for _, val in pairs])


def points(rng, domain, shape, dtype="float64"):
    low, high = domain
    return rng.uniform(low, high, size=shape).astype(dtype)


def reference(name, x, out_dtype):
    with np.errstate(all="ignore"):
        return np.asarray(UNARY[name][0](x.astype("float64"))).astype(out_dtype)


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_unary_values(name, dtype):
    rng = np.random.default_rng(1)
    x = ot.vector("x", dtype=dtype)
    value = points(rng, UNARY[name][1], 7, dtype)
    out = run(getattr(ot, name)(x), (x, value))
    assert_matches(out, reference(name, value, dtype), scale=20)


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "int64", "bool"])
def test_discrete_inputs_are_raised_to_floats(name, dtype):
    low, high = UNARY[name][1]
    value = np.arange(int(np.floor(low)), int(np.ceil(high)) + 1)
    value = value[(value >= 0) | (dtype[0] == "i")].astype(dtype)
    x = ot.vector("x", dtype=dtype)
    y = getattr(ot, name)(x)
    assert y.dtype == TO_FLOAT[dtype]
    assert_matches(run(y, (x, value)), reference(name, value, y.dtype), scale=20)


EDGES = np.array(
    [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.0, -2.5, 1e-300, 1e300]
)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_edge_cases(name):
    x = ot.dvector("x")
    out = run(getattr(ot, name)(x), (x, EDGES))
    want = reference(name, EDGES, "float64")
    np.testing.assert_allclose(out, want, rtol=1e-12, atol=0, equal_nan=True)


@pytest.mark.parametrize(
    "name", ["trunc", "round_half_to_even", "round_half_away_from_zero"]
)
def test_rounding_keeps_signed_zeros(name):
    x = ot.dvector("x")
    value = np.array([-0.4, -0.0, 0.0, -0.5, 0.5, 1.5, 2.5, -2.5, np.nan, -np.inf])
    out = run(getattr(ot, name)(x), (x, value))
    want = {
        "trunc": np.trunc,
        "round_half_to_even": np.round,
        "round_half_away_from_zero": round_away,
    }[name](value)
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(np.signbit(out), np.signbit(want))


def test_round_modes():
    x = ot.fvector("x")
    value = np.array([0.5, 1.5, 2.5, -2.5, 2.4], dtype="float32")
    assert ot.round(x).owner.op == ot.round_half_to_even
    assert_matches(run(ot.round(x), (x, value)), np.round(value))
    away = run(ot.round(x, "half_away_from_zero"), (x, value))
    assert_matches(away, np.array([1, 2, 3, -3, 2], dtype="float32"))
    with pytest.raises(ValueError, match="round mode 'up' is not implemented"):
        ot.round(x, "up")


def test_float16_stays_float16():
    x = ot.vector("x", dtype="float16")
    value = np.array([0.25, 0.5, 2.5], dtype="float16")
    for name in ["erf", "arcsinh", "round_half_to_even", "exp2"]:
        y = getattr(ot, name)(x)
        assert y.dtype == "float16"
        want = {"round_half_to_even": np.round}.get(name) or UNARY[name][0]
        assert_matches(
            run(y, (x, value)), want(value.astype("float64")).astype("float16")
        )


def test_arctan2_values_and_broadcasting():
    y, x = ot.dcol("y"), ot.drow("x")
    yv = np.array([[0.0], [-0.0], [1.0], [-2.0], [np.nan]])
    xv = np.array([[0.0, -0.0, 3.0, -np.inf, np.inf]])
    out = run(ot.arctan2(y, x), (y, yv), (x, xv))
    # Within 2 ulp (the vectorised kernel's bound), signed zeros exact.
    want = np.arctan2(yv, xv)
    np.testing.assert_allclose(out, want, rtol=4.5e-16, atol=0)
    np.testing.assert_array_equal(np.signbit(out), np.signbit(want))
    i, j = ot.bvector("i"), ot.vector("j", dtype="uint16")
    assert ot.arctan2(i, j).dtype == "float32"
    got = run(
        ot.arctan2(i, j),
        (i, np.array([-3, 4], "int8")),
        (j, np.array([1, 0], "uint16")),
    )
    assert_matches(got, np.arctan2([-3.0, 4.0], [1.0, 0.0]).astype("float32"))


def test_zero_dim_empty_and_strided_inputs():
    x0 = ot.dscalar("x0")
    assert_matches(run(ot.erf(x0), (x0, np.array(0.5))), sp.erf(np.array(0.5)))
    m = ot.dmatrix("m")
    empty = np.zeros((0, 3))
    assert_matches(run(ot.gammaln(m), (m, empty)), empty)
    base = np.random.default_rng(2).uniform(0.2, 0.8, size=(6, 8))
    for view in (base[::2, 1::3], base.T, base[::-1]):
        for name in ["arcsin", "psi", "erfinv", "log2"]:
            assert_matches(
                run(getattr(ot, name)(m), (m, view)), reference(name, view, "float64")
            )


def test_clip_is_pytensors():
    x, lo, hi = ot.dvector("x"), ot.dscalar("lo"), ot.dscalar("hi")
    value = np.array([-2.0, 0.5, 3.0, np.nan, -0.0])
    out = run(ot.clip(x, lo, hi), (x, value), (lo, np.array(0.0)), (hi, np.array(1.0)))
    np.testing.assert_array_equal(out, [0.0, 0.5, 1.0, np.nan, -0.0])
    # A lower bound above the upper one: the lower wins below it, the upper above.
    out = run(
        ot.clip(x, lo, hi), (x, value[:3]), (lo, np.array(2.0)), (hi, np.array(1.0))
    )
    np.testing.assert_array_equal(out, [2.0, 2.0, 1.0])
    i = ot.bvector("i")
    y = ot.clip(i, np.uint8(0), 5)
    assert y.dtype == "int16"
    assert_matches(
        run(y, (i, np.array([-9, 3, 100], "int8"))), np.array([0, 3, 5], "int16")
    )
    b = ot.vector("b", dtype="bool")
    assert_matches(
        run(ot.clip(b, np.array(True), np.array(True)), (b, np.array([False, True]))),
        np.array([True, True]),
    )
    with pytest.raises(TypeError, match="clip does not accept complex inputs"):
        ot.clip(ot.cvector(), 0, 1)


def test_where_is_switch():
    c, x, y = ot.dvector("c"), ot.dvector("x"), ot.dscalar("y")
    z = ot.where(c > 0, x, y)
    assert z.owner.op == ot.switch
    got = run(
        z, (c, np.array([1.0, -1.0])), (x, np.array([5.0, 6.0])), (y, np.array(7.0))
    )
    assert_matches(got, np.array([5.0, 7.0]))
    with pytest.raises(ValueError, match="both or neither"):
        ot.where(c, x)
    # With the condition alone it is `nonzero` (tests/tensor/test_nonzero.py).
    assert str(ot.where(c)) == "(Nonzero.0,)"


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_parts(dtype):
    c = ot.vector("c", dtype=dtype)
    value = np.array([1 + 2j, -1j, -3 + 0j, np.nan + 1j, -0.0 - 0.0j], dtype=dtype)
    real_dtype = "float32" if dtype == "complex64" else "float64"
    outs = run([ot.real(c), ot.imag(c), ot.conj(c), ot.angle(c)], (c, value))
    assert_matches(outs[0], value.real, real_dtype)
    assert_matches(outs[1], value.imag, real_dtype)
    assert_matches(outs[2], np.conj(value), dtype)
    assert_matches(outs[3], np.angle(value.astype("complex128")), "float64")


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_math(dtype):
    c = ot.vector("c", dtype=dtype)
    value = np.array([0.3 + 0.4j, -1.5 + 0.2j, 2.0 - 3.0j, 0.1j], dtype=dtype)
    names = ["exp2", "log2", "log10", "arcsin", "arccos", "arctan", "sinh", "cosh"]
    names += ["arcsinh", "arccosh", "arctanh"]
    outs = run([getattr(ot, n)(c) for n in names], (c, value))
    for name, out in zip(names, outs, strict=True):
        want = getattr(np, name)(value.astype("complex128")).astype(dtype)
        assert_matches(out, want, scale=10)


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "int64", "float32"])
def test_complex_parts_of_real_numbers(dtype):
    x = ot.vector("x", dtype=dtype)
    value = np.array([1, 0, 1, 1], dtype=dtype)
    if dtype != "bool":
        value[0] = 3
        if dtype[0] != "u":
            value[2] = -2
    assert ot.conj(x) is x
    assert ot.conjugate(x) is x
    real, imag, angle = run([ot.real(x), ot.imag(x), ot.angle(x)], (x, value))
    assert_matches(real, np.real(value), dtype)
    assert_matches(imag, np.imag(value), dtype)
    # NumPy computes the angle of small dtypes in float16 (pi is 3.140625 for
    # int8); oxtensor computes it in float64, the output dtype.
    assert_matches(angle, np.angle(value.astype("float64")), "float64")


def test_conj_scalar_op_raises_bool_to_int8():
    assert S.conj.output_dtype("bool") == "int8"
    assert S.conj.output_dtype("complex64") == "complex64"


@pytest.mark.parametrize("dtype", ["float32", "float64", "int16", "bool"])
def test_isfinite(dtype):
    x = ot.vector("x", dtype=dtype)
    value = np.array([1, 0, 1], dtype=dtype)
    if dtype[0] == "f":
        value = np.array([1.0, np.nan, np.inf, -np.inf, -0.0], dtype=dtype)
    y = ot.isfinite(x)
    assert y.dtype == "bool"
    assert_matches(run(y, (x, value)), np.isfinite(value))


def test_aliases():
    assert ot.digamma is ot.psi
    assert ot.log1pexp is ot.softplus
    assert ot.tensor_copy is ot.identity
    assert ot.fill is ot.second
    assert ot.square is ot.sqr
    assert ot.bitwise_not is ot.invert
    pairs = [
        ("equal", "eq"),
        ("not_equal", "neq"),
        ("less", "lt"),
        ("less_equal", "le"),
    ]
    pairs += [("greater", "gt"), ("greater_equal", "ge")]
    for alias, name in pairs:
        assert getattr(ot, alias) is getattr(ot, name)
    x = ot.dvector("x")
    with pytest.warns(FutureWarning, match="sgn is deprecated"):
        y = ot.sgn(x)
    assert y.owner.op == ot.sign


# --- gradients ---------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(set(UNARY) - ZERO_GRAD))
def test_verify_grad(name):
    rng = np.random.default_rng(3)
    verify_grad(getattr(ot, name), [points(rng, UNARY[name][1], (2, 3))], rng=rng)


@pytest.mark.parametrize("name", ["erf", "arcsinh", "gammaln"])
def test_verify_grad_float32(name):
    rng = np.random.default_rng(4)
    x = ot.fvector("x")
    g = oxtensor.grad(getattr(ot, name)(x).sum(), x)
    assert g.dtype == "float32"
    verify_grad(getattr(ot, name), [points(rng, UNARY[name][1], 4, "float32")], rng=rng)


@pytest.mark.parametrize("name", sorted(ZERO_GRAD))
def test_rounding_gradients_are_zero(name):
    x = ot.dvector("x")
    g = oxtensor.grad(getattr(ot, name)(x).sum(), x)
    assert_matches(run(g, (x, np.array([0.3, 1.7]))), np.zeros(2))


def test_binary_and_ternary_gradients():
    rng = np.random.default_rng(5)
    y, x = rng.uniform(0.5, 2, size=(2, 3)), rng.uniform(-2, 2, size=(2, 3))
    verify_grad(ot.arctan2, [y, x], rng=rng)
    value = np.array([-1.0, 0.2, 0.7, 3.0])
    verify_grad(
        lambda v, lo, hi: ot.clip(v, lo, hi),
        [value, np.array(0.0), np.array(1.0)],
        rng=rng,
    )
    v = ot.dvector("v")
    gx, glo, ghi = oxtensor.grad(ot.clip(v, 0.0, 1.0).sum(), [v])[0], None, None
    assert_matches(run(gx, (v, value)), np.array([0.0, 1.0, 1.0, 0.0]))
    del glo, ghi


def test_log1mexp_gradient_at_zero_is_minus_inf():
    x = ot.dvector("x")
    g = oxtensor.grad(ot.log1mexp(x).sum(), x)
    got = run(g, (x, np.array([0.0, -1.0])))
    assert got[0] == -np.inf
    assert np.isclose(got[1], -1 / np.expm1(1.0))


def test_real_parts_pass_gradients_and_complex_inputs_refuse():
    x = ot.dvector("x")
    g = oxtensor.grad((ot.real(x) * 2 + ot.imag(x) + ot.angle(x)).sum(), x)
    assert_matches(run(g, (x, np.array([1.0, -2.0]))), np.array([2.0, 2.0]))
    c = ot.cvector("c")
    with pytest.raises(NotImplementedError, match="real of a complex input"):
        oxtensor.grad(ot.real(c).sum(), c)


@pytest.mark.parametrize("name", ["arcsin", "erfinv", "gamma", "log10"])
def test_rop_is_the_jacobian_times_the_tangent(name):
    rng = np.random.default_rng(6)
    x, v = ot.dvector("x"), ot.dvector("v")
    xv = points(rng, UNARY[name][1], 3)
    vv = rng.normal(size=3)
    y = getattr(ot, name)(x)
    jv = run(Rop(y, x, v), (x, xv), (v, vv))
    d = oxtensor.function([x], oxtensor.grad(y.sum(), x))(xv)
    assert_matches(jv, d * vv)


# --- refusals, str forms and dtype rules -------------------------------------

NO_COMPLEX = [
    "trunc",
    "arctan2",
    "log1mexp",
    "erfc",
    "erfcx",
    "erfinv",
    "erfcinv",
]
NO_COMPLEX += ["gamma", "gammaln", "psi", "tri_gamma", "deg2rad", "rad2deg"]
# SciPy's special functions added later (erf takes complex numbers: its
# values are tested in tests/tensor/test_scipy_special.py).
NO_COMPLEX += ["gammainc", "betainc", "jv", "owens_t", "hyp2f1"]


@pytest.mark.parametrize("name", NO_COMPLEX)
def test_complex_inputs_are_refused_naming_the_op(name):
    op = getattr(ot, name)
    c = ot.zvector("c")
    args = [c] * op.scalar_op.nin
    with pytest.raises(
        TypeError,
        match=rf"{op.scalar_op} does not accept complex inputs, got \(complex128",
    ):
        op(*args)


@pytest.mark.parametrize("dtype", ["int32", "bool", "uint8", "complex64"])
def test_rounding_refuses_non_floats(dtype):
    x = ot.vector("x", dtype=dtype)
    for name in ["round_half_to_even", "round_half_away_from_zero"]:
        with pytest.raises(
            TypeError,
            match=rf"Round\w+ does not accept non-float inputs, got \({dtype}\)",
        ):
            getattr(ot, name)(x)


# (function, PyTensor's str of the Elemwise, str of the scalar op, class name)
STRS = [
    ("exp2", "Exp2", "exp2", "Exp2"),
    ("log2", "Log2", "log2", "Log2"),
    ("log10", "Log10", "log10", "Log10"),
    ("round_half_to_even", "Roundhalftoeven", "RoundHalfToEven", "RoundHalfToEven"),
    (
        "round_half_away_from_zero",
        "Roundhalfawayfromzero",
        "RoundHalfAwayFromZero",
        "RoundHalfAwayFromZero",
    ),
    ("trunc", "Trunc", "trunc", "Trunc"),
    ("arcsin", "Arcsin", "arcsin", "ArcSin"),
    ("arccos", "Arccos", "arccos", "ArcCos"),
    ("arctan", "Arctan", "arctan", "ArcTan"),
    ("arctan2", "Arctan2", "arctan2", "ArcTan2"),
    ("sinh", "Sinh", "sinh", "Sinh"),
    ("cosh", "Cosh", "cosh", "Cosh"),
    ("arcsinh", "Arcsinh", "arcsinh", "ArcSinh"),
    ("arccosh", "Arccosh", "arccosh", "ArcCosh"),
    ("arctanh", "Arctanh", "arctanh", "ArcTanh"),
    ("deg2rad", "Deg2rad", "deg2rad", "Deg2Rad"),
    ("rad2deg", "Rad2deg", "rad2deg", "Rad2Deg"),
    ("log1mexp", "Log1mexp", "Log1mexp", "Log1mexp"),
    ("erf", "Erf", "erf", "Erf"),
    ("erfc", "Erfc", "erfc", "Erfc"),
    ("erfcx", "Erfcx", "erfcx", "Erfcx"),
    ("erfinv", "Erfinv", "erfinv", "Erfinv"),
    ("erfcinv", "Erfcinv", "erfcinv", "Erfcinv"),
    ("gamma", "Gamma", "gamma", "Gamma"),
    ("gammaln", "Gammaln", "gammaln", "GammaLn"),
    ("psi", "Psi", "psi", "Psi"),
    ("tri_gamma", "Tri_gamma", "tri_gamma", "TriGamma"),
    ("clip", "Clip", "clip", "Clip"),
    ("real", "Real", "real", "Real"),
    ("imag", "Imag", "imag", "Imag"),
    ("angle", "Angle", "angle", "Angle"),
]


@pytest.mark.parametrize(("name", "elemwise_str", "scalar_str", "cls"), STRS)
def test_str_forms_match_pytensor(name, elemwise_str, scalar_str, cls):
    op = getattr(ot, name)
    assert str(op) == elemwise_str
    assert str(op.scalar_op) == scalar_str
    assert type(op.scalar_op).__name__ == cls
    assert op.scalar_op is getattr(S, name)
    assert isinstance(op.scalar_op, getattr(S, cls))
    assert op == ot.Elemwise(getattr(S, cls)())


def test_dprint_reads_as_pytensor():
    x = ot.dvector("x")
    text = oxtensor.dprint(ot.clip(ot.erfinv(x), 0, 1), file="str")
    assert text.splitlines()[:3] == [
        "Clip [id A]",
        " ├─ Erfinv [id B]",
        " │  └─ x [id C]",
    ]


def pytensor_upcast(*dtypes):
    """PyTensor's ``upcast``: NumPy promotion of 0-d arrays, pairwise."""
    return np.dtype(functools.reduce(np.result_type, dtypes, dtypes[0])).name


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(DTYPES), min_size=1, max_size=3))
def test_dtype_rules(dtypes):
    floats = [TO_FLOAT.get(d, d) for d in dtypes]
    complex_in = any(d.startswith("complex") for d in dtypes)
    n = len(dtypes)
    ops = {
        1: ["exp2", "erf", "round_half_to_even", "real", "angle"],
        2: ["arctan2"],
        3: ["clip"],
    }
    for name in ops[n]:
        scalar_op = getattr(S, name)
        if name in ("exp2", "erf"):
            want = pytensor_upcast(*floats)
        elif name == "arctan2":
            want = None if complex_in else pytensor_upcast(*floats)
        elif name == "round_half_to_even":
            want = dtypes[0] if dtypes[0].startswith("float") else None
        elif name == "real":
            want = {"complex64": "float32", "complex128": "float64"}.get(
                dtypes[0], dtypes[0]
            )
        elif name == "angle":
            want = "float64"
        else:
            want = None if complex_in else pytensor_upcast(*dtypes)
        if want is None:
            with pytest.raises(TypeError, match=str(scalar_op)):
                scalar_op.output_dtype(*dtypes)
        else:
            assert scalar_op.output_dtype(*dtypes) == want, (name, dtypes)


def test_arithmetic_rules_match_pytensor():
    # Checked against PyTensor 3: `sub` refuses only a bool result, `pow` of
    # bools is int8, `mod` takes bools, bitwise ops refuse bool/int mixes,
    # `sign` refuses complex.
    assert S.sub.output_dtype("bool", "int8") == "int8"
    assert S.pow.output_dtype("bool", "bool") == "int8"
    assert S.mod.output_dtype("bool", "bool") == "bool"
    assert S.and_.output_dtype("bool", "bool") == "bool"
    with pytest.raises(TypeError, match="and_ does not accept mixed bool and integer"):
        S.and_.output_dtype("bool", "int8")
    with pytest.raises(TypeError, match="sign does not accept complex"):
        ot.sign(ot.cvector())
    b, i = ot.vector("b", dtype="bool"), ot.bvector("i")
    outs = run(
        [b - i, b**b, ot.mod(b, b)],
        (b, np.array([True, False, True])),
        (i, np.array([3, -4, 0], "int8")),
    )
    assert_matches(outs[0], np.array([-2, 4, 1], "int8"))
    assert_matches(outs[1], np.array([1, 1, 1], "int8"))
    assert_matches(outs[2], np.array([False, False, False]))


def test_dtype_rule_examples_from_pytensor():
    # Checked against PyTensor 3: each input is raised to a float first.
    assert S.arctan2.output_dtype("int8", "uint16") == "float32"
    assert S.arctan2.output_dtype("bool", "float16") == "float32"
    assert S.clip.output_dtype("int8", "uint8", "float16") == "float32"
    assert S.exp2.output_dtype("int32") == "float64"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert S.angle.output_dtype("complex64") == "float64"


@st.composite
def broadcast_shapes(draw):
    """An output shape and two input shapes that broadcast to it, with
    the 1s marked static (PyTensor broadcasts only those)."""
    out = draw(st.lists(st.integers(0, 3), min_size=0, max_size=3))
    shapes = []
    for _ in range(2):
        rank = draw(st.integers(0, len(out)))
        dims = out[len(out) - rank :]
        shapes.append(tuple(1 if draw(st.booleans()) else n for n in dims))
    return shapes


@settings(max_examples=60, deadline=None)
@given(broadcast_shapes(), st.sampled_from(["arctan2", "clip"]))
def test_broadcasting_like_numpy(shapes, name):
    rng = np.random.default_rng(7)
    variables = [
        ot.tensor(dtype="float64", shape=tuple(1 if n == 1 else None for n in s))
        for s in shapes
    ]
    values = [rng.normal(size=s) for s in shapes]
    if name == "arctan2":
        want = np.arctan2(*values)
        got = run(ot.arctan2(*variables), *zip(variables, values, strict=True))
    else:
        want = np.where(
            values[0] < 0.0, 0.0, np.where(values[0] > values[1], values[1], values[0])
        )
        y = ot.clip(variables[0], 0.0, variables[1])
        got = run(y, *zip(variables, values, strict=True))
    assert_matches(got, want)


def test_pickles_keep_the_shared_ops():
    import pickle

    for name in ["erf", "round_half_to_even", "log1mexp", "clip", "angle"]:
        op = getattr(ot, name)
        assert pickle.loads(pickle.dumps(op)) == op
        assert pickle.loads(pickle.dumps(op.scalar_op)) is op.scalar_op
    x = ot.dvector("x")
    f = oxtensor.function([x], ot.erfinv(ot.clip(x, -0.5, 0.5)))
    g = pickle.loads(pickle.dumps(f))
    value = np.array([-1.0, 0.25])
    assert_matches(g(value), sp.erfinv(np.clip(value, -0.5, 0.5)))


def test_infer_shape():
    x, y = ot.dmatrix("x"), ot.drow("y")
    value = np.random.default_rng(8).uniform(0.1, 0.9, size=(3, 4))
    row = value[:1]
    outputs = [ot.arctan2(x, y), ot.clip(x, 0.2, y), ot.erfinv(x), ot.angle(x)]
    check_infer_shape([x, y], outputs, [value, row], ot.Elemwise)

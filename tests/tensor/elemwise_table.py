"""Every scalar op that `Elemwise` maps, as one table the coverage tests
(`test_coverage_elemwise*.py`) walk: the NumPy/SciPy reference, the value
domain per input, the kind of gradient, and PyTensor's `str` forms (read
from PyTensor 3: `str(pt.<name>)` and `str(pt.<name>.scalar_op)`)."""

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.special as sp


def _sigmoid(x: Any) -> Any:
    return np.reciprocal(np.exp(-x) + x.dtype.type(1))


def _softplus(x: Any) -> Any:
    return np.logaddexp(x.dtype.type(0), x)


def _log1mexp(x: Any) -> Any:
    return np.where(x < np.log(0.5), np.log1p(-np.exp(x)), np.log(-np.expm1(x)))


def _round_away(x: Any) -> Any:
    return np.copysign(np.floor(np.abs(x) + 0.5), x)


def _clip(x: Any, lo: Any, hi: Any) -> Any:
    # PyTensor's clip: the lower bound wins where x is below it, NaN stays.
    return np.where(x < lo, lo, np.where(x > hi, hi, x))


def _angle(x: Any) -> Any:
    # oxtensor computes the angle in float64 for every input (documented).
    return np.angle(x.astype(np.result_type(x, np.float64)))


def _identity(x: Any) -> Any:
    return np.array(x, copy=True)  # np.positive has no bool loop


def _gammau(k: Any, x: Any) -> Any:
    return sp.gammaincc(k, x) * sp.gamma(k)


def _gammal(k: Any, x: Any) -> Any:
    return sp.gammainc(k, x) * sp.gamma(k)


def _second(x: Any, y: Any) -> Any:
    return np.broadcast_to(y, np.broadcast_shapes(x.shape, y.shape))


@dataclass(frozen=True)
class Case:
    """One scalar op: ``ref`` computes NumPy's answer, ``domains`` give
    each input's value range (where the op is smooth, for ``verify_grad``),
    ``grad`` is ``"smooth"``, ``"zero"`` (piecewise constant: PyTensor's
    zero gradient), ``"none"`` (integer-only: no gradient, as in
    PyTensor) or ``"partial"`` (some inputs have an undefined gradient,
    as Bessel orders: tests/tensor/test_scipy_special.py);
    ``compute`` says whether NumPy computes in the inputs' dtypes
    (``"in"``) or in the output dtype (``"out"``)."""

    cls: str
    ref: Any
    domains: tuple[tuple[float, float], ...]
    grad: str
    elemwise_str: str
    scalar_str: str
    compute: str = "out"


R = (-2.0, 2.0)  # the default domain
POS = (0.3, 3.0)
UNIT = (-0.9, 0.9)
SHAPE = (0.5, 5.0)  # shape parameters of the incomplete gamma and beta
PROB = (0.1, 0.9)
ORDER = (0.5, 4.0)  # Bessel orders

CASES: dict[str, Case] = {
    "add": Case("Add", np.add, (R, R), "smooth", "Add", "add"),
    "sub": Case("Sub", np.subtract, (R, R), "smooth", "Sub", "sub"),
    "mul": Case("Mul", np.multiply, (R, R), "smooth", "Mul", "mul"),
    "true_div": Case(
        "TrueDiv", np.true_divide, (R, POS), "smooth", "True_div", "true_div"
    ),
    "int_div": Case("IntDiv", np.floor_divide, (R, POS), "zero", "Int_div", "int_div"),
    "mod": Case("Mod", np.mod, ((0.3, 2.9), (0.35, 0.45)), "smooth", "Mod", "mod"),
    "pow": Case("Pow", np.power, (POS, (0.0, 3.0)), "smooth", "Pow", "pow"),
    "maximum": Case("Maximum", np.maximum, (R, R), "smooth", "Maximum", "Maximum"),
    "minimum": Case("Minimum", np.minimum, (R, R), "smooth", "Minimum", "Minimum"),
    "neg": Case("Neg", np.negative, (R,), "smooth", "Neg", "neg"),
    "abs": Case("Abs", np.abs, (R,), "smooth", "Abs", "Abs", "in"),
    "sign": Case("Sign", np.sign, (R,), "zero", "Sign", "sign"),
    "sqr": Case("Sqr", np.square, (R,), "smooth", "Sqr", "sqr"),
    "sqrt": Case("Sqrt", np.sqrt, (POS,), "smooth", "Sqrt", "sqrt"),
    "exp": Case("Exp", np.exp, (R,), "smooth", "Exp", "exp"),
    "log": Case("Log", np.log, (POS,), "smooth", "Log", "log"),
    "log1p": Case("Log1p", np.log1p, (POS,), "smooth", "Log1p", "log1p"),
    "expm1": Case("Expm1", np.expm1, (R,), "smooth", "Expm1", "expm1"),
    "sin": Case("Sin", np.sin, (R,), "smooth", "Sin", "sin"),
    "cos": Case("Cos", np.cos, (R,), "smooth", "Cos", "cos"),
    "tan": Case("Tan", np.tan, ((-1.2, 1.2),), "smooth", "Tan", "tan"),
    "tanh": Case("Tanh", np.tanh, (R,), "smooth", "Tanh", "tanh"),
    "sigmoid": Case("Sigmoid", _sigmoid, (R,), "smooth", "Sigmoid", "sigmoid"),
    "softplus": Case("Softplus", _softplus, (R,), "smooth", "Softplus", "Softplus"),
    "reciprocal": Case(
        "Reciprocal", np.reciprocal, (POS,), "smooth", "Reciprocal", "reciprocal"
    ),
    "floor": Case("Floor", np.floor, (R,), "zero", "Floor", "floor"),
    "ceil": Case("Ceil", np.ceil, (R,), "zero", "Ceil", "ceil"),
    "lt": Case("LT", np.less, (R, R), "zero", "Lt", "LT", "in"),
    "gt": Case("GT", np.greater, (R, R), "zero", "Gt", "GT", "in"),
    "le": Case("LE", np.less_equal, (R, R), "zero", "Le", "LE", "in"),
    "ge": Case("GE", np.greater_equal, (R, R), "zero", "Ge", "GE", "in"),
    "eq": Case("EQ", np.equal, (R, R), "zero", "Eq", "EQ", "in"),
    "neq": Case("NEQ", np.not_equal, (R, R), "zero", "Neq", "NEQ", "in"),
    "isnan": Case("IsNan", np.isnan, (R,), "zero", "Isnan", "IsNan", "in"),
    "isinf": Case("IsInf", np.isinf, (R,), "zero", "Isinf", "IsInf", "in"),
    "and_": Case("AND", np.bitwise_and, (R, R), "none", "And", "AND", "in"),
    "or_": Case("OR", np.bitwise_or, (R, R), "none", "Or", "OR", "in"),
    "xor": Case("XOR", np.bitwise_xor, (R, R), "none", "Xor", "XOR", "in"),
    "invert": Case("Invert", np.invert, (R,), "none", "Invert", "Invert", "in"),
    "identity": Case("Identity", _identity, (R,), "smooth", "Identity", "identity"),
    "second": Case("Second", _second, (R, R), "smooth", "Second", "second"),
    "switch": Case(
        "Switch", np.where, ((0.0, 1.0), R, R), "smooth", "Switch", "Switch"
    ),
    "exp2": Case("Exp2", np.exp2, (R,), "smooth", "Exp2", "exp2"),
    "log2": Case("Log2", np.log2, (POS,), "smooth", "Log2", "log2"),
    "log10": Case("Log10", np.log10, (POS,), "smooth", "Log10", "log10"),
    "round_half_to_even": Case(
        "RoundHalfToEven", np.round, (R,), "zero", "Roundhalftoeven", "RoundHalfToEven"
    ),
    "round_half_away_from_zero": Case(
        "RoundHalfAwayFromZero",
        _round_away,
        (R,),
        "zero",
        "Roundhalfawayfromzero",
        "RoundHalfAwayFromZero",
    ),
    "trunc": Case("Trunc", np.trunc, (R,), "zero", "Trunc", "trunc"),
    "arcsin": Case("ArcSin", np.arcsin, (UNIT,), "smooth", "Arcsin", "arcsin"),
    "arccos": Case("ArcCos", np.arccos, (UNIT,), "smooth", "Arccos", "arccos"),
    "arctan": Case("ArcTan", np.arctan, (R,), "smooth", "Arctan", "arctan"),
    "arctan2": Case("ArcTan2", np.arctan2, (POS, R), "smooth", "Arctan2", "arctan2"),
    "sinh": Case("Sinh", np.sinh, (R,), "smooth", "Sinh", "sinh"),
    "cosh": Case("Cosh", np.cosh, (R,), "smooth", "Cosh", "cosh"),
    "arcsinh": Case("ArcSinh", np.arcsinh, (R,), "smooth", "Arcsinh", "arcsinh"),
    "arccosh": Case(
        "ArcCosh", np.arccosh, ((1.2, 4.0),), "smooth", "Arccosh", "arccosh"
    ),
    "arctanh": Case("ArcTanh", np.arctanh, (UNIT,), "smooth", "Arctanh", "arctanh"),
    "deg2rad": Case("Deg2Rad", np.deg2rad, (R,), "smooth", "Deg2rad", "deg2rad"),
    "rad2deg": Case("Rad2Deg", np.rad2deg, (R,), "smooth", "Rad2deg", "rad2deg"),
    "log1mexp": Case(
        "Log1mexp", _log1mexp, ((-3.0, -0.2),), "smooth", "Log1mexp", "Log1mexp"
    ),
    "erf": Case("Erf", sp.erf, (R,), "smooth", "Erf", "erf"),
    "erfc": Case("Erfc", sp.erfc, (R,), "smooth", "Erfc", "erfc"),
    "erfcx": Case("Erfcx", sp.erfcx, (R,), "smooth", "Erfcx", "erfcx"),
    "erfinv": Case("Erfinv", sp.erfinv, (UNIT,), "smooth", "Erfinv", "erfinv"),
    "erfcinv": Case(
        "Erfcinv", sp.erfcinv, ((0.2, 1.8),), "smooth", "Erfcinv", "erfcinv"
    ),
    "gamma": Case("Gamma", sp.gamma, (POS,), "smooth", "Gamma", "gamma"),
    "gammaln": Case("GammaLn", sp.gammaln, (POS,), "smooth", "Gammaln", "gammaln"),
    "psi": Case("Psi", sp.psi, (POS,), "smooth", "Psi", "psi"),
    "tri_gamma": Case(
        "TriGamma",
        functools.partial(sp.polygamma, 1),
        (POS,),
        "smooth",
        "Tri_gamma",
        "tri_gamma",
    ),
    "clip": Case(
        "Clip", _clip, (R, (-1.5, -0.5), (0.5, 1.5)), "smooth", "Clip", "clip"
    ),
    "real": Case("Real", np.real, (R,), "smooth", "Real", "real", "in"),
    "imag": Case("Imag", np.imag, (R,), "smooth", "Imag", "imag", "in"),
    "conj": Case("Conj", np.conj, (R,), "smooth", "Conj", "conj"),
    "angle": Case("Angle", _angle, (R,), "smooth", "Angle", "angle", "in"),
    "hypot": Case("Hypot", np.hypot, (R, R), "smooth", "Hypot", "hypot"),
    "xlogy": Case("XLogY", sp.xlogy, (R, POS), "smooth", "Xlogy", "xlogy"),
    "xlog1py": Case("XLog1pY", sp.xlog1py, (R, POS), "smooth", "Xlog1py", "xlog1py"),
    **{
        name: Case(cls, ref, domains, grad, name.capitalize(), name)
        for name, cls, ref, domains, grad in [
            ("gammainc", "GammaInc", sp.gammainc, (SHAPE, (0.2, 6.0)), "smooth"),
            ("gammaincc", "GammaIncC", sp.gammaincc, (SHAPE, (0.2, 6.0)), "smooth"),
            ("gammaincinv", "GammaIncInv", sp.gammaincinv, (SHAPE, PROB), "partial"),
            ("gammainccinv", "GammaIncCInv", sp.gammainccinv, (SHAPE, PROB), "partial"),
            ("gammau", "GammaU", _gammau, (SHAPE, (0.2, 6.0)), "smooth"),
            ("gammal", "GammaL", _gammal, (SHAPE, (0.2, 6.0)), "smooth"),
            ("j0", "J0", sp.j0, ((-9.0, 9.0),), "smooth"),
            ("j1", "J1", sp.j1, ((-9.0, 9.0),), "smooth"),
            ("i0", "I0", sp.i0, ((-3.0, 3.0),), "smooth"),
            ("i1", "I1", sp.i1, ((-3.0, 3.0),), "smooth"),
            ("jv", "Jv", sp.jv, (ORDER, (0.5, 8.0)), "partial"),
            ("iv", "Iv", sp.iv, (ORDER, (0.5, 8.0)), "partial"),
            ("ive", "Ive", sp.ive, (ORDER, (0.5, 8.0)), "partial"),
            ("kve", "Kve", sp.kve, (ORDER, (0.5, 8.0)), "partial"),
            ("owens_t", "Owens_t", sp.owens_t, ((-3.0, 3.0), (-3.0, 3.0)), "smooth"),
            ("betainc", "BetaInc", sp.betainc, (SHAPE, SHAPE, PROB), "smooth"),
            (
                "betaincinv",
                "BetaIncInv",
                sp.betaincinv,
                (SHAPE, SHAPE, PROB),
                "partial",
            ),
            ("hyp2f1", "Hyp2F1", sp.hyp2f1, (POS, POS, POS, (-0.6, 0.6)), "smooth"),
        ]
    },
}

# The ops whose gradient PyTensor leaves undefined for complex inputs and
# oxtensor does too (documented): tested with real inputs only.
REAL_PARTS = {"real", "imag", "conj", "angle"}

# Input dtypes every op is tried in: one of each kind, float16 included.
DTYPES = ["bool", "int8", "uint16", "int64", "float16", "float32", "float64"]
DTYPES += ["complex128"]

# PyTensor's `upgrade_to_float`, input by input.
TO_FLOAT = {
    d: "float32" if np.dtype(d).itemsize <= 2 else "float64"
    for d in "bool int8 uint8 int16 uint16 int32 uint32 int64 uint64".split()
}


def base_dtype(name: str) -> str:
    """The dtype the shape tests use: int64 for the integer-only ops."""
    return "int64" if CASES[name].grad == "none" else "float64"


def values(dtype: str, domain: tuple[float, float], shape: Any, rng: Any) -> Any:
    """Values of ``dtype`` inside ``domain`` (integers: the whole numbers in
    it, at least 0 and 1; complex: a small imaginary part)."""
    dt = np.dtype(dtype)
    low, high = domain
    if dt.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dt.kind in "iu":
        lo = max(int(np.floor(low)), 0 if dt.kind == "u" else -100)
        hi = max(int(np.ceil(high)), lo + 1)
        return rng.integers(lo, hi, shape, endpoint=True).astype(dt)
    real = rng.uniform(low, high, shape)
    if dt.kind == "c":
        return (real + 1j * rng.uniform(-0.3, 0.3, shape)).astype(dt)
    return real.astype(dt)


def reference(name: str, args: list[Any], out_dtype: str) -> Any:
    """NumPy's answer for ``name`` on ``args``, in ``out_dtype``."""
    case = CASES[name]
    if case.compute == "out":
        wide = "complex128" if np.dtype(out_dtype).kind == "c" else "float64"
        work = wide if np.dtype(out_dtype).kind in "fc" else out_dtype
        args = [a.astype(work) for a in args]
    with np.errstate(all="ignore"):
        return np.asarray(case.ref(*args)).astype(out_dtype)

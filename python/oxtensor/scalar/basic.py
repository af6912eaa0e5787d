"""Scalar ops: the element operations `Elemwise` maps over tensors. The
classes and their shared instances live in the Rust extension."""

from oxtensor import _core

ScalarOp = _core.ScalarOp
Cast = _core.Cast
Composite = _core.Composite

_NAMES = (
    "Add Sub Mul TrueDiv IntDiv Mod Pow Maximum Minimum Neg Abs Sign Sqr Sqrt Exp Log "
    "Log1p Expm1 Sin Cos Tan Tanh Sigmoid Softplus Reciprocal Floor Ceil LT GT LE GE "
    "EQ NEQ IsNan IsInf AND OR XOR Invert Identity Second Switch"
).split()
globals().update({name: getattr(_core, name) for name in _NAMES})

_INSTANCES = (
    "add sub mul true_div int_div mod pow maximum minimum neg abs sign sqr sqrt exp "
    "log log1p expm1 sin cos tan tanh sigmoid softplus reciprocal floor ceil lt gt le "
    "ge eq neq isnan isinf and_ or_ xor invert identity second switch"
).split()
globals().update({name: _core.scalar_op(name) for name in _INSTANCES})

# The math-library ops. Three have no instance name in PyTensor, so their
# `str` is the class name; the module attribute is still the snake-case name.
_MATH_NAMES = (
    "Exp2 Log2 Log10 RoundHalfToEven RoundHalfAwayFromZero Trunc ArcSin ArcCos ArcTan "
    "ArcTan2 Sinh Cosh ArcSinh ArcCosh ArcTanh Deg2Rad Rad2Deg Log1mexp Erf Erfc Erfcx "
    "Erfinv Erfcinv Gamma GammaLn Psi TriGamma Clip Real Imag Conj Angle"
).split()
globals().update({name: getattr(_core, name) for name in _MATH_NAMES})
_UNNAMED = {
    "round_half_to_even": "RoundHalfToEven",
    "round_half_away_from_zero": "RoundHalfAwayFromZero",
    "log1mexp": "Log1mexp",
}
_MATH_INSTANCES = (
    "exp2 log2 log10 trunc arcsin arccos arctan arctan2 sinh cosh arcsinh arccosh "
    "arctanh deg2rad rad2deg erf erfc erfcx erfinv erfcinv gamma gammaln psi tri_gamma "
    "clip real imag conj angle"
).split()
globals().update({name: _core.scalar_op(name) for name in _MATH_INSTANCES})
globals().update({name: _core.scalar_op(s) for name, s in _UNNAMED.items()})

__all__ = [
    "Cast",
    "Composite",
    "ScalarOp",
    *_NAMES,
    *_INSTANCES,
    *_MATH_NAMES,
    *_MATH_INSTANCES,
    *_UNNAMED,
]

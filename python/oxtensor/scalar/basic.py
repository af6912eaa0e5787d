"""Scalar ops: the element operations `Elemwise` maps over tensors. The
classes and their shared instances live in the Rust extension."""

from oxtensor import _core

ScalarOp = _core.ScalarOp
Cast = _core.Cast

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

__all__ = ["Cast", "ScalarOp", *_NAMES, *_INSTANCES]

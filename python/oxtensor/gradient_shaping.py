"""The gradient-shaping ops under PyTensor's class names.

The core has one `GradOp` whose kind says what it does to the gradient;
PyTensor has a class per kind (`GradClip`, `ZeroGrad`, ...) and users test
``isinstance(node.op, GradClip)``. Each name here is a subclass of `GradOp`
whose `isinstance` reads the kind, and calling it builds that kind's op.
"""

from typing import Any

from oxtensor import _core


class _KindCheck(type):
    """`isinstance(op, GradClip)` is true for a core `GradOp` of that kind."""

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, _core.GradOp) and obj.kind == cls.__name__


def _op_of_kind(kind: str, a: float = 0.0, b: float = 0.0) -> Any:
    # The core builds these ops only applied to a variable; the op of a
    # throwaway application is the same value as any other of its kind.
    probe = _core.as_tensor_variable(0.0)
    return _core._grad_op(probe, kind, a, b).owner.op


class ZeroGrad(_core.GradOp, metaclass=_KindCheck):
    """The identity whose gradient is zero (`zero_grad`)."""

    def __new__(cls) -> Any:
        return _op_of_kind("zero")


class DisconnectedGrad(_core.GradOp, metaclass=_KindCheck):
    """The identity nothing flows back through (`disconnected_grad`)."""

    def __new__(cls) -> Any:
        return _op_of_kind("disconnected")


class UndefinedGrad(_core.GradOp, metaclass=_KindCheck):
    """The identity whose gradient is undefined (`undefined_grad`)."""

    def __new__(cls) -> Any:
        return _op_of_kind("undefined")


class GradClip(_core.GradOp, metaclass=_KindCheck):
    """The identity whose gradient is clipped to ``[lower, upper]`` (`grad_clip`)."""

    def __new__(cls, clip_lower_bound: float, clip_upper_bound: float) -> Any:
        return _op_of_kind("clip", float(clip_lower_bound), float(clip_upper_bound))


class GradScale(_core.GradOp, metaclass=_KindCheck):
    """The identity whose gradient is multiplied by ``multiplier`` (`grad_scale`)."""

    def __new__(cls, multiplier: float) -> Any:
        return _op_of_kind("scale", float(multiplier))

"""Scalar ops: the element operations `Elemwise` maps over tensors. The
classes and their shared instances live in the Rust extension, made from
its scalar table (`_core.scalar_kinds()`): each kind's class (``Add``) and
its instance under its module name (``add``; ``log1mexp`` for the ops
PyTensor names by class)."""

from oxtensor import _core
from oxtensor.scalar.autocast import *  # noqa: F403
from oxtensor.scalar.autocast import __all__ as _AUTOCAST_NAMES
from oxtensor.scalar.variable import *  # noqa: F403
from oxtensor.scalar.variable import __all__ as _VARIABLE_NAMES

ScalarOp = _core.ScalarOp
Cast = _core.Cast
Composite = _core.Composite

#: ``(class, instance, attribute name, special, method, fused)`` per kind.
KINDS = tuple(_core.scalar_kinds())

_CLASSES = [cls.__name__ for cls, *_ in KINDS]
_INSTANCES = [attr for _, _, attr, *_ in KINDS]
globals().update({cls.__name__: cls for cls, *_ in KINDS})
globals().update({attr: op for _, op, attr, *_ in KINDS})

__all__ = [
    "Cast",
    "Composite",
    "ScalarOp",
    *_CLASSES,
    *_INSTANCES,
    *_VARIABLE_NAMES,
    *_AUTOCAST_NAMES,
]

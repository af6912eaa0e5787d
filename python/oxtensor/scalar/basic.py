"""Scalar ops: the element operations `Elemwise` maps over tensors. The
classes and their shared instances live in the Rust extension, made from
its scalar table (`_core.scalar_kinds()`): each kind's class (``Add``) and
its instance under its module name (``add``; ``log1mexp`` for the ops
PyTensor names by class)."""

from typing import Any

from oxtensor import _core
from oxtensor.scalar.autocast import *  # noqa: F403
from oxtensor.scalar.autocast import __all__ as _AUTOCAST_NAMES
from oxtensor.scalar.dtypes import *  # noqa: F403
from oxtensor.scalar.dtypes import __all__ as _DTYPE_NAMES
from oxtensor.scalar.variable import *  # noqa: F403
from oxtensor.scalar.variable import __all__ as _VARIABLE_NAMES
from oxtensor.scalar.variable import get_scalar_type

ScalarOp = _core.ScalarOp
Cast = _core.Cast
Composite = _core.Composite
ComplexError = _core.ComplexError


class specific_out:
    """The output-type rule of a scalar op whose output types are fixed:
    ``spec`` lists them (PyTensor's ``output_types_preference``)."""

    def __init__(self, *spec: Any) -> None:
        self.spec = spec

    def __call__(self, *types: Any) -> tuple[Any, ...]:
        return self.spec


def _cast_output_types(self: Any) -> specific_out:
    """A cast's output type is its target's scalar type."""
    return specific_out(get_scalar_type(self.o_dtype))


Cast.output_types_preference = property(_cast_output_types)

#: ``(class, instance, attribute name, special, method, fused)`` per kind.
KINDS = tuple(_core.scalar_kinds())

_CLASSES = [cls.__name__ for cls, *_ in KINDS]
_INSTANCES = [attr for _, _, attr, *_ in KINDS]
globals().update({cls.__name__: cls for cls, *_ in KINDS})
globals().update({attr: op for _, op, attr, *_ in KINDS})

__all__ = [
    "Cast",
    "ComplexError",
    "specific_out",
    "Composite",
    "ScalarOp",
    *_CLASSES,
    *_INSTANCES,
    *_VARIABLE_NAMES,
    *_AUTOCAST_NAMES,
    *_DTYPE_NAMES,
]

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
from oxtensor.scalar.python_ops import (
    float_out,
    int_out,
    same_out,
    upcast_out,
    upgrade_to_float,
)
from oxtensor.scalar.variable import *  # noqa: F403
from oxtensor.scalar.variable import __all__ as _VARIABLE_NAMES
from oxtensor.scalar.variable import as_scalar, get_scalar_type

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


def cast(x: Any, dtype: Any) -> Any:
    """``x`` (a scalar variable or a Python number) as a scalar of
    ``dtype``: ``x`` itself when it has that dtype already, else a `Cast`
    of it. Complex to real is refused (`TypeError`), as in PyTensor: take
    ``real``, ``imag`` or ``abs`` first."""
    x = as_scalar(x)
    if isinstance(dtype, str) and dtype == "floatX":
        from oxtensor.configdefaults import config

        dtype = config.floatX
    target = get_scalar_type(dtype)
    if x.type.dtype == target.dtype:
        return x
    if x.type.dtype.startswith("complex") and not target.dtype.startswith("complex"):
        raise TypeError(
            "Casting from complex to real is ambiguous: consider real(), "
            "imag(), angle() or abs()"
        )
    return Cast(target.dtype)(x)


def _scalars_of(dtype: str) -> Any:
    """A constructor of ``dtype`` scalar variables from names: one name
    gives one variable, a string of several letters (``"xyz"``) or a list
    of names gives a list, one variable per name."""

    def make(names: Any) -> Any:
        if isinstance(names, str) and len(names) == 1:
            return get_scalar_type(dtype)(names)
        return [get_scalar_type(dtype)(name) for name in names]

    make.__name__ = make.__qualname__ = {
        "float64": "floats",
        "int64": "ints",
        "complex128": "complexs",
    }[dtype]
    return make


#: ``floats("xyz")``: float64 scalars named ``x``, ``y``, ``z``.
floats = _scalars_of("float64")
#: ``ints("ij")``: int64 scalars named ``i``, ``j``.
ints = _scalars_of("int64")
#: ``complexs("z")``: a complex128 scalar named ``z``.
complexs = _scalars_of("complex128")

#: ``(class, instance, attribute name, special, method, fused)`` per kind.
KINDS = tuple(_core.scalar_kinds())

_CLASSES = [cls.__name__ for cls, *_ in KINDS]
_INSTANCES = [attr for _, _, attr, *_ in KINDS]
globals().update({cls.__name__: cls for cls, *_ in KINDS})
globals().update({attr: op for _, op, attr, *_ in KINDS})

__all__ = [
    "Cast",
    "cast",
    "complexs",
    "floats",
    "ints",
    "ComplexError",
    "specific_out",
    "float_out",
    "int_out",
    "same_out",
    "upcast_out",
    "upgrade_to_float",
    "Composite",
    "ScalarOp",
    *_CLASSES,
    *_INSTANCES,
    *_VARIABLE_NAMES,
    *_AUTOCAST_NAMES,
    *_DTYPE_NAMES,
]

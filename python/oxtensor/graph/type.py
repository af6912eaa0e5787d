"""The `Type` base class (implemented in the Rust extension), with two
helpers of the Python types: `EqualByClass`, the equality of types without
parameters, and `imported`, a type's variable classes read lazily."""

import importlib
from typing import Any

from oxtensor import _core

Type = _core.Type


class EqualByClass:
    """A type without parameters: all instances of one class are the same
    type. Put before `Type` in the bases, so that these methods are the ones
    taken; the class gives ``__str__``, which ``repr`` shows too."""

    def __eq__(self, other: Any) -> bool:
        return type(self) is type(other)

    def __hash__(self) -> int:
        return hash(type(self))

    def __repr__(self) -> str:
        return str(self)


def imported(module: str, name: str) -> Any:
    """A property giving the class ``name`` of ``module``, imported when it
    is read: a type's variable classes live in a module importing the
    type's own (``variable_type``, ``constant_type``)."""
    return property(lambda self: getattr(importlib.import_module(module), name))


__all__ = ["Type"]

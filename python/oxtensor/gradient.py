"""Gradient markers: `DisconnectedType`, `NullType` helpers for ops' `grad`.

The gradient driver itself (``grad``, ``Lop``, ``Rop``, ...) is the Autodiff
work and is not part of this module yet.
"""

from typing import Any

from oxtensor import _core
from oxtensor.graph.null_type import NullType

DisconnectedType = _core.DisconnectedType
DisconnectedInputError = _core.DisconnectedInputError
disconnected_type = DisconnectedType()


def grad_undefined(op: Any, x_pos: int, x: Any, comment: str = "") -> Any:
    """A NullType variable: the gradient of input ``x_pos`` is undefined."""
    return NullType(
        f"This variable is Null because the grad method for input {x_pos} ({x}) "
        f"of the {op} op is mathematically undefined. {comment}"
    )()


def grad_not_implemented(op: Any, x_pos: int, x: Any, comment: str = "") -> Any:
    """A NullType variable: the gradient of input ``x_pos`` is not implemented."""
    return NullType(
        f"This variable is Null because the grad method for input {x_pos} ({x}) "
        f"of the {op} op is not implemented. {comment}"
    )()


__all__ = [
    "DisconnectedInputError",
    "DisconnectedType",
    "NullType",
    "disconnected_type",
    "grad_not_implemented",
    "grad_undefined",
]

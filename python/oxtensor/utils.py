"""Small facts about the platform PyTensor code asks for."""

import struct
from typing import Any

import numpy as np

#: Bits of a pointer on this machine (64 on 64-bit platforms).
LOCAL_BITWIDTH = struct.calcsize("P") * 8

#: Bits of a Python ``int`` converted to NumPy (``np.array(0).dtype``).
PYTHON_INT_BITWIDTH = np.dtype(np.int_).itemsize * 8


def to_return_values(values: Any) -> Any:
    """A function's results as it returns them: the one value of a
    one-element list or tuple, else ``values`` unchanged."""
    if len(values) == 1:
        return values[0]
    return values


def from_return_values(values: Any) -> Any:
    """The inverse of `to_return_values`: a list or tuple unchanged, any
    other value as a one-element list."""
    if isinstance(values, list | tuple):
        return values
    return [values]


__all__ = [
    "LOCAL_BITWIDTH",
    "PYTHON_INT_BITWIDTH",
    "from_return_values",
    "to_return_values",
]

"""Small facts about the platform PyTensor code asks for."""

import struct

import numpy as np

#: Bits of a pointer on this machine (64 on 64-bit platforms).
LOCAL_BITWIDTH = struct.calcsize("P") * 8

#: Bits of a Python ``int`` converted to NumPy (``np.array(0).dtype``).
PYTHON_INT_BITWIDTH = np.dtype(np.int_).itemsize * 8

__all__ = ["LOCAL_BITWIDTH", "PYTHON_INT_BITWIDTH"]

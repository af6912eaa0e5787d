"""Small facts about the platform PyTensor code asks for."""

import numpy as np

#: Bits of a Python ``int`` converted to NumPy (``np.array(0).dtype``).
PYTHON_INT_BITWIDTH = np.dtype(np.int_).itemsize * 8

__all__ = ["PYTHON_INT_BITWIDTH"]

"""Helpers for what changed between NumPy 1 and 2, under PyTensor's module
name: ``old_np_unique`` gives ``numpy.unique``'s NumPy 1 outputs (the inverse
always flat), which ``oxtensor.tensor.unique`` follows."""

from typing import Any

import numpy as np

using_numpy_2 = np.lib.NumpyVersion(np.__version__) >= "2.0.0rc1"


def old_np_unique(
    arr: Any,
    return_index: bool = False,
    return_inverse: bool = False,
    return_counts: bool = False,
    axis: Any = None,
) -> Any:
    """``numpy.unique`` with NumPy 1's inverse: a flat array (NumPy 2.0
    shapes it like the input when ``axis`` is None).

    >>> old_np_unique([[2, 1], [2, 3]], return_inverse=True)[1]
    array([1, 0, 1, 2])
    """
    outs = np.unique(arr, return_index, return_inverse, return_counts, axis=axis)
    if not return_inverse:
        return outs
    outs = list(outs)
    at = 2 if return_index else 1
    outs[at] = np.asarray(outs[at]).reshape(-1)
    return tuple(outs)


__all__ = ["old_np_unique", "using_numpy_2"]

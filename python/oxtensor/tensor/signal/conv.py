"""``convolve1d``: the 1-d convolution of vectors (or of stacks of them,
batched through ``Blockwise``), in NumPy's and SciPy's modes. The op,
``Convolve1d``, and its gradient live in the core."""

from typing import Any

import numpy as np

from oxtensor import _core
from oxtensor.tensor.basic import as_tensor_variable, join, zeros
from oxtensor.tensor.blockwise import Blockwise

Convolve1d = _core.Convolve1d

#: ``Convolve1d`` over stacks of vectors (signature ``(n),(k),()->(o)``).
blockwise_convolve_1d = Blockwise(Convolve1d())


def convolve1d(in1: Any, in2: Any, mode: str = "full") -> Any:
    """The convolution of ``in1`` and ``in2`` along their last axis (the
    axes before it are batch axes, broadcast). ``mode`` is ``"full"``
    (length ``n + k - 1``, NumPy's ``convolve``), ``"valid"`` (``|n - k| +
    1``, the longer input under the shorter, SciPy's) or ``"same"``
    (``n``, centred as SciPy's: valid mode over ``in1`` padded with
    zeros). Gradients flow to both inputs.

    Examples
    --------
    >>> import oxtensor.tensor as ot
    >>> convolve1d(ot.as_tensor([1.0, 2.0, 3.0]), ot.as_tensor([0.0, 1.0, 0.5])).eval()
    array([0. , 1. , 2.5, 4. , 1.5])
    """
    in1, in2 = as_tensor_variable(in1), as_tensor_variable(in2)
    if mode not in ("full", "valid", "same"):
        raise ValueError(
            f"convolve1d: mode must be 'full', 'valid' or 'same', got {mode!r}"
        )
    if in1.ndim < 1 or in2.ndim < 1:
        raise ValueError("convolve1d: both inputs need at least one dimension")
    if mode == "same":
        batch = tuple(in1.shape)[:-1]
        k = in2.shape[-1]
        left = zeros((*batch, k // 2), dtype=in1.dtype)
        right = zeros((*batch, (k - 1) // 2), dtype=in1.dtype)
        in1 = join(-1, left, in1, right)
        mode = "valid"
    full_mode = np.bool_(mode == "full")
    if in1.ndim > 1 or in2.ndim > 1:
        return blockwise_convolve_1d(in1, in2, full_mode)
    return Convolve1d()(in1, in2, full_mode)


__all__ = ["Convolve1d", "blockwise_convolve_1d", "convolve1d"]

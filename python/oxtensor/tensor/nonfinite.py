"""Infinities and NaNs: ``isposinf``, ``isneginf``, ``nan_to_num``, built
from ``isinf``/``isnan`` and ``switch``, as in ``pytensor.tensor.math``."""

from typing import Any

import numpy as np

from oxtensor.tensor._float import is_integral
from oxtensor.tensor.basic import as_tensor_variable


def isposinf(x: Any) -> Any:
    """Where ``x`` is +inf (bool; all false for integers)."""
    from oxtensor.tensor.math import gt, isinf

    x = as_tensor_variable(x)
    return isinf(x) & gt(x, np.zeros((), dtype=x.dtype))


def isneginf(x: Any) -> Any:
    """Where ``x`` is -inf (bool; all false for integers)."""
    from oxtensor.tensor.math import isinf, lt

    x = as_tensor_variable(x)
    return isinf(x) & lt(x, np.zeros((), dtype=x.dtype))


def nan_to_num(x: Any, nan: Any = 0.0, posinf: Any = None, neginf: Any = None) -> Any:
    """``x`` with NaN replaced by ``nan`` and infinities by ``posinf`` and
    ``neginf`` (by default the largest and lowest finite value of its
    dtype). Integers have neither and come back unchanged, as in NumPy
    (PyTensor casts them to float64)."""
    from oxtensor.tensor.math import clip, isnan, switch

    x = as_tensor_variable(x)
    if is_integral(x):
        return x
    if x.dtype.startswith("complex"):
        raise TypeError(f"nan_to_num: complex inputs are not supported, got {x.type}")
    info = np.finfo(x.dtype)
    if posinf is None and neginf is None:
        # Clipping to the finite range replaces exactly the infinities, in
        # one fusable float step rather than two switches.
        out = clip(x, np.asarray(info.min, x.dtype), np.asarray(info.max, x.dtype))
    else:
        pos = np.asarray(info.max if posinf is None else posinf, dtype=x.dtype)
        neg = np.asarray(info.min if neginf is None else neginf, dtype=x.dtype)
        out = switch(isposinf(x), pos, x)
        out = switch(isneginf(x), neg, out)
    return switch(isnan(x), np.asarray(nan, dtype=x.dtype), out)


__all__ = ["isneginf", "isposinf", "nan_to_num"]

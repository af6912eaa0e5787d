"""PyTensor's dtype helpers of ``scalar/basic.py`` that its users and tests
call directly: ``upcast`` (the dtype NumPy gives a sum of zeros of the
dtypes, kept at ``floatX`` under ``cast_policy='numpy+floatX'``) and
``round_half_away_from_zero_vec``, the NumPy reference of
``round_half_away_from_zero``."""

from typing import Any

import numpy as np


def upcast(dtype: Any, *dtypes: Any) -> str:
    """The dtype of ``zeros(dtype) + zeros(d) + ...`` as a string. With
    ``config.cast_policy == 'numpy+floatX'`` and a narrower ``floatX``, a
    result of float64 that no argument asked for is ``floatX`` instead."""
    from oxtensor.configdefaults import config

    names = [np.dtype(d).name for d in (dtype, *dtypes)]
    result = np.result_type(*names).name
    if result == "float64" and "float64" not in names:
        if config.cast_policy == "numpy+floatX" and config.floatX in (
            "float16",
            "float32",
        ):
            # float16 is kept only when nothing wider than it was given.
            if config.floatX == "float16" and "float32" not in names:
                return "float16"
            return "float32"
    return result


def round_half_away_from_zero_vec(a: Any) -> np.ndarray:
    """``a`` rounded to the nearest integer, ties away from zero (C's
    ``round``), elementwise, keeping ``a``'s dtype."""
    a = np.asarray(a)
    return np.where(a >= 0, np.floor(a + 0.5), np.ceil(a - 0.5)).astype(a.dtype)


__all__ = ["round_half_away_from_zero_vec", "upcast"]

"""`_allclose`: NumPy's ``allclose`` with tolerances chosen by the narrowest
float dtype compared, as PyTensor's tests compare results (a float32 result
cannot meet float64's tolerance)."""

from typing import Any

import numpy as np

#: (rtol, atol) per float width; integers and float64 use float64's.
_TOLERANCES = {
    np.dtype("float16"): (1e-3, 1e-3),
    np.dtype("float32"): (1e-5, 1e-5),
    np.dtype("float64"): (1e-5, 1e-8),
}


def _tolerance_dtype(a: np.ndarray, b: np.ndarray) -> np.dtype:
    """The float dtype of least precision among ``a`` and ``b``."""
    floats = [np.dtype(x.dtype) for x in (a, b) if x.dtype.kind in "fc"]
    widths = [
        np.dtype(f"float{d.itemsize * 4}") if d.kind == "c" else d for d in floats
    ]
    known = [w for w in widths if w in _TOLERANCES]
    return min(known, key=lambda d: d.itemsize) if known else np.dtype("float64")


def _allclose(
    a: Any, b: Any, rtol: float | None = None, atol: float | None = None
) -> bool:
    """Whether ``a`` and ``b`` are elementwise close (NaNs never are);
    a tolerance left ``None`` is the one of the narrowest float dtype."""
    a, b = np.asarray(a), np.asarray(b)
    d_rtol, d_atol = _TOLERANCES[_tolerance_dtype(a, b)]
    return bool(
        np.allclose(
            a,
            b,
            rtol=d_rtol if rtol is None else rtol,
            atol=d_atol if atol is None else atol,
        )
    )

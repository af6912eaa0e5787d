"""``pytensor.tensor.math``'s ``median`` and ``complex_from_polar``: graphs
of existing ops (``sort`` and a slice's mean; ``cos``, ``sin`` and a
complex product), so their values, shapes and gradients are those ops'."""

from typing import Any

import numpy as np

from oxtensor.tensor.basic import as_tensor_variable


def _axes(axis: Any, ndim: int) -> list[int]:
    if axis is None:
        return list(range(ndim))
    axes = [int(a) for a in np.atleast_1d(np.asarray(axis))]
    out = []
    for a in axes:
        if not -ndim <= a < ndim:
            raise ValueError(
                f"axis {a} is out of bounds for a tensor of {ndim} dimensions"
            )
        a %= ndim
        if a in out:
            raise ValueError(f"repeated axis {a} in {axis!r}")
        out.append(a)
    return out


def median(x: Any, axis: Any = None) -> Any:
    """The median over ``axis`` (all axes by default), as NumPy's: the
    middle element of the sorted values, or the mean of the middle two for
    an even count; a float (float64 for integers, as ``mean`` gives)."""
    from oxtensor.tensor.basic import stack
    from oxtensor.tensor.sort import sort

    x = as_tensor_variable(x)
    axes = _axes(axis, x.ndim)
    kept = [d for d in range(x.ndim) if d not in axes]
    moved = x.dimshuffle(*kept, *axes)
    lengths = [moved.shape[i] for i in range(len(kept))]
    flat = moved.reshape(stack([*lengths, -1]) if lengths else [-1], ndim=len(kept) + 1)
    ordered = sort(flat, axis=-1)
    n = flat.shape[-1]
    # One element for an odd count, the middle two for an even one.
    middle = ordered[..., (n - 1) // 2 : n // 2 + 1]
    return middle.mean(axis=-1)


def complex_from_polar(abs: Any, angle: Any) -> Any:
    """``abs * (cos(angle) + 1j sin(angle))``: complex64 from float32 (or
    float16) inputs, complex128 otherwise."""
    from oxtensor.tensor.math import cos, sin

    r, theta = as_tensor_variable(abs), as_tensor_variable(angle)
    real_dtype = np.result_type(r.dtype, theta.dtype)
    if real_dtype.kind == "c":
        raise TypeError(
            f"complex_from_polar takes real inputs, got {r.type} and {theta.type}"
        )
    narrow = real_dtype in (np.float16, np.float32)
    i = as_tensor_variable(
        np.asarray(1j, dtype="complex64" if narrow else "complex128")
    )
    return r * cos(theta) + i * (r * sin(theta))


__all__ = ["complex_from_polar", "median"]

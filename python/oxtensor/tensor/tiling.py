"""``tile``: an array repeated along each axis, as NumPy's ``tile``, built
as PyTensor builds it (an ``Alloc`` of the input with interleaved new axes,
reshaped)."""

from typing import Any

import numpy as np

from oxtensor.tensor.basic import (
    _dim,
    _prod,
    _reshape_to,
    _shape_entries,
    alloc,
    as_tensor_variable,
)


def _tile_reps(reps: Any) -> list[Any]:
    """``tile``'s repetitions as a list of integer scalars, checked as
    PyTensor checks them (integers, at most one axis, a known count)."""
    if isinstance(reps, int | np.integer):
        return [reps]
    if not isinstance(reps, list | tuple):
        reps = as_tensor_variable(reps)
        if reps.ndim > 1:
            raise ValueError(
                f"tile: reps must be a scalar or a vector, got {reps.type}"
            )
        if not reps.dtype.startswith(("int", "uint")):
            raise ValueError(f"tile: reps must be integers, got {reps.type}")
        if reps.ndim == 0:
            return [reps]
        if reps.type.shape[0] is None:
            raise ValueError(
                f"tile: the number of repetitions of {reps.type} is unknown. "
                "Use specify_shape to set the length of reps."
            )
        return list(_shape_entries(reps))
    # Python ints stay ints: the result's static shape uses them.
    out = [
        r if isinstance(r, int | np.integer) else as_tensor_variable(r) for r in reps
    ]
    for r in out:
        if isinstance(r, int | np.integer):
            continue
        if r.ndim != 0:
            raise ValueError(f"tile: each entry of reps must be a scalar, got {r.type}")
        if not r.dtype.startswith(("int", "uint")):
            raise ValueError(f"tile: reps must be integers, got {r.type}")
    return out


def tile(A: Any, reps: Any) -> Any:
    """``A`` repeated ``reps[i]`` times along each axis, as NumPy's ``tile``:
    an ``Alloc`` of ``A`` with interleaved new axes, reshaped."""
    A = as_tensor_variable(A)
    reps = _tile_reps(reps)
    ndim = max(A.ndim, len(reps))
    reps = [1] * (ndim - len(reps)) + reps
    if A.ndim < ndim:
        A = A.dimshuffle(*(["x"] * (ndim - A.ndim)), *range(A.ndim))
    dims = [_dim(A, i) for i in range(ndim)]
    expanded = A.dimshuffle(*[a for i in range(ndim) for a in ("x", i)])
    alloc_shape = [v for pair in zip(reps, dims, strict=True) for v in pair]
    tiled = alloc(expanded, *alloc_shape)
    return _reshape_to(tiled, [_prod(r, d) for r, d in zip(reps, dims, strict=True)])

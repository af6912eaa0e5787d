"""`pad`: NumPy's ``np.pad`` as a graph, built from existing ops.

The modes that repeat the array's own values (``edge``, ``wrap``,
``reflect``, ``symmetric``) gather along each axis with an index vector
(``arange`` mapped into ``[0, n)``), which is exactly NumPy's repeated
padding for any pad width; ``constant``, ``linear_ramp`` and the statistic
modes join new blocks on each side. Pad widths are Python integers.
"""

from collections.abc import Callable
from typing import Any

import numpy as np

from oxtensor.tensor.basic import (
    alloc,
    arange,
    as_tensor_variable,
    concatenate,
    expand_dims,
)
from oxtensor.tensor.conversions import cast
from oxtensor.tensor.math import floor, maximum, minimum, switch

_INDEXED_MODES = ("edge", "wrap", "reflect", "symmetric")
_STAT_MODES = ("mean", "maximum", "minimum")


def _pad_widths(pad_width: Any, ndim: int, name: str) -> list[tuple[int, int]]:
    """``pad_width`` as one ``(before, after)`` pair per axis, as NumPy
    broadcasts it."""
    widths = np.asarray(pad_width)
    if widths.dtype.kind not in "iu":
        raise TypeError(f"{name} must be integers, got {pad_width!r}")
    if np.any(widths < 0):
        raise ValueError(f"{name} cannot be negative, got {pad_width!r}")
    try:
        pairs = np.broadcast_to(widths, (ndim, 2))
    except ValueError:
        raise ValueError(
            f"{name} {pad_width!r} does not fit an array of {ndim} dimensions"
        ) from None
    return [(int(b), int(a)) for b, a in pairs]


def _pairs(value: Any, ndim: int) -> list[tuple[Any, Any]]:
    """A scalar or per-axis pair option (``constant_values``, ``end_values``)
    as one pair per axis."""
    values = np.asarray(value)
    pairs = np.broadcast_to(values, (ndim, 2))
    return [(pairs[i, 0], pairs[i, 1]) for i in range(ndim)]


def _source_index(mode: str, idx: Any, n: Any) -> Any:
    """Where position ``idx`` (``-before`` .. ``n + after - 1``) of the
    padded axis takes its value from, for an axis of length ``n``."""
    if mode == "edge":
        return minimum(maximum(idx, 0), n - 1)
    if mode == "wrap":
        return idx % n
    if mode == "symmetric":
        m = idx % (2 * n)
        return switch(m < n, m, 2 * n - 1 - m)
    # reflect: the edge value is not repeated, so the period is 2n - 2.
    period = maximum(2 * n - 2, 1)
    m = idx % period
    return switch(m < n, m, period - m)


def _block(x: Any, axis: int, length: int, value: Any) -> Any:
    """``value`` (broadcastable to ``x`` with ``axis`` of length 1) repeated
    ``length`` times along ``axis``."""
    shape = [x.shape[i] if i != axis else length for i in range(x.ndim)]
    return alloc(cast(value, x.dtype), *shape)


def _edge_slice(x: Any, axis: int, first: bool) -> Any:
    """The first or last slice along ``axis``, kept as a length-1 axis that
    broadcasts (a ``0:1`` slice would not be known to have length 1)."""
    index: list[Any] = [slice(None)] * x.ndim
    index[axis] = 0 if first else -1
    return expand_dims(x[tuple(index)], axis)


def _ramp(x: Any, axis: int, length: int, end: Any, first: bool) -> Any:
    """NumPy's linear ramp from ``end`` (outermost) towards the edge value,
    the edge itself excluded."""
    edge = cast(_edge_slice(x, axis, first), "float64")
    steps = np.arange(length, dtype="float64") / length
    if not first:
        steps = steps[::-1]
    shape = [1] * x.ndim
    shape[axis] = length
    fraction = as_tensor_variable(steps.reshape(shape))
    values = end + (edge - end) * fraction
    if x.dtype.startswith(("int", "uint")):
        # NumPy's integer linspace rounds down.
        values = floor(values)
    return cast(values, x.dtype)


def _stat(x: Any, axis: int, mode: str) -> Any:
    if mode == "maximum":
        return x.max(axis=axis, keepdims=True)
    if mode == "minimum":
        return x.min(axis=axis, keepdims=True)
    mean = x.mean(axis=axis, keepdims=True)
    if x.dtype.startswith(("int", "uint")):
        mean = mean.round(mode="half_to_even")
    return mean


def _join(x: Any, axis: int, before: Any, after: Any) -> Any:
    parts = [p for p in (before, x, after) if p is not None]
    return concatenate(parts, axis=axis) if len(parts) > 1 else x


def _pad_axis(x: Any, axis: int, width: tuple[int, int], mode: str, opt: Any) -> Any:
    before, after = width
    if before == 0 and after == 0:
        return x
    if mode in _INDEXED_MODES:
        n = x.shape[axis]
        idx = _source_index(mode, arange(-before, n + after), n)
        return x.take(idx, axis=axis)
    side: Callable[[int, bool], Any]
    if mode == "constant":

        def side(length: int, first: bool) -> Any:
            return _block(x, axis, length, opt[0] if first else opt[1])

    elif mode == "linear_ramp":

        def side(length: int, first: bool) -> Any:
            return _ramp(x, axis, length, opt[0] if first else opt[1], first)

    else:
        stat = _stat(x, axis, mode)

        def side(length: int, first: bool) -> Any:
            return _block(x, axis, length, stat)

    return _join(
        x,
        axis,
        side(before, True) if before else None,
        side(after, False) if after else None,
    )


def pad(x: Any, pad_width: Any, mode: str = "constant", **kwargs: Any) -> Any:
    """``x`` padded as ``np.pad(x, pad_width, mode, **kwargs)`` pads it.

    Modes: ``constant`` (``constant_values``), ``edge``, ``wrap``,
    ``reflect``, ``symmetric`` (the default ``reflect_type="even"``),
    ``linear_ramp`` (``end_values``), ``mean``, ``maximum``, ``minimum``
    (over the whole axis; ``stat_length`` is not supported).
    """
    x = as_tensor_variable(x)
    widths = _pad_widths(pad_width, x.ndim, "pad_width")
    allowed = {"constant": {"constant_values"}, "linear_ramp": {"end_values"}}
    extra = set(kwargs) - allowed.get(mode, set())
    if mode not in ("constant", "linear_ramp", *_INDEXED_MODES, *_STAT_MODES):
        raise ValueError(f"pad mode {mode!r} is not supported")
    if extra:
        raise ValueError(f"pad mode {mode!r} does not take {sorted(extra)}")
    key = "constant_values" if mode == "constant" else "end_values"
    options = _pairs(kwargs.get(key, 0), x.ndim)
    for axis in range(x.ndim):
        x = _pad_axis(x, axis, widths[axis], mode, options[axis])
    return x


__all__ = ["pad"]

"""`pad`: NumPy's ``np.pad`` as a graph, built from existing ops and
wrapped, as PyTensor does, in a `Pad` op (an `OpFromGraph` that records
``pad_mode``).

The modes that repeat the array's own values (``edge``, ``wrap``,
``reflect``, ``symmetric``) gather along each axis with an index vector
(``arange`` mapped into ``[0, n)``), which is exactly NumPy's repeated
padding for any pad width; ``constant``, ``linear_ramp`` and the statistic
modes join new blocks on each side. Pad widths are Python integers.

``reflect_type="odd"`` reflects each value through the edge value
(``2 * edge - x``). Repeated, two such point reflections (one at each end)
shift the array by a period and add ``2 * (last - first)``, so the value
at padded position ``idx`` is the even-mode value, mirrored through the
nearer edge in the second half of each period, plus ``q * 2 * (last -
first)`` for period number ``q``: NumPy's result for any pad width.
"""

from collections.abc import Callable
from typing import Any, Literal

import numpy as np

from oxtensor.compile.builders import OpFromGraph
from oxtensor.tensor.basic import (
    alloc,
    arange,
    as_tensor_variable,
    concatenate,
    expand_dims,
)
from oxtensor.tensor.conversions import cast
from oxtensor.tensor.math import floor, maximum, minimum, switch

PadMode = Literal[
    "constant",
    "edge",
    "linear_ramp",
    "maximum",
    "minimum",
    "mean",
    "median",
    "wrap",
    "symmetric",
    "reflect",
]

_INDEXED_MODES = ("edge", "wrap", "reflect", "symmetric")
_STAT_MODES = ("mean", "maximum", "minimum")
#: The keyword arguments each mode takes, as NumPy's ``np.pad``.
_OPTIONS = {
    "constant": {"constant_values"},
    "linear_ramp": {"end_values"},
    **{m: {"stat_length"} for m in _STAT_MODES},
    "reflect": {"reflect_type"},
    "symmetric": {"reflect_type"},
}


class Pad(OpFromGraph):
    """The op `pad` returns: its graph, with the ``pad_mode`` it pads in,
    ``reflect_type`` (for ``reflect``/``symmetric``) and whether a
    ``stat_length`` was given."""

    def __init__(
        self,
        inputs: list[Any],
        outputs: list[Any],
        pad_mode: str,
        reflect_type: str | None = None,
        has_stat_length: bool = False,
    ) -> None:
        super().__init__(inputs, outputs)
        self.pad_mode = pad_mode
        self.reflect_type = reflect_type
        self.has_stat_length = has_stat_length

    def _key(self) -> tuple[Any, ...]:
        return (
            *super()._key(),
            self.pad_mode,
            self.reflect_type,
            self.has_stat_length,
        )


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


def _odd_reflection(x: Any, axis: int, mode: str, idx: Any, n: Any) -> Any:
    """``reflect``/``symmetric`` with ``reflect_type="odd"`` (see the
    module's docstring) for padded positions ``idx``."""
    period = maximum(2 * n - 2, 1) if mode == "reflect" else 2 * n
    m = idx % period
    shape = [1] * x.ndim
    shape[axis] = -1
    mirrored = (m >= n).reshape(shape)
    turns = ((idx - m) // period).reshape(shape)
    first = _edge_slice(x, axis, True)
    last = _edge_slice(x, axis, False)
    values = x.take(_source_index(mode, idx, n), axis=axis)
    values = switch(mirrored, 2 * last - values, values)
    return cast(values + turns * (2 * (last - first)), x.dtype)


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


def _stat(x: Any, axis: int, mode: str, length: int | None, first: bool) -> Any:
    """The statistic of the ``length`` values nearest one end of ``axis``
    (all of them when ``length`` is None)."""
    if length is not None:
        index: list[Any] = [slice(None)] * x.ndim
        index[axis] = slice(None, length) if first else slice(-length, None)
        x = x[tuple(index)]
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
        positions = arange(-before, n + after)
        if opt == "odd" and mode in ("reflect", "symmetric"):
            return _odd_reflection(x, axis, mode, positions, n)
        return x.take(_source_index(mode, positions, n), axis=axis)
    side: Callable[[int, bool], Any]
    if mode == "constant":

        def side(length: int, first: bool) -> Any:
            return _block(x, axis, length, opt[0] if first else opt[1])

    elif mode == "linear_ramp":

        def side(length: int, first: bool) -> Any:
            return _ramp(x, axis, length, opt[0] if first else opt[1], first)

    else:

        def side(length: int, first: bool) -> Any:
            stat = _stat(x, axis, mode, opt[0] if first else opt[1], first)
            return _block(x, axis, length, stat)

    return _join(
        x,
        axis,
        side(before, True) if before else None,
        side(after, False) if after else None,
    )


def _stat_lengths(value: Any, ndim: int) -> list[tuple[Any, Any]]:
    """``stat_length`` as one ``(before, after)`` pair per axis (None: the
    whole axis)."""
    if value is None:
        return [(None, None)] * ndim
    return [(int(b), int(a)) for b, a in _pad_widths(value, ndim, "stat_length")]


def _options(mode: str, ndim: int, kwargs: dict[str, Any]) -> list[Any]:
    """The per-axis option of ``mode``: value pairs, stat lengths or the
    reflect type."""
    if mode in _STAT_MODES:
        return _stat_lengths(kwargs.get("stat_length"), ndim)
    if mode in ("reflect", "symmetric"):
        kind = kwargs.get("reflect_type", "even")
        if kind not in ("even", "odd"):
            raise ValueError(f"reflect_type must be 'even' or 'odd', got {kind!r}")
        return [kind] * ndim
    key = "constant_values" if mode == "constant" else "end_values"
    return _pairs(kwargs.get(key, 0), ndim)


def pad(x: Any, pad_width: Any, mode: str = "constant", **kwargs: Any) -> Any:
    """``x`` padded as ``np.pad(x, pad_width, mode, **kwargs)`` pads it.

    Modes: ``constant`` (``constant_values``), ``edge``, ``wrap``,
    ``reflect`` and ``symmetric`` (``reflect_type`` ``"even"`` or
    ``"odd"``), ``linear_ramp`` (``end_values``), ``mean``, ``maximum``,
    ``minimum`` (``stat_length``: the number of values at each end the
    statistic is taken over, the whole axis by default). ``median`` is
    not implemented. The result is the output of a `Pad` op.
    """
    x = as_tensor_variable(x)
    if mode == "median":
        raise NotImplementedError("pad mode 'median' is not implemented")
    if mode not in ("edge", "wrap", *_OPTIONS):
        raise ValueError(
            f"Invalid mode: {mode} (expected one of "
            f"{', '.join(m for m in PadMode.__args__ if m != 'median')})"
        )
    widths = _pad_widths(pad_width, x.ndim, "pad_width")
    extra = set(kwargs) - _OPTIONS.get(mode, set())
    if extra:
        raise ValueError(f"pad mode {mode!r} does not take {sorted(extra)}")
    options = _options(mode, x.ndim, kwargs)
    inner = x.type()
    padded = inner
    for axis in range(x.ndim):
        padded = _pad_axis(padded, axis, widths[axis], mode, options[axis])
    op = Pad(
        [inner],
        [padded],
        pad_mode=mode,
        reflect_type=kwargs.get("reflect_type", "even")
        if mode in ("reflect", "symmetric")
        else None,
        has_stat_length=kwargs.get("stat_length") is not None,
    )
    return op(x)


__all__ = ["Pad", "PadMode", "pad"]

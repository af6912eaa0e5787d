"""Evenly spaced samples: ``linspace``, ``logspace``, ``geomspace``, as in
``pytensor.tensor.extra_ops`` (``start``/``stop`` may be arrays, which
broadcast; ``num`` may be symbolic).

Each is ``start + arange(num) * step`` with the last sample replaced by
``stop`` (a ``switch`` on the index, so no branch on ``num``), which makes
the end point exact as in NumPy. Samples are float64 unless ``dtype`` says
otherwise; integer dtypes floor the float samples first, as NumPy does.
"""

from typing import Any

import numpy as np

from oxtensor.configdefaults import config as _config
from oxtensor.tensor.basic import arange, as_tensor_variable, moveaxis


def _float_of(x: Any) -> Any:
    x = as_tensor_variable(x)
    return x if x.dtype == _config.floatX else x.astype(_config.floatX)


def _samples(start: Any, stop: Any, num: Any, endpoint: bool) -> tuple[Any, Any]:
    """float64 samples along a new axis 0, and the step."""
    from oxtensor.tensor.math import eq, switch

    start, stop = _float_of(start), _float_of(stop)
    delta = stop - start
    div = num - 1 if endpoint else num
    # Fewer than two samples (div <= 0): NumPy gives start and a NaN step.
    spaced = as_tensor_variable(div) > 0
    step = switch(spaced, delta / div, np.float64(np.nan))
    safe = switch(spaced, step, np.float64(0.0))
    index = arange(num)
    pad = ["x"] * delta.ndim
    index_nd = index.dimshuffle(0, *pad)
    samples = index_nd * safe.dimshuffle("x", *range(delta.ndim)) + start
    if endpoint:
        is_last = eq(index_nd, num - 1) & spaced
        samples = switch(is_last, stop.dimshuffle("x", *range(stop.ndim)), samples)
    return samples, step


def _finish(samples: Any, dtype: Any, axis: int) -> Any:
    from oxtensor.tensor.math import floor

    if dtype is not None:
        dtype = str(np.dtype(dtype))
        if np.dtype(dtype).kind in "iub":
            samples = floor(samples)
        samples = samples.astype(dtype)
    if samples.ndim > 1 and axis != 0:
        samples = moveaxis(samples, 0, axis)
    return samples


def _aliases(stop: Any, num: Any, end: Any, steps: Any) -> tuple[Any, Any]:
    # PyTensor takes `end` and `steps` as PyTorch's names for stop and num.
    return (stop if end is None else end), (num if steps is None else steps)


def linspace(
    start: Any,
    stop: Any,
    num: Any = 50,
    endpoint: bool = True,
    retstep: bool = False,
    dtype: Any = None,
    axis: int = 0,
    end: Any = None,
    steps: Any = None,
) -> Any:
    """``num`` evenly spaced samples from ``start`` to ``stop`` (included
    when ``endpoint``); with ``retstep``, ``(samples, step)``.

    >>> import oxtensor.tensor as ot
    >>> ot.linspace(0, 1, 5).eval()
    array([0.  , 0.25, 0.5 , 0.75, 1.  ])
    """
    stop, num = _aliases(stop, num, end, steps)
    samples, step = _samples(start, stop, num, endpoint)
    out = _finish(samples, dtype, axis)
    return (out, step) if retstep else out


def logspace(
    start: Any,
    stop: Any,
    num: Any = 50,
    base: Any = 10.0,
    endpoint: bool = True,
    dtype: Any = None,
    axis: int = 0,
    end: Any = None,
    steps: Any = None,
) -> Any:
    """``base ** linspace(start, stop, num)``."""
    stop, num = _aliases(stop, num, end, steps)
    samples, _ = _samples(start, stop, num, endpoint)
    return _finish(as_tensor_variable(base) ** samples, dtype, axis)


def geomspace(
    start: Any,
    stop: Any,
    num: Any = 50,
    base: Any = 10.0,
    endpoint: bool = True,
    dtype: Any = None,
    axis: int = 0,
    end: Any = None,
    steps: Any = None,
) -> Any:
    """``num`` samples from ``start`` to ``stop`` spaced evenly on a log
    scale (both of one sign; their ends exact, as in NumPy). ``base`` is
    accepted, as in PyTensor, and does not change the result."""
    from oxtensor.tensor.math import abs, eq, exp, log, sign, switch

    del base
    stop, num = _aliases(stop, num, end, steps)
    start, stop = _float_of(start), _float_of(stop)
    logs, _ = _samples(log(abs(start)), log(abs(stop)), num, endpoint)
    samples = sign(start) * exp(logs)
    index = arange(num).dimshuffle(0, *(["x"] * (samples.ndim - 1)))
    samples = switch(eq(index, 0), start.dimshuffle("x", *range(start.ndim)), samples)
    if endpoint:
        last = eq(index, num - 1) & (as_tensor_variable(num) > 1)
        samples = switch(last, stop.dimshuffle("x", *range(stop.ndim)), samples)
    return _finish(samples, dtype, axis)


__all__ = ["geomspace", "linspace", "logspace"]

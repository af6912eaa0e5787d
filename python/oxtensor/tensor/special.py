"""Softmax and log-softmax (native, fused ops), as in ``pytensor.tensor.special``."""

from typing import Any

from oxtensor import _core

Softmax = _core.Softmax
LogSoftmax = _core.LogSoftmax


def softmax(c: Any, axis: Any = None) -> Any:
    """``exp(c) / sum(exp(c))`` along ``axis`` (``None``: over all elements)."""
    return _core.softmax(c, axis)


def log_softmax(c: Any, axis: Any = None) -> Any:
    """``c - logsumexp(c)`` along ``axis`` (``None``: over all elements)."""
    return _core.log_softmax(c, axis)


__all__ = ["LogSoftmax", "Softmax", "log_softmax", "softmax"]

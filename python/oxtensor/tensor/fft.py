"""Real FFTs of batches of signals (PyTensor's ``pytensor.tensor.fft``):
``rfft`` transforms every axis but the first, complex results stored as a
last axis of two (real, imaginary); ``irfft`` inverts it. The ops and
their gradients live in the core (``rustfft``/``realfft`` kernels)."""

from typing import Any

from oxtensor import _core
from oxtensor.tensor.basic import as_tensor_variable
from oxtensor.tensor.math import prod, sqrt
from oxtensor.tensor.subtensor import set_subtensor

RFFTOp = _core.RFFTOp
IRFFTOp = _core.IRFFTOp
RFFTGrad = _core.RFFTGrad
IRFFTGrad = _core.IRFFTGrad

rfft_op = RFFTOp()
irfft_op = IRFFTOp()

_NORMS = (None, "ortho", "no_norm")


def _unitary(norm: Any) -> Any:
    if norm not in _NORMS:
        raise ValueError(
            f"Invalid value {norm!r} for norm, must be None, 'ortho' or 'no_norm'"
        )
    return norm


def _count(s: Any, dtype: str) -> Any:
    """The number of points ``prod(s)`` as a ``dtype`` scalar."""
    return prod(s).astype(dtype)


def rfft(inp: Any, norm: Any = None) -> Any:
    """The FFT of the real signals ``inp`` (axis 0 a batch) over all their
    other axes, NumPy's ``rfftn``: shape ``(batch, ..., n_last // 2 + 1,
    2)``. ``norm`` is ``None`` or ``"no_norm"`` (no scaling) or
    ``"ortho"`` (divided by the square root of the number of points).

    Examples
    --------
    >>> import oxtensor.tensor as ot
    >>> rfft(ot.as_tensor([[1.0, 2.0, 3.0, 4.0]])).eval()[0]
    array([[10.,  0.],
           [-2.,  2.],
           [-2.,  0.]])
    """
    inp = as_tensor_variable(inp)
    norm = _unitary(norm)
    s = inp.shape[1:]
    out = rfft_op(inp, s)
    if norm == "ortho":
        out = out / sqrt(_count(s, out.dtype))
    return out


def irfft(inp: Any, norm: Any = None, is_odd: bool = False) -> Any:
    """The inverse of ``rfft``: real signals from half spectra ``inp``
    (axis 0 a batch, a last axis of two for the real and imaginary
    parts), NumPy's ``irfftn``. The last axis's length is ``2 (m - 1)``,
    or ``2 (m - 1) + 1`` with ``is_odd``. ``norm``: ``None`` divides by
    the number of points (NumPy's default), ``"ortho"`` by its square
    root, ``"no_norm"`` not at all."""
    if is_odd not in (True, False):
        raise ValueError(f"Invalid value {is_odd!r} for is_odd, must be True or False")
    inp = as_tensor_variable(inp)
    norm = _unitary(norm)
    s = inp.shape[1:-1]
    s = set_subtensor(s[-1], (s[-1] - 1) * 2 + int(is_odd))
    out = irfft_op(inp, s)
    if norm is None:
        out = out / _count(s, out.dtype)
    elif norm == "ortho":
        out = out / sqrt(_count(s, out.dtype))
    return out


__all__ = ["IRFFTOp", "RFFTOp", "irfft", "rfft"]

"""Signal processing over tensors (PyTensor's ``pytensor.tensor.signal``):
``convolve1d``."""

from oxtensor.tensor.signal.conv import convolve1d

__all__ = ["convolve1d"]

"""`ScalarLoop`: a scalar step repeated ``n_steps`` times per element (or
until a bool condition holds), PyTensor's ``pytensor.scalar.loop``. The
class is the Rust extension's; its loop runs in the core's kernel."""

from oxtensor._core import ScalarLoop

__all__ = ["ScalarLoop"]

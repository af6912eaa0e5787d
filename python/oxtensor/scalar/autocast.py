"""`autocast_float`, the dtype a Python float constant gets, and
`autocast_float_as`, which changes it for a block of code (PyTensor's
names). The dtypes tried are the core's setting, so every constant built
while it holds follows it."""

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from oxtensor import _core


class NumpyAutocaster:
    """Casts a Python number to the first of ``dtypes`` holding it exactly
    (floatX first when it is float32), else to the last one tried."""

    @property
    def dtypes(self) -> tuple[str, ...]:
        return tuple(_core._autocast_float_dtypes())

    @dtypes.setter
    def dtypes(self, dtypes: Any) -> None:
        _core._set_autocast_float_dtypes(list(dtypes))

    def __call__(self, x: Any) -> Any:
        """``x`` as a NumPy value of the dtype it gets as a constant."""
        return np.asarray(x, dtype=_core.as_scalar(x).type.dtype)

    def __repr__(self) -> str:
        return f"NumpyAutocaster({self.dtypes})"


autocast_float = NumpyAutocaster()


@contextmanager
def autocast_float_as(*dtypes: str) -> Iterator[None]:
    """Within the block, Python float constants get the first of ``dtypes``
    that holds them exactly (else the last): ``with autocast_float_as("float32")``."""
    old = autocast_float.dtypes
    autocast_float.dtypes = dtypes
    try:
        yield
    finally:
        autocast_float.dtypes = old


__all__ = ["NumpyAutocaster", "autocast_float", "autocast_float_as"]

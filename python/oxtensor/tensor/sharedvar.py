"""PyTensor's ``tensor.sharedvar``: `TensorSharedVariable` (the class of
``shared(ndarray)``) and the deprecated name `ScalarSharedVariable`."""

import warnings
from typing import Any

from oxtensor.compile.sharedvalue import TensorSharedVariable, shared


def __getattr__(name: str) -> Any:
    if name == "ScalarSharedVariable":
        # Scalars are 0-d tensors; the old class name still resolves.
        warnings.warn(
            "ScalarSharedVariable is deprecated; shared scalars are "
            "TensorSharedVariable with ndim 0",
            FutureWarning,
            stacklevel=2,
        )
        return TensorSharedVariable
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


tensor_constructor = shared

__all__ = ["TensorSharedVariable", "tensor_constructor"]

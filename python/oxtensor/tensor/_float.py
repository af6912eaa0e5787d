"""PyTensor's ``upgrade_to_float``: the float dtype a function of floats
computes in for an integer or bool input."""

from typing import Any

# Small integers fit float32 exactly; wider ones need float64.
_FLOAT_OF = {
    "bool": "float32",
    "int8": "float32",
    "uint8": "float32",
    "int16": "float32",
    "uint16": "float32",
    "int32": "float64",
    "uint32": "float64",
    "int64": "float64",
    "uint64": "float64",
}


def as_float(x: Any) -> Any:
    """``x`` itself when it is float or complex, else ``x`` cast to float."""
    dtype = _FLOAT_OF.get(x.dtype)
    return x if dtype is None else x.astype(dtype)


def is_integral(x: Any) -> bool:
    """Whether ``x`` holds integers or bools."""
    return x.dtype in _FLOAT_OF

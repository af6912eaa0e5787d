"""``_convert_to_<dtype>``: the elementwise casts as ops (each always adds a
node, where ``cast`` returns a variable that already has the dtype), and
``cast`` itself."""

from typing import Any

from oxtensor import _core, scalar
from oxtensor.tensor.basic import as_tensor_variable

_DTYPES = (
    "bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 "
    "float16 float32 float64 complex64 complex128"
).split()
_CONVERTERS = {
    f"_convert_to_{dtype}": _core.elemwise_op(scalar.Cast(dtype)) for dtype in _DTYPES
}
globals().update(_CONVERTERS)


def cast(x: Any, dtype: str) -> Any:
    """``x`` converted to ``dtype`` (``x`` itself if it already has it)."""
    return as_tensor_variable(x).astype(dtype)

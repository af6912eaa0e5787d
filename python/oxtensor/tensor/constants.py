"""NumPy's constants (``pi``, ``e``, ``inf``, ``nan``, ``newaxis``) and
``get_underlying_scalar_constant_value``, as ``pytensor.tensor`` has them."""

from typing import Any

import numpy as np

from oxtensor.tensor.exceptions import NotScalarConstantError

pi = float(np.pi)
e = float(np.e)
inf = float(np.inf)
nan = float(np.nan)
newaxis = None

# The arithmetic folded through, as NumPy ufuncs over the constant inputs.
_FOLDED = {
    "Add": np.add,
    "Sub": np.subtract,
    "Mul": np.multiply,
    "TrueDiv": np.true_divide,
    "IntDiv": np.floor_divide,
    "Neg": np.negative,
    "Maximum": np.maximum,
    "Minimum": np.minimum,
    "Identity": lambda x: x,
    "Cast": lambda x: x,
}


def _unique(data: Any) -> np.ndarray:
    """The one value all of ``data`` holds, as a 0-d array."""
    data = np.asarray(data)
    if data.size == 0:
        raise NotScalarConstantError(f"an empty array {data!r} has no value")
    first = data.reshape(-1)[0]
    if data.size > 1 and not (data == first).all():
        raise NotScalarConstantError(f"{data!r} holds more than one value")
    return np.array(first, dtype=data.dtype)


def _from_node(v: Any, elemwise: bool, depth: int) -> np.ndarray:
    from oxtensor.tensor import DimShuffle, Elemwise, Shape_i
    from oxtensor.tensor.basic import Alloc

    op, inputs = v.owner.op, v.owner.inputs
    if isinstance(op, Shape_i) and inputs[0].type.shape[op.i] is not None:
        return np.array(inputs[0].type.shape[op.i], dtype="int64")
    if isinstance(op, DimShuffle | Alloc):
        return _value(inputs[0], elemwise, depth - 1)
    if (
        isinstance(op, Elemwise)
        and elemwise
        and type(op.scalar_op).__name__ == "Second"
    ):
        # `fill(x, c)` is `c` wherever `x` is: only the value counts, and
        # `x` need not be a constant (`zeros_like(x)` is 0).
        return np.asarray(_value(inputs[1], elemwise, depth - 1)).astype(v.dtype)
    if isinstance(op, Elemwise) and elemwise:
        fold = _FOLDED.get(type(op.scalar_op).__name__)
        if fold is not None:
            args = [_value(i, elemwise, depth - 1) for i in inputs]
            return np.asarray(fold(*args)).astype(v.dtype)
    if _is_static_length(v):
        x, i = inputs[0].owner.inputs[0], int(_value(inputs[1], elemwise, depth - 1))
        n = x.type.shape[i]
        if n is not None:
            return np.array(n, dtype="int64")
    raise NotScalarConstantError(f"{v} is not a constant scalar")


def _is_static_length(v: Any) -> bool:
    """Whether ``v`` is ``x.shape[i]`` (a ``Subtensor`` of a ``Shape``)."""
    from oxtensor.tensor.shape import Shape
    from oxtensor.tensor.subtensor import Subtensor

    owner = v.owner
    return (
        isinstance(owner.op, Subtensor)
        and len(owner.inputs) == 2
        and owner.inputs[0].owner is not None
        and isinstance(owner.inputs[0].owner.op, Shape)
    )


def _value(v: Any, elemwise: bool, depth: int) -> np.ndarray:
    from oxtensor.graph.basic import Constant, Variable

    if depth < 0:
        raise NotScalarConstantError(f"{v} is more than max_recur ops from a constant")
    if v is None:
        raise NotScalarConstantError("None is not a constant scalar")
    if not isinstance(v, Variable):
        data = np.asarray(v)
        if data.ndim != 0:
            raise NotScalarConstantError(f"{v!r} is not a scalar")
        return data
    if isinstance(v, Constant):
        # `NoneConst` stands for the value None (PyTensor gives None back).
        return None if v.data is None else _unique(v.data)
    if v.owner is None:
        raise NotScalarConstantError(f"{v} is an input, not a constant")
    return _from_node(v, elemwise, depth)


def get_underlying_scalar_constant_value(
    v: Any,
    *,
    elemwise: bool = True,
    only_process_constants: bool = False,
    max_recur: int = 10,
    raise_not_constant: bool = True,
) -> Any:
    """The value of ``v`` as a 0-d array when it is a constant or a fixed
    function of constants (through broadcasts, casts, static lengths and,
    with ``elemwise``, basic arithmetic); else ``NotScalarConstantError``,
    or ``v`` itself without ``raise_not_constant``."""
    try:
        if only_process_constants:
            return _value(v, elemwise, 0)
        return _value(v, elemwise, max_recur)
    except NotScalarConstantError:
        if raise_not_constant:
            raise
        return v


__all__ = [
    "e",
    "get_underlying_scalar_constant_value",
    "inf",
    "nan",
    "newaxis",
    "pi",
]

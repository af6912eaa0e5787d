"""``broadcast_shape``: the shape NumPy's broadcasting gives a set of arrays
(or shapes), one int64 scalar variable per axis: constants where the
lengths are known, an ``Assert`` that the symbolic lengths agree where
they are not (or their maximum, with ``allow_runtime_broadcast``)."""

from typing import Any

import numpy as np

from oxtensor import _core
from oxtensor.graph.basic import Constant
from oxtensor.tensor.basic import as_tensor_variable

_MESSAGE = (
    "Could not broadcast dimensions: broadcasting is only allowed along axes "
    "that have a statically known length 1 (use specify_broadcastable to "
    "declare one), or with allow_runtime_broadcast=True"
)


def _int64(n: int) -> Any:
    return _core.constant(np.int64(n))


def _known(d: Any) -> int | None:
    """``d``'s value when it is a constant (a shared variable is not)."""
    if isinstance(d, Constant):
        return int(np.asarray(d.data))
    return None


def array_shape(a: Any) -> tuple[Any, ...]:
    """``a``'s lengths: constants where its type knows them."""
    a = as_tensor_variable(a)
    return tuple(
        _int64(n) if n is not None else a.shape[i] for i, n in enumerate(a.type.shape)
    )


def _shape_entries(shape: Any) -> tuple[Any, ...]:
    return tuple(
        _int64(d) if isinstance(d, int | np.integer) else as_tensor_variable(d)
        for d in shape
    )


def _runtime_dim(symbolic: list[Any]) -> Any:
    """The largest of ``symbolic``, checked to be a length each of them
    broadcasts to (it or 1)."""
    from oxtensor.raise_op import Assert
    from oxtensor.tensor import and_, eq, maximum, or_

    top = symbolic[0]
    for d in symbolic[1:]:
        top = maximum(top, d)
    if len(symbolic) == 1:
        return top
    checks = [or_(eq(d, 1), eq(d, top)) for d in symbolic]
    cond = checks[0]
    for c in checks[1:]:
        cond = and_(cond, c)
    return Assert(_MESSAGE)(top, cond)


def _one_dim(dims: list[Any], allow_runtime_broadcast: bool) -> Any:
    from oxtensor.raise_op import Assert
    from oxtensor.tensor import and_, eq

    known = sorted({v for d in dims if (v := _known(d)) is not None and v != 1})
    symbolic: list[Any] = []
    for d in dims:
        if _known(d) is None and not any(d is s for s in symbolic):
            symbolic.append(d)
    if len(known) > 1:
        raise ValueError(f"Could not broadcast dimensions of lengths {known}")
    if not symbolic:
        return _int64(known[0] if known else 1)
    if allow_runtime_broadcast:
        return _int64(known[0]) if known else _runtime_dim(symbolic)
    first = _int64(known[0]) if known else symbolic[0]
    others = symbolic if known else symbolic[1:]
    if not others:
        return first
    cond = eq(first, others[0])
    for d in others[1:]:
        cond = and_(cond, eq(first, d))
    return Assert(_MESSAGE)(first, cond)


def broadcast_shape(
    *arrays: Any, arrays_are_shapes: bool = False, allow_runtime_broadcast: bool = False
) -> tuple[Any, ...]:
    """The broadcast shape of ``arrays`` (tensors, or shapes: sequences of
    lengths when ``arrays_are_shapes``).

    >>> import oxtensor.tensor as ot
    >>> [int(d.eval()) for d in ot.broadcast_shape(ot.zeros((3, 1)), ot.zeros(4))]
    [3, 4]
    """
    shapes = [
        _shape_entries(a) if arrays_are_shapes else array_shape(a) for a in arrays
    ]
    ndim = max((len(s) for s in shapes), default=0)
    one = _int64(1)
    padded = [(one,) * (ndim - len(s)) + s for s in shapes]
    return tuple(
        _one_dim([s[i] for s in padded], allow_runtime_broadcast) for i in range(ndim)
    )


__all__ = ["broadcast_shape"]

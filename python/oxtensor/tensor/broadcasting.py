"""``broadcast_arrays``: each input broadcast against all the others by a
chain of ``second`` (PyTensor's ``fill``), which keeps the input's dtype;
the rewrites see through it and the fused kernels never copy needlessly."""

from typing import Any

from oxtensor.tensor.basic import as_tensor_variable


def broadcast_arrays(*args: Any) -> tuple[Any, ...]:
    """The inputs broadcast to their common shape, each of its own dtype.

    >>> import oxtensor.tensor as ot
    >>> [a.type for a in ot.broadcast_arrays(ot.dcol("a"), ot.ivector("b"))]
    [TensorType(float64, shape=(None, None)), TensorType(int32, shape=(None, None))]
    """
    from oxtensor.tensor.math import second

    tensors = [as_tensor_variable(a) for a in args]

    def broadcast_one(i: int) -> Any:
        out = tensors[i]
        for j, other in enumerate(tensors):
            if j != i:
                out = second(other, out)
        return out

    return tuple(broadcast_one(i) for i in range(len(tensors)))


__all__ = ["broadcast_arrays"]

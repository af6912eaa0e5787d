"""``batched_dot``: ``dot(a[i], b[i])`` for each ``i`` of the first axis,
as in ``pytensor.tensor.blas``. Stacks of matrices and vectors go to one
``Matmul``; higher ranks to a broadcast product summed over the
contracted axis (NumPy's ``dot``: ``a``'s last axis against ``b``'s
second to last)."""

from typing import Any

from oxtensor.tensor.basic import as_tensor_variable


def _broadcast_dot(a: Any, b: Any) -> Any:
    a_free = list(range(1, a.ndim - 1))
    contracted = b.ndim - 2 if b.ndim >= 3 else 1
    b_free = [i for i in range(1, b.ndim) if i != contracted]
    left = a.dimshuffle(0, *a_free, *(["x"] * len(b_free)), a.ndim - 1)
    right = b.dimshuffle(0, *(["x"] * len(a_free)), *b_free, contracted)
    return (left * right).sum(axis=-1)


def batched_dot(a: Any, b: Any) -> Any:
    """The dot products of matching entries of ``a`` and ``b`` along their
    first (batch) axis; a vector stands for a batch of scalars.

    >>> import oxtensor.tensor as ot
    >>> ot.batched_dot(ot.tensor3("a"), ot.matrix("b")).type
    TensorType(float64, shape=(None, None))
    """
    from oxtensor.tensor.products import matmul, matvec, vecmat

    a, b = as_tensor_variable(a), as_tensor_variable(b)
    for name, t in (("a", a), ("b", b)):
        if t.ndim == 0:
            raise TypeError(f"batched_dot: {name} must have a batch axis, got {t.type}")
    if a.ndim == 1 or b.ndim == 1:
        short, other = (a, b) if a.ndim == 1 else (b, a)
        scaled = short.dimshuffle(0, *(["x"] * (other.ndim - 1)))
        return scaled * other if a.ndim == 1 else other * scaled
    if a.ndim == 2 and b.ndim == 2:
        return (a * b).sum(axis=-1)
    if a.ndim == 3 and b.ndim == 3:
        return matmul(a, b)
    if a.ndim == 3 and b.ndim == 2:
        return matvec(a, b)
    if a.ndim == 2 and b.ndim == 3:
        return vecmat(a, b)
    return _broadcast_dot(a, b)


__all__ = ["batched_dot"]

"""NumPy's ``tensorinv`` and ``tensorsolve`` as graphs: the tensor reshaped
to a square matrix, inverted (`MatrixInverse`) or solved (`Solve`), and
reshaped back. Each is wrapped, as PyTensor names them, in an op of its
own (`TensorInv`, `TensorSolve`: `OpFromGraph`s carrying ``ind`` or
``axes``), so graphs show the operation and its gradient is the inner
graph's."""

from functools import reduce
from operator import mul
from typing import Any

from oxtensor.compile.builders import OpFromGraph
from oxtensor.tensor.basic import as_tensor_variable


def _product(lengths: list[Any]) -> Any:
    return reduce(mul, lengths, 1)


class TensorInv(OpFromGraph):
    """The inverse of a tensor for `tensordot` over its first ``ind`` axes:
    the op `tensorinv` returns."""

    def __init__(self, inputs: list[Any], outputs: list[Any], ind: int = 2) -> None:
        super().__init__(inputs, outputs)
        self.ind = ind

    def _key(self) -> tuple[Any, ...]:
        return (*super()._key(), self.ind)

    def __str__(self) -> str:
        return f"TensorInv{{ind={self.ind}}}"


class TensorSolve(OpFromGraph):
    """``x`` with ``tensordot(a, x, x.ndim) == b``: the op `tensorsolve`
    returns."""

    def __init__(self, inputs: list[Any], outputs: list[Any], axes: Any = None) -> None:
        super().__init__(inputs, outputs)
        self.axes = None if axes is None else tuple(axes)

    def _key(self) -> tuple[Any, ...]:
        return (*super()._key(), self.axes)

    def __str__(self) -> str:
        return f"TensorSolve{{axes={self.axes}}}"


def tensorinv(a: Any, ind: int = 2) -> Any:
    """``np.linalg.tensorinv(a, ind)``: the tensor whose `tensordot` with
    ``a`` over ``ind`` axes is the identity; ``a.shape[:ind]`` and
    ``a.shape[ind:]`` must have equal products (else ``LinAlgError`` when
    run). The result has shape ``a.shape[ind:] + a.shape[:ind]``."""
    from oxtensor.tensor.linalg import matrix_inverse

    a = as_tensor_variable(a)
    if not isinstance(ind, int) or ind <= 0 or ind > a.ndim:
        raise ValueError(f"Invalid ind argument: {ind!r} (1 to {a.ndim} for {a.type})")
    inner = a.type()
    lengths = [inner.shape[i] for i in range(a.ndim)]
    front, back = lengths[:ind], lengths[ind:]
    inverse = matrix_inverse(inner.reshape((_product(front), _product(back))))
    return TensorInv([inner], [inverse.reshape(back + front)], ind=ind)(a)


def tensorsolve(a: Any, b: Any, axes: Any = None) -> Any:
    """``np.linalg.tensorsolve(a, b, axes)``: ``x`` of shape
    ``a.shape[b.ndim:]`` (after moving ``axes`` of ``a`` to the end) with
    ``tensordot(a, x, x.ndim) == b``."""
    from oxtensor.tensor.basic import moveaxis
    from oxtensor.tensor.linalg import solve

    a, b = as_tensor_variable(a), as_tensor_variable(b)
    inner_a, inner_b = a.type(), b.type()
    moved = inner_a
    if axes is not None:
        axes = [int(ax) % a.ndim for ax in axes]
        moved = moveaxis(inner_a, axes, list(range(a.ndim - len(axes), a.ndim)))
    lengths = [moved.shape[i] for i in range(a.ndim)]
    rows, solution = lengths[: b.ndim], lengths[b.ndim :]
    x = solve(
        moved.reshape((_product(rows), _product(solution))),
        inner_b.reshape((_product(rows),)),
        b_ndim=1,
    )
    op = TensorSolve([inner_a, inner_b], [x.reshape(solution)], axes=axes)
    return op(a, b)


__all__ = ["TensorInv", "TensorSolve", "tensorinv", "tensorsolve"]

"""`Elemwise`, `DimShuffle` and `CAReduce` (implemented in the Rust extension),
and `Elemwise.outer`, NumPy's ``ufunc.outer`` as a graph."""

from typing import Any

from oxtensor import _core

Elemwise = _core.Elemwise
DimShuffle = _core.DimShuffle
CAReduce = _core.CAReduce


def _outer(self: Any, x: Any, y: Any) -> Any:
    """The op applied to every pair of an element of ``x`` and one of ``y``
    (NumPy's ``ufunc.outer``): the result has shape ``x.shape + y.shape``.
    Only for ops that take two inputs."""
    from oxtensor.tensor.basic import as_tensor_variable

    if self.scalar_op.nin not in (2, -1):
        raise ValueError(
            f"outer needs an Elemwise of two inputs, {self} takes {self.scalar_op.nin}"
        )
    x, y = as_tensor_variable(x), as_tensor_variable(y)
    x = x.dimshuffle(*range(x.ndim), *["x"] * y.ndim)
    return self(x, y)


Elemwise.outer = _outer

__all__ = ["CAReduce", "DimShuffle", "Elemwise"]

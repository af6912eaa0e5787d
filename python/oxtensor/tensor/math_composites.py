"""Small ``pytensor.tensor.math`` functions that only call existing ones:
``ceil_intdiv``, ``smallest``, ``isnan_`` and ``cov``."""

import functools
from typing import Any

from oxtensor.tensor.basic import as_tensor_variable, concatenate


def ceil_intdiv(a: Any, b: Any) -> Any:
    """``a // b`` rounded up: ``a // b + (a % b != 0)``, in ``a // b``'s dtype."""
    from oxtensor.tensor.math import int_div, neq

    div = int_div(a, b)
    return div + neq(a % b, 0).astype(div.dtype)


def smallest(*args: Any) -> Any:
    """The elementwise minimum of all the arguments."""
    from oxtensor.tensor.math import minimum

    if not args:
        raise TypeError("smallest needs at least one argument")
    return functools.reduce(minimum, [as_tensor_variable(a) for a in args])


def isnan_(a: Any) -> Any:
    """``isnan`` as its own elementwise node, integers included (PyTensor's
    name for it; ``isnan`` gives integers a constant instead)."""
    from oxtensor import scalar
    from oxtensor._core import elemwise_op

    return elemwise_op(scalar.isnan)(a)


def _observations_in_rows(m: Any, rowvar: bool) -> Any:
    from oxtensor.tensor.padding import atleast_2d

    m = atleast_2d(as_tensor_variable(m))
    return m if rowvar or m.type.shape[0] == 1 else m.T


def cov(
    m: Any,
    y: Any = None,
    rowvar: bool = True,
    bias: bool = False,
    ddof: int | None = None,
    fweights: Any = None,
    aweights: Any = None,
) -> Any:
    """NumPy's ``cov`` without weights: the covariance of the variables in
    the rows of ``m`` (columns without ``rowvar``), ``y`` adding more."""
    if fweights is not None or aweights is not None:
        raise NotImplementedError("cov: fweights and aweights are not supported")
    x = _observations_in_rows(m, rowvar)
    if y is not None:
        x = concatenate([x, _observations_in_rows(y, rowvar)], axis=0)
    ddof = (0 if bias else 1) if ddof is None else ddof
    centred = x - x.mean(axis=1, keepdims=True)
    fact = (x.shape[1] - ddof).astype(centred.dtype)
    return (centred.dot(centred.T) / fact).squeeze()


__all__ = ["ceil_intdiv", "cov", "isnan_", "smallest"]

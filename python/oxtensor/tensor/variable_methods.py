"""`TensorVariable` methods that call `oxtensor.tensor` functions, as
PyTensor's `_tensor_py_operators` has them (`x.var()`, `x.argmax(1)`,
`x.exp()`, `x.size`, ...).

The operators and the methods that build one node (`sum`, `reshape`,
`dimshuffle`, ...) are written in Rust; these build graphs from the Python
functions, so they are attached to the Rust class when `oxtensor.tensor`
is imported. `_core.pyi` declares them with the rest of the class.
"""

from typing import Any

import numpy as np

import oxtensor.tensor as ot
from oxtensor import _core, scalar
from oxtensor.tensor.norms import _vector_norm
from oxtensor.tensor.variable import TensorVariable

# One-argument elementwise functions offered as methods (`x.exp()`): the
# kinds the scalar table marks ``method``.
_UNARY = sorted(attr for _, _, attr, _, method, _ in scalar.basic.KINDS if method)


def _unary(name: str) -> Any:
    fn = getattr(ot, name)

    def method(self: Any) -> Any:
        return fn(self)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"``{name}(x)``, elementwise."
    return method


def argmax(self: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Int64 positions of the maxima over ``axis``."""
    return ot.argmax(self, axis=axis, keepdims=keepdims)


def argmin(self: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Int64 positions of the minima over ``axis``."""
    return ot.argmin(self, axis=axis, keepdims=keepdims)


def sort_(self: Any, axis: Any = -1, kind: str = "quicksort", order: Any = None) -> Any:
    """Sorted along ``axis`` (the last by default; ``None`` sorts the
    flattened tensor)."""
    return ot.sort(self, axis, kind, order)


def argsort(
    self: Any, axis: Any = -1, kind: str = "quicksort", order: Any = None
) -> Any:
    """Positions that sort ``x`` along ``axis``."""
    return ot.argsort(self, axis, kind, order)


def cumsum(self: Any, axis: Any = None) -> Any:
    """Running sum along ``axis`` (of the flattened tensor by default)."""
    return ot.cumsum(self, axis)


def cumprod(self: Any, axis: Any = None) -> Any:
    """Running product along ``axis`` (of the flattened tensor by default)."""
    return ot.cumprod(self, axis)


def var(
    self: Any,
    axis: Any = None,
    ddof: int = 0,
    keepdims: bool = False,
    corrected: bool = False,
) -> Any:
    """Variance over ``axis`` (NumPy's ``ddof``)."""
    return ot.var(self, axis=axis, ddof=ddof, keepdims=keepdims, corrected=corrected)


def std(
    self: Any,
    axis: Any = None,
    ddof: int = 0,
    keepdims: bool = False,
    corrected: bool = False,
) -> Any:
    """Standard deviation over ``axis`` (NumPy's ``ddof``)."""
    return ot.std(self, axis=axis, ddof=ddof, keepdims=keepdims, corrected=corrected)


def ptp(self: Any, axis: Any = None) -> Any:
    """Maximum minus minimum over ``axis``."""
    return ot.ptp(self, axis=axis)


def norm(self: Any, L: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """The ``L``-norm over ``axis`` (all axes by default) as NumPy's vector
    norms: ``sum(abs(x) ** L) ** (1 / L)``, ``inf``/``-inf`` the largest or
    smallest magnitude, ``0`` the count of nonzero elements. Integer inputs
    give float64, as in NumPy."""
    if isinstance(L, bool) or not isinstance(L, int | float | np.integer | np.floating):
        raise TypeError(f"norm: L must be a real number, got {L!r}")
    if np.isnan(L):
        raise ValueError("norm: L must not be NaN")
    x = self if self.dtype.startswith(("float", "complex")) else self.astype("float64")
    return _vector_norm(x, L, axis, keepdims)


def take(self: Any, indices: Any, axis: Any = None, mode: str = "raise") -> Any:
    """Elements (or slices along ``axis``) at ``indices``."""
    return ot.take(self, indices, axis, mode)


def nonzero(self: Any, return_matrix: bool = False) -> Any:
    """Positions of the nonzero elements, one vector per axis (or one
    matrix with ``return_matrix``)."""
    return ot.nonzero(self, return_matrix=return_matrix)


def nonzero_values(self: Any) -> Any:
    """The nonzero elements, flattened."""
    return ot.nonzero_values(self)


def fill(self: Any, value: Any) -> Any:
    """A tensor like ``x`` filled with ``value`` (``second(x, value)``)."""
    return ot.fill(self, value)


def copy(self: Any, name: str | None = None) -> Any:
    """A copy of ``x`` (an ``Identity`` node) named ``name``."""
    out = ot.tensor_copy(self)
    out.name = name
    return out


def zeros_like(model: Any, dtype: Any = None) -> Any:
    """Zeros of ``x``'s shape (and dtype unless given)."""
    return ot.zeros_like(model, dtype=dtype)


def ones_like(model: Any, dtype: Any = None) -> Any:
    """Ones of ``x``'s shape (and dtype unless given)."""
    return ot.ones_like(model, dtype=dtype)


def ravel(self: Any) -> Any:
    """The tensor flattened to one dimension."""
    return ot.flatten(self)


def transfer(self: Any, target: Any) -> Any:
    """``x`` itself for ``"cpu"``, the only target here."""
    if target != "cpu":
        raise ValueError(
            f"Can't transfer to target {target}: oxtensor runs on the cpu only"
        )
    return self


def diagonal(self: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    """The diagonal of the ``axis1``/``axis2`` planes, ``offset`` above."""
    return ot.diagonal(self, offset, axis1, axis2)


def trace(self: Any) -> Any:
    """The sum of the main diagonal."""
    return ot.trace(self)


def compress(self: Any, a: Any, axis: Any = None) -> Any:
    """The slices of ``a`` along ``axis`` where this condition holds."""
    return ot.compress(self, a, axis=axis)


def get_underlying_scalar_constant(self: Any) -> Any:
    """The constant scalar value behind ``x``, else ``NotScalarConstantError``."""
    return ot.get_underlying_scalar_constant_value(self)


def _size(self: Any) -> Any:
    """The number of elements, as a symbolic int64 scalar."""
    return ot.prod(self.shape)


def _m_t(self: Any) -> Any:
    """The transpose of the last two axes (batched matrices)."""
    if self.ndim < 2:
        raise ValueError(f"mT needs at least 2 dimensions, {self} has {self.ndim}")
    return ot.swapaxes(self, -1, -2)


def _owner_op_and_inputs(self: Any) -> tuple[Any, ...]:
    """``(op, *inputs)`` of the node computing ``x``, or ``(None,)``."""
    node = self.owner
    return (None,) if node is None else (node.op, *node.inputs)


_METHODS = {
    **{name: _unary(name) for name in _UNARY},
    "argmax": argmax,
    "argmin": argmin,
    "sort": sort_,
    "argsort": argsort,
    "cumsum": cumsum,
    "cumprod": cumprod,
    "var": var,
    "std": std,
    "ptp": ptp,
    "norm": norm,
    "take": take,
    "nonzero": nonzero,
    "nonzero_values": nonzero_values,
    "fill": fill,
    "copy": copy,
    "zeros_like": zeros_like,
    "ones_like": ones_like,
    "ravel": ravel,
    "transfer": transfer,
    "diagonal": diagonal,
    "trace": trace,
    "compress": compress,
    "get_underlying_scalar_constant": get_underlying_scalar_constant,
    "size": property(_size),
    "mT": property(_m_t),
    "owner_op_and_inputs": property(_owner_op_and_inputs),
}


def _attach() -> None:
    """Adds the methods to the Rust `TensorVariable` class (and so to
    `TensorConstant` and every subclass); a name the class already has is
    never replaced."""
    for name, method in _METHODS.items():
        if name in vars(_core.TensorVariable):
            raise RuntimeError(f"TensorVariable.{name} is defined in Rust already")
        if callable(method):
            method.__name__ = method.__qualname__ = name
        setattr(TensorVariable, name, method)

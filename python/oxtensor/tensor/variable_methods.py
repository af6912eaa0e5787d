"""`TensorVariable` methods that call `oxtensor.tensor` functions, as
PyTensor's `_tensor_py_operators` has them (`x.var()`, `x.argmax(1)`,
`x.exp()`, `x.size`, ...).

The operators and the methods that build one node (`sum`, `reshape`,
`dimshuffle`, ...) are written in Rust; these build graphs from the Python
functions, so they are attached to the Rust class when `oxtensor.tensor`
is imported. `_core.pyi` declares them with the rest of the class.
"""

import inspect
from typing import Any

import numpy as np

import oxtensor.tensor as ot
from oxtensor import _core, scalar
from oxtensor.tensor.norms import _vector_norm
from oxtensor.tensor.variable import TensorVariable

# One-argument elementwise functions offered as methods (`x.exp()`): the
# kinds the scalar table marks ``method``.
_UNARY = sorted(attr for _, _, attr, _, method, _ in scalar.basic.KINDS if method)
_CALLS = """argmax argmin sort argsort cumsum cumprod var std ptp take nonzero
    nonzero_values zeros_like ones_like diagonal compress searchsorted choose"""


# Methods that call an `oxtensor.tensor` function with the variable first
# (`x.var(0)` is `var(x, 0)`): method name -> function name.
_FORWARDED = {
    **{name: name for name in _UNARY},
    **{name: name for name in _CALLS.split()},
    "ravel": "flatten",
    "get_underlying_scalar_constant": "get_underlying_scalar_constant_value",
}


def _forward(name: str) -> Any:
    target = _FORWARDED[name]

    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        # Looked up per call: `oxtensor.tensor` is still importing now.
        return getattr(ot, target)(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    kind = "elementwise" if name in _UNARY else "with ``x`` first"
    method.__doc__ = f"``{target}(x, ...)``, {kind}."
    return method


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


def fill(self: Any, value: Any) -> Any:
    """A tensor like ``x`` filled with ``value`` (``second(x, value)``)."""
    return ot.fill(self, value)


def copy(self: Any, name: str | None = None) -> Any:
    """A copy of ``x`` (an ``Identity`` node) named ``name``."""
    out = ot.tensor_copy(self)
    out.name = name
    return out


def trace(self: Any) -> Any:
    """The sum of the diagonal of a matrix: ``linalg.trace(x)``, deprecated
    as in PyTensor (a `FutureWarning`); ``oxtensor.tensor.trace(x)`` is the
    function to call."""
    return ot.linalg.trace(self)


def transfer(self: Any, target: Any) -> Any:
    """``x`` itself for ``"cpu"``, the only target here."""
    if target != "cpu":
        raise ValueError(
            f"Can't transfer to target {target}: oxtensor runs on the cpu only"
        )
    return self


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


def _setitem(self: Any, key: Any, value: Any) -> None:
    """Variables are immutable: PyTensor's ``TypeError`` pointing to
    ``x[idx].set(y)`` / ``x[idx].inc(y)``."""
    raise TypeError(
        "TensorVariable does not support item assignment. Use the output of "
        "`x[idx].set` or `x[idx].inc` instead."
    )


_METHODS = {
    **{name: _forward(name) for name in _FORWARDED},
    "norm": norm,
    "fill": fill,
    "copy": copy,
    "trace": trace,
    "transfer": transfer,
    "size": property(_size),
    "mT": property(_m_t),
    "owner_op_and_inputs": property(_owner_op_and_inputs),
    "__setitem__": _setitem,
}


def _signature(name: str) -> inspect.Signature:
    """A forwarded method's signature: its function's, ``self`` first
    (``(self)`` for the elementwise ones, which are ops)."""
    self_param = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    try:
        sig = inspect.signature(getattr(ot, _FORWARDED[name]))
    except (TypeError, ValueError):
        return inspect.Signature([self_param])
    _, *rest = sig.parameters.values()
    return sig.replace(parameters=[self_param, *rest])


def _attach() -> None:
    """Adds the methods to the Rust `TensorVariable` class (and so to
    `TensorConstant` and every subclass); a name the class already has is
    never replaced."""
    for name in _FORWARDED:
        _METHODS[name].__signature__ = _signature(name)
    for name, method in _METHODS.items():
        if name in vars(_core.TensorVariable):
            raise RuntimeError(f"TensorVariable.{name} is defined in Rust already")
        if callable(method):
            method.__name__ = method.__qualname__ = name
        setattr(TensorVariable, name, method)

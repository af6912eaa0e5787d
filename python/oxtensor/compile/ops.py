"""Ops PyTensor keeps in `pytensor.compile.ops`: `ViewOp` (its input, as a
view), `DeepCopyOp` (a copy of its input), and `wrap_py`/`as_op`, which turn a
Python function on arrays into an op of declared input and output types.

`DeepCopyOp` is the core's: the compiler puts one on each output that would
otherwise alias an input or a constant, as PyTensor does.
"""

import importlib
import warnings
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from oxtensor import _core
from oxtensor.graph.basic import Apply
from oxtensor.graph.op import Op
from oxtensor.tensor.basic import as_tensor_variable


class _Identity(Op):
    """Returns its one input unchanged (the subclasses say how)."""

    __props__ = ()

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def infer_shape(self, fgraph: Any, node: Any, shapes: Any) -> Any:
        return list(shapes)

    def grad(self, inputs: Any, output_grads: Any) -> Any:
        return list(output_grads)

    def R_op(self, inputs: Any, eval_points: Any) -> Any:
        return list(eval_points)


class ViewOp(_Identity):
    """Its input, returned as a view (the output aliases the input)."""

    view_map: ClassVar[dict[int, list[int]]] = {0: [0]}

    def perform(self, node: Any, inputs: Any, output_storage: Any) -> None:
        output_storage[0][0] = inputs[0]

    def __str__(self) -> str:
        return "ViewOp"


DeepCopyOp = _core.DeepCopyOp


view_op = ViewOp()
deep_copy_op = DeepCopyOp()


def _as_list(types: Any) -> list[Any]:
    return list(types) if isinstance(types, Sequence) else [types]


def _load_back(module: str, name: str) -> Any:
    """Unpickles a `FromFunctionOp`: the op is the module attribute it
    decorated."""
    return getattr(importlib.import_module(module), name)


class FromFunctionOp(Op):
    """An op whose ``perform`` calls ``fn`` on the input arrays.

    ``fn`` returns one array per output type (a single array when there is
    one). ``infer_shape(fgraph, node, input_shapes)``, when given, gives the
    output shapes without running ``fn``.
    """

    def __init__(
        self,
        fn: Callable[..., Any],
        itypes: Sequence[Any],
        otypes: Sequence[Any],
        infer_shape: Callable[..., Any] | None,
    ) -> None:
        self._fn = fn
        self.itypes = list(itypes)
        self.otypes = list(otypes)
        self._infer_shape = infer_shape
        self.__doc__ = fn.__doc__

    def __eq__(self, other: Any) -> bool:
        return (
            type(self) is type(other)
            and self._fn == other._fn
            and self.itypes == other.itypes
            and self.otypes == other.otypes
        )

    def __hash__(self) -> int:
        return hash((type(self), self._fn))

    def __str__(self) -> str:
        return f"FromFunctionOp{{{self._fn.__name__}}}"

    def make_node(self, *inputs: Any) -> Apply:
        if len(inputs) != len(self.itypes):
            raise ValueError(
                f"{self} takes {len(self.itypes)} inputs, got {len(inputs)}"
            )
        ins = [
            t.filter_variable(as_tensor_variable(v))
            for t, v in zip(self.itypes, inputs, strict=True)
        ]
        return Apply(self, ins, [t() for t in self.otypes])

    def perform(self, node: Any, inputs: Any, output_storage: Any) -> None:
        results = self._fn(*inputs)
        if len(self.otypes) == 1:
            results = [results]
        for slot, t, value in zip(output_storage, self.otypes, results, strict=True):
            slot[0] = t.filter(value)

    def __reduce__(self) -> Any:
        module, name = self._fn.__module__, self._fn.__name__
        try:
            found = _load_back(module, name)
        except (ImportError, AttributeError):
            found = None
        if found is not self:
            raise TypeError(
                f"cannot pickle {self}: it must be a module-level name of {module}"
            )
        return _load_back, (module, name)


class _ShapedFromFunctionOp(FromFunctionOp):
    """A `FromFunctionOp` given an ``infer_shape``."""

    def infer_shape(self, fgraph: Any, node: Any, shapes: Any) -> Any:
        return self._infer_shape(fgraph, node, shapes)


def wrap_py(
    itypes: Any, otypes: Any, infer_shape: Callable[..., Any] | None = None
) -> Callable[[Callable[..., Any]], FromFunctionOp]:
    """Decorator: the function becomes a `FromFunctionOp` with these input
    and output types (a type or a list of types each)."""

    def wrap(fn: Callable[..., Any]) -> FromFunctionOp:
        kind = FromFunctionOp if infer_shape is None else _ShapedFromFunctionOp
        return kind(fn, _as_list(itypes), _as_list(otypes), infer_shape)

    return wrap


def as_op(
    itypes: Any, otypes: Any, infer_shape: Callable[..., Any] | None = None
) -> Callable[[Callable[..., Any]], FromFunctionOp]:
    """The former name of `wrap_py` (it warns, as PyTensor's does)."""
    warnings.warn("as_op is deprecated; use wrap_py", FutureWarning, stacklevel=2)
    return wrap_py(itypes, otypes, infer_shape)


__all__ = [
    "DeepCopyOp",
    "FromFunctionOp",
    "ViewOp",
    "as_op",
    "deep_copy_op",
    "view_op",
    "wrap_py",
]

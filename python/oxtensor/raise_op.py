"""`CheckAndRaise` and `Assert`: ops that return their first input and raise
an exception at run time when one of their conditions is false."""

from typing import Any, ClassVar

import numpy as np

from oxtensor.gradient import disconnected_type
from oxtensor.graph.basic import Apply
from oxtensor.graph.op import Op
from oxtensor.tensor.basic import as_tensor_variable


class CheckAndRaise(Op):
    """``CheckAndRaise(exc_type, msg)(value, *conds)`` is ``value`` (a view
    of it) when every condition is true everywhere, and raises
    ``exc_type(msg)`` otherwise. Conditions are scalars or arrays."""

    __props__ = ("msg", "exc_type")
    view_map: ClassVar[dict[int, list[int]]] = {0: [0]}

    def __init__(self, exc_type: type, msg: str = "") -> None:
        if not (isinstance(exc_type, type) and issubclass(exc_type, Exception)):
            raise ValueError("exc_type must be an Exception subclass")
        self.exc_type = exc_type
        self.msg = msg

    def __str__(self) -> str:
        return f"CheckAndRaise{{{self.exc_type.__name__}({self.msg})}}"

    def make_node(self, value: Any, *conds: Any) -> Apply:
        value = as_tensor_variable(value)
        checks = [as_tensor_variable(c) for c in conds]
        for c in checks:
            if c.dtype != "bool" and not c.dtype.startswith(("int", "uint")):
                raise TypeError(
                    f"condition {c} must be boolean or integer, not {c.dtype}"
                )
        return Apply(self, [value, *checks], [value.type()])

    def perform(self, node: Any, inputs: Any, output_storage: Any) -> None:
        value, *conds = inputs
        if not all(np.all(c) for c in conds):
            raise self.exc_type(self.msg)
        output_storage[0][0] = value

    def infer_shape(self, fgraph: Any, node: Any, shapes: Any) -> Any:
        return [shapes[0]]

    def grad(self, inputs: Any, output_grads: Any) -> Any:
        return [output_grads[0]] + [disconnected_type() for _ in inputs[1:]]

    def connection_pattern(self, node: Any) -> Any:
        return [[True]] + [[False] for _ in node.inputs[1:]]


class Assert(CheckAndRaise):
    """`CheckAndRaise` raising `AssertionError`: ``Assert(msg)(x, *conds)``."""

    def __init__(self, msg: str = "oxtensor Assert failed!") -> None:
        super().__init__(AssertionError, msg)

    def __str__(self) -> str:
        return f"Assert{{msg={self.msg}}}"


assert_op = Assert()

__all__ = ["Assert", "CheckAndRaise", "assert_op"]

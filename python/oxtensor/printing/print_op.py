"""`Print`: an op that prints a message and its input's attributes when it
runs, and returns its input unchanged (as a view)."""

from collections.abc import Callable
from typing import Any

from oxtensor.graph.basic import Apply
from oxtensor.graph.op import Op


def _print_fn(op: "Print", xin: Any) -> None:
    """Prints ``message attr = value`` for each of the op's ``attrs`` (a
    method is called: ``__str__`` prints the value)."""
    for attr in op.attrs:
        value = getattr(xin, attr)
        if callable(value):
            value = value()
        print(op.message, attr, "=", value)


class Print(Op):
    """``Print(message, attrs=("__str__",))(x)``: ``x``, printed when the
    function runs. It is never constant-folded (the print would happen at
    compile time), its gradient passes through, and its output views its
    input."""

    __props__ = ("message", "attrs", "global_fn")
    view_map = {0: [0]}  # noqa: RUF012 (PyTensor's class attribute)

    def __init__(
        self,
        message: str = "",
        attrs: tuple[str, ...] = ("__str__",),
        global_fn: Callable[["Print", Any], None] = _print_fn,
    ) -> None:
        self.message = message
        self.attrs = tuple(attrs)
        self.global_fn = global_fn

    def make_node(self, xin: Any) -> Apply:
        from oxtensor.tensor import as_tensor_variable

        xin = as_tensor_variable(xin)
        return Apply(self, [xin], [xin.type()])

    def perform(self, node: Any, inputs: list, output_storage: list) -> None:
        (xin,) = inputs
        output_storage[0][0] = xin
        self.global_fn(self, xin)

    def grad(self, inputs: list, output_gradients: list) -> list:
        return list(output_gradients)

    def R_op(self, inputs: list, eval_points: list) -> list:
        return list(eval_points)

    def infer_shape(self, fgraph: Any, node: Any, input_shapes: list) -> list:
        return list(input_shapes)

    def do_constant_folding(self, fgraph: Any, node: Any) -> bool:
        return False


__all__ = ["Print"]

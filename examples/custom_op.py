"""A Python ``Op``: declare it, use it in a graph, differentiate one node by
hand, and run its ``perform`` through ``make_thunk`` (the seeds' contract).

``oxtensor.function`` runs ``perform`` the same way when it compiles a
graph that uses the op; a thunk is how one node runs on its own.
"""

from typing import Any

import numpy as np
import oxtensor
import oxtensor.tensor as ot
from oxtensor.graph.basic import Apply
from oxtensor.graph.fg import FunctionGraph
from oxtensor.graph.op import Op


class Scale(Op):
    """``factor * x``, elementwise. ``__props__`` gives ``==``, ``hash`` and ``str``."""

    __props__ = ("factor",)

    def __init__(self, factor: float) -> None:
        self.factor = factor

    def make_node(self, x: Any) -> Apply:
        x = ot.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node: Apply, inputs: list, output_storage: list) -> None:
        (x,) = inputs
        dtype = node.outputs[0].dtype
        output_storage[0][0] = np.asarray(x * self.factor, dtype=dtype)

    def grad(self, inputs: list, output_grads: list) -> list:
        # d(factor * x)/dx = factor, so the input's gradient is the output's, scaled.
        (gz,) = output_grads
        return [self(gz)]


def build() -> None:
    """Use the op in a graph and in a FunctionGraph, and print both."""
    x = ot.dvector("x")
    y = Scale(3.0)(x) + 1.0
    print(Scale(3.0), repr(Scale(3.0)), Scale(3.0) == Scale(3.0))
    oxtensor.dprint(y)
    fg = FunctionGraph([x], [y])
    oxtensor.dprint(fg)
    (gx,) = Scale(3.0).grad([x], [ot.dvector("gy")])
    oxtensor.dprint(gx)


def run_one_node() -> None:
    """Run ``perform`` on storage cells, as a linker would."""
    x = ot.dvector("x")
    node = Scale(3.0)(x).owner
    out = node.outputs[0]
    storage_map = {x: [np.array([1.0, 2.0])], out: [None]}
    compute_map = {x: [True], out: [False]}
    thunk = node.op.make_thunk(node, storage_map, compute_map, no_recycling=[])
    thunk()
    print(storage_map[out][0], compute_map[out][0])


if __name__ == "__main__":
    build()
    run_one_node()

"""Graph objects for graph tests: PyTensor's ``MyType``/``MyVariable``/``MyOp``
(``tests/graph/test_basic.py``), a type that only carries a number; and
`AddInplace`, a user's Python op that destroys its first input."""

import oxtensor.tensor as ot
from oxtensor.graph.basic import Apply, Variable
from oxtensor.graph.op import Op
from oxtensor.graph.type import Type


class MyType(Type):
    def __init__(self, thingy):
        self.thingy = thingy

    def filter(self, data, strict=False, allow_downcast=None):
        raise NotImplementedError()

    def __eq__(self, other):
        return isinstance(other, MyType) and other.thingy == self.thingy

    def __hash__(self):
        return hash((type(self), self.thingy))

    def __str__(self):
        return f"R{self.thingy}"

    def __repr__(self):
        return f"R{self.thingy}"


def MyVariable(thingy):
    return Variable(MyType(thingy), None, None)


class MyOp(Op):
    __props__ = ()

    def make_node(self, *inputs):
        for inp in inputs:
            assert isinstance(inp, Variable)
            assert isinstance(inp.type, MyType)
        outputs = [MyVariable(sum(inp.type.thingy for inp in inputs))]
        return Apply(self, list(inputs), outputs)

    def perform(self, node, inputs, output_storage):
        raise NotImplementedError("No Python implementation available.")


MyOp = MyOp()


class AddInplace(Op):
    """``a + b`` written into ``a`` (``destroy_map = {0: [0]}``)."""

    __props__ = ()
    destroy_map = {0: [0]}  # noqa: RUF012 (PyTensor's class attribute)

    def make_node(self, a, b):
        a, b = ot.as_tensor_variable(a), ot.as_tensor_variable(b)
        return Apply(self, [a, b], [a.type()])

    def perform(self, node, inputs, output_storage):
        a, b = inputs
        a += b
        output_storage[0][0] = a

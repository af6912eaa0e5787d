"""Graph objects for graph tests: PyTensor's ``MyType``/``MyVariable``/``MyOp``
(``tests/graph/test_basic.py``), a type that only carries a number."""

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

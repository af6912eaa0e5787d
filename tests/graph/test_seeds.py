"""The seeds' "Graph Structures" examples (Theano's and Aesara's versions), run
as written with module names adapted: ``theano.tensor``/``aesara.tensor`` →
``oxtensor.tensor`` and ``theano``/``aesara`` → ``oxtensor``.

The parts that compile with ``function`` run literally (compilation clones the
graph and folds constants, so the compiled graph is ``Add`` then ``Sum``), and
the same facts are also checked on a ``FunctionGraph``.
"""

import numpy as np
import oxtensor
import oxtensor.tensor as T
import pytest
from oxtensor.graph.basic import Apply
from oxtensor.graph.fg import FunctionGraph
from oxtensor.tensor import DimShuffle, Elemwise, TensorConstant, TensorVariable

# The seeds write `TensorType(..., broadcastable=...)`, which works and, as in
# PyTensor 3.x, warns that `shape=` is the current spelling.
pytestmark = pytest.mark.filterwarnings(
    "ignore:The `broadcastable` keyword is deprecated:DeprecationWarning"
)

# --- Theano's version ---


def test_first_example_x_plus_y():
    x = T.dmatrix("x")
    y = T.dmatrix("y")
    z = x + y

    assert x.owner is None
    assert y.owner is None
    assert isinstance(z.owner, Apply)
    assert z.owner.outputs[0] is z
    assert z.owner.inputs == [x, y]
    assert z.owner.op == T.add
    assert z.type == T.dmatrix


def test_short_example():
    # create 3 Variables with owner = None
    x = T.matrix("x")
    y = T.matrix("y")
    z = T.matrix("z")

    # create 2 Variables (one for 'e', one intermediate for y*z)
    # create 2 Apply instances (one for '+', one for '*')
    e = x + y * z

    assert e.owner.op == T.add
    assert e.owner.inputs[0] is x
    mul_variable = e.owner.inputs[1]
    assert mul_variable.owner.op == T.mul
    assert mul_variable.owner.inputs == [y, z]
    assert len(oxtensor.graph.basic.applys_between([x, y, z], [e])) == 2


def test_long_example():
    from oxtensor.tensor import Apply, Constant, TensorType, Variable, add, mul

    assert Constant is oxtensor.graph.basic.Constant

    # Instantiate a type that represents a matrix of doubles
    float64_matrix = TensorType(
        dtype="float64",  # double
        broadcastable=(False, False),  # matrix
    )

    # We make the Variable instances we need.
    x = Variable(type=float64_matrix, name="x")
    y = Variable(type=float64_matrix, name="y")
    z = Variable(type=float64_matrix, name="z")

    # This is the Variable that we want to symbolically represents y*z
    mul_variable = Variable(type=float64_matrix)
    assert mul_variable.owner is None

    # Instantiate a symbolic multiplication
    node_mul = Apply(op=mul, inputs=[y, z], outputs=[mul_variable])
    # Fields 'owner' and 'index' are set by Apply
    assert mul_variable.owner is node_mul
    # 'index' is the position of mul_variable in mode_mul's outputs
    assert mul_variable.index == 0

    # This is the Variable that we want to symbolically represents x+(y*z)
    add_variable = Variable(type=float64_matrix)
    assert add_variable.owner is None

    # Instantiate a symbolic addition
    node_add = Apply(op=add, inputs=[x, mul_variable], outputs=[add_variable])
    # Fields 'owner' and 'index' are set by Apply
    assert add_variable.owner is node_add
    assert add_variable.index == 0

    e = add_variable

    # We have access to x, y and z through pointers
    assert e.owner.inputs[0] is x
    assert e.owner.inputs[1] is mul_variable
    assert e.owner.inputs[1].owner.inputs[0] is y
    assert e.owner.inputs[1].owner.inputs[1] is z

    assert float64_matrix == T.dmatrix
    assert float64_matrix.shape == (None, None)


def test_long_example_builds_the_short_examples_graph():
    from oxtensor.tensor import Apply, TensorType, Variable, add, mul

    from tests.helpers import assert_equal_computations

    ty = TensorType(dtype="float64", broadcastable=(False, False))
    x, y, z = (Variable(type=ty, name=n) for n in "xyz")
    mul_variable = Variable(type=ty)
    Apply(op=mul, inputs=[y, z], outputs=[mul_variable])
    add_variable = Variable(type=ty)
    Apply(op=add, inputs=[x, mul_variable], outputs=[add_variable])

    # Plain `Variable`s have no operators; compare with the short example's
    # graph over tensor variables standing for x, y and z.
    x2, y2, z2 = T.matrices("x", "y", "z")
    assert_equal_computations([add_variable], [x2 + y2 * z2], [x, y, z], [x2, y2, z2])


def test_automatic_wrapping():
    e = T.dscalar("x") + 1

    node = e.owner
    assert node.op == T.add
    x, one = node.inputs
    assert isinstance(x, TensorVariable)
    assert x.type == T.dscalar
    assert x.name == "x"
    # PyTensor's autocasting: the smallest int type that holds 1.
    assert isinstance(one, TensorConstant)
    assert one.type == T.bscalar
    assert one.data == 1
    assert one.data.dtype == np.int8
    assert e is node.outputs[0]
    assert e.type == T.dscalar


def test_automatic_wrapping_written_out():
    # The seeds' explicit form of the same graph.
    from oxtensor.tensor import Constant, Variable

    node = Apply(
        op=T.add,
        inputs=[
            Variable(type=T.dscalar, name="x"),
            Constant(type=T.lscalar, data=1),
        ],
        outputs=[Variable(type=T.dscalar)],
    )
    e = node.outputs[0]
    assert e.owner is node
    assert node.inputs[1].data == 1
    assert node.inputs[1].type == T.lscalar


def test_irow_constraints():
    # 1. an ndarray, 2. of int32, 3. of shape 1xN.
    good = np.zeros((1, 5), dtype="int32")
    assert T.irow.is_valid_value(good)
    assert isinstance(T.irow.filter(good), np.ndarray)
    assert not T.irow.is_valid_value(np.zeros((1, 5), dtype="float64"))
    assert not T.irow.is_valid_value(np.zeros((2, 5), dtype="int32"))
    assert not T.irow.is_valid_value(np.zeros(5, dtype="int32"))
    assert T.irow != T.dmatrix


def test_dmatrix_constraints():
    assert T.dmatrix.is_valid_value(np.zeros((3, 4)))
    assert T.dmatrix.is_valid_value(np.zeros((1, 1)))
    assert not T.dmatrix.is_valid_value(np.zeros((3, 4), dtype="float32"))
    assert not T.dmatrix.is_valid_value(np.zeros(3))


def test_variable_section_ivector_negation():
    x = oxtensor.tensor.ivector()
    y = -x

    assert isinstance(x, oxtensor.Variable)
    assert isinstance(y, oxtensor.Variable)
    assert x.type == oxtensor.tensor.ivector
    assert y.type == oxtensor.tensor.ivector
    assert x.owner is None
    assert isinstance(y.owner, Apply)
    assert y.owner.op == T.neg
    assert y.owner.inputs[0] is x
    assert y.owner.outputs[y.index] is y


def test_constant_data_is_set_once():
    c = T.constant(np.array([1.0, 2.0]))
    assert c.owner is None
    with pytest.raises(AttributeError):
        c.data = np.array([3.0, 4.0])
    with pytest.raises(ValueError, match="read-only"):
        c.data[0] = 5.0
    np.testing.assert_array_equal(c.data, [1.0, 2.0])


# --- Graph Structures Extension: clients, on a FunctionGraph ---


def _extension_graph():
    v = oxtensor.tensor.vector()
    fgraph = FunctionGraph([v], [(v + 1).sum()])
    return v, fgraph


def test_extension_graph_is_cloned():
    v, fgraph = _extension_graph()
    # "The graph gets cloned at the start of compilation, so modifications
    # done during compilation won't affect the user graph."
    assert fgraph.inputs[0] is not v
    assert fgraph.inputs[0].type == v.type
    with pytest.raises(AttributeError, match="clients"):
        _ = v.clients


def test_extension_dprint():
    _, fgraph = _extension_graph()
    assert oxtensor.printing.debugprint(fgraph, file="str") == (
        "Sum{axes=None} [id A] 2\n"
        " └─ Add [id B] 1\n"
        "    ├─ <Vector(float64, shape=(?,))> [id C]\n"
        "    └─ ExpandDims{axis=0} [id D] 0\n"
        "       └─ 1 [id E]\n"
    )


def test_extension_clients():
    _, fgraph = _extension_graph()
    # Sorted list of all nodes in the graph.
    topo = fgraph.toposort()
    assert [str(n.op) for n in topo] == ["ExpandDims{axis=0}", "Add", "Sum{axes=None}"]
    add_node, sum_node = topo[1], topo[2]

    assert add_node.outputs[0].clients == [(sum_node, 0)]
    assert sum_node.outputs[0].clients == [("output", 0)]
    assert repr(add_node.outputs[0].clients) == "[(Sum{axes=None}(Add.0), 0)]"

    # An internal variable
    var = add_node.outputs[0]
    client = var.clients[0]
    assert client == (sum_node, 0)
    assert type(client[0]) is Apply
    assert client[0].inputs[client[1]] is var

    # An output of the graph
    var = sum_node.outputs[0]
    client = var.clients[0]
    assert client == ("output", 0)
    assert fgraph.outputs[client[1]] is var


def test_extension_clients_of_every_variable():
    # "var.clients[*][0].inputs[index] or fgraph.outputs[index] is that variable."
    _, fgraph = _extension_graph()
    for var in fgraph.variables:
        for node, index in var.clients:
            if node == "output":
                assert fgraph.outputs[index] is var
            else:
                assert node.inputs[index] is var
    unused = [var for var in fgraph.variables if len(var.clients) == 0]
    assert unused == []


# --- Aesara's version ---


def test_traversing_the_graph():
    x = oxtensor.tensor.dmatrix("x")
    y = x * 2.0

    assert type(y.owner) is Apply
    assert isinstance(y.owner.op, Elemwise)
    assert str(y.owner.op) == "Mul"
    assert y.owner.op == T.mul

    assert len(y.owner.inputs) == 2
    assert y.owner.inputs[0] is x
    # 2 was broadcast to a matrix of the same rank as x by a DimShuffle.
    assert type(y.owner.inputs[1]) is TensorVariable
    assert type(y.owner.inputs[1].owner) is Apply
    assert isinstance(y.owner.inputs[1].owner.op, DimShuffle)
    assert str(y.owner.inputs[1].owner.op) == "ExpandDims{axes=(0, 1)}"
    (two,) = y.owner.inputs[1].owner.inputs
    assert isinstance(two, TensorConstant)
    assert two.data == 2.0
    assert two.type == T.fscalar


def test_traversing_the_graph_dprint():
    x = oxtensor.tensor.dmatrix("x")
    y = x * 2.0
    assert oxtensor.dprint(y, file="str") == (
        "Mul [id A]\n"
        " ├─ x [id B]\n"
        " └─ ExpandDims{axes=(0, 1)} [id C]\n"
        "    └─ 2.0 [id D]\n"
    )


def test_irow_call():
    from oxtensor.tensor import irow

    r = irow()
    assert repr(r) == "<Matrix(int32, shape=(1, ?))>"
    assert isinstance(r.type, T.TensorType)
    assert r.type.dtype == "int32"
    assert r.type.shape == (1, None)
    assert r.type.broadcastable == (True, False)


def test_aesara_variable_section():
    x = oxtensor.tensor.ivector()
    y = -x
    assert x.type == y.type == oxtensor.tensor.ivector
    assert y.owner.inputs == [x]


def test_constant_in_graph_is_atomic():
    c = T.constant(2.0)
    with pytest.raises(ValueError, match="owner"):
        c.owner = (T.dscalar() + 1).owner
    assert c.clone() is c


# --- The parts that need `function` (the Execution issue) ---


def test_extension_literal_function_code():
    v = oxtensor.tensor.vector()
    f = oxtensor.function([v], (v + 1).sum())
    assert "Sum{axes=None}" in oxtensor.printing.debugprint(f, file="str")
    topo = f.maker.fgraph.toposort()
    assert [type(n.op).__name__ for n in topo] == ["Elemwise", "Sum"]
    assert topo[0].outputs[0].clients == [(topo[1], 0)]
    assert topo[1].outputs[0].clients == [("output", 0)]
    var = topo[0].outputs[0]
    client = var.clients[0]
    assert type(client[0]) is Apply
    assert client[0].inputs[client[1]] is var
    var = topo[1].outputs[0]
    client = var.clients[0]
    assert client == ("output", 0)
    assert f.maker.fgraph.outputs[client[1]] is var


def test_rewrite_example_literal_function_code():
    a = oxtensor.tensor.vector("a")  # declare symbolic variable
    b = a + a**10  # build symbolic expression
    f = oxtensor.function([a], b)  # compile function
    np.testing.assert_array_equal(f([0, 1, 2]), [0.0, 2.0, 1026.0])


def test_rewrite_example_graph_before_rewriting():
    a = oxtensor.tensor.vector("a")
    b = a + a**10
    assert oxtensor.dprint(b, file="str") == (
        "Add [id A]\n"
        " ├─ a [id B]\n"
        " └─ Pow [id C]\n"
        "    ├─ a [id B]\n"
        "    └─ ExpandDims{axis=0} [id D]\n"
        "       └─ 10 [id E]\n"
    )

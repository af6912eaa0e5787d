"""`FrozenFunctionGraph`, `FunctionGraph.freeze` and the `Output` op."""

import pickle

import numpy as np
import oxtensor.tensor as pt
import pytest
from oxtensor.graph.basic import Constant
from oxtensor.graph.fg import FrozenFunctionGraph, FunctionGraph, Output
from oxtensor.graph.nominal import NominalVariable
from oxtensor.scalar.basic import ScalarConstant, add, exp, float64, mul

from tests.graph.utils import MyOp, MyVariable


def test_equal_graphs_share_nodes():
    x, y = float64("x"), float64("y")
    f1 = FunctionGraph([x, y], [mul(add(x, y), y)]).freeze()
    a, b = float64("a"), float64("b")
    f2 = FrozenFunctionGraph([a, b], [mul(add(a, b), b)])
    assert f1 == f2
    assert hash(f1) == hash(f2)
    assert f1.outputs[0] is f2.outputs[0]
    assert all(isinstance(i, NominalVariable) for i in f1.inputs)
    assert [i.id for i in f1.inputs] == [0, 1]
    f3 = FrozenFunctionGraph([a, b], [add(mul(a, b), b)])
    assert f1 != f3
    assert f1 != FrozenFunctionGraph([a], [exp(a)])


def test_duplicate_subgraphs_merge():
    x = float64("x")
    frozen = FrozenFunctionGraph([x], [mul(exp(x), exp(x))])
    assert len(frozen.apply_nodes) == 2
    assert len(frozen.toposort()) == 2
    c1, c2 = ScalarConstant(float64, 3.0), ScalarConstant(float64, 3.0)
    f1 = FrozenFunctionGraph([], [c1])
    f2 = FrozenFunctionGraph([], [c2])
    assert f1 == f2
    assert f1.outputs == f2.outputs


def test_output_clients_and_pickle():
    x, y = float64("x"), float64("y")
    shared = add(x, y)
    ffg = FrozenFunctionGraph(
        [x, y], [mul(shared, x), add(shared, ScalarConstant(float64, 2.5))]
    )
    for i, out in enumerate(ffg.outputs):
        marks = [(n, k) for n, k in ffg.clients[out] if isinstance(n.op, Output)]
        assert len(marks) == 1
        assert marks[0][0].op.idx == i
        assert marks[0][1] == 0
    again = pickle.loads(pickle.dumps(ffg))
    assert again == ffg
    assert hash(again) == hash(ffg)
    assert all(a is b for a, b in zip(again.outputs, ffg.outputs, strict=False))


def test_unfreeze_and_bind():
    x, y = float64("x"), float64("y")
    ffg = FrozenFunctionGraph([x, y], [mul(add(x, y), y)])
    fg = ffg.unfreeze()
    assert isinstance(fg, FunctionGraph)
    assert fg.freeze() == ffg
    a, b = float64("a"), float64("b")
    [out] = ffg.bind([a, b])
    assert out.owner.inputs[1] is b
    with pytest.raises(ValueError, match="bind expects 2 inputs, got 1"):
        ffg.bind([a])


def test_identity_output():
    v = MyVariable(1)
    ffg = FrozenFunctionGraph([v], [v])
    assert ffg.apply_nodes == set()
    assert isinstance(ffg.outputs[0], NominalVariable)
    assert pickle.loads(pickle.dumps(ffg)) == ffg


def test_errors():
    v, orphan = MyVariable(1), MyVariable(2)
    with pytest.raises(ValueError, match="Orphan variable"):
        FrozenFunctionGraph([v], [MyOp(v, orphan)])
    with pytest.raises(ValueError, match="could not be mapped"):
        FrozenFunctionGraph([v], [MyVariable(3)])
    with pytest.raises(TypeError, match="Output takes a variable"):
        Output(0).make_node(3)


def test_output_op():
    v = MyVariable(1)
    node = Output(1).make_node(v)
    assert node.inputs == [v]
    assert node.outputs == []
    assert Output(1) == Output(1)
    assert Output(1) != Output(0)
    assert str(Output(2)) == "Output{2}"


def test_tensor_constants_and_types_are_keys():
    x = pt.vector("x", shape=(6,))
    r1 = pt.reshape(x, (2, 3))
    r2 = pt.reshape(x, (3, 2))
    f1, f2 = FrozenFunctionGraph([x], [r1]), FrozenFunctionGraph([x], [r2])
    assert f1 != f2
    assert f1 == FrozenFunctionGraph([x], [pt.reshape(x, (2, 3))])
    assert any(isinstance(v, Constant) for v in f1.variables)
    np.testing.assert_equal(f1.outputs[0].type.shape, (2, 3))


def test_frozen_apply_interning():
    from oxtensor.graph.basic import Apply, FrozenApply

    x, y = NominalVariable(0, float64), NominalVariable(1, float64)
    a = FrozenApply(add, (x, y), (float64,))
    assert FrozenApply(add, [x, y], [float64]) is a
    assert FrozenApply(add, (y, x), (float64,)) is not a
    assert FrozenApply(mul, (x, y), (float64,)) is not a
    assert isinstance(a, Apply)
    assert a.outputs[0].owner is a
    assert a.outputs[0].index == 0
    copy = a.clone()
    assert copy is not a
    assert not isinstance(copy, FrozenApply)

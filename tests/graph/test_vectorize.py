"""``vectorize_graph``, ``vectorize_node`` and ``_vectorize_node``: which op
each rule gives, and values against NumPy loops over the batch."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from hypothesis import given
from oxtensor.graph.basic import Apply, equal_computations
from oxtensor.graph.op import Op
from oxtensor.graph.replace import _vectorize_node, vectorize_graph, vectorize_node
from oxtensor.tensor.blockwise import Blockwise
from oxtensor.tensor.elemwise import CAReduce, DimShuffle, Elemwise

from tests.helpers import UnaryPythonOp, matvec_batches


def softmax_graph(x):
    return ot.exp(x) / ot.sum(ot.exp(x))


def test_softmax_graph_matches_numpy_rows():
    x, new_x = ot.vector("x"), ot.matrix("new_x")
    [y] = vectorize_graph([softmax_graph(x)], {x: new_x})
    assert equal_computations([y], [vectorize_graph(softmax_graph(x), {x: new_x})])
    a = np.array([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]])
    want = np.exp(a) / np.exp(a).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(oxtensor.function([new_x], y)(a), want)


def test_rules_keep_the_ops_class():
    mat, tns = ot.matrix("m"), ot.tensor3("t")
    out = vectorize_graph(ot.exp(mat), {mat: tns})
    assert isinstance(out.owner.op, Elemwise)
    assert out.owner.inputs[0] is tns
    out = vectorize_graph(mat.dimshuffle(1, "x", 0), {mat: tns})
    assert isinstance(out.owner.op, DimShuffle)
    assert tuple(out.owner.op.new_order) == (0, 2, "x", 1)
    out = vectorize_graph(ot.sum(mat), {mat: tns})
    assert isinstance(out.owner.op, CAReduce)
    assert tuple(out.owner.op.axis) == (1, 2)
    out = vectorize_graph(ot.argmax(mat, axis=-1), {mat: tns})
    assert tuple(out.owner.op.axis) == (2,)
    out = vectorize_graph(ot.special.softmax(mat, axis=0), {mat: tns})
    assert out.owner.op.axis == (1,)


def test_other_ops_become_blockwise():
    m, t = ot.matrix("m"), ot.tensor3("t")
    out = vectorize_graph(ot.linalg.det(m), {m: t})
    assert isinstance(out.owner.op, Blockwise)
    assert str(out.owner.op) == "Blockwise{Det, (m,m)->()}"
    a = np.random.default_rng(1).normal(size=(4, 3, 3))
    np.testing.assert_allclose(oxtensor.function([t], out)(a), np.linalg.det(a))


@given(matvec_batches(min_rank=1))
def test_batch_broadcasting_matches_a_numpy_loop(batches):
    """Two replacements with different batch ranks (and static 1s)."""
    batch, ybatch = batches
    x, y = ot.matrix("x"), ot.vector("y")
    out = ot.dot(x, y) + ot.sum(y)
    rng = np.random.default_rng(5)
    a, b = rng.normal(size=(*batch, 2, 3)), rng.normal(size=(*ybatch, 3))
    bx = ot.tensor("bx", shape=a.shape)
    by = ot.tensor("by", shape=b.shape)
    new = vectorize_graph(out, {x: bx, y: by})
    want = np.vectorize(lambda m, v: m @ v + v.sum(), signature="(m,n),(n)->(m)")(a, b)
    assert new.type.shape == want.shape
    np.testing.assert_allclose(oxtensor.function([bx, by], new)(a, b), want)


class TwoOuts(Op):
    __props__ = ()

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return Apply(self, [x], [x.type(), x.type()])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = inputs[0] + 1
        outputs[1][0] = inputs[0] * 3


def test_python_op_without_a_rule_becomes_blockwise():
    x, bx = ot.vector("x"), ot.matrix("bx")
    y1, y2 = TwoOuts()(x)
    new = vectorize_graph(y1 + y2, {x: bx})
    node = new.owner.inputs[0].owner
    assert isinstance(node.op, Blockwise)
    assert node.op.signature == "(i00)->(o00),(o10)"
    a = np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(oxtensor.function([bx], new)(a), a + 1 + a * 3)
    expected = _vectorize_node(node.op.core_op, y1.owner, bx)
    assert isinstance(expected.op, Blockwise)


def test_replacing_some_outputs_of_a_node_keeps_them():
    x, bx = ot.vector("x"), ot.matrix("bx")
    y1, y2 = TwoOuts()(x)
    new_y1 = ot.matrix("new_y1")
    new = vectorize_graph(y1 + y2, {x: bx, y1: new_y1})
    assert new.owner.inputs[0] is new_y1
    assert isinstance(new.owner.inputs[1].owner.op, Blockwise)


class Scale(UnaryPythonOp):
    __props__ = ()

    def perform(self, node, inputs, outputs):
        outputs[0][0] = inputs[0] * 2


@_vectorize_node.register(Scale)
def _vectorize_scale(op, node, x):
    return (x * 2).owner


def test_registered_rules_are_used_for_python_ops():
    x, bx = ot.vector("x"), ot.matrix("bx")
    new = vectorize_graph(ot.exp(Scale()(x)), {x: bx})
    inner = new.owner.inputs[0].owner
    assert isinstance(inner.op, Elemwise)
    assert vectorize_node(Scale()(x).owner, bx).op == inner.op


def test_errors():
    x = ot.vector("x")
    with pytest.raises(
        ValueError, match="Some of the replaced items are not Variables"
    ):
        vectorize_graph(ot.exp(x), {x: (1, 2)})
    with pytest.raises(ValueError, match="has fewer dims"):
        vectorize_graph(ot.exp(x), {x: ot.scalar("s")})


def test_vectorize_function_matches_np_vectorize():
    f = ot.vectorize(lambda m, v: ot.dot(m, v), signature="(m,n),(n)->(m)")
    x, y = ot.tensor3("x"), ot.vector("y")
    rng = np.random.default_rng(2)
    a, b = rng.normal(size=(5, 2, 3)), rng.normal(size=3)
    got = oxtensor.function([x, y], f(x, y))(a, b)
    np.testing.assert_allclose(
        got, np.vectorize(np.dot, signature="(m,n),(n)->(m)")(a, b)
    )
    with pytest.raises(TypeError, match="names 2 inputs, got 1"):
        f(x)


def test_subtensor_of_a_batched_tensor_stays_a_subtensor():
    def core(x, start):
        return x[:, start, :]

    x = ot.tensor("x", shape=(4, 7, 5, 3))
    start = ot.scalar("start", dtype="int64")
    out = ot.vectorize(core, signature="(a,b,c),()->(a,c)")(x, start)
    assert not isinstance(out.owner.op, Blockwise)
    a = np.random.default_rng(8).normal(size=(4, 7, 5, 3))
    want = np.vectorize(core, signature="(a,b,c),()->(a,c)")(a, 2)
    np.testing.assert_allclose(oxtensor.function([x, start], out)(a, 2), want)

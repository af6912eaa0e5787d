"""``infer_shape`` of the built-in ops, checked with ``check_infer_shape``."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.graph.op import Op
from oxtensor.tensor.elemwise import CAReduce, DimShuffle, Elemwise

from tests.helpers import check_infer_shape

RNG = np.random.default_rng(0)


def test_elemwise_broadcasts_to_the_non_broadcastable_input():
    x = ot.dmatrix("x")
    r = ot.row("r", dtype="float64")
    v = ot.dvector("v")
    out = x * r + v
    check_infer_shape(
        [x, r, v],
        [out],
        [RNG.random((3, 4)), RNG.random((1, 4)), RNG.random(4)],
        Elemwise,
    )


def test_elemwise_of_static_shapes_is_constant():
    x = ot.tensor("x", dtype="float64", shape=(2, 3))
    out = ot.exp(x)
    node = out.owner
    shape = node.op.infer_shape(node, [(2, 3)])
    assert [int(d.data) for d in shape[0]] == [2, 3]


def test_all_broadcastable_axes_give_one():
    x = ot.tensor("x", dtype="float64", shape=(1, None))
    out = x + x
    check_infer_shape([x], [out], [RNG.random((1, 5))])


@pytest.mark.parametrize("order", [(1, 0), ("x", 0, 1), (0, "x", 1, "x")])
def test_dimshuffle(order):
    x = ot.dmatrix("x")
    check_infer_shape([x], [x.dimshuffle(*order)], [RNG.random((2, 5))], DimShuffle)


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions(axis, keepdims):
    x = ot.dtensor3("x")
    for out in (
        x.sum(axis=axis, keepdims=keepdims),
        x.max(axis=axis, keepdims=keepdims),
    ):
        check_infer_shape([x], [out], [RNG.random((2, 3, 4))], CAReduce)


@pytest.mark.parametrize(
    ("xs", "ys"), [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4))]
)
def test_dot(xs, ys):
    x = ot.tensor("x", dtype="float64", shape=(None,) * len(xs))
    y = ot.tensor("y", dtype="float64", shape=(None,) * len(ys))
    check_infer_shape([x, y], [ot.dot(x, y)], [RNG.random(xs), RNG.random(ys)], ot.Dot)


def test_shape_and_shape_i():
    x = ot.dtensor3("x")
    check_infer_shape(
        [x], [x.shape, ot.shape_i(x, 1)], [RNG.random((2, 3, 4))], ot.Shape
    )


@pytest.mark.parametrize("newshape", [(6, 2), (-1,), (3, -1), (2, -1, 2)])
def test_reshape_to_a_constant_shape(newshape):
    x = ot.dmatrix("x")
    check_infer_shape([x], [x.reshape(newshape)], [RNG.random((4, 3))], ot.Reshape)


def test_reshape_to_a_symbolic_shape_falls_back_to_the_output():
    x = ot.dmatrix("x")
    s = ot.lvector("s")
    out = ot.reshape(x, s, ndim=2)
    node = out.owner
    (shape,) = node.op.infer_shape(node, [(3, 4), (2,)])
    assert node in oxtensor.graph.basic.applys_between([x, s], list(shape))


def test_grad_ops_keep_the_input_shape():
    x = ot.dmatrix("x")
    out = oxtensor.gradient.zero_grad(x)
    check_infer_shape([x], [out], [RNG.random((2, 3))])


def test_both_signatures_and_errors():
    x = ot.dvector("x")
    node = (x + 1).owner
    a = node.op.infer_shape(node, [(5,), ()])
    b = node.op.infer_shape(None, node, [(5,), ()])
    assert str(a) == str(b)
    with pytest.raises(TypeError, match="infer_shape takes"):
        node.op.infer_shape(node)
    with pytest.raises(ValueError, match="got 1 input shapes for 2 inputs"):
        node.op.infer_shape(node, [(5,)])


def test_python_ops_without_infer_shape_have_none():
    class NoShape(Op):
        __props__ = ()

    class WithShape(Op):
        __props__ = ()

        def infer_shape(self, fgraph, node, shapes):
            return shapes

    assert not hasattr(NoShape(), "infer_shape")
    assert WithShape().infer_shape(None, None, [(1,)]) == [(1,)]


@pytest.mark.parametrize("free", [-1, 3])
def test_reshape_to_symbolic_entries(free):
    x = ot.dmatrix("x")
    n = ot.lscalar("n")
    out = x.reshape((n, free))
    check_infer_shape(
        [x, n], [out], [RNG.random((4, 3)), 12 // 3 if free == 3 else 2], ot.Reshape
    )


def test_flatten_and_tile_know_their_shapes():
    x = ot.dtensor3("x")
    outs = [x.flatten(2), ot.tile(x, (2, 1, 3))]
    check_infer_shape([x], outs, [RNG.random((2, 3, 4))], ot.Reshape)

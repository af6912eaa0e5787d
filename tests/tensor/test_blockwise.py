"""``Blockwise``: a core op over leading batch axes, against NumPy loops."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from hypothesis import given
from oxtensor.gradient import verify_grad
from oxtensor.graph.op import Op
from oxtensor.graph.replace import vectorize_graph
from oxtensor.tensor.blockwise import Blockwise

from tests.helpers import check_infer_shape, matvec_batches


def det_op():
    return ot.linalg.det(ot.matrix()).owner.op


def dot_op():
    return ot.dot(ot.matrix(), ot.vector()).owner.op


def test_props_str_and_equality():
    op = Blockwise(dot_op(), "(m,n),(n)->(m)")
    assert str(op) == "Blockwise{Dot, (m,n),(n)->(m)}"
    assert op.signature == "(m,n),(n)->(m)"
    assert op.core_op == dot_op()
    assert Blockwise.__props__ == ("core_op", "signature")
    assert op == Blockwise(dot_op(), "(m, n), (n) -> (m)")
    assert hash(op) == hash(Blockwise(dot_op(), "(m,n),(n)->(m)"))
    assert op != Blockwise(dot_op(), "(a,b),(b)->(a)")


def test_signature_defaults_to_the_ops_own():
    assert Blockwise(det_op()).signature == "(m,m)->()"


@given(matvec_batches())
def test_batched_matvec_matches_a_numpy_loop(batches):
    """Batch axes broadcast: ``y`` has fewer of them, some static 1s."""
    batch, ybatch = batches
    rng = np.random.default_rng(3)
    a = rng.normal(size=(*batch, 2, 3))
    b = rng.normal(size=(*ybatch, 3))
    x = ot.tensor("x", shape=a.shape)
    y = ot.tensor("y", shape=b.shape)
    out = Blockwise(dot_op(), "(m,n),(n)->(m)")(x, y)
    want = np.vectorize(np.dot, signature="(m,n),(n)->(m)")(a, b)
    assert out.type.shape == want.shape
    got = oxtensor.function([x, y], out)(a, b)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_empty_batch_and_multiple_outputs():
    x = ot.tensor3("x")
    sign, logdet = Blockwise(ot.linalg.slogdet(ot.matrix())[0].owner.op)(x)
    f = oxtensor.function([x], [sign, logdet])
    a = np.stack([np.eye(2) * 2, -np.eye(2) * 3, np.diag([-1.0, 5.0])])
    s, ld = f(a)
    ws, wld = np.linalg.slogdet(a)
    np.testing.assert_allclose(s, ws)
    np.testing.assert_allclose(ld, wld)
    s, ld = f(np.zeros((0, 2, 2)))
    assert s.shape == ld.shape == (0,)


def test_infer_shape():
    x, y = ot.tensor3("x"), ot.vector("y")
    out = Blockwise(dot_op(), "(m,n),(n)->(m)")(x, y)
    rng = np.random.default_rng(0)
    check_infer_shape(
        [x, y], [out], [rng.normal(size=(4, 2, 3)), rng.normal(size=3)], Blockwise
    )


def test_errors():
    with pytest.raises(ValueError, match="not a valid gufunc signature"):
        Blockwise(dot_op(), "(m,n)(n)->(m)")
    with pytest.raises(ValueError, match="Blockwise needs a signature"):
        Blockwise(dot_op())
    op = Blockwise(dot_op(), "(m,n),(n)->(m)")
    with pytest.raises(TypeError, match="fewer than its 2 core dims"):
        op(ot.vector(), ot.vector())
    with pytest.raises(ValueError, match="core dim n is 3 in input 0 but 4 in input 1"):
        op(ot.tensor(shape=(2, 3)), ot.tensor(shape=(4,)))
    with pytest.raises(ValueError, match="Incompatible batch shapes"):
        op(ot.tensor(shape=(2, 2, 3)), ot.tensor(shape=(5, 3)))
    x, y = ot.tensor3("x"), ot.matrix("y")
    f = oxtensor.function([x, y], op(x, y))
    with pytest.raises(ValueError, match=r"batch dims of the inputs do not match"):
        f(np.ones((2, 2, 3)), np.ones((1, 3)))
    with pytest.raises(ValueError, match=r"shapes \(2, 2, 3\), \(3, 3\)"):
        f(np.ones((2, 2, 3)), np.ones((3, 3)))


def test_grad_against_finite_differences():
    rng = np.random.default_rng(4)
    matvec = Blockwise(dot_op(), "(m,n),(n)->(m)")
    a, b = rng.normal(size=(2, 2, 3)), rng.normal(size=3)
    verify_grad(lambda x, y: matvec(x, y), [a, b], rng=rng)
    mats = rng.normal(size=(3, 2, 2)) + 3 * np.eye(2)
    verify_grad(lambda x: Blockwise(det_op())(x), [mats], rng=rng)


def test_grad_through_vectorized_graph_matches_the_loop():
    x, bx = ot.matrix("x"), ot.tensor3("bx")
    out = vectorize_graph(ot.linalg.det(x), {x: bx})
    g = oxtensor.grad(out.sum(), bx)
    a = np.random.default_rng(6).normal(size=(4, 2, 2))
    want = np.linalg.det(a)[:, None, None] * np.linalg.inv(a).transpose(0, 2, 1)
    np.testing.assert_allclose(oxtensor.function([bx], g)(a), want, rtol=1e-10)


class Double(Op):
    __props__ = ()

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        return oxtensor.graph.basic.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = inputs[0] * 2


def test_python_op_runs_per_batch_entry():
    x = ot.tensor3("x")
    out = Blockwise(Double(), "(n)->(n)")(x)
    assert str(out.owner.op) == "Blockwise{Double, (n)->(n)}"
    a = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(oxtensor.function([x], out)(a), a * 2)


class Fails(Double):
    def perform(self, node, inputs, outputs):
        raise ZeroDivisionError("the op's own error")


def test_python_op_errors_come_out_unchanged():
    x = ot.matrix("x")
    f = oxtensor.function([x], Blockwise(Fails(), "(n)->(n)")(x))
    with pytest.raises(ZeroDivisionError, match="the op's own error"):
        f(np.ones((2, 3)))


def test_grad_of_a_python_op_in_a_blockwise_is_not_implemented():
    x = ot.matrix("x")
    with pytest.raises(NotImplementedError, match="Double"):
        oxtensor.grad(Blockwise(Double(), "(n)->(n)")(x).sum(), x)

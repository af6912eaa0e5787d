"""The `Jacobian` node behind `jacobian`/`hessian` (the loop runs in the
core): several `wrt` against finite differences, Python ops inside the
loop, `consider_constant`, warnings, shapes without running the loop,
pickling, `dprint`, function copies and the errors. Values of the built-in
ops' Jacobians are in `tensor/test_grad_builtin_ops.py`."""

import copy
import pickle

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.gradient import Jacobian, grad, hessian, jacobian

from tests.helpers import UnaryPythonOp


def fd_jacobian(fn, x, eps=1e-6):
    out = np.asarray(fn(x))
    jac = np.zeros((*out.shape, x.size))
    for k in range(x.size):
        plus, minus = x.copy(), x.copy()
        plus.reshape(-1)[k] += eps
        minus.reshape(-1)[k] -= eps
        jac[..., k] = (np.asarray(fn(plus)) - np.asarray(fn(minus))) / (2 * eps)
    return jac.reshape((*out.shape, *x.shape))


class Cube(UnaryPythonOp):
    """A Python op inside the loop: ``x ** 3``, with its gradient."""

    __props__ = ()

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] ** 3

    def grad(self, inputs, output_grads):
        return [3 * inputs[0] ** 2 * output_grads[0]]


def test_two_wrt_match_finite_differences():
    rng = np.random.default_rng(3)
    a, x = ot.dmatrix("a"), ot.dvector("x")
    y = ot.tanh(ot.dot(a, x)) * x.sum()
    ja, jx = jacobian(y, [a, x])
    assert isinstance(ja.owner.op, Jacobian)
    assert ja.type.ndim == 3
    assert jx.type.ndim == 2
    av, xv = rng.normal(size=(2, 3)), rng.normal(size=3)
    got = oxtensor.function([a, x], [ja, jx])(av, xv)
    f = oxtensor.function([a, x], y)
    want_a = fd_jacobian(lambda m: f(m, xv), av)
    want_x = fd_jacobian(lambda v: f(av, v), xv)
    np.testing.assert_allclose(got[0], want_a, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got[1], want_x, rtol=1e-6, atol=1e-8)


def test_python_op_inside_the_loop():
    x = ot.dvector("x")
    j = jacobian(Cube()(x) * 2, x)
    h = hessian(Cube()(x).sum(), x)
    xv = np.array([1.0, -2.0, 0.5])
    got = oxtensor.function([x], [j, h])(xv)
    np.testing.assert_allclose(got[0], np.diag(6 * xv**2))
    np.testing.assert_allclose(got[1], np.diag(6 * xv))


def test_consider_constant_and_disconnected_inputs():
    x, z = ot.dvector("x"), ot.dvector("z")
    c = x * 2
    j = jacobian(c * x, x, consider_constant=[c])
    xv = np.array([1.0, 3.0])
    np.testing.assert_allclose(oxtensor.function([x], j)(xv), np.diag(2 * xv))
    with pytest.warns(UserWarning, match="z"):
        jz = jacobian(x * 2, z, disconnected_inputs="warn")
    got = oxtensor.function([x, z], jz, on_unused_input="ignore")(xv, xv)
    np.testing.assert_array_equal(got, np.zeros((2, 2)))


def test_shape_is_known_without_running_the_loop():
    x = ot.dmatrix("x")
    j = jacobian(ot.exp(x).sum(axis=0), x)
    f = oxtensor.function([x], j.shape)
    assert not any(isinstance(n.op, Jacobian) for n in f.maker.fgraph.toposort()), (
        "the shape needs no Jacobian"
    )
    np.testing.assert_array_equal(f(np.zeros((2, 3))), [3, 2, 3])


def test_pickle_copy_dprint_and_function_copy():
    x = ot.fvector("x")
    j = jacobian(ot.sin(x) * 2, x)
    xv = np.array([0.5, -1.0], dtype="float32")
    want = np.diag(2 * np.cos(xv))
    j2 = pickle.loads(pickle.dumps(j))
    x2 = j2.owner.inputs[0]
    got = oxtensor.function([x2], j2)(xv)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-6)
    op = j.owner.op
    assert copy.copy(op) != op
    assert op == op
    text = oxtensor.dprint(j, file="str")
    assert "Jacobian" in text
    f = oxtensor.function([x], j)
    for g in [f.copy(), pickle.loads(pickle.dumps(f))]:
        np.testing.assert_allclose(g(xv), want, rtol=1e-6)


def test_errors():
    x, z = ot.dvector("x"), ot.dvector("z")
    with pytest.raises(oxtensor.gradient.DisconnectedInputError):
        jacobian(x * 2, z)
    with pytest.raises(TypeError, match="wrt"):
        jacobian(x * 2, "x")
    j = jacobian(x**2, x)
    with pytest.raises(oxtensor.gradient.NullTypeGradError, match="Jacobian"):
        grad(j.sum(), x)
    with pytest.raises(TypeError, match="Jacobian input 0"):
        j.owner.op(ot.dmatrix("m"))

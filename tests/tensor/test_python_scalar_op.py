"""Scalar ops written in Python (``class MyOp(ScalarOp)`` with ``impl``,
``output_types_preference`` and ``grad``): on scalars, inside `Elemwise`
over broadcast tensors (values against NumPy), and differentiated
(`verify_grad`), with PyTensor's `ScalarOp` defaults for `str`, equality
and pickling."""

import pickle

import numpy as np
import oxtensor
import oxtensor.scalar as ps
import pytest
from oxtensor.gradient import NullTypeGradError, grad_not_implemented, verify_grad
from oxtensor.tensor import dmatrix, dvector
from oxtensor.tensor.elemwise import Elemwise


class ScaledCube(ps.ScalarOp):
    """``a * x**3``, with its gradient."""

    nin = 2

    def __init__(self):
        self.output_types_preference = ps.upgrade_to_float

    def impl(self, a, x):
        return a * x**3

    def grad(self, inputs, output_grads):
        a, x = inputs
        (gz,) = output_grads
        return [gz * x**3, gz * 3 * a * x**2]


class Scaled(ps.ScalarOp):
    """``x * n``, not differentiable in ``n``."""

    def __init__(self):
        self.output_types_preference = ps.upgrade_to_float

    def impl(self, n, x):
        return x * n

    def grad(self, inputs, output_grads):
        n, _x = inputs
        (gz,) = output_grads
        return [grad_not_implemented(self, 0, n), gz * n]


def test_on_scalars():
    a, x = ps.float64("a"), ps.float64("x")
    y = ScaledCube()(a, x)
    assert y.type.dtype == "float64"
    assert float(oxtensor.function([a, x], y)(2.0, 3.0)) == 54.0
    i = ps.int8("i")
    assert ScaledCube()(i, i).type.dtype == "float32"


def test_in_elemwise_values_and_broadcasting():
    op = Elemwise(ScaledCube())
    assert str(op) == "Scaledcube"
    a, x = dvector("a"), dmatrix("x")
    out = op(a, x)
    assert out.type.ndim == 2
    f = oxtensor.function([a, x], out)
    rng = np.random.default_rng(1)
    av, xv = rng.normal(size=3), rng.normal(size=(2, 3))
    np.testing.assert_allclose(f(av, xv), av * xv**3)


def test_in_elemwise_gradients():
    rng = np.random.default_rng(2)
    op = Elemwise(ScaledCube())
    verify_grad(
        lambda a, x: op(a, x), [rng.normal(size=3), rng.normal(size=(2, 3))], rng=rng
    )


def test_an_undefined_partial_is_an_error_only_when_asked_for():
    x = oxtensor.tensor.scalar("x")
    op = Elemwise(Scaled())
    g = oxtensor.grad(op(2, x), x)
    assert float(g.eval({x: 5.0})) == 2.0
    with pytest.raises(NullTypeGradError):
        oxtensor.grad(op(x, 2), x)


def test_scalar_op_defaults():
    a, b = ScaledCube(), ScaledCube()
    assert a == b
    assert hash(a) == hash(b)
    assert a != Scaled()
    assert str(a) == "ScaledCube"
    a.name = "cube"
    assert str(a) == "cube"
    again = pickle.loads(pickle.dumps(b))
    assert again == b
    assert type(again) is ScaledCube
    with pytest.raises(NotImplementedError, match="output_types"):
        type("NoRule", (ps.ScalarOp,), {})()(ps.float64("x"))
    with pytest.raises(AttributeError, match="cannot be changed"):
        ps.add.name = "plus"

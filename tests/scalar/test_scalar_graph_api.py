"""Scalar graphs as PyTensor users handle them: gradients of a scalar
cost, a scalar's `shape`, and a `Composite`'s kept inner graph."""

import numpy as np
import oxtensor
from oxtensor.scalar import Composite, float32, float64, log10


def test_grad_of_a_scalar_cost_keeps_its_dtype_and_value():
    a = float32("a")
    g = oxtensor.grad(log10(a), a)
    assert g.type.dtype == "float32"
    np.testing.assert_allclose(
        g.eval({a: np.float32(2.0)}), 1 / (2 * np.log(10)), rtol=1e-6
    )
    x, y = float64("x"), float64("y")
    gx, gy = oxtensor.grad(x * y + x, [x, y])
    f = oxtensor.function([x, y], [gx, gy])
    np.testing.assert_allclose(f(2.0, 5.0), [6.0, 2.0])


def test_a_scalar_has_an_empty_shape():
    s = float32("s").shape
    assert s.type.ndim == 1
    assert s.type.shape == (0,)
    assert s.type.dtype == "int64"
    assert s.eval().shape == (0,)


def test_a_composite_keeps_its_inner_graph():
    x, y = float64("x"), float64("y")
    c = Composite([x, y], [x * y + y])
    assert c.fgraph is c.fgraph
    assert list(c.inputs) == list(c.fgraph.inputs)
    out = c.outputs[0]
    assert out.owner.inputs[1] is c.inputs[1]

"""The gradient rules of the seeds' Op contract and PyTensor's `grad`
arguments: the five worked integer examples, NullType and DisconnectedType,
`connection_pattern`, Python ops' `grad`/`L_op`/`pullback`/`R_op` called
back from the core, and every misuse raising a clear error."""

import warnings

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.gradient import (
    DisconnectedInputError,
    DisconnectedType,
    NullTypeGradError,
    Rop,
    disconnected_type,
    grad,
    grad_not_implemented,
    grad_undefined,
    pullback,
)
from oxtensor.graph.basic import Apply
from oxtensor.graph.null_type import NullType
from oxtensor.graph.op import Op

from tests.helpers import UnaryPythonOp


def run(inputs, outputs, *values):
    return oxtensor.function(inputs, outputs, on_unused_input="ignore")(*values)


class BinaryPythonOp(Op):
    """A Python op of two tensors and one output, made by the subclass's
    ``output()``."""

    __props__ = ()

    def make_node(self, x, y):
        x, y = ot.as_tensor_variable(x), ot.as_tensor_variable(y)
        return Apply(self, [x, y], [self.output()])


class ArgMax(BinaryPythonOp):
    """Example 3: argmax of ``x`` along an integer ``axis`` input."""

    output = staticmethod(ot.lscalar)

    def perform(self, node, inputs, output_storage):
        x, axis = inputs
        output_storage[0][0] = np.asarray(np.argmax(x, axis=int(axis)), dtype="int64")

    def grad(self, inputs, output_grads):
        x, axis = inputs
        return [ot.zeros_like(x), grad_undefined(self, 1, axis)]


class Fill(BinaryPythonOp):
    """Example 4: a vector of ``n`` copies of ``x``; ``n`` only sets the shape."""

    output = staticmethod(ot.dvector)

    def perform(self, node, inputs, output_storage):
        x, n = inputs
        output_storage[0][0] = np.full(int(n), x, dtype="float64")

    def connection_pattern(self, node):
        return [[True], [False]]

    def grad(self, inputs, output_grads):
        return [output_grads[0].sum(), disconnected_type()]


def test_example_1_integer_dot_has_zero_gradient():
    x, y = ot.lvector("x"), ot.lvector("y")
    gx, gy = grad(ot.dot(x, y), [x, y])
    assert gx.dtype == gy.dtype == "float64"
    a, b = np.array([1, 2]), np.array([3, 4])
    np.testing.assert_array_equal(run([x, y], [gx, gy], a, b), [[0, 0], [0, 0]])


def test_example_2_integer_input_of_a_float_output():
    x, y = ot.dvector("x"), ot.lvector("y")
    gy = grad(ot.dot(x, y), y)
    assert gy.dtype == "float64"
    np.testing.assert_allclose(
        run([x, y], gy, np.array([1.5, -2.0]), np.array([3, 4])), [1.5, -2.0]
    )


def test_example_3_argmax_axis_is_undefined_and_x_is_zero():
    x, axis = ot.dmatrix("x"), ot.lscalar("axis")
    cost = ArgMax()(x, axis)
    gx = grad(cost, x)
    np.testing.assert_array_equal(run([x], gx, np.ones((2, 3))), np.zeros((2, 3)))
    with pytest.raises(NullTypeGradError, match="input 1 \\(axis\\) of the ArgMax op"):
        grad(cost, axis)
    (g_axis,) = grad(cost, [axis], null_gradients="return")
    assert isinstance(g_axis.type, NullType)


def test_example_4_shape_only_input_is_disconnected():
    x, n = ot.dscalar("x"), ot.lscalar("n")
    cost = Fill()(x, n).sum()
    np.testing.assert_allclose(run([x, n], grad(cost, x), 2.0, 4), 4.0)
    with pytest.raises(DisconnectedInputError):
        grad(cost, n)
    g_n = grad(cost, n, disconnected_inputs="ignore")
    assert g_n.dtype == "float64"
    assert run([n], g_n, 4) == 0
    assert (
        grad(cost, n, disconnected_inputs="ignore", return_disconnected="none") is None
    )
    kept = grad(
        cost, n, disconnected_inputs="ignore", return_disconnected="disconnected"
    )
    assert isinstance(kept.type, DisconnectedType)


def test_example_5_int_then_float():
    x = ot.dscalar("x")
    y = ot.cast(x, "int64")
    cost = 0.5 * ot.cast(y, "float64")
    gy, gx = grad(cost, [y, x])
    assert gy.dtype == "float64"
    assert run([x], gy, 3.7) == 0.5
    assert run([x], gx, 3.7) == 0.0


def test_names_and_float32():
    x = ot.fvector("x")
    cost = (ot.exp(x) * np.float32(2)).sum()
    cost.name = "cost"
    gx = grad(cost, x)
    assert gx.name == "(dcost/dx)"
    assert gx.dtype == "float32"
    assert grad(cost, x, add_names=False).name is None


class Twice(UnaryPythonOp):
    """``2x`` with a gradient given in one of the contract's spellings."""

    __props__ = ("how",)

    def __init__(self, how):
        self.how = how

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = 2 * inputs[0]


class TwiceGrad(Twice):
    def grad(self, inputs, output_grads):
        return [output_grads[0] * 2.0]


class TwiceLop(Twice):
    def L_op(self, inputs, outputs, output_grads):
        assert outputs[0].owner.op is self
        return [output_grads[0] * 2.0]


class TwicePullback(Twice):
    def pullback(self, inputs, outputs, cotangents):
        return [cotangents[0] * 2.0]


@pytest.mark.parametrize("cls", [TwiceGrad, TwiceLop, TwicePullback])
def test_python_op_gradients_in_each_spelling(cls):
    x = ot.dvector("x")
    g = grad((cls("a")(x) ** 2).sum(), x)
    np.testing.assert_allclose(run([x], g, np.array([1.0, -3.0])), [8.0, -24.0])


class Broken(Twice):
    def __init__(self, returns):
        super().__init__("broken")
        self.returns = returns

    def grad(self, inputs, output_grads):
        return self.returns(inputs[0], output_grads[0])


@pytest.mark.parametrize(
    ("returns", "error", "words"),
    [
        (lambda x, g: [g, g], ValueError, "wrong number of gradient terms"),
        (lambda x, g: [], ValueError, "wrong number of gradient terms"),
        (lambda x, g: [None], TypeError, "returned None for a gradient term"),
        (
            lambda x, g: [ot.cast(g, "int64")],
            TypeError,
            "illegally returned an integer-valued variable",
        ),
        (lambda x, g: [g.sum()], ValueError, "0 dimensions for input 0"),
        (lambda x, g: g, TypeError, "must return a list"),
        (lambda x, g: [1.0], TypeError, "gradient terms must be Variables"),
    ],
)
def test_bad_gradients_from_python_ops_name_the_op(returns, error, words):
    x = ot.dvector("x")
    cost = Broken(returns)(x).sum()
    with pytest.raises(error, match=words) as info:
        grad(cost, x)
    assert "Broken{how='broken'}" in str(info.value)


def test_missing_grad_is_not_implemented():
    x = ot.dvector("x")
    with pytest.raises(NotImplementedError, match="grad not implemented"):
        grad(Twice("none")(x).sum(), x)


def test_grad_not_implemented_marker():
    class NoGrad(Twice):
        def grad(self, inputs, output_grads):
            return [grad_not_implemented(self, 0, inputs[0], "sorry")]

    x = ot.dvector("x")
    with pytest.raises(NullTypeGradError, match=r"not implemented\. sorry"):
        grad(NoGrad("n")(x).sum(), x)


def test_cost_checks():
    x = ot.dvector("x")
    with pytest.raises(TypeError, match=r"Cost must be a scalar\."):
        grad(x * 2, x)
    with pytest.raises(ValueError, match="can't both be None"):
        grad(None, x)
    with pytest.raises(ValueError, match="Can't differentiate a NaN cost"):
        grad(NullType("why")(), x)
    with pytest.raises(TypeError, match="consider_constant"):
        grad(x.sum(), x, consider_constant=3)


def test_wrt_not_in_the_graph():
    x, y = ot.dvector("x"), ot.dvector("y")
    with pytest.raises(DisconnectedInputError, match="y"):
        grad(x.sum(), y)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gy = grad(x.sum(), y, disconnected_inputs="warn")
    assert any("not part of the computational graph" in str(w.message) for w in caught)
    np.testing.assert_array_equal(run([y], gy, np.ones(2)), [0.0, 0.0])
    with pytest.raises(ValueError, match="disconnected_inputs"):
        grad(x.sum(), y, disconnected_inputs="maybe")


def test_return_shapes_follow_wrt():
    x, y = ot.dscalar("x"), ot.dscalar("y")
    cost = x * y
    assert isinstance(grad(cost, [x, y]), list)
    assert isinstance(grad(cost, (x, y)), tuple)
    assert isinstance(grad(cost, x), ot.TensorVariable)


def test_known_grads_and_pullback():
    x = ot.dvector("x")
    y = ot.exp(x)
    gy = ot.dvector("gy")
    via_known = grad(None, x, known_grads={y: gy})
    via_pullback = pullback(y, x, gy)
    xs, gs = np.array([0.0, 1.0]), np.array([2.0, 3.0])
    want = gs * np.exp(xs)
    np.testing.assert_allclose(run([x, gy], via_known, xs, gs), want)
    np.testing.assert_allclose(run([x, gy], via_pullback, xs, gs), want)
    with pytest.raises(TypeError, match="Gradients must always be NullType"):
        grad(None, x, known_grads={y: ot.lvector()})


def test_a_known_gradient_inside_the_cost_replaces_the_costs():
    # PyTensor's rule: the known gradient of h is h's whole gradient.
    m = ot.dvector("m")
    h = ot.exp(m)
    cost = (h * 2.0).sum() + (m * 5.0).sum()
    g = grad(cost, m, known_grads={h: ot.ones_like(h)})
    xs = np.array([0.0, 1.0])
    np.testing.assert_allclose(run([m], g, xs), np.exp(xs) + 5.0)


def test_a_pullback_seed_inside_another_f_adds_to_what_flows_through_it():
    # A pullback is a vector-Jacobian product: h's cotangent is a seed,
    # and cost's cotangent still reaches m through h (the known_grads rule
    # above is grad's alone).
    m = ot.dvector("m")
    h = ot.exp(m)
    cost = (h * 2.0).sum()
    (g,) = pullback([h, cost], [m], [ot.ones_like(h), ot.as_tensor_variable(1.0)])
    xs = np.array([0.0, 1.0])
    np.testing.assert_allclose(run([m], g, xs), np.exp(xs) * 3.0, rtol=1e-12)


def test_an_op_from_graph_with_an_output_built_on_the_others_differentiates():
    # The OpFromGraph's derived pullback seeds every inner output; the
    # third (built on the first two) must still send its share through them.
    from oxtensor.compile.builders import OpFromGraph

    x, y = ot.dscalars("x", "y")
    op = OpFromGraph([x, y], [x + y, x * y, (x + y) * (x * y)])
    a, b = ot.dscalars("a", "b")
    ga, gb = grad(ot.add(*op(a, b)), [a, b])
    av, bv = 0.3, 1.2
    expected = [1 + bv + 2 * av * bv + bv**2, 1 + av + av**2 + 2 * av * bv]
    np.testing.assert_allclose(run([a, b], [ga, gb], av, bv), expected, rtol=1e-12)


def test_consider_constant_stops_the_flow():
    x = ot.dvector("x")
    c = x * 2.0
    cost = (x * c).sum()
    g = grad(cost, x, consider_constant=[c])
    np.testing.assert_allclose(run([x], g, np.array([1.0, 3.0])), [2.0, 6.0])
    np.testing.assert_allclose(run([x], grad(cost, x), np.array([1.0, 3.0])), [4, 12])


def test_gradient_of_a_variable_used_twice_sums_terms():
    x = ot.dscalar("x")
    cost = ot.sin(x) * ot.cos(x) + x * x
    g = grad(cost, x)
    v = 0.7
    assert run([x], g, v) == pytest.approx(np.cos(2 * v) + 2 * v)


class Scale3(UnaryPythonOp):
    """``3x`` with an ``R_op`` that counts its calls."""

    __props__ = ()
    calls = 0

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = 3 * inputs[0]

    def grad(self, inputs, output_grads):
        return [output_grads[0] * 3.0]

    def R_op(self, inputs, eval_points):
        Scale3.calls += 1
        return [eval_points[0] * 3.0]


def test_rop_uses_python_r_op_or_falls_back():
    x, v = ot.dvector("x"), ot.dvector("v")
    xs, vs = np.array([1.0, 2.0]), np.array([0.5, -1.0])
    Scale3.calls = 0
    np.testing.assert_allclose(run([x, v], Rop(Scale3()(x), x, v), xs, vs), 3 * vs)
    assert Scale3.calls == 1
    # TwiceGrad has no R_op: the double pullback through its grad is used.
    out = Rop(ot.exp(TwiceGrad("r")(x)), x, v)
    np.testing.assert_allclose(run([x, v], out, xs, vs), 2 * np.exp(2 * xs) * vs)


def test_rop_checks():
    x, v = ot.dvector("x"), ot.dmatrix("v")
    with pytest.raises(ValueError, match="mismatched dimensionality"):
        Rop(ot.exp(x), x, v)
    y = ot.dvector("y")
    with pytest.raises(DisconnectedInputError):
        Rop(ot.exp(y), x, ot.dvector())


class NoROp(Op):
    """The identity, whose ``R_op`` says it is not differentiable (None)."""

    __props__ = ()

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = inputs[0]

    def R_op(self, inputs, eval_points):
        return [None]


def test_rop_through_an_op_without_a_tangent_is_an_error():
    x, v, w = ot.dvector("x"), ot.dvector("v"), ot.dvector("w")
    # PyTensor's rule: None travels on, and asking for it is an error.
    for f in (NoROp()(x), ot.exp(NoROp()(x)).sum(), ot.argmax(x)):
        with pytest.raises(ValueError, match="not differentiable"):
            Rop(f, x, v)
    # Beside a path that has a tangent, the None path adds nothing.
    f = NoROp()(x) + ot.exp(x)
    xs, vs = np.array([0.0, 1.0]), np.array([2.0, 3.0])
    np.testing.assert_allclose(run([x, v], Rop(f, x, v), xs, vs), np.exp(xs) * vs)
    # The double pullback (PyTensor's default pushforward) is unaffected.
    g = oxtensor.gradient.pushforward(ot.cast(x, "int64"), x, w)
    assert run([x, w], g, xs, vs).tolist() == [0, 0]


def test_undefined_gradient_reaching_an_unrequested_input_is_fine():
    x, axis = ot.dmatrix("x"), ot.lscalar("axis")
    cost = ArgMax()(x, axis) + (x**2).sum()
    g = grad(cost, x)
    # The gradient's graph starts from fill(cost, 1), as PyTensor's does, so
    # it reads every input of the cost, `axis` too.
    np.testing.assert_allclose(
        run([x, axis], g, np.ones((2, 2)), 0), 2 * np.ones((2, 2))
    )

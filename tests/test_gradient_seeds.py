"""PyTensor's gradient rules at the edges: the cost's seed, consider_constant,
known gradients of other ranks and types, the gradient-shaping op classes and
subgraph_grad."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.gradient import (
    GradClip,
    GradOp,
    GradScale,
    UndefinedGrad,
    ZeroGrad,
    grad,
    grad_clip,
    grad_scale,
    pullback,
    subgraph_grad,
    zero_grad,
)
from oxtensor.scalar import float64


def test_grad_of_a_variable_by_itself_reads_it():
    x = ot.iscalar("x")
    g = grad(x, x)
    # The seed is fill(x, 1): x stays an input of the gradient's graph.
    assert x in oxtensor.graph.traversal.graph_inputs([g])
    assert g.eval({x: 12}) == 1.0


def test_consider_constant_variable_gets_its_own_gradient():
    x, y = ot.dscalars("x", "y")
    g = grad(x * y, x, consider_constant=[x])
    f = oxtensor.function([x, y], g)
    assert f(3.0, 0.5) == pytest.approx(0.5)


def test_consider_constant_stops_the_flow_past_it():
    x = ot.dscalar("x")
    h = x**2
    g = grad(h * 3.0, x, consider_constant=[h], disconnected_inputs="ignore")
    assert oxtensor.function([x], g)(2.0) == 0.0


def test_zero_dim_known_grad_fills_the_variable():
    x = ot.dvector("x")
    h = ot.exp(x)
    one = ot.constant(np.asarray(2.0))
    g = grad(None, x, known_grads={h: one})
    xv = np.array([0.0, 1.0, -1.0])
    np.testing.assert_allclose(
        oxtensor.function([x], g)(xv), 2.0 * np.exp(xv), rtol=1e-14
    )


def test_known_grad_of_another_rank_is_refused():
    x = ot.dmatrix("x")
    h = ot.exp(x)
    with pytest.raises(
        ValueError, match="gradient with 1 dimensions, but the variable has 2"
    ):
        grad(None, x, known_grads={h: ot.dvector()})


def test_scalar_typed_cotangent():
    xtm1 = float64("xtm1")
    xt = xtm1**2
    dout = float64("dout")
    g = pullback(xt, wrt=xtm1, cotangents=dout)
    assert g.type == dout.type
    assert g.eval({xtm1: 3.0, dout: 1.5}) == 2 * 3.0 * 1.5


def test_integer_known_grad_is_refused():
    x = ot.dvector("x")
    with pytest.raises(
        TypeError, match="continuous, but grad was given a known_grad of type"
    ):
        grad(None, x, known_grads={ot.exp(x): ot.ivector()})


@pytest.mark.parametrize(
    ("build", "cls"),
    [
        (lambda x: grad_clip(x, -1, 1), GradClip),
        (lambda x: grad_scale(x, 2.0), GradScale),
        (zero_grad, ZeroGrad),
        (oxtensor.gradient.undefined_grad, UndefinedGrad),
    ],
)
def test_grad_op_classes_match_by_kind(build, cls):
    op = build(ot.dscalar()).owner.op
    assert isinstance(op, cls)
    assert isinstance(op, GradOp)
    others = {GradClip, GradScale, ZeroGrad, UndefinedGrad} - {cls}
    assert not any(isinstance(op, o) for o in others)


def test_grad_op_class_builds_its_op():
    op = GradClip(-2, 3)
    assert isinstance(op, GradClip)
    assert str(op) == "GradClip{lower=-2, upper=3}"
    x = ot.dscalar("x")
    g = grad(op(x) ** 2, x)
    assert oxtensor.function([x], g)(4.0) == 3.0


def test_disconnected_grad_connection_pattern():
    x = ot.dmatrix("x")
    assert oxtensor.gradient.disconnected_grad(x).owner.op.connection_pattern(None) == [
        [False]
    ]
    assert zero_grad(x).owner.op.connection_pattern(None) == [[True]]


def test_compiled_graph_has_no_grad_ops():
    x = ot.dscalar("x")
    z = grad(grad_clip(x, -1, 1) ** 2, x) + grad_scale(x, 2.0)
    f = oxtensor.function([x], z, mode="FAST_RUN")
    assert not any(isinstance(n.op, GradOp) for n in f.maker.fgraph.toposort())
    assert f(2.0) == pytest.approx(1.0 + 2.0)


def test_subgraph_grad_matches_grad():
    rng = np.random.default_rng(7)
    x, t = ot.dvector("x"), ot.dvector("t")
    w1 = oxtensor.shared(rng.standard_normal((3, 4)))
    w2 = oxtensor.shared(rng.standard_normal((4, 2)))
    a1 = ot.tanh(ot.dot(x, w1))
    a2 = ot.tanh(ot.dot(a1, w2))
    cost2 = ((a2 - t) ** 2).sum() + w2.sum() ** 2
    cost1 = w1.sum() ** 2
    full = oxtensor.function([t, x], grad(cost2 + cost1, [w2, w1]))
    g2, next_grads = subgraph_grad(wrt=[w2], end=[a1], cost=cost2)
    g1, _ = subgraph_grad(
        wrt=[w1], end=[x], start=dict(zip([a1], next_grads, strict=True)), cost=cost1
    )
    pieces = oxtensor.function([t, x], g2 + g1)
    args = (rng.standard_normal(2), rng.standard_normal(3))
    for want, got in zip(full(*args), pieces(*args), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_subgraph_grad_details_split_the_sources():
    x = ot.dvector("x")
    h = ot.exp(x)
    cost = h.sum()
    wrt, ends, from_start, from_cost = subgraph_grad(
        wrt=[x], end=[], start={h: ot.ones_like(h)}, cost=cost, details=True
    )
    xv = np.array([0.5, -1.0])
    f = oxtensor.function([x], [wrt[0], from_start[0], from_cost[0]])
    total, s, c = f(xv)
    np.testing.assert_allclose(s, np.exp(xv), rtol=1e-14)
    np.testing.assert_allclose(c, np.exp(xv), rtol=1e-14)
    np.testing.assert_allclose(total, 2 * np.exp(xv), rtol=1e-14)
    assert ends == []


def test_subgraph_grad_needs_a_source():
    with pytest.raises(ValueError, match="needs a cost or known gradients"):
        subgraph_grad(wrt=[ot.dvector()], end=[])


def test_jacobian_runs_python_registered_rewriters():
    # OpFromGraph registers a Python rewriter in optdb; the Jacobian's inner
    # graph, built by the core, runs it too.
    x = ot.dvector("x")
    j = oxtensor.gradient.jacobian(x * 2, x)
    np.testing.assert_array_equal(oxtensor.function([x], j)(np.zeros(3)), 2 * np.eye(3))

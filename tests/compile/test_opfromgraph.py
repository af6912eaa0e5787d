"""`OpFromGraph`: results against NumPy (plain and inline), gradients and
pushforwards against finite differences, overrides, shapes, equality, and
the errors of bad construction and bad inputs."""

import numpy as np
import oxtensor as ox
import oxtensor.tensor as pt
import pytest
from oxtensor.compile.builders import OpFromGraph
from oxtensor.compile.sharedvalue import shared
from oxtensor.gradient import DisconnectedType, pushforward, verify_grad
from oxtensor.graph.fg import FunctionGraph
from oxtensor.graph.utils import MissingInputError
from oxtensor.tensor.rewriting.shape import ShapeFeature, ShapeOptimizer

RNG = np.random.default_rng(2807)


def _ops(x, y):
    return [x * y + pt.exp(x), (x - y).sum()]


@pytest.mark.parametrize("inline", [False, True])
def test_values_match_numpy(inline):
    x, y = pt.dvectors("x", "y")
    op = OpFromGraph([x, y], _ops(x, y), inline=inline)
    a, b = pt.dvectors("a", "b")
    f = ox.function([a, b], op(a, b))
    av, bv = RNG.normal(size=5), RNG.normal(size=5)
    got = f(av, bv)
    np.testing.assert_allclose(got[0], av * bv + np.exp(av))
    np.testing.assert_allclose(got[1], (av - bv).sum())
    names = [type(n.op).__name__ for n in f.maker.fgraph.toposort()]
    assert ("OpFromGraph" in names) is not inline


def test_shared_variable_is_an_implicit_input():
    x = pt.dvector("x")
    s = shared(np.arange(3.0), name="s")
    op = OpFromGraph([x], [x * s])
    assert op.shared_inputs == [s]
    assert len(op.inner_inputs) == 2
    f = ox.function([x], op(x))
    np.testing.assert_allclose(f(np.ones(3)), [0.0, 1.0, 2.0])
    s.set_value(np.full(3, 2.0))
    np.testing.assert_allclose(f(np.ones(3)), [2.0, 2.0, 2.0])


@pytest.mark.parametrize("inline", [False, True])
def test_gradient_matches_finite_differences(inline):
    x, y = pt.dvectors("x", "y")
    op = OpFromGraph([x, y], _ops(x, y), inline=inline)
    pt_ = [RNG.normal(size=4), RNG.normal(size=4)]
    verify_grad(lambda a, b: op(a, b)[0].sum() + op(a, b)[1], pt_, rng=RNG)
    verify_grad(lambda a, b: op(a, b)[1], pt_, rng=RNG)


def test_second_derivative_matches_finite_differences():
    x = pt.dvector("x")
    op = OpFromGraph([x], [pt.sin(x) * x])
    verify_grad(lambda a: ox.grad(op(a).sum(), a), [RNG.normal(size=3)], rng=RNG)


def test_pullback_override_is_used():
    x = pt.dvector("x")
    op = OpFromGraph([x], [x * 2], pullback=lambda i, o, g: [g[0] * 10])
    a = pt.dvector("a")
    g = ox.function([a], ox.grad(op(a).sum(), a))
    np.testing.assert_allclose(g(np.ones(3)), np.full(3, 10.0))


def test_pullback_list_mixes_override_and_inner_gradient():
    x, y = pt.dscalars("x", "y")
    op = OpFromGraph([x, y], [x * y], pullback=[lambda i, o, g: g[0] * 7, None])
    a, b = pt.dscalars("a", "b")
    ga, gb = ox.grad(op(a, b), [a, b])
    f = ox.function([a, b], [ga, gb])
    np.testing.assert_allclose(f(3.0, 5.0), [7.0, 3.0])


@pytest.mark.parametrize("use_op", [True, False])
def test_pushforward_matches_numpy(use_op):
    x = pt.dvector("x")
    m = pt.dmatrix("m")
    op = OpFromGraph([x, m], [pt.dot(x, m)])
    a, w, t = pt.dvector("a"), pt.dmatrix("w"), pt.dvector("t")
    jvp = pushforward(op(a, w), a, t, use_op_pushforward=use_op)
    f = ox.function([a, w, t], jvp, on_unused_input="ignore")
    av, wv, tv = RNG.normal(size=3), RNG.normal(size=(3, 4)), RNG.normal(size=3)
    np.testing.assert_allclose(f(av, wv, tv), tv @ wv)


def test_connection_pattern_follows_the_inner_graph():
    x, y, z = pt.dmatrices("x", "y", "z")
    op = OpFromGraph([x, y, z], [x * y, y * z])
    assert op.connection_pattern(None) == [[True, False], [True, True], [False, True]]


def test_disconnected_output_gradient():
    x, y = pt.dscalars("x", "y")
    op = OpFromGraph([x, y], [x**2, y**3])
    g = ox.grad(
        op(x, y)[0], y, disconnected_inputs="ignore", return_disconnected="disconnected"
    )
    assert isinstance(g.type, DisconnectedType)
    f = ox.function([x, y], ox.grad(op(x, y)[1], y))
    np.testing.assert_allclose(f(1.0, 2.0), 12.0)


def test_infer_shape_reads_no_values():
    x, y = pt.dmatrices("x", "y")
    op = OpFromGraph([x, y], [pt.dot(x, y)])
    a, b = pt.dmatrices("a", "b")
    out = op(a, b)
    given = [[a.shape[0], a.shape[1]], [b.shape[0], b.shape[1]]]
    shapes = op.infer_shape(None, out.owner, given)
    f = ox.function([a, b], shapes[0])
    assert [int(v) for v in f(np.ones((2, 3)), np.ones((3, 5)))] == [2, 5]
    nodes = {type(n.op).__name__ for n in f.maker.fgraph.toposort()}
    assert "OpFromGraph" not in nodes


def test_shape_feature_answers_shape_of():
    x = pt.dvector("x")
    y = pt.specify_shape(x, (4,)) * 2
    fg = FunctionGraph([x], [y], clone=False)
    ShapeOptimizer().rewrite(fg)
    assert isinstance(fg.shape_feature, ShapeFeature)
    assert fg.shape_feature.shape_of[y][0].data == 4
    assert len(fg.shape_feature.shape_of[x]) == 1


def test_equality_is_structural():
    x, y = pt.dscalars("x", "y")
    a, b = pt.dscalars("a", "b")
    op1 = OpFromGraph([x, y], [x + y * x])
    op2 = OpFromGraph([a, b], [a + b * a])
    assert op1 == op2
    assert hash(op1) == hash(op2)
    assert op1 != OpFromGraph([x, y], [x * y + x])
    assert op1 != OpFromGraph([x, y], [x + y * x], inline=True)


def test_clone_copies_the_inner_graph():
    x = pt.dmatrix("x")
    op = OpFromGraph([x], [2 * x])
    copy = op.clone()
    assert copy.fgraph is not op.fgraph
    assert copy == op


def test_make_node_with_another_shared_variable():
    x = pt.dscalar("x")
    s = shared(1.0, name="s")
    op = OpFromGraph([x], [x + s])
    t = shared(5.0, name="t")
    node = op.make_node(x, t)
    assert node.op.shared_inputs == [t]
    assert ox.function([x], node.outputs[0])(1.0) == 6.0


def test_wrong_arguments_raise():
    x = pt.dmatrix("x")
    with pytest.raises(TypeError, match="inputs must be a list"):
        OpFromGraph((x,), [x])
    with pytest.raises(TypeError, match="must be Variables"):
        OpFromGraph([1], [1])
    with pytest.raises(NotImplementedError, match="updates"):
        OpFromGraph([x], [x], updates={})
    with pytest.raises(MissingInputError, match="neither inputs"):
        OpFromGraph([], [x * 2])
    with pytest.raises(ValueError, match="more than once"):
        OpFromGraph([x, x], [x])
    s = shared(1.0, name="s")
    with pytest.raises(ValueError, match=r"implicitly depends .*\[s\]"):
        OpFromGraph([x], [x + s], strict=True)


def test_wrong_inputs_raise():
    x = pt.dmatrix("x")
    op = OpFromGraph([x], [x * 2])
    with pytest.raises(ValueError, match=r"Expected at least 1 input\(s\)"):
        op()
    with pytest.raises(ValueError, match=r"Expected 1 input\(s\)"):
        op.make_node()
    with pytest.raises(TypeError, match="input 0 must be of type"):
        op(pt.dvector("v"))


def test_deprecated_override_names_warn():
    x = pt.dscalar("x")
    with pytest.warns(FutureWarning, match="lop_overrides is deprecated"):
        OpFromGraph([x], [x + 1], lop_overrides=lambda i, o, g: [g[0]])
    with pytest.warns(FutureWarning, match="rop_overrides is deprecated"):
        OpFromGraph([x], [x + 1], rop_overrides=lambda i, e: [e[0]])


def test_unsupported_overrides_raise():
    x = pt.dscalar("x")
    with pytest.raises(NotImplementedError, match="list of pushforward"):
        OpFromGraph([x], [x + 1], pushforward=[None])
    with pytest.raises(TypeError, match="pullback must be a callable"):
        OpFromGraph([x], [x + 1], pullback="default")


@pytest.mark.parametrize("inline", [False, True])
def test_nested_ops_invert_each_other(inline):
    x, y = pt.dvectors("x", "y")
    forward = OpFromGraph([x, y], [x + y, x - y], inline=inline)
    back = OpFromGraph([x, y], [(x + y) / 2, (x - y) / 2], inline=inline)
    a, b = pt.dvectors("a", "b")
    f = ox.function([a, b], back(*forward(a, b)))
    av, bv = RNG.normal(size=6), RNG.normal(size=6)
    got = f(av, bv)
    np.testing.assert_allclose(got[0], av)
    np.testing.assert_allclose(got[1], bv)
    verify_grad(lambda p, q: back(*forward(p, q))[0] * 3, [av, bv], rng=RNG)


@pytest.mark.parametrize("inline", [False, True])
def test_gradient_with_respect_to_the_shared_variable(inline):
    x = pt.dvector("x")
    s = shared(np.array([1.0, 2.0, 3.0]), name="s")
    op = OpFromGraph([x], [(x * s) ** 2], inline=inline)
    g = ox.function([x], ox.grad(op(x).sum(), s))
    xv = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(g(xv), 2 * xv**2 * s.get_value())


def test_pullback_list_with_a_variable_entry():
    from oxtensor.gradient import disconnected_type

    x, y = pt.dscalars("x", "y")
    op = OpFromGraph(
        [x, y],
        [x * y],
        pullback=[None, disconnected_type()],
        connection_pattern=[[True], [False]],
    )
    a, b = pt.dscalars("a", "b")
    ga = ox.grad(op(a, b), a)
    np.testing.assert_allclose(ox.function([a, b], ga)(3.0, 5.0), 5.0)
    gb = ox.grad(
        op(a, b), b, disconnected_inputs="ignore", return_disconnected="disconnected"
    )
    assert isinstance(gb.type, DisconnectedType)


def test_merge_collapses_equal_ops():
    from oxtensor.graph.rewriting.basic import MergeOptimizer

    x, y = pt.dscalars("x", "y")
    op1 = OpFromGraph([x, y], [x + y * x])
    op2 = OpFromGraph([x, y], [x + y * x])
    a, b = pt.dscalars("a", "b")
    fg = FunctionGraph([a, b], [op1(a, b), op2(a, b)])
    MergeOptimizer().rewrite(fg)
    assert sum(isinstance(n.op, OpFromGraph) for n in fg.toposort()) == 1


def test_compiled_inner_graph_leaves_inner_outputs_alone():
    x = pt.dscalar("x")
    op = OpFromGraph([x], [x**2 / x], mode="FAST_RUN")
    before = op.inner_outputs
    assert op.fn(3.0) == [3.0]
    assert all(a is b for a, b in zip(op.inner_outputs, before, strict=True))


def test_an_unused_input_is_legal():
    x, y = pt.dvectors("x", "y")
    op = OpFromGraph([x, y], [x * 2])
    a, b = pt.dvectors("a", "b")
    f = ox.function([a, b], op(a, b), on_unused_input="ignore")
    np.testing.assert_allclose(f(np.ones(2), np.zeros(2)), [2.0, 2.0])
    assert op.connection_pattern(None) == [[True], [False]]


def test_connection_pattern_through_an_inner_op():
    x, y, z = pt.dmatrices("x", "y", "z")
    inner = OpFromGraph([x, y, z], [x * y, y * z])
    m, n, p, q = pt.dmatrices("m", "n", "p", "q")
    o1, o2 = inner(m, n, p)
    outer = OpFromGraph([m, n, p, q], inner(o1, q, o2))
    assert outer.connection_pattern(None) == [
        [True, False],
        [True, True],
        [False, True],
        [True, True],
    ]

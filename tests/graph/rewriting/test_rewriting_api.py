"""PyTensor's rewriting API beyond the drivers: `OpToRewriterTracker`,
`OpPattern`/`LiteralString` heads, `PatternNodeRewriter`'s ``tracks`` /
``get_nodes`` / ``values_eq_approx``, patterns over non-tensor constants,
the equilibrium's ``max_use_ratio``, `pre_constant_merge`,
`pre_greedy_node_rewriter`, enforced ``tracks`` and the
``values_eq_approx_*`` functions."""

import numpy as np
import oxtensor.tensor as ot
import pytest
from oxtensor.configdefaults import config
from oxtensor.graph.basic import Apply, Constant, Variable
from oxtensor.graph.fg import FunctionGraph
from oxtensor.graph.op import Op
from oxtensor.graph.rewriting.basic import (
    EquilibriumGraphRewriter,
    OpToRewriterTracker,
    PatternNodeRewriter,
    SequentialNodeRewriter,
    WalkingGraphRewriter,
    node_rewriter,
    pre_constant_merge,
    pre_greedy_node_rewriter,
)
from oxtensor.graph.rewriting.unify import LiteralString, OpPattern
from oxtensor.graph.type import Type
from oxtensor.tensor.rewriting.basic import constant_folding
from oxtensor.tensor.type import (
    values_eq_approx_always_true,
    values_eq_approx_remove_inf,
    values_eq_approx_remove_inf_nan,
    values_eq_approx_remove_nan,
)


class Token(Type):
    """A type whose values are any Python object."""

    def filter(self, data, strict=False, allow_downcast=None):
        return data

    def __eq__(self, other):
        return type(other) is type(self)

    def __hash__(self):
        return hash(type(self))


class Other(Token):
    """Another type (not a supertype of `Token`'s variables)."""


class Named(Op):
    """An op with a name and a parameter ``p``; equal when ``p`` is set and equal."""

    def __init__(self, name, p=None, out_type=Token):
        self.name, self.p, self.out_type = name, p, out_type

    def make_node(self, *inputs):
        return Apply(self, list(inputs), [self.out_type()()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = (self.name, *inputs)

    def __eq__(self, other):
        return self is other or (
            type(other) is type(self) and self.p is not None and self.p == other.p
        )

    def __hash__(self):
        return hash((type(self), self.p)) if self.p is not None else id(self)

    def __str__(self):
        return self.name


class SubNamed(Named):
    pass


f, g, h = Named("F"), Named("G"), Named("H")


def var(name):
    return Variable(Token(), None, None, name=name)


def walk(rewriter, fgraph):
    WalkingGraphRewriter(rewriter).rewrite(fgraph)
    return str(fgraph)


def test_tracker_orders_by_class_specificity_then_instances_then_untracked():
    def unchanged(fgraph, node):
        return None

    tracking = [None, [f], [Op], [Named], [SubNamed]]
    rewriters = [node_rewriter(tracks)(unchanged) for tracks in tracking]
    any_node, only_f, any_op, named, sub_named = rewriters
    tracker = OpToRewriterTracker()
    for rw in rewriters:
        tracker.add_tracker(rw)
    assert tracker.tracked_instances == {f: [only_f]}
    assert tracker.tracked_types == {
        Op: [any_op],
        Named: [named],
        SubNamed: [sub_named],
    }
    assert tracker.untracked_rewrites == [any_node]
    assert tracker.get_trackers(f) == [named, any_op, only_f, any_node]
    assert tracker.get_trackers(SubNamed("S")) == [sub_named, named, any_op, any_node]
    # The core's own ops are `Op`s too.
    assert tracker.get_trackers(ot.exp(ot.dvector()).owner.op) == [any_op, any_node]
    assert tracker.get_rewriters() == [any_op, named, sub_named, only_f, any_node]


def test_node_rewriter_transform_enforces_tracks_and_has_a_repr():
    calls = []

    @node_rewriter([f, SubNamed])
    def local_seen(fgraph, node):
        calls.append(node)
        return None

    x = var("x")
    a, b, c = f(x), SubNamed("S")(x), g(x)
    fg = FunctionGraph([x], [a, b, c], clone=False)
    for out in (a, b, c):
        local_seen.transform(fg, out.owner)
    assert calls == [a.owner, b.owner]
    local_seen.transform(fg, c.owner, enforce_tracks=False)
    assert calls[-1] is c.owner
    text = repr(local_seen)
    assert text.startswith("FromFunctionNodeRewriter(")
    assert "local_seen" in text
    with pytest.raises(TypeError, match="or OpPatterns"):
        node_rewriter([None])


def test_op_pattern_binds_parameters_and_literal_strings_match_text():
    a = var("a")
    one, two, hello = Named("P1", p=1), Named("P2", p=2), Named("Ph", p="hello")
    e1, e2, eh = one(a), two(a), hello(a)
    fg = FunctionGraph([a], [e1, e2, eh], clone=False)
    WalkingGraphRewriter(
        PatternNodeRewriter((OpPattern(Named, p=1), "a"), "a")
    ).rewrite(fg)
    assert fg.outputs[0] is a
    assert fg.outputs[1] is e2

    def bump(fgraph, node, subs):
        return Named("bumped", p=subs["p"] + 10)(subs["a"]) if subs["p"] < 10 else False

    fg = FunctionGraph([a], [e2], clone=False)
    WalkingGraphRewriter(
        PatternNodeRewriter((OpPattern(Named, p="p"), "a"), bump)
    ).rewrite(fg)
    assert fg.outputs[0].owner.op.p == 12

    fg = FunctionGraph([a], [e1, eh], clone=False)
    lit = PatternNodeRewriter((OpPattern(Named, p=LiteralString("hello")), "a"), "a")
    WalkingGraphRewriter(lit).rewrite(fg)
    assert fg.outputs[0] is e1
    assert fg.outputs[1] is a
    assert OpPattern(Named, p=1).match_op(SubNamed("s", p=1), {})
    with pytest.raises(TypeError, match="Op class"):
        OpPattern(one)


def test_patterns_match_and_build_non_tensor_constants_by_value():
    y = var("y")
    two, two_again = Constant(Token(), 2, name="two"), Constant(Token(), 2, name="z")
    e = f(f(two, y), y)
    fg = FunctionGraph([y], [e], clone=False)
    walk(PatternNodeRewriter((f, two_again, "1"), (g, "1", two_again)), fg)
    inner = fg.outputs[0].owner.inputs[0]
    assert inner.owner.op is g
    # The output pattern's constant joins the graph as it is.
    assert inner.owner.inputs[0] is y
    assert inner.owner.inputs[1] is two_again
    three = Constant(Token(), 3, name="three")
    fg = FunctionGraph([y], [f(three, y)])
    assert (
        walk(PatternNodeRewriter((f, two, "1"), "1"), fg)
        == "FunctionGraph(F(three, y))"
    )


@pytest.mark.parametrize("with_tracks", [True, False])
def test_pattern_tracks_get_nodes_and_values_eq_approx(with_tracks):
    x = var("x")
    e = f(x)
    fg = FunctionGraph([x], [e], clone=False)
    rw = PatternNodeRewriter(
        (f, "x"),
        (g, "x"),
        tracks=[f] if with_tracks else (),
        get_nodes=(lambda fgraph, node: [node]) if with_tracks else None,
        values_eq_approx=values_eq_approx_always_true,
    )
    assert rw.tracks() == [f]
    EquilibriumGraphRewriter([rw], max_use_ratio=1).rewrite(fg)
    out = fg.outputs[0]
    assert out.owner.op is g
    assert out.tag.values_eq_approx is values_eq_approx_always_true
    with pytest.raises(ValueError, match="get_nodes"):
        PatternNodeRewriter((f, "x"), "x", tracks=[f])


def test_pattern_refuses_a_result_of_another_type():
    x = var("x")
    e = Named("C", out_type=Other)(x)
    fg = FunctionGraph([x], [e])
    EquilibriumGraphRewriter(
        [PatternNodeRewriter((e.owner.op, "x"), "x")], max_use_ratio=1
    ).rewrite(fg)
    assert fg.outputs[0].owner.op is e.owner.op


@config.change_flags(on_opt_error="ignore")
def test_equilibrium_stops_after_the_application_that_goes_over_the_bound():
    x, y = var("x"), var("y")
    e = h(g(x, y))
    fg = FunctionGraph([x, y], [e])
    rws = [
        PatternNodeRewriter((f, "x", "y"), (Named("J"), "x", "y")),
        PatternNodeRewriter((g, "x", "y"), (f, "x", "y")),
    ]
    with pytest.warns(UserWarning, match="stopped before reaching equilibrium"):
        EquilibriumGraphRewriter(rws, max_use_ratio=0.25).rewrite(fg)
    # Two nodes, ratio 1/4: the first application already goes over.
    assert str(fg) == "FunctionGraph(H(F(x, y)))"


def test_sequential_node_rewriter_transform_outside_a_driver(capsys):
    x, y = var("x"), var("y")
    fg = FunctionGraph([x, y], [f(x, y)], clone=False)

    @node_rewriter(None)
    def swap(fgraph, node):
        if node.op is f:
            return [g(*node.inputs)]

    seq = SequentialNodeRewriter(swap)
    (new,) = seq.transform(fg, fg.outputs[0].owner)
    assert new.owner.op is g
    with config.change_flags(optimizer_verbose=True):
        seq.transform(fg, fg.outputs[0].owner)
    assert (
        "rewriting: rewrite swap replaces node F(x, y) with" in capsys.readouterr().out
    )


def test_pre_constant_merge_edits_nodes_outside_the_graph_only():
    x = var("x")
    c1, c2 = Constant(Token(), 1, "c1"), Constant(Token(), 1, "c2")
    o1 = g(c1, x)
    o2 = f(o1, c2)
    assert pre_constant_merge(FunctionGraph([], []), [o2]) == [o2]
    assert o2.owner.inputs[1] is c1
    o3 = f(o1, c2)
    fg = FunctionGraph([x], [o3], clone=False)
    assert pre_constant_merge(fg, [o3]) == [o3]
    assert o3.owner.inputs[1] is c2


def test_pre_greedy_node_rewriter_folds_constant_subgraphs_outside_the_graph():
    x = ot.dvector("x")
    two = ot.constant(np.array([2.0]))
    folded = ot.exp(two)
    out = folded * x + folded
    res = pre_greedy_node_rewriter(FunctionGraph([], []), [constant_folding], out)
    (left, right) = res.owner.inputs
    assert right.owner is None
    assert left.owner.inputs[0] is right
    np.testing.assert_allclose(right.data, np.exp([2.0]))
    # Inside a graph a node is left alone.
    folded2 = ot.exp(two)
    fg = FunctionGraph([], [folded2], clone=False)
    res = pre_greedy_node_rewriter(fg, [constant_folding], folded2 * x)
    assert res.owner.inputs[0] is folded2


def test_values_eq_approx_functions():
    inf, nan = np.inf, np.nan
    assert values_eq_approx_always_true(np.array([1.0]), np.array([5.0]))
    # Where the first holds an infinity (or NaN), the second may hold anything.
    assert values_eq_approx_remove_inf(np.array([1.0, inf]), np.array([1.0, 5.0]))
    assert not values_eq_approx_remove_inf(np.array([1.0, 2.0]), np.array([1.0, 3.0]))
    assert values_eq_approx_remove_nan(np.array([1.0, nan]), np.array([1.0, 7.0]))
    assert not values_eq_approx_remove_nan(np.array([1.0, nan]), np.array([2.0, 7.0]))
    a, b = np.array([1.0, inf, nan]), np.array([1.0 + 1e-12, 5.0, 7.0])
    assert values_eq_approx_remove_inf_nan(a, b)
    assert not values_eq_approx_remove_inf_nan(a, b + 1)


def test_rewrite_from_python_follows_on_opt_error():
    x = var("x")

    @node_rewriter([f])
    def local_boom(fgraph, node):
        raise RuntimeError("local_boom exploded")

    def run():
        fg = FunctionGraph([x], [f(x)], clone=False)
        WalkingGraphRewriter(local_boom).rewrite(fg)
        return fg

    with pytest.warns(UserWarning, match="local_boom exploded"):
        assert run().outputs[0].owner.op is f
    with config.change_flags(on_opt_error="raise"):
        with pytest.raises(RuntimeError, match="local_boom exploded"):
            run()
    with config.change_flags(on_opt_error="ignore"):
        assert run().outputs[0].owner.op is f


def test_going_over_the_bound_raises_under_on_opt_error_raise():
    x, y = var("x"), var("y")
    fg = FunctionGraph([x, y], [g(x, y)])
    rws = [PatternNodeRewriter((g, "x", "y"), (f, "x", "y"))]
    with config.change_flags(on_opt_error="raise"):
        with pytest.raises(ValueError, match="stopped before reaching equilibrium"):
            EquilibriumGraphRewriter(rws, max_use_ratio=0.5).rewrite(fg)

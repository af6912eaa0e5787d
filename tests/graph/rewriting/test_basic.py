"""Rewriters written in Python, run by the core's drivers
(``oxtensor.graph.rewriting.basic``), and their failures."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.graph.fg import FunctionGraph
from oxtensor.graph.op import Op
from oxtensor.graph.rewriting.basic import (
    EquilibriumGraphRewriter,
    GraphRewriter,
    MergeOptimizer,
    NodeRewriter,
    PatternNodeRewriter,
    SequentialGraphRewriter,
    SequentialNodeRewriter,
    WalkingGraphRewriter,
    graph_rewriter,
    in2out,
    node_rewriter,
    out2in,
)
from oxtensor.tensor.elemwise import Elemwise

from tests.helpers import assert_equal_computations


@node_rewriter([ot.exp])
def exp_to_cosh(fgraph, node):
    return [ot.cosh(node.inputs[0])]


@node_rewriter([Elemwise])
def log_exp(fgraph, node):
    """``log(exp(x)) -> x``, looking at the node's input's owner."""
    (x,) = node.inputs if len(node.inputs) == 1 else (None,)
    if str(node.op) == "Log" and x.owner is not None and str(x.owner.op) == "Exp":
        return [x.owner.inputs[0]]
    return None


def test_node_rewriter_is_called_on_tracked_nodes_only():
    x = ot.dvector("x")
    fg = FunctionGraph([x], [ot.exp(x) + ot.log(x)], clone=False)
    seen = []

    @node_rewriter([ot.exp])
    def spy(fgraph, node):
        seen.append(str(node.op))

    in2out(spy).rewrite(fg)
    assert seen == ["Exp"]
    assert str(spy) == "spy"


def test_replacement_changes_the_python_graph():
    x = ot.dvector("x")
    fg = FunctionGraph([x], [ot.exp(x) * 2.0])
    in2out(exp_to_cosh).rewrite(fg)
    out = fg.outputs[0]
    assert str(out.owner.inputs[0].owner.op) == "Cosh"
    assert out.owner.inputs[0].owner.inputs[0] is fg.inputs[0]
    fg.check_integrity()


@pytest.mark.parametrize("driver", [in2out, out2in])
def test_walks_revisit_what_a_rewrite_brings_in(driver):
    x = ot.dvector("x")
    fg = FunctionGraph([x], [ot.log(ot.exp(ot.log(ot.exp(x))))])
    driver(log_exp).rewrite(fg)
    assert fg.outputs[0] is fg.inputs[0]


def test_equilibrium_applies_until_nothing_changes():
    x = ot.dvector("x")
    fg = FunctionGraph([x], [ot.log(ot.exp(ot.log(ot.exp(x)))) + 1])
    rw = EquilibriumGraphRewriter([log_exp], max_use_ratio=10)
    rw.rewrite(fg)
    assert_equal_computations(fg.outputs, [fg.inputs[0] + 1], fg.inputs, fg.inputs)


def test_subclassed_node_rewriter_and_dict_answers():
    class ExpToCosh(NodeRewriter):
        def tracks(self):
            return [Elemwise]

        def transform(self, fgraph, node):
            if str(node.op) == "Exp":
                return {node.outputs[0]: ot.cosh(node.inputs[0])}
            return False

    x = ot.dvector("x")
    fg = FunctionGraph([x], [ot.exp(x)])
    WalkingGraphRewriter(ExpToCosh()).rewrite(fg)
    assert str(fg.outputs[0].owner.op) == "Cosh"


def test_sequential_node_rewriter_asks_members_in_turn():
    x = ot.dvector("x")
    fg = FunctionGraph([x], [ot.log(ot.exp(x)) + ot.exp(x)])
    in2out(SequentialNodeRewriter(log_exp, exp_to_cosh)).rewrite(fg)
    text = oxtensor.dprint(fg, file="str")
    assert "Exp" not in text
    assert "Cosh" in text


def test_graph_rewriters_written_in_python_and_sequences():
    calls = []

    @graph_rewriter
    def count_nodes(fgraph):
        calls.append(len(fgraph.apply_nodes))

    x = ot.dvector("x")
    fg = FunctionGraph([x], [ot.exp(x) + ot.exp(x)])
    SequentialGraphRewriter(count_nodes, MergeOptimizer(), count_nodes).rewrite(fg)
    assert calls == [3, 2]
    assert isinstance(MergeOptimizer(), GraphRewriter)


def test_tracks_are_checked():
    with pytest.raises(ValueError, match="Use None"):
        node_rewriter([])
    with pytest.raises(TypeError, match="Op instances or Op subclasses"):
        node_rewriter([3])


def test_tracking_op_tracks_every_node():
    seen = []

    @node_rewriter([Op])
    def spy(fgraph, node):
        seen.append(str(node.op))

    x = ot.dvector("x")
    in2out(spy).rewrite(FunctionGraph([x], [ot.exp(x) * 2.0]))
    assert len(seen) == 3
    assert {"Exp", "Mul"} <= set(seen)


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ("raise", "boom"),
        ("two", "2 replacements for a node with 1 outputs"),
        ("type", "of type"),
        ("junk", "expected None, False, a list"),
    ],
)
def test_failing_rewriters_warn_naming_themselves_and_leave_the_graph(answer, message):
    @node_rewriter([ot.exp])
    def broken(fgraph, node):
        x = node.inputs[0]
        if answer == "raise":
            raise RuntimeError("boom")
        if answer == "two":
            return [x, x]
        if answer == "type":
            return [ot.cast(x, "int64")]
        return 42

    x = ot.dvector("x")
    fg = FunctionGraph([x], [ot.exp(x)])
    before = oxtensor.dprint(fg, file="str")
    with pytest.warns(UserWarning, match=message) as record:
        in2out(broken).rewrite(fg)
    assert "broken" in str(record[0].message)
    assert oxtensor.dprint(fg, file="str") == before
    fg.check_integrity()


def test_rewriters_compile_through_function():
    @node_rewriter([ot.exp])
    def exp_to_zero(fgraph, node):
        return [ot.zeros_like(node.inputs[0])]

    from oxtensor.compile.mode import optdb

    optdb["canonicalize"].register("exp_to_zero_test", exp_to_zero, "fast_run")
    try:
        x = ot.dvector("x")
        f = oxtensor.function([x], ot.exp(x) + 1.0)
        np.testing.assert_array_equal(f(np.ones(3)), np.ones(3))
        g = oxtensor.function([x], ot.exp(x) + 1.0, mode="FAST_COMPILE")
        np.testing.assert_array_equal(g(np.zeros(2)), np.full(2, 2.0))
    finally:
        optdb["canonicalize"].remove("exp_to_zero_test")
    assert "exp_to_zero_test" not in optdb["canonicalize"]


def test_pattern_rewriter_matches_commutatively_and_builds_the_template():
    from oxtensor.graph.rewriting.basic import PatternNodeRewriter

    x, y = ot.dvectors("x", "y")
    fg = FunctionGraph([x, y], [(ot.exp(y) * x) / x])
    cancel = PatternNodeRewriter(
        (ot.true_div, (ot.mul, "x", "z"), "x"), "z", allow_multiple_clients=True
    )
    assert str(cancel) == "True_div(Mul(x, z), x) -> z"
    in2out(cancel).rewrite(fg)
    assert str(fg.outputs[0].owner.op) == "Exp"


def test_pattern_constants_constraints_asterisk_and_callables():
    from oxtensor.graph.rewriting.basic import (
        Asterisk,
        PatternNodeRewriter,
        SubstitutionNodeRewriter,
    )

    x = ot.dvector("x")
    fg = FunctionGraph([x], [x**2 + ot.exp(x)])
    in2out(PatternNodeRewriter((ot.pow, "x", 2), (ot.sqr, "x"))).rewrite(fg)
    assert "Sqr" in oxtensor.dprint(fg, file="str")
    named = {"pattern": "x", "constraint": lambda v: v.name == "x"}
    called = []

    def build(fgraph, node, subs):
        called.append(sorted(subs))
        return ot.cosh(subs["x"])

    in2out(PatternNodeRewriter((ot.exp, named), build)).rewrite(fg)
    assert called == [["x"]]
    assert "Cosh" in oxtensor.dprint(fg, file="str")
    in2out(SubstitutionNodeRewriter(ot.add, ot.mul)).rewrite(fg)
    assert str(fg.outputs[0].owner.op) == "Mul"
    rest = PatternNodeRewriter((ot.mul, "a", Asterisk("r")), (ot.add, "a", "r"))
    in2out(rest).rewrite(fg)
    assert str(fg.outputs[0].owner.op) == "Add"
    fg.check_integrity()


class Triple(Op):
    """A Python op: ``3 * x``, counting its ``perform`` calls."""

    __props__ = ()
    calls = 0

    def make_node(self, x):
        x = ot.as_tensor_variable(x)
        from oxtensor.graph.basic import Apply

        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, outputs):
        Triple.calls += 1
        outputs[0][0] = np.asarray(3 * inputs[0], dtype=node.outputs[0].dtype)


class NoFold(Triple):
    def do_constant_folding(self, fgraph, node):
        return False


def test_python_ops_on_constants_fold_through_their_perform():
    x = ot.dvector("x")
    c = ot.constant(np.array([1.0, 2.0]))
    Triple.calls = 0
    f = oxtensor.function([x], x + Triple()(c))
    assert Triple.calls == 1, "folded at compile time"
    assert "Triple" not in oxtensor.dprint(f, file="str")
    np.testing.assert_array_equal(f(np.zeros(2)), [3.0, 6.0])
    assert Triple.calls == 1, "not run again by the call"
    g = oxtensor.function([x], x + NoFold()(c))
    assert "NoFold" in oxtensor.dprint(g, file="str")
    np.testing.assert_array_equal(g(np.zeros(2)), [3.0, 6.0])


def test_compiled_functions_keep_their_rewrite_profile():
    x = ot.dvector("x")
    f = oxtensor.function([x], ot.log(1 + x) + x**2)
    profile = f.maker.fgraph.rewrite_profile
    assert profile.rewriters["local_log1p"]["applied"] == 1
    assert profile.rewriters["local_pow_specialize"]["applied"] == 1
    names = [p[0] for p in profile.passes]
    assert (
        names.index("canonicalize")
        < names.index("stabilize")
        < names.index("specialize")
    )
    assert "local_log1p" in profile.summary()


def test_arguments_out_of_scope_are_refused_with_their_names():
    with pytest.raises(TypeError, match=r"node_rewriter\(inplace=True\)"):
        node_rewriter([ot.exp], inplace=True)
    with pytest.raises(ValueError, match="also needs get_nodes"):
        PatternNodeRewriter((ot.exp, "x"), "x", tracks=[ot.exp])

"""``ifelse`` under DebugMode stays lazy: the branch not taken is never
run (a branch that raises if evaluated does not fail the call, with or
without preallocated outputs, and with rewritten graphs in it), while the
nodes of the branch taken are checked like any other (a lying op there is
caught by name), and so are the rewrites' replacements: a wrong rewrite in
the branch taken is a ``BadOptimization``, in the branch not taken it is
not evaluated."""

import numpy as np
import oxtensor.tensor as ot
import pytest
from oxtensor import function
from oxtensor.compile.debug.debugmode import (
    BadDestroyMap,
    BadOptimization,
    BadViewMap,
    DebugMode,
)
from oxtensor.compile.mode import optdb
from oxtensor.graph.rewriting.basic import node_rewriter
from oxtensor.ifelse import ifelse

from tests.helpers import UnaryPythonOp, assert_matches


class Boom(UnaryPythonOp):
    """Raises when run; counts how often it was asked to."""

    __props__ = ()
    runs = 0

    def perform(self, node, inputs, output_storage):
        type(self).runs += 1
        raise RuntimeError("Boom: the branch not taken was evaluated")


class Liar(UnaryPythonOp):
    """``x`` doubled in place (``lying_inplace``) or returned as a view
    (``lying_view``), neither declared."""

    __props__ = ("does",)

    def __init__(self, does):
        self.does = does

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        if self.does == "lying_inplace":
            x *= 2
            output_storage[0][0] = x
        else:
            output_storage[0][0] = x[:]


def branches(taken_op, c, x):
    """``ifelse(c, taken_op(-x), Boom()(log(1 + exp(x))) * 1)``: the else
    branch holds rewritable graphs and a node that raises."""
    raising = Boom()(ot.log(1 + ot.exp(x)) * 1)
    return ifelse(c, taken_op(-x), raising)


MODES = [
    pytest.param(lambda: DebugMode(), id="DebugMode"),
    pytest.param(lambda: DebugMode(check_preallocated_output=["ALL"]), id="prealloc"),
]


@pytest.mark.parametrize("make_mode", MODES)
def test_the_branch_not_taken_is_not_run(make_mode):
    c, x = ot.bscalar("c"), ot.dvector("x")
    f = function([c, x], branches(lambda v: v * 2, c, x), mode=make_mode())
    Boom.runs = 0
    a = np.array([1.0, -2.0, 3.0])
    assert_matches(f(1, a), -2 * a)
    assert Boom.runs == 0
    with pytest.raises(RuntimeError, match="branch not taken was evaluated"):
        f(0, a)


@pytest.mark.parametrize(
    ("does", "error"), [("lying_inplace", BadDestroyMap), ("lying_view", BadViewMap)]
)
def test_a_lying_op_in_the_branch_taken_is_caught(does, error):
    c, x = ot.bscalar("c"), ot.dvector("x")
    f = function([c, x], branches(Liar(does), c, x) + 0, mode="DebugMode")
    with pytest.raises(error, match="Liar"):
        f(1, np.array([1.0, 2.0]))


def test_a_lying_op_in_the_branch_not_taken_is_not_run():
    c, x = ot.bscalar("c"), ot.dvector("x")
    out = ifelse(c, x * 3, Liar("lying_inplace")(-x))
    f = function([c, x], out + 0, mode="DebugMode")
    a = np.array([1.0, 2.0])
    assert_matches(f(1, a), 3 * a)
    with pytest.raises(BadDestroyMap):
        f(0, a)


def test_both_branches_of_nested_ifelse():
    c, d, x = ot.bscalar("c"), ot.bscalar("d"), ot.dvector("x")
    inner = ifelse(d, ot.log(1 + x), Boom()(x))
    f = function([c, d, x], ifelse(c, inner, ot.exp(x)), mode="DebugMode")
    a = np.array([0.5, 2.0])
    assert_matches(f(1, 1, a), np.log1p(a))
    assert_matches(f(0, 0, a), np.exp(a))


@node_rewriter([ot.add])
def local_wrong_add_in_branch(fgraph, node):
    """``x + y -> x - y``: wrong on purpose."""
    if len(node.inputs) != 2:
        return None
    return [node.inputs[0] - node.inputs[1]]


@pytest.fixture
def wrong_add_mode():
    tag, name = "test_debugmode_ifelse_wrong_add", "local_wrong_add_in_branch"
    optdb["specialize"].register(name, local_wrong_add_in_branch, tag)
    yield DebugMode().including(tag)
    optdb["specialize"].remove(name)


def test_a_wrong_rewrite_is_checked_only_in_the_branch_taken(wrong_add_mode):
    c, x, y = ot.bscalar("c"), ot.dvector("x"), ot.dvector("y")
    f = function([c, x, y], ifelse(c, x * 3, ot.exp(x + y)), mode=wrong_add_mode)
    a, b = np.array([0.5, 1.0]), np.array([0.25, 2.0])
    assert_matches(f(1, a, b), 3 * a)
    with pytest.raises(BadOptimization, match="local_wrong_add_in_branch replaced Add"):
        f(0, a, b)

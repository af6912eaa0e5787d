"""DebugMode's ``BadOptimization``: every replacement the rewrites make is
recorded, and each call computes both the replaced variable (from the
graph as it was) and its replacement. A deliberately wrong Python rewrite
registered in a phase (``x + y`` becomes ``x - y``) is named with both
sides; FAST_RUN's own rewrites of everyday graphs (softplus, log1p,
``x * y / y``, ``var``) pass, on values where the unrewritten graph
overflows too."""

import numpy as np
import oxtensor.tensor as ot
import pytest
from oxtensor import function
from oxtensor.compile.debug.debugmode import (
    BadOptimization,
    DebugMode,
    DebugModeError,
)
from oxtensor.compile.mode import get_mode, optdb
from oxtensor.graph.rewriting.basic import node_rewriter

from tests.helpers import assert_matches

TAG = "test_debugmode_wrong_add"


@node_rewriter([ot.add])
def local_wrong_add(fgraph, node):
    """``x + y -> x - y``: wrong on purpose."""
    if len(node.inputs) != 2:
        return None
    x, y = node.inputs
    return [x - y]


@node_rewriter([ot.add])
def local_commute_add(fgraph, node):
    """``x + y -> y + x``: right, and a replacement all the same."""
    if len(node.inputs) != 2:
        return None
    x, y = node.inputs
    if x.owner is not None or y.owner is not None:
        return None
    return [ot.add(y, x)] if x.name == "x" else None


@pytest.fixture
def registered():
    """Registers a rewriter in the ``specialize`` phase under a tag of its
    own (so no other test's FAST_RUN runs it), removed afterwards."""
    names = []

    def register(rewriter):
        optdb["specialize"].register(rewriter.__name__, rewriter, TAG)
        names.append(rewriter.__name__)
        return DebugMode().including(TAG)

    yield register
    for name in names:
        optdb["specialize"].remove(name)


def exp_of_sum():
    x, y = ot.dvector("x"), ot.dvector("y")
    return [x, y], ot.exp(x + y) * 2


def test_a_wrong_rewrite_in_a_phase_raises_bad_optimization(registered):
    mode = registered(local_wrong_add)
    inputs, out = exp_of_sum()
    f = function(inputs, out, mode=mode)
    with pytest.raises(BadOptimization) as info:
        f(np.array([0.5, 1.0, -1.0]), np.array([0.25, 2.0, 3.0]))
    err = info.value
    assert isinstance(err, DebugModeError)
    assert err.reason == "local_wrong_add"
    assert "Add" in err.old_r, err.old_r
    assert "Sub" in err.new_r, err.new_r
    msg = str(err)
    assert "the rewrite local_wrong_add replaced" in msg
    assert "3 of 3 elements differ" in msg


def test_without_debug_mode_the_wrong_rewrite_goes_unnoticed(registered):
    registered(local_wrong_add)
    inputs, out = exp_of_sum()
    f = function(inputs, out, mode=get_mode("FAST_RUN").including(TAG))
    a, b = np.array([0.5, 1.0]), np.array([0.25, 2.0])
    assert_matches(f(a, b), np.exp(a - b) * 2)


def test_a_right_rewrite_in_a_phase_passes(registered):
    mode = registered(local_commute_add)
    inputs, out = exp_of_sum()
    f = function(inputs, out, mode=mode)
    a, b = np.array([0.5, 1.0, -1.0]), np.array([0.25, 2.0, 3.0])
    assert_matches(f(a, b), np.exp(a + b) * 2)


def everyday_graphs():
    x, y = ot.dvector("x"), ot.dvector("y")
    m = ot.dmatrix("m")
    return {
        "softplus": ([x], ot.log(1 + ot.exp(x)), lambda a: np.logaddexp(0, a)),
        "log1p": ([x], ot.log(1 + x), np.log1p),
        "x*y/y": ([x, y], x * y / y, lambda a, b: a),
        "var": ([m], ot.var(m, axis=0), lambda a: np.var(a, axis=0)),
    }


@pytest.mark.parametrize("name", ["softplus", "log1p", "x*y/y", "var"])
def test_fast_runs_rewrites_of_everyday_graphs_pass(name):
    inputs, out, numpy_fn = everyday_graphs()[name]
    f = function(inputs, out, mode="DebugMode")
    if name == "var":
        args = [np.arange(12.0).reshape(4, 3) ** 1.5]
    elif name == "x*y/y":
        args = [np.array([1.0, -2.0, 3.5]), np.array([2.0, 0.5, -4.0])]
    elif name == "log1p":
        # 1 + x rounds where log1p does not: not a wrong rewrite.
        args = [np.array([-0.5, -1e-17, 0.0, 3.0, 800.0])]
    else:
        # log(1 + exp(x)) overflows where softplus does not: not a wrong rewrite.
        args = [np.array([-800.0, -1e-17, 0.0, 3.0, 800.0])]
    assert_matches(f(*args), numpy_fn(*args))


def test_a_division_by_zero_the_rewrite_removed_is_not_reported():
    # x * y / y is x: where y is 0 the unrewritten graph gives NaN.
    x, y = ot.dvector("x"), ot.dvector("y")
    f = function([x, y], x * y / y, mode="DebugMode")
    assert_matches(f(np.array([1.0, 2.0]), np.array([0.0, 3.0])), np.array([1.0, 2.0]))

"""Every output of an ``Elemwise`` may overwrite an input in the inplace
phase, a fused multi-output ``Composite``'s included: each output is paired
with the first candidate input of its type not paired yet, all pairs tried
at once, then one at a time (as PyTensor's inplace elemwise rewriter
does), each accepted only where the DestroyHandler and the Supervisor
validate it."""

import numpy as np
import oxtensor.tensor as ot
import pytest
from oxtensor import In, function

from tests.compile.test_inplace_phase import (
    assert_readers_first,
    assert_same,
    destroyers,
)


def multi_output_destroyers(f):
    return [n for n in destroyers(f) if len(n.outputs) > 1]


def two_products(x, y, w):
    """Two intermediates (``dot`` is a fusion barrier) read by one fused
    node with two outputs (``c`` is read twice, so it is one of them)."""
    a, b = ot.dot(x, w), ot.dot(y, w)
    c = ot.exp(a) * b
    return [c * 2, c - ot.tanh(b)]


@pytest.mark.parametrize("n", [4, 60])
def test_a_fused_node_overwrites_one_input_per_output(n):
    x, y, w = ot.dmatrix("x"), ot.dmatrix("y"), ot.dmatrix("w")
    outs = two_products(x, y, w)
    fast = function([x, y, w], outs, mode="FAST_RUN")
    slow = function([x, y, w], outs, mode="FAST_COMPILE")
    [node] = multi_output_destroyers(fast)
    dmap = node.op.destroy_map
    assert len(dmap) == 2, dmap
    # Two outputs, two distinct inputs: an input holds one output.
    assert len({i for ins in dmap.values() for i in ins}) == 2
    rng = np.random.default_rng(n)
    args = [rng.normal(size=(n, n)) for _ in range(3)]
    kept = [a.copy() for a in args]
    for _ in range(2):
        assert_same(fast(*args), slow(*args))
        for a, k in zip(args, kept, strict=True):
            np.testing.assert_array_equal(a, k)
    assert_readers_first(fast.maker.fgraph)


def test_mutable_inputs_hold_the_outputs():
    x, y = ot.dmatrix("x"), ot.dmatrix("y")
    e = ot.exp(x) * y
    outs = [e * 2, e - ot.tanh(y)]
    plain = function([x, y], outs, mode="FAST_RUN")
    assert multi_output_destroyers(plain) == []
    f = function([In(x, mutable=True), In(y, mutable=True)], outs, mode="FAST_RUN")
    [node] = multi_output_destroyers(f)
    assert len(node.op.destroy_map) == 2
    rng = np.random.default_rng(5)
    for n in (3, 60):  # 60 x 60 is past a fused block (2,048)
        xv, yv = rng.normal(size=(n, n)), rng.normal(size=(n, n))
        want = plain(xv, yv)
        np.testing.assert_array_equal(plain(xv, yv), want)
        got = f(xv, yv)
        assert_same(got, want)
        if n == 60:
            # Reused, not copied: the first pair's input holds its output
            # (output 0 of the two-output fused node, into x).
            assert node.op.destroy_map[0] == [0]
            np.testing.assert_array_equal(xv, want[1])


def test_a_reader_of_a_destroyed_input_runs_first():
    x, w = ot.dmatrix("x"), ot.dmatrix("w")
    a = ot.dot(x, w)
    b = ot.dot(a, w)
    c = ot.exp(a) * b
    # The last output reads a and b: it runs before the fused node
    # overwrites them.
    outs = [c * 2, c - a, ot.dot(b, a).sum()]
    fast = function([x, w], outs, mode="FAST_RUN")
    slow = function([x, w], outs, mode="FAST_COMPILE")
    assert multi_output_destroyers(fast)
    assert_readers_first(fast.maker.fgraph)
    rng = np.random.default_rng(6)
    args = [rng.normal(size=(50, 50)) * 0.1 for _ in range(2)]
    assert_same(fast(*args), slow(*args))


def test_an_output_without_a_free_input_of_its_type_allocates():
    x, y = ot.dmatrix("x"), ot.dvector("y")
    a = ot.dot(x, x)
    c = ot.exp(a) + y
    # Only ``a`` (a matrix) can hold a matrix output; ``y`` is a vector.
    outs = [c * 2, c - y]
    fast = function([x, y], outs, mode="FAST_RUN")
    slow = function([x, y], outs, mode="FAST_COMPILE")
    [node] = multi_output_destroyers(fast)
    assert len(node.op.destroy_map) == 1
    rng = np.random.default_rng(7)
    args = [rng.normal(size=(30, 30)) * 0.1, rng.normal(size=30)]
    assert_same(fast(*args), slow(*args))

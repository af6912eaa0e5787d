"""Graphs far deeper than any stack: a chain of additions goes through every
walk over a graph (printing, ``str``, gradients, compiling, calling,
pickling, equality, cloning, collection) without recursion on its depth.

The suite walks a chain of 10^5 nodes and compiles and differentiates one
of 2 * 10^4 (compiling 10^5 nodes takes many minutes in the debug build
tests run on); ``--runslow`` does everything at 10^5 and at 10^6.
"""

import gc
import pickle

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.graph.basic import clone_get_equiv, equal_computations
from oxtensor.graph.fg import FunctionGraph


def chain(n):
    x = ot.dvector("x")
    z = x
    for _ in range(n):
        z = z + 1.0
    return x, z


def check_compiled(x, z, n):
    gx = oxtensor.grad(z.sum(), x)
    f = oxtensor.function([x], [z, gx])
    values, grads = f(np.arange(3.0))
    np.testing.assert_array_equal(values, np.arange(3.0) + n)
    np.testing.assert_array_equal(grads, np.ones(3))


def check_deep_chain(n, compile_too):
    x, z = chain(n)

    text = oxtensor.dprint(z, file="str")
    lines = text.splitlines()
    # The additions down the chain, `x`, then each addition's constant
    # (`ExpandDims{axis=0}` of `1.0`, two lines).
    assert len(lines) == 3 * n + 1
    assert " x [id " in lines[n]
    # Indentation stops growing: the text is linear in the graph's size.
    assert max(map(len, lines)) < 300
    assert str(z).startswith("Add")

    fg = FunctionGraph([x], [z], clone=False)
    assert repr(fg).count("Add(") == n
    if compile_too:
        check_compiled(x, z, n)

    x2, z2 = pickle.loads(pickle.dumps((x, z)))
    assert z2.owner.inputs[0].owner.op == z.owner.op
    assert equal_computations([z], [z2], [x], [x2])
    assert not equal_computations([z], [z2.owner.inputs[0]], [x], [x2])

    equiv = clone_get_equiv([x], [z])
    assert equal_computations([z], [equiv[z]], [x], [equiv[x]])

    del fg, z, z2, equiv
    gc.collect()


def test_a_chain_of_100_thousand_nodes():
    check_deep_chain(10**5, compile_too=False)


def test_a_chain_of_20_thousand_nodes_compiles_and_differentiates():
    x, z = chain(2 * 10**4)
    check_compiled(x, z, 2 * 10**4)


@pytest.mark.slow
@pytest.mark.parametrize("n", [10**5, 10**6])
def test_a_deep_chain_goes_through_everything(n):
    check_deep_chain(n, compile_too=True)

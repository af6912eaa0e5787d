"""The linker classes: each accepts a graph and makes PyTensor's
``(thunk, inputs, outputs)``, run by the native VM."""

import numpy as np
import oxtensor.tensor as ot
import pytest
from oxtensor.graph.fg import FunctionGraph
from oxtensor.link.basic import PerformLinker
from oxtensor.link.c.basic import CLinker, DualLinker, OpWiseCLinker
from oxtensor.link.numba import NumbaLinker
from oxtensor.link.vm import VMLinker


def graph():
    x, y = ot.dvector("x"), ot.dvector("y")
    return FunctionGraph([x, y], [x * 2 + y], clone=False)


@pytest.mark.parametrize(
    "cls", [PerformLinker, CLinker, OpWiseCLinker, NumbaLinker, VMLinker]
)
def test_make_thunk_runs_the_graph(cls):
    thunk, ins, outs = cls().accept(graph()).make_thunk()
    ins[0].data, ins[1].data = np.array([1.0, 2.0]), np.array([10.0, 20.0])
    thunk()
    np.testing.assert_array_equal(outs[0].data, [12.0, 24.0])


def test_make_function_and_accept_rebinding():
    linker = PerformLinker()
    f = linker.accept(graph()).make_function()
    np.testing.assert_array_equal(f(np.ones(2), np.ones(2)), [3.0, 3.0])
    other = linker.accept(graph())
    assert other is not linker
    assert other.fgraph is not linker.fgraph


def test_dual_linker_checks_the_runs_agree():
    seen = []
    thunk, ins, outs = (
        DualLinker(checker=lambda a, b: seen.append((a, b)))
        .accept(graph())
        .make_thunk()
    )
    ins[0].data, ins[1].data = np.zeros(2), np.ones(2)
    thunk()
    np.testing.assert_array_equal(outs[0].data, [1.0, 1.0])
    assert len(seen) == 1
    assert np.array_equal(seen[0][0], seen[0][1])


def test_unbound_linker_refuses():
    with pytest.raises(ValueError, match="call accept"):
        PerformLinker().make_thunk()

"""`WrapLinker`: a graph run node by node through a caller's wrapper, each
linker on its own storage; and the helpers PyTensor's linker tests use
(`to_return_values`, `Container` over a type whose ``filter`` takes the
value alone)."""

import numpy as np
import oxtensor.tensor as ot
import pytest
from oxtensor.graph.fg import FunctionGraph
from oxtensor.graph.type import Type
from oxtensor.link.basic import Container, PerformLinker, WrapLinker, WrapLinkerMany
from oxtensor.link.c.basic import OpWiseCLinker
from oxtensor.utils import from_return_values, to_return_values


def graph():
    x, y = ot.dvector("x"), ot.dvector("y")
    return FunctionGraph([x, y], [(x + y) * (x - y)], clone=False)


def test_wrapper_sees_every_node_in_order_and_runs_them():
    fg = graph()
    seen = []

    def wrapper(fgraph, i, node, thunk):
        seen.append((i, node))
        thunk()

    thunk, ins, outs = WrapLinker([PerformLinker()], wrapper).accept(fg).make_thunk()
    ins[0].data, ins[1].data = np.array([3.0, 5.0]), np.array([1.0, 2.0])
    thunk()
    assert [node for _, node in seen] == list(fg.toposort())
    assert [i for i, _ in seen] == list(range(len(seen)))
    np.testing.assert_array_equal(outs[0].data, [8.0, 21.0])


def test_a_wrapper_that_skips_the_thunks_leaves_outputs_unset():
    thunk, ins, outs = (
        WrapLinker([PerformLinker()], lambda *args: None).accept(graph()).make_thunk()
    )
    ins[0].data, ins[1].data = np.ones(2), np.ones(2)
    thunk()
    assert outs[0].data is None


def test_each_linker_has_its_own_storage():
    # Only the second linker's thunks run: the first linker's outputs,
    # which are returned, stay unset.
    def wrapper(fgraph, i, node, first, second):
        second()

    linker = WrapLinker([PerformLinker(), OpWiseCLinker()], wrapper)
    thunk, ins, outs = linker.accept(graph()).make_thunk()
    ins[0].data, ins[1].data = np.ones(2), np.ones(2)
    thunk()
    assert outs[0].data is None


def test_wrap_linker_many_calls_each_wrapper():
    calls = []

    def counting(fgraph, i, node, thunk):
        calls.append(i)

    def running(fgraph, i, node, thunk):
        thunk()

    thunk, ins, outs = (
        WrapLinkerMany([PerformLinker()], [counting, running])
        .accept(graph())
        .make_thunk()
    )
    ins[0].data, ins[1].data = np.array([2.0]), np.array([1.0])
    thunk()
    assert calls == [0, 1, 2]
    np.testing.assert_array_equal(outs[0].data, [3.0])


def test_wrap_linker_refusals():
    with pytest.raises(ValueError, match="at least one linker"):
        WrapLinker([], lambda *a: None)
    with pytest.raises(ValueError, match="call accept"):
        WrapLinker([PerformLinker()], lambda *a: None).make_thunk()


def test_return_values():
    assert to_return_values([7]) == 7
    assert to_return_values([1, 2]) == [1, 2]
    assert to_return_values([]) == []
    assert from_return_values(3) == [3]
    assert from_return_values((1, 2)) == (1, 2)


class Plain(Type):
    """A type whose ``filter`` takes the value alone."""

    def filter(self, data):
        return float(data)


def test_container_passes_only_the_options_set():
    c = Container(Plain(), [None])
    c.data = 3
    assert c.data == 3.0
    assert isinstance(c.data, float)
    strict = Container(ot.dscalar(), [None], strict=True)
    with pytest.raises(TypeError):
        strict.data = 1

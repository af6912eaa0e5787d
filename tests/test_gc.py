"""Graphs are full of reference cycles (a variable's owner lists it among its
outputs; a feature keeps its graph). These tests check that the cycle
collector frees them: every native class must report what it holds."""

import copy
import gc
import pickle
import weakref

import numpy as np
import oxtensor
import oxtensor.tensor as T
import pytest
from oxtensor.compile.function import UnusedInputError
from oxtensor.graph.basic import Apply
from oxtensor.graph.features import Feature
from oxtensor.graph.fg import FunctionGraph
from oxtensor.graph.op import Op


def assert_collected(*refs):
    gc.collect()
    gc.collect()
    alive = [r() for r in refs if r() is not None]
    assert alive == [], f"still alive after gc.collect(): {alive!r}"


@pytest.fixture(autouse=True)
def _quiet_gc():
    # Collect what earlier tests left, so each test sees its own objects.
    gc.collect()


def test_variable_apply_cycle():
    x = T.dscalar("x")
    y = T.exp(x)
    refs = [weakref.ref(y), weakref.ref(y.owner)]
    assert y.owner.outputs[0] is y  # the cycle
    del x, y
    assert_collected(*refs)


def test_whole_expression():
    x = T.dmatrix("x")
    out = ((x * 2.0 + 1).sum(axis=0) @ x.T).mean()
    refs = [weakref.ref(out), weakref.ref(out.owner), weakref.ref(x)]
    del x, out
    assert_collected(*refs)


def test_tags_pointing_back():
    x = T.dscalar("x")
    y = T.exp(x)
    x.tag.user = y
    y.owner.tag.node = y.owner
    refs = [weakref.ref(x), weakref.ref(y), weakref.ref(y.owner)]
    del x, y
    assert_collected(*refs)


def test_function_graph():
    x = T.dscalar("x")
    y = T.exp(x) + x
    fg = FunctionGraph([x], [y], clone=False)
    refs = [weakref.ref(fg), weakref.ref(x), weakref.ref(y), weakref.ref(y.owner)]
    del fg, x, y
    assert_collected(*refs)


def test_function_graph_with_features_holding_it():
    class Keeper(Feature):
        def on_attach(self, fgraph):
            self.fgraph = fgraph
            self.nodes = list(fgraph.apply_nodes)

    x = T.dscalar("x")
    fg = FunctionGraph([x], [T.exp(x)], features=[Keeper()])
    keeper = fg._features[0]
    refs = [weakref.ref(fg), weakref.ref(keeper)]
    del fg, keeper, x
    assert_collected(*refs)


def test_function_graph_reached_from_a_tag():
    x = T.dscalar("x")
    y = T.exp(x)
    fg = FunctionGraph([x], [y], clone=False)
    y.tag.fgraph = fg
    x.tag.fgraph = fg
    refs = [weakref.ref(fg), weakref.ref(y)]
    del fg, x, y
    assert_collected(*refs)


@pytest.mark.xfail(
    reason="the core's view of a Python op holds it behind a shared Arc that is "
    "not reported to the collector; an op pointing back at its graph leaks it",
    raises=AssertionError,
    strict=True,
)
def test_function_graph_reached_from_an_op():
    class Remembers(Op):
        def make_node(self, v):
            return Apply(self, [v], [v.type()])

        def perform(self, node, inputs, output_storage):
            output_storage[0][0] = inputs[0]

    op = Remembers()
    x = T.dscalar("x")
    fg = FunctionGraph([x], [op(x)], clone=False)
    op.graph = fg
    refs = [weakref.ref(fg), weakref.ref(op)]
    del fg, op, x
    assert_collected(*refs)


def test_function_graph_after_replacements_and_clone():
    x = T.dscalar("x")
    fg = FunctionGraph([x], [T.exp(x) * 2.0])
    fg.replace(fg.outputs[0].owner.inputs[0], T.log(fg.inputs[0]))
    copy, equiv = fg.clone_get_equiv()
    refs = [weakref.ref(fg), weakref.ref(copy)]
    refs += [weakref.ref(v) for v in list(equiv.values())[:3]]
    del fg, copy, equiv, x
    assert_collected(*refs)


class Sentinel:
    """Something weak-referenceable to put where native objects cannot be."""


def test_thunk_and_storage():
    class Double(Op):
        __props__ = ()
        itypes = (T.dvector,)
        otypes = (T.dvector,)

        def perform(self, node, inputs, output_storage):
            output_storage[0][0] = inputs[0] * 2

    x = T.dvector("x")
    node = Double().make_node(x)
    storage = {x: [np.ones(2)], node.outputs[0]: [None]}
    computed = {x: [True], node.outputs[0]: [False]}
    thunk = Double().make_thunk(node, storage, computed, [])
    thunk()
    sentinel = Sentinel()
    sentinel.thunk = thunk
    storage[x].append(sentinel)  # cell -> sentinel -> thunk -> cell
    refs = [weakref.ref(sentinel), weakref.ref(node), weakref.ref(storage[x][0])]
    del thunk, node, storage, computed, x, sentinel
    assert_collected(*refs)


def test_constants_are_not_leaked():
    c = T.constant(np.arange(1000.0))
    sentinel = Sentinel()
    c.tag.sentinel = sentinel
    sentinel.constant = c
    refs = [weakref.ref(c), weakref.ref(c.data), weakref.ref(sentinel)]
    del c, sentinel
    assert_collected(*refs)


def test_user_type_and_op_graph():
    from tests.graph.utils import MyOp, MyVariable

    r1, r2 = MyVariable(1), MyVariable(2)
    out = MyOp(r1, r2)
    fg = FunctionGraph([r1, r2], [out], clone=False)
    refs = [weakref.ref(fg), weakref.ref(out), weakref.ref(r1)]
    del fg, out, r1, r2
    assert_collected(*refs)


def test_live_graphs_survive_collections():
    # Reporting references to the collector must never free what is in use.
    x = T.dscalar("x")
    y = T.exp(x)
    fg = FunctionGraph([x], [y * 2.0], clone=False)
    y.tag.fgraph = fg
    for _ in range(3):
        gc.collect()
    fg.replace(y, T.log(x))
    fg.check_integrity()
    assert str(fg) == "FunctionGraph(Mul(Log(x), 2.0))"
    assert fg.outputs[0].owner.inputs[0].owner.inputs[0] is x


def test_instance_dicts_are_traversed():
    x = T.dscalar("x")
    fg = FunctionGraph([x], [T.exp(x)])
    fg.me = fg
    x.me = x

    class Plain(Op):
        pass

    op = Plain()
    op.me = op
    refs = [weakref.ref(fg), weakref.ref(x), weakref.ref(op)]
    del fg, x, op
    assert_collected(*refs)


def test_pickling_and_copying_keep_nothing_alive():
    x = T.dvector("x")
    y = T.exp(x) * 2.0
    s = oxtensor.shared(np.zeros(2))
    f = oxtensor.function([x], y + s)
    for twin in (pickle.loads(pickle.dumps((y, f))), copy.deepcopy((y, f))):
        assert twin[1](np.zeros(2)).shape == (2,)
    refs = [weakref.ref(o) for o in (x, y, y.owner, s, f)]
    del x, y, s, f, twin
    assert_collected(*refs)


def test_compiling_leaves_the_collector_as_it_found_it():
    # `function` pauses the collector while it makes the compiled graph's
    # objects (compile time), and must hand it back in the same state,
    # also when compiling fails.
    x = T.dvector("x")
    assert gc.isenabled()
    oxtensor.function([x], T.exp(x) * 2)
    assert gc.isenabled()
    with pytest.raises(UnusedInputError):
        oxtensor.function([x, T.dvector("unused")], x * 2)
    assert gc.isenabled()
    gc.disable()
    try:
        oxtensor.function([x], x + 1)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_compiled_graph_is_collected():
    # Nothing a compile makes is left for the collector to find later,
    # beyond the function itself.
    x = T.dvector("x")
    f = oxtensor.function([x], T.exp(x) * 2)
    ref = weakref.ref(f.maker.fgraph)
    del f
    assert_collected(ref)

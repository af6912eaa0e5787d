"""Python ops' ``destroyhandler_tolerate_same`` / ``_aliased`` reach the
core handler, and a walk's or equilibrium's ``failure_callback`` hears of
every refused proposal (the destroy handler's ``InconsistencyError``
included), as PyTensor's ``NodeProcessingGraphRewriter`` calls it."""

import numpy as np
import oxtensor.tensor as ot
import pytest
from oxtensor import function
from oxtensor.graph.basic import Apply
from oxtensor.graph.destroyhandler import DestroyHandler
from oxtensor.graph.fg import FunctionGraph
from oxtensor.graph.op import Op
from oxtensor.graph.rewriting.basic import (
    EquilibriumGraphRewriter,
    SubstitutionNodeRewriter,
    WalkingGraphRewriter,
)
from oxtensor.graph.utils import InconsistencyError

from tests.graph.utils import AddInplace


class AddInPlace(AddInplace):
    """`AddInplace` tolerating what the test says."""

    __props__ = ("same", "aliased")

    def __init__(self, same=(), aliased=()):
        self.same = tuple(same)
        self.aliased = tuple(aliased)
        self.destroy_map = {0: [0]}
        self.destroyhandler_tolerate_same = list(self.same)
        self.destroyhandler_tolerate_aliased = list(self.aliased)


class Add(Op):
    """``x + y``, the pure version."""

    __props__ = ()

    def make_node(self, x, y):
        return Apply(self, [x, y], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] + inputs[1]


class TransposeView(Op):
    """``x.T``, a view of ``x``."""

    __props__ = ()
    view_map = {0: [0]}  # noqa: RUF012 (PyTensor's class attribute)

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0].T


def graph(outputs_of):
    x = ot.dmatrix("x")
    return FunctionGraph([x], outputs_of(x), features=[DestroyHandler()], clone=False)


def test_tolerate_same_lets_an_op_read_what_it_destroys():
    assert not graph(lambda x: [AddInPlace()(x, x)]).consistent()
    assert graph(lambda x: [AddInPlace(same=[(0, 1)])(x, x)]).consistent()
    # Tolerating the very variable is not tolerating a view of it.
    fg = graph(lambda x: [AddInPlace(same=[(0, 1)])(x, TransposeView()(x))])
    with pytest.raises(InconsistencyError, match=r"Input aliasing: .*\(0, 1\)"):
        fg.validate()


def test_tolerate_aliased_lets_an_op_read_any_alias():
    assert graph(lambda x: [AddInPlace(aliased=[(0, 1)])(x, x)]).consistent()
    fg = graph(lambda x: [AddInPlace(aliased=[(0, 1)])(x, TransposeView()(x))])
    assert fg.consistent()
    # Only the listed pair: input 0 reading input 0's alias is another matter.
    assert not graph(lambda x: [AddInPlace(aliased=[(1, 0)])(x, x)]).consistent()


def test_a_tolerated_op_computes_x_plus_x():
    x = ot.dmatrix("x")
    f = function([x], AddInPlace(same=[(0, 1)])(x, x), accept_inplace=True)
    value = np.arange(4.0).reshape(2, 2)
    np.testing.assert_allclose(f(value), 2 * np.arange(4.0).reshape(2, 2))
    # The caller's array is not an input marked mutable: it is left alone.
    np.testing.assert_array_equal(value, np.arange(4.0).reshape(2, 2))


def test_a_malformed_tolerate_attribute_names_the_op():
    op = AddInPlace()
    op.destroyhandler_tolerate_same = "both"
    x = ot.dmatrix("x")
    with pytest.raises(ValueError, match=r"destroyhandler_tolerate_same of .*pairs"):
        FunctionGraph([x], [op(x, x)], features=[DestroyHandler()], clone=False)


class Watch:
    """A failure callback recording what it is given."""

    def __init__(self):
        self.calls = []

    def __call__(self, exc, nav, pairs, rewriter, node):
        self.calls.append((exc, nav, pairs, rewriter, node))


def two_readers():
    """``add(x, y) * add(y, x)``: only one of the two may destroy ``x``."""
    x, y = ot.dmatrix("x"), ot.dmatrix("y")
    a, b = Add()(x, y), Add()(x, y.T)
    fg = FunctionGraph([x, y], [a * b], features=[DestroyHandler()], clone=False)
    return fg, x


def test_a_walk_hands_a_refused_proposal_to_its_callback():
    fg, x = two_readers()
    watch = Watch()
    rewriter = SubstitutionNodeRewriter(Add(), AddInPlace())
    walk = WalkingGraphRewriter(rewriter, ignore_newtrees=True, failure_callback=watch)
    walk.rewrite(fg)
    assert fg.consistent()
    assert len(watch.calls) == 1
    exc, nav, pairs, rw, node = watch.calls[0]
    assert isinstance(exc, InconsistencyError)
    assert "Multiple destroyers" in str(exc)
    assert nav is walk
    assert rw is rewriter
    assert node in fg.apply_nodes
    assert isinstance(node.op, Add)
    [(old, new)] = pairs
    assert old is node.outputs[0]
    assert isinstance(new.owner.op, AddInPlace)
    assert len(fg.destroyers(x)) == 1


def test_an_equilibrium_hands_a_refused_proposal_to_its_callback():
    fg, _ = two_readers()
    watch = Watch()
    rewriter = SubstitutionNodeRewriter(Add(), AddInPlace())
    EquilibriumGraphRewriter([rewriter], failure_callback=watch).rewrite(fg)
    assert fg.consistent()
    assert watch.calls
    assert all(isinstance(c[0], InconsistencyError) for c in watch.calls)


def test_a_callback_that_raises_stops_the_walk():
    fg, _ = two_readers()

    def refuse(exc, *args):
        raise RuntimeError(f"stopped: {exc}")

    rewriter = SubstitutionNodeRewriter(Add(), AddInPlace())
    walk = WalkingGraphRewriter(rewriter, failure_callback=refuse)
    with pytest.raises(RuntimeError, match="stopped: Multiple destroyers"):
        walk.rewrite(fg)


def test_a_walk_repairs_a_graph_whose_orderings_cannot_be_met():
    x, z = ot.dmatrix("x"), ot.dmatrix("z")
    # dot reads x before AddInPlace overwrites it, and AddInPlace's result.
    out = ot.dot(AddInPlace()(x, z), x)
    fg = FunctionGraph([x, z], [out], features=[DestroyHandler()], clone=False)
    assert not fg.consistent()
    WalkingGraphRewriter(SubstitutionNodeRewriter(AddInPlace(), Add())).rewrite(fg)
    assert fg.consistent()
    assert not any(isinstance(n.op, AddInPlace) for n in fg.apply_nodes)

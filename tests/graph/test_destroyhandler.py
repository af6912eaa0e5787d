"""The `DestroyHandler` from Python, with the examples of the seed "Views and
inplace operations" (module names adapted from ``aesara`` to ``oxtensor``)."""

import numpy as np
import oxtensor.tensor as T
import pytest
from oxtensor import function
from oxtensor.graph.basic import Apply
from oxtensor.graph.destroyhandler import (
    DestroyHandler,
    fast_inplace_check,
    inplace_candidates,
)
from oxtensor.graph.features import InconsistencyError as FeaturesInconsistencyError
from oxtensor.graph.fg import FunctionGraph
from oxtensor.graph.op import Op
from oxtensor.graph.utils import InconsistencyError
from oxtensor.tensor.inplace import add_inplace, exp_inplace, log_inplace, mul_inplace


def fgraph_of(inputs, outputs):
    return FunctionGraph(inputs, outputs, features=[DestroyHandler()], clone=False)


def position(order, var):
    return order.index(var.owner)


def test_seed_add_inplace_example_runs_readers_first():
    from oxtensor.tensor import dscalars, log

    x, y = dscalars("x", "y")
    r1 = log(x)

    # r2 is x AFTER the add_inplace - x still represents the value before adding y
    r2 = add_inplace(x, y)

    # r3 is log(x) using the x from BEFORE the add_inplace
    # r3 is the SAME as r1, even if we wrote this line after the add_inplace line
    # Aesara is actually going to compute r3 BEFORE r2
    r3 = log(x)

    # this is log(x) using the x from AFTER the add_inplace (so it's like log(x + y))
    r4 = log(r2)

    fg = fgraph_of([x, y], [r1, r2, r3, r4])
    fg.validate()
    order = fg.toposort()
    assert position(order, r1) < position(order, r2)
    assert position(order, r3) < position(order, r2)
    assert position(order, r2) < position(order, r4)
    ords = fg.orderings()
    assert set(ords[r2.owner]) == {r1.owner, r3.owner}
    assert fg.destroyers(x) == [r2.owner]
    assert fg.destroyers(r1) == []

    f = function([x, y], [r1, r2, r3, r4], accept_inplace=True)
    v1, v2, v3, v4 = f(2.0, 3.0)
    assert np.allclose([v1, v2, v3, v4], [np.log(2.0), 5.0, np.log(2.0), np.log(5.0)])
    assert f.maker.fgraph.destroy_handler is not None


class MyOp(Op):
    """Two outputs; the second operates inplace on the first input."""

    __props__ = ()
    destroy_map = {1: [0]}  # noqa: RUF012 (PyTensor's class attribute)

    def make_node(self, x):
        x = T.as_tensor_variable(x)
        return Apply(self, [x], [x.type(), x.type()])

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        output_storage[0][0] = x * 2
        x += 1
        output_storage[1][0] = x


def test_seed_myop_second_output_destroys_the_first_input():
    myop = MyOp()
    assert myop.destroy_map == {1: [0]}
    x = T.dvector("x")
    doubled, bumped = myop(x)
    read = x * 3
    fg = fgraph_of([x], [doubled, bumped, read])
    fg.validate()
    assert fg.destroyers(x) == [bumped.owner]
    order = fg.toposort()
    assert position(order, read) < position(order, bumped)
    assert fg.orderings() == {bumped.owner: [read.owner]}

    f = function([x], [doubled, bumped, read], accept_inplace=True)
    a = np.arange(3.0)
    d, b, r = f(a)
    assert np.allclose(d, a * 2)
    assert np.allclose(b, a + 1)
    assert np.allclose(r, a * 3)
    assert np.array_equal(a, np.arange(3.0)), "the caller's array was modified"


class DestroyBoth(Op):
    """``destroy_map = {0: [0, 1]}``: one output destroying two inputs."""

    __props__ = ()
    destroy_map = {0: [0, 1]}  # noqa: RUF012

    def make_node(self, x, y):
        return Apply(self, [x, y], [x.type()])

    def perform(self, node, inputs, output_storage):
        x, y = inputs
        x += y
        y[...] = 0
        output_storage[0][0] = x


def test_one_output_may_destroy_two_inputs():
    x, y = T.dvectors("x", "y")
    both = DestroyBoth()(x, y)
    rx, ry = T.exp(x), T.exp(y)
    fg = fgraph_of([x, y], [both, rx, ry])
    fg.validate()
    assert fg.destroyers(x) == fg.destroyers(y) == [both.owner]
    assert set(fg.orderings()[both.owner]) == {rx.owner, ry.owner}
    f = function([x, y], [both, rx, ry], accept_inplace=True)
    a, b = np.ones(2), np.full(2, 2.0)
    out, ex, ey = f(a, b)
    assert np.allclose(out, 3.0)
    assert np.allclose(ex, np.e)
    assert np.allclose(ey, np.exp(2.0))
    assert np.allclose(a, 1.0)
    assert np.allclose(b, 2.0)
    with pytest.raises(InconsistencyError, match="Multiple destroyers"):
        fgraph_of([x, y], [DestroyBoth()(x, y), add_inplace(y, x)]).validate()


def test_two_destroyers_are_refused_naming_both_nodes_and_the_value():
    x, y = T.dvectors("x", "y")
    a, b = add_inplace(x, y), mul_inplace(x, y)
    with pytest.raises(InconsistencyError) as err:
        fgraph_of([x, y], [a, b]).validate()
    msg = str(err.value)
    assert msg == "Multiple destroyers of x: Add(x, y) and Mul(x, y)"


def test_destroyers_of_two_views_of_one_value_are_refused():
    x, y = T.dvectors("x", "y")
    v1, v2 = x[1:], x[:-1]
    fg = fgraph_of([x, y], [exp_inplace(v1), log_inplace(v2)])
    with pytest.raises(InconsistencyError, match="Multiple destroyers of x"):
        fg.validate()
    # One destroyer through a view: every reader of the root runs first.
    z = exp_inplace(x[1:])
    r = x.sum()
    fg = fgraph_of([x], [z, r])
    fg.validate()
    assert fg.destroyers(x) == [z.owner]
    order = fg.toposort()
    assert position(order, r) < position(order, z)


def test_constants_and_indestructible_values_are_refused():
    y = T.dvector("y")
    c = T.constant(np.ones(3))
    with pytest.raises(InconsistencyError, match="indestructible"):
        fgraph_of([y], [add_inplace(c, y)]).validate()
    x = T.dvector("x")
    x.tag.indestructible = True
    with pytest.raises(InconsistencyError, match="indestructible variables: \\[x\\]"):
        fgraph_of([x, y], [add_inplace(x, y)]).validate()


def test_a_destruction_needing_a_cycle_is_refused():
    x, y = T.dvectors("x", "y")
    r2 = add_inplace(x, y)
    late_reader = x + r2  # reads x, so it must run before r2, but needs r2
    with pytest.raises(InconsistencyError, match="cycles") as err:
        fgraph_of([x, y], [late_reader]).validate()
    msg = str(err.value)
    assert "Add(x, Add.0) reads x, which Add(x, y) destroys" in msg


def test_rejected_replacements_are_reverted():
    x = T.dvector("x")
    a, b = T.log(x), T.exp(x)
    fg = fgraph_of([x], [a, b])
    fg.replace_all_validate([(b, exp_inplace(x))])
    assert fg.outputs[1].owner.op == exp_inplace
    with pytest.raises(InconsistencyError, match="Multiple destroyers"):
        fg.replace_all_validate([(fg.outputs[0], log_inplace(x))])
    assert fg.outputs[0] is a
    fg.validate()
    order = fg.toposort()
    assert order.index(a.owner) < order.index(fg.outputs[1].owner)


def test_the_handler_is_one_per_graph():
    x, y = T.dvectors("x", "y")
    dh = DestroyHandler()
    fg = FunctionGraph([x, y], [x + y], features=[dh], clone=False)
    assert fg.destroy_handler is dh
    fg.attach_feature(DestroyHandler())  # AlreadyThere: skipped
    assert fg.destroy_handler is dh
    assert [f for f in fg._features if isinstance(f, DestroyHandler)] == [dh]
    other = FunctionGraph([x, y], [x * y], clone=True)
    with pytest.raises(Exception, match="only serve one FunctionGraph"):
        dh.on_attach(other)
    clone = fg.clone()
    assert clone.destroy_handler is not dh
    fg.remove_feature(dh)
    assert not hasattr(fg, "destroy_handler")


def test_inplace_candidates_and_fast_inplace_check():
    x, y, z = T.dvectors("x", "y", "z")
    d = add_inplace(z, y)
    out = x + y
    view = x[1:]
    fg = fgraph_of([x, y, z], [out, d, view])
    # z is destroyed already.
    assert inplace_candidates(fg, [x, z]) == [x]
    assert inplace_candidates(fg, [x], protected_inputs=[x]) == []
    assert fast_inplace_check(fg, [x, z]) == [x]
    # Two inputs sharing memory rule each other out.
    assert inplace_candidates(fg, [y, x, view]) == [y]
    # Outputs are protected.
    assert inplace_candidates(fg, [out]) == []


def test_user_graphs_with_inplace_ops_protect_outputs():
    x, y = T.dvectors("x", "y")
    r1 = x * 2
    with pytest.raises(InconsistencyError, match="protected variable"):
        function([x, y], [r1, add_inplace(r1, y)], accept_inplace=True)
    with pytest.raises(TypeError, match="inplace"):
        function([x, y], add_inplace(x, y))


def test_inconsistency_error_is_importable_where_pytensor_has_it():
    assert FeaturesInconsistencyError is InconsistencyError
    assert InconsistencyError.__module__ == "oxtensor.graph.utils"


class Logged(Op):
    """Appends its label to ``log`` when it runs; may declare it destroys."""

    __props__ = ("label", "destroys")

    def __init__(self, label, log, destroys=False):
        self.label, self.log, self.destroys = label, log, destroys
        self.destroy_map = {0: [0]} if destroys else {}

    def make_node(self, x):
        x = T.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        self.log.append(self.label)
        (x,) = inputs
        output_storage[0][0] = x + 1 if self.destroys else x * 2


def test_the_program_runs_readers_before_the_destroyer():
    log = []
    x = T.dvector("x")
    destroyed = Logged("destroy", log, destroys=True)(x)
    read = Logged("read", log)(x)
    # Outputs in this order put the destroyer first without the handler.
    for mode in ("FAST_COMPILE", "FAST_RUN"):
        f = function([x], [read, destroyed], mode=mode, accept_inplace=True)
        log.clear()
        r, d = f(np.zeros(2))
        assert log == ["read", "destroy"], mode
        assert np.allclose(d, 1.0)
        assert np.allclose(r, 0.0)


def test_lazy_programs_run_readers_before_the_destroyer():
    from oxtensor.ifelse import ifelse

    log = []
    x = T.dvector("x")
    c = T.bscalar("c")
    read = Logged("read", log)(x)
    destroyed = Logged("destroy", log, destroys=True)(x)
    # The destroyer is asked for first; the branch reading x only later.
    f = function([x, c], [destroyed, ifelse(c, read, x)], accept_inplace=True)
    d, r = f(np.zeros(2), 1)
    assert log == ["read", "destroy"]
    assert np.allclose(d, 1.0)
    assert np.allclose(r, 0.0)


def inplace_ops(f):
    return [n for n in f.maker.fgraph.apply_nodes if n.op.destroy_map]


def test_the_inplace_phase_overwrites_intermediates_and_mutable_inputs_only():
    from oxtensor.compile.io import In
    from oxtensor.compile.mode import get_mode

    # Unfused: fusion makes the chain one node that reads only the
    # (protected) inputs, leaving no intermediate to overwrite.
    mode = get_mode("FAST_RUN").including("inplace").excluding("fusion")
    x, y = T.dvectors("x", "y")
    out = T.log(T.exp(x) + y)
    f = function([x, y], out, mode=mode)
    assert inplace_ops(f), "intermediates are overwritten"
    assert not any(f.maker.fgraph.destroyers(v) for v in f.maker.fgraph.inputs)
    a, b = np.array([0.0, 1.0]), np.array([1.0, 2.0])
    assert np.allclose(f(a, b), np.log(np.exp(a) + b))
    assert np.array_equal(a, [0.0, 1.0])
    assert np.array_equal(b, [1.0, 2.0])

    e = T.exp(x)
    assert not inplace_ops(function([x], e, mode=mode))
    g = function([In(x, mutable=True)], e, mode=mode)
    assert g.maker.fgraph.destroyers(g.maker.fgraph.inputs[0])
    assert np.allclose(g(np.zeros(2)), 1.0)
    # In FAST_RUN by default (never in FAST_COMPILE).
    assert inplace_ops(function([In(x, mutable=True)], e))
    assert not inplace_ops(function([In(x, mutable=True)], e, mode="FAST_COMPILE"))


def test_a_graph_with_a_handler_pickles():
    import pickle

    x, y = T.dvectors("x", "y")
    r = add_inplace(x, y)
    read = T.exp(x)
    fg = fgraph_of([x, y], [r, read])
    fg2 = pickle.loads(pickle.dumps(fg))
    assert isinstance(fg2.destroy_handler, DestroyHandler)
    r2, read2 = fg2.outputs
    assert fg2.destroyers(fg2.inputs[0]) == [r2.owner]
    assert fg2.orderings() == {r2.owner: [read2.owner]}

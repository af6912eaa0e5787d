"""Pickling and copying graphs, ops, types, FunctionGraphs and compiled
functions: round trips keep structure, values and identity, and deep graphs
pickle without recursion."""

import copy
import pickle
import sys
from typing import Any

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor import _core
from oxtensor.compile.io import In, Out
from oxtensor.graph.basic import Apply, Constant, Variable, ancestors
from oxtensor.graph.features import Feature
from oxtensor.graph.fg import FunctionGraph
from oxtensor.graph.type import Type
from oxtensor.ifelse import ifelse
from oxtensor.tensor import math as tm

from tests.helpers import UnaryPythonOp, assert_equal_computations


def round_trip(obj: Any) -> Any:
    return pickle.loads(pickle.dumps(obj))


ROUND_TRIPS = [round_trip, copy.deepcopy]


# --- module-level Python ops and types (pickle finds classes by name) --------


class Scale(UnaryPythonOp):
    __props__ = ("factor",)

    def __init__(self, factor: float) -> None:
        self.factor = factor

    def perform(self, node: Apply, inputs: list, output_storage: list) -> None:
        output_storage[0][0] = np.asarray(inputs[0] * self.factor)


class Tally(Type):
    """A Python type whose instances carry state in their dict."""

    def __init__(self, unit: str) -> None:
        self.unit = unit

    def filter(self, data: Any, strict: bool = False, allow_downcast: Any = None):
        return data

    def __eq__(self, other: Any) -> bool:
        return type(other) is Tally and other.unit == self.unit

    def __hash__(self) -> int:
        return hash((Tally, self.unit))

    def __str__(self) -> str:
        return f"Tally({self.unit})"


class Recorder(Feature):
    """A picklable feature that wants to know the graph after loading."""

    def __init__(self) -> None:
        self.imports = 0
        self.reloaded_into = None

    def on_import(self, fgraph: Any, node: Any, reason: str) -> None:
        self.imports += 1

    def unpickle(self, fgraph: Any) -> None:
        self.reloaded_into = fgraph


class Installer(Feature):
    """Sets an attribute on its graph that cannot be pickled (PyTensor's
    ``pickle_rm_attr`` convention)."""

    pickle_rm_attr = ("helper",)

    def on_attach(self, fgraph: Any) -> None:
        fgraph.helper = lambda: None


# --- variables and nodes -----------------------------------------------------


@pytest.mark.parametrize("twin", ROUND_TRIPS)
def test_graph_round_trip_keeps_structure_and_identity(twin):
    x, b = ot.dmatrix("x"), ot.dvector("b")
    m = x * 2.0
    e = ot.exp(m + b).sum(axis=1)
    e.name = "e"
    x2, m2, e2, b2 = twin((x, m, e, b))
    assert m2.owner.inputs[0] is x2
    assert m2 in ancestors([e2])
    assert x2 is not x
    assert e2.name == "e"
    assert type(e2) is type(e)
    assert e2.type == e.type
    assert e2.owner.outputs[e2.index] is e2
    assert e2.auto_name == e.auto_name  # as PyTensor, which pickles the dict
    assert_equal_computations([e2], [e], in_xs=[x2, b2], in_ys=[x, b])


@pytest.mark.parametrize("twin", ROUND_TRIPS)
def test_nodes_and_their_outputs_round_trip_together(twin):
    x = ot.dvector("x")
    node = (x + 1.0).owner
    node.tag.note = "kept"
    node2, out2 = twin((node, node.outputs[0]))
    assert isinstance(node2, Apply)
    assert node2.outputs[0] is out2
    assert out2.owner is node2
    assert node2.tag.note == "kept"
    assert node2.op == node.op


@pytest.mark.parametrize("twin", ROUND_TRIPS)
def test_tags_and_instance_attributes_round_trip(twin):
    x = ot.dvector("x")
    x.tag.test_value = np.arange(3.0)
    x.tag.points_at = x * 2.0
    x.note = {"a": 1}
    x2 = twin(x)
    np.testing.assert_array_equal(x2.tag.test_value, np.arange(3.0))
    assert x2.tag.points_at.owner.inputs[0] is x2
    assert x2.note == {"a": 1}
    assert isinstance(x2.tag, type(x.tag))


def test_graphs_pickled_apart_share_nothing():
    x = ot.dvector("x")
    y = x + 1.0
    first = round_trip(y)
    y.owner.inputs = [ot.dvector("z"), y.owner.inputs[1]]
    second = round_trip(y)
    assert first.owner.inputs[0].name == "x"
    assert second.owner.inputs[0].name == "z"


def test_eval_cache_is_not_pickled():
    x = ot.dvector("x")
    y = x * 3.0
    np.testing.assert_array_equal(y.eval({x: np.ones(2)}), [3.0, 3.0])
    assert "_fn_cache" in y.__dict__
    y2 = round_trip(y)
    assert "_fn_cache" not in y2.__dict__
    np.testing.assert_array_equal(y2.eval({"x": np.ones(2)}), [3.0, 3.0])


def test_copy_is_shallow():
    x = ot.dvector("x")
    y = x + 1.0
    y.tag.a = 1
    y.extra = "e"
    c = copy.copy(y)
    assert c is not y
    assert type(c) is type(y)
    assert (c.owner, c.index, c.type, c.name, c.tag) == (
        y.owner,
        y.index,
        y.type,
        y.name,
        y.tag,
    )
    assert c.extra == "e"
    node = copy.copy(y.owner)
    assert node is not y.owner
    assert node.op is y.owner.op
    assert node.inputs == y.owner.inputs
    assert node.inputs is not y.owner.inputs


@pytest.mark.parametrize("twin", ROUND_TRIPS)
def test_constants_keep_read_only_data(twin):
    c = ot.constant(np.arange(4.0).reshape(2, 2), name="c")
    c2 = twin(c)
    assert type(c2) is type(c)
    assert c2.name == "c"
    np.testing.assert_array_equal(c2.data, c.data)
    assert not c2.data.flags.writeable
    assert c2.signature() == c.signature()
    with pytest.raises(AttributeError):
        Variable(c.type).data  # noqa: B018  (plain variables still have no data)


def test_python_constants_round_trip():
    c = Constant(Tally("kg"), "five")
    c2 = round_trip(c)
    assert type(c2) is Constant
    assert c2.data == "five"
    assert c2.type == Tally("kg")


@pytest.mark.parametrize("twin", ROUND_TRIPS)
def test_shared_variables_keep_their_values(twin):
    s = oxtensor.shared(np.arange(3.0), name="s")
    s.default_update = s + 1
    s2 = twin(s)
    assert type(s2) is type(s)
    np.testing.assert_array_equal(s2.get_value(), [0.0, 1.0, 2.0])
    assert s2.default_update.owner.inputs[0] is s2
    s2.set_value(np.zeros(3))
    np.testing.assert_array_equal(s.get_value(), [0.0, 1.0, 2.0])


def test_shared_clones_keep_sharing_their_storage():
    s = oxtensor.shared(np.zeros(2), name="s")
    s2, clone2 = round_trip((s, s.clone()))
    s2.set_value(np.ones(2))
    np.testing.assert_array_equal(clone2.get_value(), [1.0, 1.0])


def test_deep_chain_pickles_without_recursion(recursion_limit):
    x = ot.dvector("x")
    y = x
    for _ in range(10_000):
        y = y + x
    normal = sys.getrecursionlimit()
    recursion_limit(200)
    data = pickle.dumps(y)
    y2 = pickle.loads(data)
    y3 = copy.deepcopy(y)
    recursion_limit(normal)
    for twin in (y2, y3):
        root = twin
        depth = 0
        while root.owner is not None:
            root = root.owner.inputs[0]
            depth += 1
        assert depth == 10_000
        assert root is twin.owner.inputs[1]


# --- ops and types -----------------------------------------------------------


def builtin_ops() -> list[Any]:
    x = ot.dmatrix("x")
    return [
        (x * 2).owner.op,
        ot.cast(x, "float32").owner.op,
        ot.exp(x).owner.op,
        x.dimshuffle(1, "x", 0).owner.op,
        x.sum(axis=1).owner.op,
        x.prod(axis=0, dtype="float32").owner.op,
        x.max().owner.op,
        x.min(axis=-1).owner.op,
        (x > 0).all().owner.op,
        (x > 0).any(axis=0).owner.op,
        tm.Sum(axis=1),
        tm.Max(axis=(0, -1), dtype="float64"),
        tm.Prod(),
        x.shape.owner.op,
        x.reshape((3, -1)).owner.op,
        ot.dot(x, x).owner.op,
        ifelse(ot.bscalar("c"), x, x).owner.op,
        _core.Shape_i(1),
        _core.scalar_op("add"),
        _core.Cast("int16"),
    ]


@pytest.mark.parametrize("twin", [*ROUND_TRIPS, copy.copy])
@pytest.mark.parametrize("op", builtin_ops(), ids=str)
def test_builtin_ops_round_trip(op, twin):
    other = twin(op)
    assert type(other) is type(op)
    assert other == op
    assert hash(other) == hash(op)
    assert str(other) == str(op)
    for prop in getattr(type(op), "__props__", ()):
        assert getattr(other, prop) == getattr(op, prop)


def test_reduction_templates_stay_unresolved():
    template = tm.Sum(axis=-1)
    other = round_trip(template)
    assert (other.axis, other.dtype, other.acc_dtype) == ((-1,), None, None)
    x = ot.ivector("x")
    assert other(x).owner.op == template(x).owner.op


def test_builtin_op_subclasses_keep_class_and_attributes():
    op = MySum(axis=0)
    op.note = "n"
    other = round_trip(op)
    assert type(other) is MySum
    assert other.note == "n"
    assert other == op


class MySum(tm.Sum):
    pass


def test_elemwise_keeps_its_scalar_op():
    op = (ot.dvector("x") * 2).owner.op
    other = round_trip(op)
    assert other.scalar_op is _core.scalar_op("mul")
    assert round_trip(_core.scalar_op("mul")) is _core.scalar_op("mul")
    assert round_trip(_core.Cast("int8")).o_dtype == "int8"


@pytest.mark.parametrize("twin", [*ROUND_TRIPS, copy.copy])
def test_types_round_trip(twin):
    for ty in (
        ot.TensorType("float32", (None, 3)),
        _core.NullType("no gradient"),
        _core.DisconnectedType(),
        Tally("m"),
    ):
        other = twin(ty)
        assert type(other) is type(ty)
        assert other == ty
        assert str(other) == str(ty)
    assert twin(_core.NullType("why")).why_null == "why"


def test_python_ops_round_trip_in_graphs():
    x = ot.dvector("x")
    y = Scale(3.0)(x)
    y2 = round_trip(y)
    assert isinstance(y2.owner.op, Scale)
    assert y2.owner.op.factor == 3.0
    f = oxtensor.function([y2.owner.inputs[0]], y2)
    np.testing.assert_array_equal(f(np.ones(2)), [3.0, 3.0])


# --- FunctionGraph -----------------------------------------------------------


@pytest.mark.parametrize("twin", ROUND_TRIPS)
def test_function_graph_round_trip(twin):
    x, b = ot.dvector("x"), ot.dvector("b")
    recorder = Recorder()
    fg = FunctionGraph([x, b], [ot.exp(x) + b], features=[recorder])
    fg.note = "n"
    fg2 = twin(fg)
    assert fg2.note == "n"
    assert [str(v) for v in fg2.inputs] == ["x", "b"]
    assert fg2.inputs[0].fgraph is fg2
    assert fg2.clients[fg2.outputs[0]] == [("output", 0)]
    assert len(fg2.apply_nodes) == len(fg.apply_nodes)
    (rec2,) = [f for f in fg2._features if isinstance(f, Recorder)]
    assert rec2.imports == recorder.imports
    assert rec2.reloaded_into is fg2
    fg2.check_integrity()
    assert_equal_computations(fg2.outputs, fg.outputs, fg2.inputs, fg.inputs)


def test_function_graph_update_mapping_and_removed_attributes():
    x = ot.dvector("x")
    fg = FunctionGraph([x], [x + 1.0, x * 2.0], update_mapping={1: 0})
    fg.attach_feature(Installer())
    assert callable(fg.helper)
    fg2 = round_trip(fg)
    assert fg2.update_mapping == {1: 0}
    assert isinstance(fg2._features[-1], Installer)
    assert not hasattr(fg2, "helper")  # listed in pickle_rm_attr


def test_function_graph_copy_is_a_clone():
    x = ot.dvector("x")
    fg = FunctionGraph([x], [x + 1.0])
    other = copy.copy(fg)
    assert other is not fg
    assert other.inputs[0] is not fg.inputs[0]
    assert fg.inputs[0].fgraph is fg


def test_function_graph_state_cannot_be_applied_twice():
    x = ot.dvector("x")
    fg = FunctionGraph([x], [x + 1.0])
    with pytest.raises(RuntimeError, match="already built"):
        fg.__setstate__(fg.__getstate__())


# --- compiled functions --------------------------------------------------------


def test_function_gives_the_same_results():
    x, b = ot.dmatrix("x"), ot.dvector("b")
    f = oxtensor.function([x, b], ot.exp(x * 2.0 + b).sum(axis=1), name="f")
    g = round_trip(f)
    a, v = np.random.default_rng(0).random((2, 3)), np.arange(3.0)
    np.testing.assert_array_equal(g(a, v), f(a, v))
    assert g.name == "f"
    assert str(oxtensor.dprint(g, file="str")) == str(oxtensor.dprint(f, file="str"))
    assert g.maker.inputs[0].name == "x"


def test_function_keeps_input_and_output_options():
    x, y = ot.dvector("x"), ot.dvector("y")
    f = oxtensor.function(
        [In(x, name="first", strict=True), y],
        [Out(x + y, borrow=True), x * 2.0],
        trust_input=True,
    )
    g = round_trip(f)
    assert g.trust_input
    out = g(first=np.ones(2), y=np.ones(2))
    np.testing.assert_array_equal(out[0], [2.0, 2.0])
    assert isinstance(out, list)
    g.trust_input = False
    with pytest.raises(TypeError, match="Bad input argument"):
        g(np.ones(2, dtype="float32"), np.ones(2))  # strict: no conversion


def test_function_with_givens_python_op_and_ifelse():
    x, z = ot.dvector("x"), ot.dvector("z")
    c = ot.bscalar("c")
    out = ifelse(c, Scale(2.0)(z), z + 1.0)
    f = oxtensor.function([c, x], out, givens={z: x * 10.0})
    g = round_trip(f)
    for cond in (0, 1):
        np.testing.assert_array_equal(g(cond, np.ones(2)), f(cond, np.ones(2)))


def test_functions_sharing_state_keep_sharing_it():
    s = oxtensor.shared(np.array(0.0), name="s")
    inc = oxtensor.function([], s, updates=[(s, s + 1.0)])
    dec = oxtensor.function([], s, updates=[(s, s - 10.0)])
    inc2, dec2 = round_trip((inc, dec))
    inc2()
    inc2()
    assert dec2() == 2.0
    assert inc2() == -8.0
    assert s.get_value() == 0.0  # the original is not touched


def test_deep_copied_function_has_its_own_state():
    s = oxtensor.shared(np.array(1.0), name="s")
    f = oxtensor.function([], s, updates={s: s * 2.0})
    g = copy.deepcopy(f)
    g()
    g()
    assert f() == 1.0
    assert g() == 4.0


@pytest.mark.parametrize("protocol", [0, 1])
def test_old_protocols_pickle_functions_graphs_ops_and_types(protocol):
    # PyTensor's own test pickles a function with protocol 0 on purpose.
    a, x, s = ot.dscalar(), ot.dscalar("x"), ot.dscalar("s")
    f = oxtensor.function(
        [x, In(a, name="a"), In(s, update=s + a * x, mutable=True)], s + a * x
    )
    g = pickle.loads(pickle.dumps(f, protocol=protocol))
    assert g(2.0, 1.0, 0.5) == f(2.0, 1.0, 0.5) == 2.5
    fg = FunctionGraph([x], [ot.exp(x) * 2.0])
    fg2 = pickle.loads(pickle.dumps(fg, protocol=protocol))
    assert_equal_computations(fg2.outputs, fg.outputs, fg2.inputs, fg.inputs)
    for obj in (tm.Sum(axis=(0,)), ot.dmatrix("m").type, x.type):
        assert pickle.loads(pickle.dumps(obj, protocol=protocol)) == obj


def test_function_copy_shares_state():
    s = oxtensor.shared(np.array(1.0), name="s")
    f = oxtensor.function([], s, updates={s: s * 2.0})
    g = copy.copy(f)
    g()
    assert f() == 2.0


def test_function_keeps_profile_and_mode():
    x = ot.dvector("x")
    f = oxtensor.function([x], x + 1.0, profile=True, mode="FAST_COMPILE")
    g = round_trip(f)
    g(np.ones(2))
    assert g.profile is not None
    assert round_trip(oxtensor.function([x], x + 1.0)).profile is None


def test_function_of_a_deep_chain_pickles(recursion_limit):
    x = ot.dvector("x")
    y = x
    for _ in range(2_000):
        y = y + x
    f = oxtensor.function([x], y)
    normal = sys.getrecursionlimit()
    recursion_limit(300)
    g = round_trip(f)
    recursion_limit(normal)
    np.testing.assert_array_equal(g(np.ones(2)), [2001.0, 2001.0])

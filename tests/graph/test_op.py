"""The Op contract of the seeds (``000``/``001``), as PyTensor 3.x implements
it (anatomy §2): ``__props__``, ``make_node`` from ``itypes``/``otypes``,
``__call__``, thunks, ``perform``, gradients and the optional methods."""

import copy
import pickle

import numpy as np
import oxtensor.tensor as T
import pytest
from oxtensor.gradient import DisconnectedType, disconnected_type
from oxtensor.graph.basic import Apply, Variable
from oxtensor.graph.fg import FunctionGraph
from oxtensor.graph.op import Op
from oxtensor.graph.type import Type

from tests.helpers import check_op_contract, run_thunk

# --- Ops used below ---


class NoGrad(Op):
    __props__ = ("a", "b")

    def __init__(self, a=1, b="z"):
        self.a = a
        self.b = b

    def make_node(self, x):
        x = T.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0].copy()


class Double(Op):
    """Doubles a float64 vector; ``make_node`` comes from ``itypes``/``otypes``."""

    __props__ = ()
    itypes = (T.dvector,)
    otypes = (T.dvector,)

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        output_storage[0][0] = x * 2


class SplitSum(Op):
    """Two outputs: ``x + y`` and ``x - y``."""

    __props__ = ()

    def make_node(self, x, y):
        x, y = T.as_tensor_variable(x), T.as_tensor_variable(y)
        return Apply(self, [x, y], [x.type(), x.type()])

    def perform(self, node, inputs, output_storage):
        x, y = inputs
        output_storage[0][0] = x + y
        output_storage[1][0] = x - y


class SplitSumDefault(SplitSum):
    default_output = 1


# --- __props__ ---


def test_props_str_repr_eq_hash():
    op = NoGrad()
    assert str(op) == "NoGrad{a=1, b='z'}"
    assert repr(op) == "NoGrad(a=1,b=z)"
    assert op == NoGrad()
    assert hash(op) == hash(NoGrad())
    assert op != NoGrad(a=2)
    assert op != NoGrad(b="y")
    assert op._props() == (1, "z")
    assert op._props_dict() == {"a": 1, "b": "z"}


def test_empty_props():
    class MyOp(Op):
        __props__ = ()

    assert str(MyOp()) == "MyOp"
    assert repr(MyOp()) == "MyOp()"
    assert MyOp() == MyOp()
    assert hash(MyOp()) == hash(MyOp())
    assert len({MyOp(), MyOp()}) == 1


def test_props_of_different_classes_differ():
    class A(Op):
        __props__ = ()

    class B(Op):
        __props__ = ()

    assert A() != B()


def test_without_props_ops_compare_by_identity():
    class Plain(Op):
        pass

    a, b = Plain(), Plain()
    assert a == a
    assert hash(a) == hash(a)
    assert a != b
    assert len({a, b}) == 2
    assert str(a) == "Plain"


@pytest.mark.parametrize("props", [["a"], "a", None, {"a": 1}])
def test_props_must_be_a_tuple(props):
    with pytest.raises(TypeError, match="__props__ has to be a tuple"):
        type("Bad", (Op,), {"__props__": props})


@pytest.mark.parametrize("props", [(1,), ("a", 2), (None,)])
def test_props_elements_must_be_strings(props):
    with pytest.raises(TypeError, match="elements of __props__ have to be strings"):
        type("Bad", (Op,), {"__props__": props})


def test_prop_that_is_not_an_attribute():
    class Missing(Op):
        __props__ = ("nope",)

    op = Missing()
    for use in (str, repr, hash, lambda o: o == Missing()):
        with pytest.raises(TypeError, match="Missing lists 'nope' in __props__"):
            use(op)


def test_body_defined_eq_hash_str_win():
    class Custom(Op):
        __props__ = ("a",)

        def __init__(self, a):
            self.a = a

        def __eq__(self, other):
            return isinstance(other, Custom)

        def __hash__(self):
            return 7

        def __str__(self):
            return "custom!"

    assert Custom(1) == Custom(2)
    assert hash(Custom(1)) == 7
    assert str(Custom(1)) == "custom!"


def test_generated_str_overrides_an_inherited_one():
    # PyTensor's quirk (marked FIXME there): a class that lists props gets the
    # generated __str__ even when a base class defines one.
    class Base(Op):
        def __str__(self):
            return "base"

    class WithProps(Base):
        __props__ = ("a",)

        def __init__(self, a):
            self.a = a

    class WithoutProps(Base):
        pass

    assert str(WithProps(3)) == "WithProps{a=3}"
    assert str(WithoutProps()) == "base"


def test_props_values_use_repr_in_str_and_str_in_repr():
    op = NoGrad(a=(1, 2), b=1.5)
    assert str(op) == "NoGrad{a=(1, 2), b=1.5}"
    assert repr(op) == "NoGrad(a=(1, 2),b=1.5)"


def test_unhashable_prop_raises_on_hash():
    with pytest.raises(TypeError, match="unhashable"):
        hash(NoGrad(a=[1, 2]))


# --- make_node from itypes/otypes ---


def test_make_node_from_itypes():
    x = T.dvector("x")
    node = Double().make_node(x)
    assert isinstance(node, Apply)
    assert node.inputs == [x]
    assert node.outputs[0].type == T.dvector
    assert node.outputs[0].owner is node


def test_make_node_wrong_number_of_inputs():
    with pytest.raises(ValueError, match=r"^We expected 1 inputs but got 2\.$"):
        Double().make_node(T.dvector(), T.dvector())
    with pytest.raises(ValueError, match=r"^We expected 1 inputs but got 0\.$"):
        Double()()


def test_make_node_wrong_input_type():
    with pytest.raises(TypeError) as info:
        Double()(T.fvector())
    assert str(info.value) == (
        "Invalid input types for Op Double:\n"
        " Input 1/1: Expected Vector(float64, shape=(?,)), "
        "got Vector(float32, shape=(?,))"
    )


def test_make_node_more_specific_input_is_accepted():
    x = T.tensor(dtype="float64", shape=(3,))
    assert Double()(x).type == T.dvector


def test_make_node_without_itypes_or_make_node():
    class Nothing(Op):
        pass

    with pytest.raises(NotImplementedError, match="must define make_node"):
        Nothing()(T.dvector())


def test_make_node_rebuilds_equivalent_node():
    check_op_contract(Double(), [T.dvector("x")], [np.arange(3.0)], [[0.0, 2.0, 4.0]])
    check_op_contract(NoGrad(), [T.dmatrix()], [np.ones((2, 2))], [np.ones((2, 2))])
    check_op_contract(
        SplitSum(),
        [T.dvector(), T.dvector()],
        [np.ones(2), np.ones(2)],
        [[2, 2], [0, 0]],
    )
    check_op_contract(SplitSumDefault(), [T.dvector(), T.dvector()])


def test_builtin_ops_satisfy_the_contract():
    x, y = T.dvector("x"), T.dvector("y")
    for op, inputs in [
        (T.add, [x, y]),
        (T.exp, [x]),
        (T.DimShuffle(input_ndim=1, new_order=("x", 0)), [x]),
        (T.Sum(axis=None), [x]),
    ]:
        check_op_contract(op, inputs)


# --- __call__ ---


def test_call_single_output():
    x = T.dvector()
    out = Double()(x)
    assert isinstance(out, Variable)
    assert out.owner.op == Double()
    assert Double()(x, return_list=True)[0].type == T.dvector


def test_call_multiple_outputs_without_default():
    x, y = T.dvector(), T.dvector()
    outs = SplitSum()(x, y)
    assert isinstance(outs, list)
    assert len(outs) == 2
    assert outs[0].owner is outs[1].owner
    assert outs[0].index == 0
    assert outs[1].index == 1


def test_call_default_output():
    x, y = T.dvector(), T.dvector()
    out = SplitSumDefault()(x, y)
    assert isinstance(out, Variable)
    assert out.index == 1
    assert out.owner.default_output() is out
    assert out.owner.out is out
    assert str(out) == "SplitSumDefault.out"
    assert str(out.owner.outputs[0]) == "SplitSumDefault.0"
    as_list = SplitSumDefault()(x, y, return_list=True)
    assert isinstance(as_list, list)
    assert len(as_list) == 1
    assert as_list[0].index == 1


def test_call_return_list():
    x, y = T.dvector(), T.dvector()
    outs = SplitSum()(x, y, return_list=True)
    assert isinstance(outs, list)
    assert len(outs) == 2


def test_call_name_single_output():
    assert Double()(T.dvector(), name="y").name == "y"


def test_call_name_default_output():
    a, b = SplitSumDefault().make_node(T.dvector(), T.dvector()).outputs
    out = SplitSumDefault()(a, b, name="s")
    assert out.name == "s"
    assert out.owner.outputs[0].name is None


def test_call_name_several_outputs():
    outs = SplitSum()(T.dvector(), T.dvector(), name="s")
    assert [o.name for o in outs] == ["s_0", "s_1"]


def test_call_forwards_other_kwargs_to_make_node():
    class Scaled(Op):
        __props__ = ()

        def make_node(self, x, *, factor=1):
            x = T.as_tensor_variable(x)
            node = Apply(self, [x], [x.type()])
            node.tag.factor = factor
            return node

        def perform(self, node, inputs, output_storage):
            output_storage[0][0] = inputs[0] * node.tag.factor

    out = Scaled()(T.dvector(), factor=3, name="o")
    assert out.owner.tag.factor == 3
    assert out.name == "o"


def test_apply_default_output_errors():
    node = SplitSum().make_node(T.dvector(), T.dvector())
    with pytest.raises(ValueError, match=r"Multi-output Op SplitSum default_output"):
        node.default_output()


# --- thunks and perform ---


def test_make_thunk_runs_perform_on_cells():
    x = T.dvector("x")
    node = Double().make_node(x)
    out = node.outputs[0]
    storage_map = {x: [np.array([1.0, 2.0])], out: [None]}
    compute_map = {x: [True], out: [False]}
    thunk = Double().make_thunk(node, storage_map, compute_map, [])
    assert callable(thunk)
    assert compute_map[out][0] is False
    assert thunk() is None
    np.testing.assert_array_equal(storage_map[out][0], [2.0, 4.0])
    assert compute_map[out][0]

    # The cells are shared: a new input value is seen by the next call.
    storage_map[x][0] = np.array([5.0])
    thunk()
    np.testing.assert_array_equal(storage_map[out][0], [10.0])


def test_make_py_thunk_attributes():
    x = T.dvector("x")
    node = Double().make_node(x)
    out = node.outputs[0]
    storage_map = {x: [np.ones(2)], out: [None]}
    thunk = Double().make_py_thunk(node, storage_map, {x: [True], out: [False]}, [])
    assert thunk.inputs == [storage_map[x]]
    assert thunk.inputs[0] is storage_map[x]
    assert thunk.outputs[0] is storage_map[out]
    assert thunk.lazy is False
    assert thunk.perform.__func__ is Double.perform
    thunk()
    np.testing.assert_array_equal(storage_map[out][0], [2.0, 2.0])


def test_make_py_thunk_without_compute_map():
    x = T.dvector("x")
    node = Double().make_node(x)
    storage_map = {x: [np.ones(2)], node.outputs[0]: [None]}
    thunk = Double().make_py_thunk(node, storage_map, None, [])
    thunk()
    np.testing.assert_array_equal(storage_map[node.outputs[0]][0], [2.0, 2.0])


def test_perform_receives_node_values_and_cells():
    seen = {}

    class Spy(Op):
        __props__ = ()

        def make_node(self, x):
            return Apply(self, [x], [x.type(), x.type()])

        def perform(self, node, inputs, output_storage):
            seen["node"] = node
            seen["inputs"] = inputs
            seen["cells"] = [list(c) for c in output_storage]
            assert all(len(c) == 1 for c in output_storage)
            output_storage[0][0] = inputs[0] + 1
            output_storage[1][0] = inputs[0] - 1

    x = T.dvector()
    node = Spy().make_node(x)
    previous = np.zeros(1)
    storage_map = {
        x: [np.ones(1)],
        node.outputs[0]: [previous],
        node.outputs[1]: [None],
    }
    compute_map = {v: [False] for v in storage_map}
    Spy().make_thunk(node, storage_map, compute_map, [])()
    assert seen["node"] is node
    assert isinstance(seen["inputs"], list)
    np.testing.assert_array_equal(seen["inputs"][0], [1.0])
    # A cell may already hold a value from an earlier call.
    assert seen["cells"][0][0] is previous
    assert seen["cells"][1] == [None]
    np.testing.assert_array_equal(storage_map[node.outputs[1]][0], [0.0])
    assert all(compute_map[o][0] for o in node.outputs)


def test_make_thunk_calls_prepare_node():
    calls = []

    class Prepared(Double):
        def prepare_node(self, node, storage_map, compute_map, impl):
            calls.append(impl)

    x = T.dvector()
    node = Prepared().make_node(x)
    run_thunk(node, [np.ones(1)])
    assert calls == ["py"]


def test_user_make_thunk_is_used():
    class OwnThunk(Op):
        __props__ = ()
        itypes = (T.dscalar,)
        otypes = (T.dscalar,)

        def make_thunk(self, node, storage_map, compute_map, no_recycling, impl=None):
            inp, out = storage_map[node.inputs[0]], storage_map[node.outputs[0]]
            done = compute_map[node.outputs[0]]

            def thunk():
                out[0] = np.asarray(inp[0] + 100.0)
                done[0] = True

            return thunk

    node = OwnThunk().make_node(T.dscalar())
    assert run_thunk(node, [np.asarray(1.0)]) == [101.0]


def test_debug_perform_is_used_by_debug_thunks():
    class Debugged(Double):
        def debug_perform(self, node, inputs, output_storage):
            output_storage[0][0] = inputs[0] * 0 - 1

    x = T.dvector()
    node = Debugged().make_node(x)
    storage_map = {x: [np.ones(2)], node.outputs[0]: [None]}
    Debugged().make_py_thunk(node, storage_map, None, [], debug=True)()
    np.testing.assert_array_equal(storage_map[node.outputs[0]][0], [-1.0, -1.0])
    Debugged().make_py_thunk(node, storage_map, None, [])()
    np.testing.assert_array_equal(storage_map[node.outputs[0]][0], [2.0, 2.0])


def test_perform_errors_propagate():
    class Failing(Double):
        def perform(self, node, inputs, output_storage):
            raise ZeroDivisionError("boom")

    node = Failing().make_node(T.dvector())
    with pytest.raises(ZeroDivisionError, match="boom"):
        run_thunk(node, [np.ones(1)])


def test_op_without_perform_cannot_make_a_thunk():
    class NoPerform(Op):
        __props__ = ()
        itypes = (T.dscalar,)
        otypes = (T.dscalar,)

    node = NoPerform().make_node(T.dscalar())
    with pytest.raises(NotImplementedError, match="NoPerform"):
        run_thunk(node, [np.asarray(1.0)])


# --- defaults and plain optional methods ---


def test_defaults():
    op = Double()
    assert op.default_output is None
    assert op.view_map == {}
    assert op.destroy_map == {}
    assert op.do_constant_folding(None, None) is True
    assert op.inplace_on_inputs([0]) is op


def test_defaults_are_not_shared_mutable_state():
    # Ops that set maps on an instance do not change other ops.
    op = Double()
    op.view_map = {0: [0]}
    assert Double().view_map == {}
    assert NoGrad().view_map == {}


def test_optional_methods_are_plain_methods():
    class Full(Op):
        __props__ = ()
        itypes = (T.dvector, T.dscalar)
        otypes = (T.dvector,)

        def perform(self, node, inputs, output_storage):
            output_storage[0][0] = inputs[0] * inputs[1]

        def connection_pattern(self, node):
            return [[True], [False]]

        def infer_shape(self, fgraph, node, shapes):
            return [shapes[0]]

        def flops(self, inputs, outputs):
            return int(np.prod(inputs[0]))

        def do_constant_folding(self, fgraph, node):
            return False

    op = Full()
    node = op.make_node(T.dvector(), T.dscalar())
    assert op.connection_pattern(node) == [[True], [False]]
    assert op.infer_shape(None, node, [(3,), ()]) == [(3,)]
    assert op.flops([(4,), ()], [(4,)]) == 4
    assert op.do_constant_folding(None, node) is False
    fg = FunctionGraph(node.inputs, node.outputs, clone=False)
    assert op.do_constant_folding(fg, node) is False


def test_view_and_destroy_maps_from_the_seeds():
    class Viewing(SplitSum):
        view_map = {0: [0], 1: [1]}  # noqa: RUF012

    class Destroying(SplitSum):
        destroy_map = {0: [0, 1]}  # noqa: RUF012 (legal for destroy_map)

    for cls in (Viewing, Destroying):
        x, y = T.dvector("x"), T.dvector("y")
        outs = cls()(x, y)
        fg = FunctionGraph([x, y], outs, clone=False)
        assert len(fg.apply_nodes) == 1


def test_view_map_on_several_inputs_is_refused():
    class TwoViews(SplitSum):
        view_map = {0: [0, 1]}  # noqa: RUF012 (the seeds: NOT SUPPORTED YET)

    x, y = T.dvector("x"), T.dvector("y")
    outs = TwoViews()(x, y)
    with pytest.raises(ValueError, match="an output may view exactly one input"):
        FunctionGraph([x, y], outs, clone=False)


def test_map_with_bad_index_is_refused():
    class BadMap(Double):
        destroy_map = {0: [3]}  # noqa: RUF012

    x = T.dvector("x")
    with pytest.raises(ValueError, match="destroy_map of BadMap refers to output 0"):
        FunctionGraph([x], [BadMap()(x)], clone=False)


# --- gradients: grad / L_op / pullback, R_op / pushforward ---


def test_no_gradient_method_raises_not_implemented():
    op = Double()
    x = T.dvector()
    (out,) = op(x, return_list=True)
    g = T.dvector()
    with pytest.raises(NotImplementedError, match="Double"):
        op.grad([x], [g])
    with pytest.raises(NotImplementedError, match="Double"):
        op.L_op([x], [out], [g])
    with pytest.raises(
        NotImplementedError, match="pullback not implemented for Double"
    ):
        op.pullback([x], [out], [g])
    with pytest.raises(NotImplementedError, match="Double"):
        op.R_op([x], [g])
    with pytest.raises(
        NotImplementedError, match="pushforward not implemented for Double"
    ):
        op.pushforward([x], [out], [g])


class GradOnly(Double):
    def grad(self, inputs, output_grads):
        return [output_grads[0] * 2]


class LOpOnly(Double):
    def L_op(self, inputs, outputs, output_grads):
        assert outputs[0].owner.op == self
        return [output_grads[0] * 2]


class PullbackOnly(Double):
    def pullback(self, inputs, outputs, cotangents):
        assert outputs[0].owner.op == self
        return [cotangents[0] * 2]


@pytest.mark.parametrize("cls", [GradOnly, LOpOnly, PullbackOnly])
def test_vjp_methods_dispatch_to_each_other(cls):
    op = cls()
    x, g = T.dvector("x"), T.dvector("g")
    out = op(x)
    for result in (
        op.grad([x], [g]),
        op.L_op([x], [out], [g]),
        op.pullback([x], [out], [g]),
    ):
        assert len(result) == 1
        assert result[0].owner.op == T.mul
        assert result[0].owner.inputs[0] is g


class ROpOnly(Double):
    def R_op(self, inputs, eval_points):
        return [None if p is None else p * 2 for p in eval_points]


class PushforwardOnly(Double):
    def pushforward(self, inputs, outputs, tangents):
        return [
            disconnected_type() if isinstance(t.type, DisconnectedType) else t * 2
            for t in tangents
        ]


@pytest.mark.parametrize("cls", [ROpOnly, PushforwardOnly])
def test_jvp_methods_dispatch_to_each_other(cls):
    op = cls()
    x, v = T.dvector("x"), T.dvector("v")
    out = op(x)
    (r,) = op.R_op([x], [v])
    (p,) = op.pushforward([x], [out], [v])
    for result in (r, p):
        assert result.owner.op == T.mul
        assert result.owner.inputs[0] is v


@pytest.mark.parametrize("cls", [ROpOnly, PushforwardOnly])
def test_jvp_none_and_disconnected_correspond(cls):
    op = cls()
    x = T.dvector("x")
    out = op(x)
    assert op.R_op([x], [None]) == [None]
    (p,) = op.pushforward([x], [out], [disconnected_type()])
    assert isinstance(p.type, DisconnectedType)


def test_grad_returning_null_type_for_undefined_inputs():
    from oxtensor.gradient import grad_not_implemented, grad_undefined
    from oxtensor.graph.null_type import NullType

    class ArgLike(Op):
        __props__ = ()
        itypes = (T.dvector, T.lscalar)
        otypes = (T.lscalar,)

        def perform(self, node, inputs, output_storage):
            output_storage[0][0] = np.asarray(np.argmax(inputs[0]))

        def grad(self, inputs, output_grads):
            return [
                grad_not_implemented(self, 0, inputs[0]),
                grad_undefined(self, 1, inputs[1]),
            ]

    x, axis = T.dvector("x"), T.lscalar("axis")
    gx, gaxis = ArgLike().grad([x, axis], [T.dscalar()])
    assert isinstance(gx.type, NullType)
    assert isinstance(gaxis.type, NullType)
    assert "not implemented" in gx.type.why_null
    assert "mathematically undefined" in gaxis.type.why_null
    assert "ArgLike" in gaxis.type.why_null


# --- a user-defined Type (the seeds' `double`) ---


class DoubleType(Type):
    """The seeds' ``double`` type: Python floats."""

    def filter(self, x, strict=False, allow_downcast=None):
        if strict:
            if isinstance(x, float):
                return x
            raise TypeError("Expected a float!")
        if allow_downcast:
            return float(x)
        x_float = float(x)
        if x_float == x:
            return x_float
        raise TypeError(f"The double type cannot accurately represent value {x}")

    def values_eq_approx(self, x, y, tolerance=1e-4):
        return abs(x - y) / (abs(x) + abs(y)) < tolerance

    def __eq__(self, other):
        return type(self) is type(other)

    def __hash__(self):
        return hash(type(self))

    def __str__(self):
        return "double"


double = DoubleType()


class BinaryDoubleOp(Op):
    __props__ = ("name", "fn")

    def __init__(self, name, fn):
        self.name = name
        self.fn = fn

    def make_node(self, x, y):
        if isinstance(x, int | float):
            x = double.make_constant(x)
        if isinstance(y, int | float):
            y = double.make_constant(y)
        if x.type != double or y.type != double:
            raise TypeError(f"{self.name} only works on doubles")
        return Apply(self, [x, y], [double()])

    def perform(self, node, inp, out):
        x, y = inp
        out[0][0] = self.fn(x, y)

    def __str__(self):
        return self.name


def _add(x, y):
    return x + y


def _mul(x, y):
    return x * y


add = BinaryDoubleOp("add", _add)
mul = BinaryDoubleOp("mul", _mul)


def test_double_type_filter():
    assert double.filter(3) == 3.0
    assert isinstance(double.filter(3), float)
    assert double.filter(2.5, strict=True) == 2.5
    with pytest.raises(TypeError, match="Expected a float!"):
        double.filter(3, strict=True)
    with pytest.raises(TypeError, match="cannot accurately represent"):
        double.filter(2**60 + 1)
    assert double.filter("7", allow_downcast=True) == 7.0
    assert double.is_valid_value(2.0)
    assert not double.is_valid_value(2)  # strict by default
    assert double.is_valid_value(2, strict=False)
    assert double.values_eq_approx(1.0, 1.00001)
    assert not double.values_eq_approx(1.0, 1.1)
    assert double.values_eq(1.0, 1.0)
    assert str(double) == "double"
    assert double == DoubleType()
    assert hash(double) == hash(DoubleType())


def test_double_type_makes_variables_and_constants():
    x = double("x")
    assert type(x) is Variable
    assert x.type is double
    assert x.name == "x"
    assert x.owner is None
    assert repr(double()) == "<double>"
    c = double.make_constant(3)
    assert c.data == 3.0
    assert isinstance(c.data, float)
    assert c.type is double
    assert double.filter_variable(x) is x
    assert double.filter_variable(2).data == 2.0
    with pytest.raises(TypeError, match="Cannot convert Type Scalar"):
        double.filter_variable(T.dscalar("s"))


def test_double_type_in_graphs_and_function_graphs():
    x, y, z = double("x"), double("y"), double("z")
    a = add(x, y)
    b = mul(a, z)
    assert str(a) == "add.0"
    assert b.owner.inputs == [a, z]
    assert a.type is double

    fg = FunctionGraph([x, y, z], [b], clone=False)
    assert fg.toposort() == [a.owner, b.owner]
    assert fg.clients[a] == [(b.owner, 0)]
    assert fg.clients[b] == [("output", 0)]
    assert str(fg) == "FunctionGraph(mul(add(x, y), z))"

    w = double("w")
    fg.replace(a, w, import_missing=True)
    assert b.owner.inputs[0] is w
    assert w in fg.inputs

    # clone=False changed the user's graph: b now reads w.
    cloned = FunctionGraph([w, z], [b])
    assert cloned.outputs[0].type == double
    assert cloned.outputs[0] is not b


def test_double_type_constant_folds_through_perform():
    node = add.make_node(2.0, 3.5)
    assert run_thunk(node, [n.data for n in node.inputs]) == [5.5]


def test_double_type_with_tensor_type_mismatch():
    with pytest.raises(TypeError, match="only works on doubles"):
        add(double("x"), T.dscalar("y"))
    fg = FunctionGraph([x := double("x")], [add(x, 1.0)], clone=False)
    with pytest.raises(TypeError, match="Cannot convert Type Scalar"):
        fg.replace(x, T.dscalar("s"))


# --- copying and pickling ---


def test_python_ops_can_be_copied_and_pickled():
    op = NoGrad(a=3, b="q")
    for twin in (copy.copy(op), copy.deepcopy(op), pickle.loads(pickle.dumps(op))):
        assert type(twin) is NoGrad
        assert twin == op
        assert hash(twin) == hash(op)
        assert twin is not op
    assert pickle.loads(pickle.dumps(Double())) == Double()


def test_builtin_ops_copy_and_pickle_by_their_constructor_arguments():
    # More cases in tests/test_pickle.py.
    for op in (T.add, T.Sum(axis=1)):
        for twin in (copy.copy(op), pickle.loads(pickle.dumps(op))):
            assert type(twin) is type(op)
            assert twin == op


def test_ops_with_their_own_new_are_refused_with_a_clear_error():
    class Odd(Op):
        def __new__(cls, k):
            return super().__new__(cls)

    with pytest.raises(TypeError, match="the op Odd: its class defines __new__"):
        copy.copy(Odd(1))

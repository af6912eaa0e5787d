"""`Variable`, `Apply`, `Constant` (anatomy §1.2-1.4) and the graph utilities
`clone_get_equiv`, `clone_replace` and `equal_computations`."""

import copy
import pickle

import numpy as np
import oxtensor.tensor as T
import pytest
from oxtensor.graph.basic import (
    Apply,
    Constant,
    Variable,
    clone_get_equiv,
    equal_computations,
)
from oxtensor.graph.replace import clone_replace
from oxtensor.graph.utils import Scratchpad

from tests.graph.utils import MyOp, MyType, MyVariable
from tests.helpers import assert_equal_computations

# --- Variable ---


def test_variable_fields():
    ty = MyType(1)
    v = Variable(ty, None, None, "v")
    assert v.type is ty
    assert v.owner is None
    assert v.index is None
    assert v.name == "v"
    assert isinstance(v.tag, Scratchpad)
    assert v.get_parents() == []
    assert v.owner_op is None


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"owner": 3}, "owner must be an Apply instance"),
        ({"index": "a"}, "index must be an int"),
        ({"name": 3}, "name must be a string"),
    ],
)
def test_variable_argument_checks(kwargs, match):
    with pytest.raises(TypeError, match=match):
        Variable(MyType(1), **kwargs)


def test_variable_name_setter_checks():
    v = MyVariable(1)
    v.name = "ok"
    assert v.name == "ok"
    with pytest.raises(TypeError, match="name must be a string"):
        v.name = 5
    v.name = None
    assert v.name is None


def test_variables_compare_by_identity():
    a, b = MyVariable(1), MyVariable(1)
    assert a != b
    assert a == a
    assert len({a, b}) == 2
    x = T.dscalar("x")
    # `==` is not overloaded on tensors either.
    assert (x == x) is True
    assert (x == T.dscalar("x")) is False


def test_bool_of_a_variable_raises():
    with pytest.raises(TypeError, match="Variables do not support boolean operations"):
        bool(MyVariable(1))
    with pytest.raises(TypeError):
        bool(T.dscalar() < 1)


def test_str_and_repr():
    x = T.dscalar("x")
    assert str(x) == repr(x) == "x"
    assert str(T.dscalar()) == "<Scalar(float64, shape=())>"
    assert str(MyVariable(3)) == "<R3>"
    y = T.exp(x)
    assert str(y) == repr(y) == "Exp.0"
    y.name = "y"
    assert str(y) == "y"


def test_auto_name_counter_is_shared():
    a = MyVariable(1)
    b = T.constant(1.5)
    c = a.clone()
    d = T.dscalar()
    ids = [int(v.auto_name.removeprefix("auto_")) for v in (a, b, c, d)]
    assert ids == sorted(ids)
    assert len(set(ids)) == 4
    assert ids[-1] - ids[0] == 3


def _auto_number(v):
    return int(v.auto_name.removeprefix("auto_"))


def test_auto_names_are_consecutive():
    # PyTensor's TestAutoName: constants, tensor variables built every way
    # and clones each take the next number.
    made = [
        T.constant(1.5),
        T.constant(1.6),
        T.TensorType(dtype="int32", shape=())("myvar"),
        T.TensorVariable(T.TensorType(dtype="int32", shape=()), None),
        MyVariable(1),
    ]
    made.append(made[-1].clone())
    numbers = [_auto_number(v) for v in made]
    assert numbers == list(range(numbers[0], numbers[0] + len(made)))


def test_auto_names_come_from_variable_count():
    # PyTensor's tests restart the numbering: `Variable.__count__ = count(n)`.
    from itertools import count

    from oxtensor.graph.basic import Variable

    ours = Variable.__count__
    try:
        Variable.__count__ = count(10_000_000)
        assert MyVariable(1).auto_name == "auto_10000000"
        assert T.constant(2.5).auto_name == "auto_10000001"
    finally:
        Variable.__count__ = ours
    later = next(Variable.__count__)
    assert _auto_number(MyVariable(1)) == later + 1


def test_clone():
    x = T.dscalar("x")
    x.tag.note = "kept"
    c = x.clone()
    assert c is not x
    assert type(c) is type(x)
    assert c.type == x.type
    assert c.name == "x"
    assert c.owner is None
    assert c.tag is not x.tag
    assert c.tag.note == "kept"
    assert x.clone(name="renamed").name == "renamed"
    y = T.exp(x)
    assert y.clone().owner is None
    assert y.clone().type == y.type


def test_owner_and_index_setters():
    x = T.dscalar("x")
    y = T.exp(x)
    v = T.dscalar()
    v.owner = y.owner
    v.index = 0
    assert v.owner is y.owner
    with pytest.raises(TypeError, match="owner must be an Apply instance"):
        v.owner = "node"
    v.owner = None
    assert v.owner is None


def test_tag_is_a_scratchpad():
    x = T.dscalar()
    # A variable a type makes records where (`traceback__limit` frames).
    assert isinstance(x.tag.trace, list)
    del x.tag.trace
    x.tag.a = 1
    x.tag.__update__({"b": 2})
    assert (x.tag.a, x.tag.b) == (1, 2)
    assert repr(x.tag) == "scratchpad{'a': 1, 'b': 2}"
    pad = pickle.loads(pickle.dumps(x.tag))
    assert (pad.a, pad.b) == (1, 2)
    assert copy.copy(x.tag).a == 1


def test_tag_info(capsys):
    x = T.dscalar()
    # A variable a type makes records where (`traceback__limit` frames).
    assert isinstance(x.tag.trace, list)
    del x.tag.trace
    x.tag.a = 1
    x.tag.info()
    out = capsys.readouterr().out
    assert "scratchpad instance" in out
    assert "  a: 1" in out


# --- Apply ---


def test_apply_sets_owner_and_index():
    x = T.dscalar("x")
    outs = [T.dscalar(), T.dscalar()]
    node = Apply(T.exp, [x], outs)
    assert [o.owner for o in outs] == [node, node]
    assert [o.index for o in outs] == [0, 1]
    assert node.inputs == [x]
    assert isinstance(node.inputs, list)
    assert node.nin == 1
    assert node.nout == 2


def test_apply_accepts_tuples_and_keywords():
    x = T.dscalar("x")
    node = Apply(op=T.exp, inputs=(x,), outputs=(T.dscalar(),))
    assert node.inputs == [x]
    assert isinstance(node.outputs, list)


def test_apply_refuses_outputs_of_another_node():
    x = T.dscalar("x")
    y = T.exp(x)
    with pytest.raises(ValueError, match="All output variables passed to Apply must"):
        Apply(T.exp, [x], [y])


@pytest.mark.parametrize(
    ("inputs", "outputs", "match"),
    [
        ([3], [], r"inputs\[0\] is 3 of type int"),
        ([], ["y"], r"outputs\[0\] is 'y' of type str"),
        (None, [], "must be a list or tuple, got None"),
        ([], 5, "must be a list or tuple, got 5"),
    ],
)
def test_apply_argument_checks(inputs, outputs, match):
    with pytest.raises(TypeError, match=match):
        Apply(T.exp, inputs, outputs)


def test_apply_str_and_default_output():
    x = T.dvector("x")
    y = x + 2.0
    node = y.owner
    assert str(node) == repr(node) == "Add(x, ExpandDims{axis=0}.0)"
    assert node.default_output() is y
    assert node.out is y
    assert node.get_parents() == node.inputs


def test_apply_clone():
    x = T.dscalar("x")
    y = T.exp(x)
    node = y.owner
    node.tag.note = "n"
    new = node.clone()
    assert new is not node
    assert new.op is node.op
    assert new.inputs[0] is x
    assert new.outputs[0] is not y
    assert new.outputs[0].owner is new
    assert new.outputs[0].type == y.type
    assert new.tag.note == "n"
    assert node.clone(clone_inner_graph=True).op is node.op


def test_clone_with_new_inputs_same_types():
    x, y = T.dscalars("x", "y")
    out = x + y
    w = T.dscalar("w")
    new = out.owner.clone_with_new_inputs([w, y])
    assert new.inputs == [w, y]
    assert new.op is out.owner.op
    assert new.outputs[0] is not out


def test_clone_with_new_inputs_reinfers_types():
    # PyTensor's test_clone_new_inputs: a more specific input re-infers the output.
    x = T.tensor(dtype=np.float64, shape=(None,))
    y = T.tensor(dtype=np.float64, shape=(1,))
    z = T.add(x, y)
    assert z.type.shape == (None,)
    x_new = T.tensor(dtype=np.float64, shape=(1,))
    z_node_new = z.owner.clone_with_new_inputs([x_new, y])
    assert z_node_new.outputs[0].type.shape == (1,)
    assert z_node_new.inputs[0].type.shape == (1,)
    assert z_node_new.inputs[1].type.shape == (1,)


def test_clone_with_new_inputs_less_specific_input_under_strict():
    x = T.tensor(dtype=np.float64, shape=(None,))
    x_new = T.tensor(dtype=np.float64, shape=(1,))
    y = T.tensor(dtype=np.float64, shape=(1,))
    z = T.add(x_new, y)
    z_node_new = z.owner.clone_with_new_inputs([x, y], strict=True)
    assert z_node_new.outputs[0].type.shape == (1,)
    assert z_node_new.inputs[0].type.shape == (1,)


def test_clone_with_new_inputs_errors():
    x = T.tensor(dtype="float64", shape=(1,))
    z = T.exp(x)
    with pytest.raises(TypeError, match="Cannot convert Type Vector"):
        z.owner.clone_with_new_inputs([T.fvector()])
    with pytest.raises(ValueError, match="has 1 inputs, got 2 new ones"):
        z.owner.clone_with_new_inputs([x, x])
    # strict=False rebuilds the node with make_node.
    assert (
        z.owner.clone_with_new_inputs([T.fvector()], strict=False).outputs[0].type
        == T.fvector
    )


# --- Constant ---


def test_constant_basics():
    c = Constant(T.dscalar, 2, name="k")
    assert c.data == 2.0
    assert c.data.dtype == np.float64
    assert c.value is c.data
    assert c.owner is None
    assert c.clone() is c
    assert str(c) == "k{2.0}"
    assert c.signature() == (T.dscalar, c.data)


def test_constant_filters_its_data():
    with pytest.raises(TypeError, match="cannot store a value of type object"):
        Constant(T.dscalar, object())
    with pytest.raises(ValueError, match="could not convert string to float"):
        Constant(T.dscalar, "a")


def test_constants_equal_by_signature_not_by_eq():
    a, b = T.constant([1.0, 2.0]), T.constant([1.0, 2.0])
    assert a != b
    assert a.equals(b)
    assert a.signature() == b.signature()
    assert hash(a.signature()) == hash(b.signature())
    assert not a.equals(T.constant([1.0, 3.0]))
    assert not a.equals(T.constant([1.0, 2.0, 3.0]))
    assert T.constant(np.nan).equals(T.constant(np.nan))
    assert T.constant(1.5).equals(1.5)
    assert T.constant(np.arange(3)).equals(np.arange(3))


def test_constant_str():
    assert str(T.constant(2.5)) == "2.5"
    assert str(T.constant(2.5, name="c")) == "c{2.5}"
    assert str(T.constant(np.arange(30.0))) == "[ 0.  1. ... . 28. 29.]"
    assert str(T.constant(np.ones((2, 2)))) == "[[1. 1.] [1. 1.]]"
    assert repr(T.constant(3)) == (
        "TensorConstant(TensorType(int8, shape=()), data=array(3, dtype=int8))"
    )


def test_constant_cannot_get_an_owner():
    c = T.constant(1.0)
    with pytest.raises(ValueError, match="cannot have an owner"):
        c.owner = T.exp(T.dscalar()).owner


def test_tensor_constant_gets_the_full_static_shape():
    c = T.TensorConstant(T.dvector, np.ones(3))
    assert c.type == T.TensorType("float64", (3,))
    with pytest.raises(TypeError, match="not compatible"):
        T.TensorConstant(T.TensorType("float64", (2,)), np.ones(3))


# --- clone_get_equiv and clone_replace ---


def test_clone_get_equiv_memo():
    # PyTensor's test_clone_get_equiv.
    x, y, z = T.vector("x"), T.vector("y"), T.vector("z")
    a = x * y
    a_node = a.owner
    b = a + 1.0
    memo = {a: z}
    _ = clone_get_equiv([x, y], [b], copy_inputs=False, copy_orphans=False, memo=memo)
    assert x in memo
    assert y in memo
    assert memo[a] is z
    assert a_node not in memo
    assert_equal_computations([memo[b]], [z + 1.0])


def test_clone_get_equiv_copies():
    x = T.dscalar("x")
    c = T.constant(2.0)
    out = T.exp(x) * c
    equiv = clone_get_equiv([x], [out])
    assert equiv[x] is not x
    assert equiv[x].name == "x"
    assert equiv[out] is not out
    assert equiv[out.owner].outputs[0] is equiv[out]
    assert equiv[c] is c  # constants clone to themselves
    assert_equal_computations([equiv[out]], [out], [equiv[x]], [x])
    kept = clone_get_equiv([x], [out], copy_inputs=False)
    assert kept[x] is x


def test_clone_replace():
    x, y = T.dvector("x"), T.dvector("y")
    out = T.exp(x) + y
    new = clone_replace(out, {x: y})
    assert new is not out
    assert new.owner.inputs[0].owner.inputs[0] is y
    assert out.owner.inputs[0].owner.inputs[0] is x  # the original is untouched
    assert_equal_computations([new], [T.exp(y) + y])


def test_clone_replace_forms():
    x, z = T.dvector("x"), T.dvector("z")
    out = x * 2.0
    assert isinstance(clone_replace([out, x], {x: z}), list)
    assert isinstance(clone_replace((out,), [(x, z)]), tuple)
    assert clone_replace(out, None) is not out
    assert_equal_computations([clone_replace(out)], [out])


def test_clone_replace_type_checks():
    x = T.dvector("x")
    out = x * 2.0
    with pytest.raises(TypeError, match="Cannot convert Type Matrix"):
        clone_replace(out, {x: T.dmatrix()})
    specific = clone_replace(out, {x: T.tensor(dtype="float64", shape=(3,))})
    assert specific.type.shape == (3,)


# --- equal_computations ---


def test_equal_computations_pytensor_cases():
    a, b = T.iscalars(2)
    with pytest.raises(ValueError, match="The number of graphs/inputs doesn't match"):
        equal_computations([a], [a, b])
    assert equal_computations([a], [a])
    assert equal_computations([T.as_tensor(1)], [T.as_tensor(1)])
    assert not equal_computations([b], [a])
    assert not equal_computations([T.as_tensor(1)], [T.as_tensor(2)])

    assert equal_computations([2], [2])
    assert equal_computations([np.r_[2, 1]], [np.r_[2, 1]])
    assert equal_computations([np.r_[2, 1]], [T.as_tensor(np.r_[2, 1])])
    assert equal_computations([T.as_tensor(np.r_[2, 1])], [np.r_[2, 1]])

    assert not equal_computations([2], [a])
    assert not equal_computations([np.r_[2, 1]], [a])
    assert not equal_computations([a], [2])
    assert not equal_computations([a], [np.r_[2, 1]])


def test_equal_computations_structure():
    a, b = T.iscalars("a", "b")
    c, d = T.iscalars("c", "d")
    assert equal_computations([a + b], [a + b])
    assert not equal_computations([a + b], [b + a])
    assert not equal_computations([a + b], [a * b])
    assert equal_computations([a + b], [c + d], [a, b], [c, d])
    assert not equal_computations([a + b], [c + d], [a, b], [d, c])
    assert not equal_computations([a + 1], [a + 1.0])
    assert not equal_computations([T.exp(T.dvector())], [T.exp(T.fvector())])
    assert equal_computations([a + 1, a], [a + 1, a])
    assert not equal_computations([a + 1, a], [a + 1, b])


def test_assert_equal_computations_prints_both_graphs():
    x = T.dscalar("x")
    with pytest.raises(AssertionError) as info:
        assert_equal_computations([T.exp(x)], [T.log(x)])
    text = str(info.value)
    assert "Exp [id A] <Scalar(float64, shape=())>" in text
    assert "Log [id A] <Scalar(float64, shape=())>" in text


# --- graphs of user-defined types ---


def test_my_op_graphs():
    r1, r2 = MyVariable(1), MyVariable(2)
    node = MyOp.make_node(r1, r2)
    assert node.outputs[0].type == MyType(3)
    assert str(node) == "MyOp(<R1>, <R2>)"
    out = MyOp(node.outputs[0], r1)
    assert str(out) == "MyOp.0"
    equiv = clone_get_equiv([r1, r2], [out], copy_inputs=False)
    assert equiv[out].owner.inputs[1] is r1
    assert equiv[out].owner.inputs[0] is not node.outputs[0]
    assert equal_computations([equiv[out]], [out])

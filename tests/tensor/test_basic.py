"""`constant` and `as_tensor_variable`: PyTensor's autocasting (anatomy §1.8)."""

import numpy as np
import oxtensor.scalar as ps
import oxtensor.tensor as T
import pytest
from oxtensor.graph.basic import Apply
from oxtensor.graph.op import Op
from oxtensor.tensor import TensorConstant, TensorType

from tests.helpers import TwoOutputs


@pytest.mark.parametrize(
    ("value", "dtype"),
    [
        (3, "int8"),
        (-3, "int8"),
        (127, "int8"),
        (128, "int16"),
        (-129, "int16"),
        (300, "int16"),
        (70000, "int32"),
        (2**40, "int64"),
        (2**63, "uint64"),
        (3.0, "float32"),
        (0.5, "float32"),
        (0.1, "float64"),
        (1e300, "float64"),
        (1 + 2j, "complex64"),
        (np.float32(0.1), "float32"),
        (np.int16(3), "int16"),
        (np.bool_(True), "bool"),
        ([1, 2], "int64"),
        ([1.0, 2.0], "float64"),
        (np.zeros((2, 3), dtype="uint16"), "uint16"),
    ],
)
def test_autocasting(value, dtype):
    c = T.constant(value)
    assert isinstance(c, TensorConstant)
    assert c.dtype == dtype
    assert T.as_tensor_variable(value).dtype == dtype


def test_constant_type_has_the_full_static_shape():
    assert T.constant(np.zeros((2, 3))).type == TensorType("float64", (2, 3))
    assert T.constant(5).type == TensorType("int8", ())
    assert T.constant([1, 2, 3]).type.shape == (3,)


def test_constant_data_is_read_only_and_the_callers_array_is_not():
    data = np.arange(3.0)
    c = T.constant(data)
    assert data.flags.writeable
    assert not c.data.flags.writeable
    data[0] = 10.0
    assert c.data[0] == 0.0


def test_constant_options():
    assert T.constant(3, name="c").name == "c"
    assert T.constant(3, dtype="float32").type == T.fscalar
    assert T.constant([[1, 2]], ndim=1).type == TensorType("int64", (2,))
    assert T.constant([1, 2], ndim=3).type == TensorType("int64", (1, 1, 2))
    with pytest.raises(ValueError, match="could not be cast to constant with 1"):
        T.constant(np.zeros((2, 2)), ndim=1)


def test_constant_of_a_tensor_constant():
    c = TensorConstant(TensorType("int8", (None,)), [1, 2])
    assert T.constant(c) is c
    assert T.constant(c, ndim=1, dtype="int8") is c
    x = TensorConstant(TensorType("int8", ()), np.array(2, dtype="int8"))
    y = T.constant(x, ndim=2)
    assert y.type == TensorType("int8", (1, 1))
    np.testing.assert_array_equal(y.data, np.array(2, dtype="int8")[None, None])
    z = T.constant(y, ndim=0)
    assert z.type == TensorType("int8", ())
    np.testing.assert_array_equal(z.data, x.data)
    named = T.constant(c, name="n")
    assert named is not c
    assert named.name == "n"
    np.testing.assert_array_equal(named.data, c.data)
    assert T.constant(c, dtype="int16").type == TensorType("int16", (2,))


@pytest.mark.parametrize(
    "items",
    [
        lambda: [T.as_tensor(1), T.as_tensor(2)],
        lambda: [ps.constant(1), 2],
        lambda: (1, T.constant(2)),
    ],
)
def test_sequence_of_constants_is_one_constant(items):
    a = T.as_tensor_variable(items())
    assert isinstance(a, TensorConstant)
    np.testing.assert_array_equal(a.data, [1, 2])


def test_stack_of_constants_stays_a_make_vector():
    # PyTensor's `stack` of 0-d tensors is a `MakeVector`, constants too;
    # `as_tensor_variable` of the same list is one constant.
    s = T.stack([2, 3])
    assert type(s.owner.op).__name__ == "MakeVector"
    assert s.type == TensorType("int8", (2,))
    assert s.eval().tolist() == [2, 3]
    assert isinstance(T.as_tensor_variable([T.as_tensor(2), 3]), TensorConstant)


def test_sequence_with_a_symbolic_entry_is_built():
    x = T.lscalar("x")
    a = T.as_tensor_variable([T.as_tensor(1), x])
    assert not isinstance(a, TensorConstant)
    assert a.eval({x: 5}).tolist() == [1, 5]


def test_masked_arrays_are_refused():
    masked = np.ma.masked_greater(np.array([1, 2, 3, 4]), 3)
    with pytest.raises(NotImplementedError, match="MaskedArrays are not supported"):
        T.constant(masked)


def test_bool_is_rejected():
    with pytest.raises(TypeError) as info:
        T.as_tensor_variable(True)
    message = str(info.value)
    assert message.startswith("Cannot cast True or False as a tensor variable.")
    assert "v == w does not do what you think it does" in message
    with pytest.raises(TypeError, match="Cannot cast True or False"):
        T.dvector() + False


@pytest.mark.parametrize(
    ("value", "match"),
    [
        (None, "Cannot convert None to a tensor variable"),
        ("abc", "Cannot convert 'abc' to a tensor constant"),
        (object(), "Cannot convert <object"),
        (2**64, "too large"),
    ],
)
def test_unconvertible_values(value, match):
    with pytest.raises((TypeError, ValueError), match=match):
        T.as_tensor_variable(value)


def test_symbolic_lists_become_make_vector():
    v = T.as_tensor_variable([T.dscalar(), 1.0])
    assert str(v.owner.op) == "MakeVector{dtype='float64'}"
    assert v.type.shape == (2,)


def test_tensor_variables_pass_through():
    x = T.dmatrix("x")
    assert T.as_tensor_variable(x) is x
    assert T.as_tensor(x) is x


def test_ndim_pads_or_drops_broadcastable_dims():
    x = T.dmatrix("x")
    padded = T.as_tensor_variable(x, ndim=3)
    assert padded.type == TensorType("float64", (1, None, None))
    assert str(padded.owner.op) == "ExpandDims{axis=0}"
    row = T.drow("r")
    assert T.as_tensor_variable(row, ndim=1).type == T.dvector
    with pytest.raises(ValueError, match="could not be cast to have 1 dimensions"):
        T.as_tensor_variable(x, ndim=1)


def test_apply_gives_its_default_output():
    x = T.dscalar("x")
    y = T.exp(x)
    assert T.as_tensor_variable(y.owner) is y


def test_multi_output_apply_without_default_is_refused():
    node = TwoOutputs().make_node(T.dscalar())
    with pytest.raises(TypeError, match="Multi-output Op without default_output"):
        T.as_tensor_variable(node)


@pytest.mark.parametrize(
    ("default", "n_outs", "expected"),
    [
        (0, 1, 0),
        (-1, 1, 0),
        (1, 2, 1),
        (-1, 2, 1),
        (1, 1, IndexError),
        (2.0, 1, TypeError),
    ],
)
def test_apply_default_output_index(default, n_outs, expected):
    class Outs(Op):
        default_output = default

        def make_node(self, v):
            return Apply(self, [v], [v.type() for _ in range(n_outs)])

        def perform(self, node, inputs, output_storage):
            raise NotImplementedError

    node = Outs().make_node(T.dscalar())
    if isinstance(expected, int):
        assert T.as_tensor_variable(node) is node.outputs[expected]
    else:
        with pytest.raises(expected, match="default_output"):
            T.as_tensor_variable(node)


def test_non_tensor_variable_is_refused():
    from tests.graph.utils import MyVariable

    with pytest.raises(TypeError, match="must be a TensorType, got <R1>"):
        T.as_tensor_variable(MyVariable(1))

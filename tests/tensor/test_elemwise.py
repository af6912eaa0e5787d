"""`Elemwise` dtype promotion and static broadcasting (anatomy §1.9-1.10),
`DimShuffle`, and `CAReduce` ops. Hypothesis checks promotion and
broadcasting against NumPy."""

import re

import numpy as np
import oxtensor.scalar as S
import oxtensor.tensor as T
import pytest
from hypothesis import given
from hypothesis import strategies as st
from oxtensor.tensor import DimShuffle, Elemwise, TensorType

from tests.helpers import DTYPES

DISCRETE = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32"}
DISCRETE |= {"uint64"}


def vec(dtype):
    return T.tensor(dtype=dtype, shape=(None,))


# --- dtype promotion ---


@pytest.mark.parametrize(
    ("make", "dtype"),
    [
        (lambda: T.fvector() + 3, "float32"),
        (lambda: T.fvector() + 3.0, "float32"),
        (lambda: T.fvector() + 0.1, "float64"),
        (lambda: T.iscalar() + 3.0, "float64"),
        (lambda: T.bscalar() + 3.5, "float32"),
        (lambda: T.bscalar() + 3, "int8"),
        (lambda: T.bscalar() + 300, "int16"),
        (lambda: T.iscalar() / T.iscalar(), "float64"),
        (lambda: T.bscalar() / T.bscalar(), "float64"),
        (lambda: T.iscalar() // T.iscalar(), "int32"),
        (lambda: T.iscalar() // T.bscalar(), "int32"),
    ],
)
def test_promotion_table(make, dtype):
    assert make().dtype == dtype


@pytest.mark.parametrize(
    ("a", "b", "dtype"),
    [
        ("int32", "float32", "float64"),
        ("int8", "uint8", "int16"),
        ("bool", "bool", "bool"),
        ("float32", "complex64", "complex64"),
        ("uint64", "int64", "float64"),
    ],
)
def test_upcast_examples(a, b, dtype):
    assert (vec(a) + vec(b)).dtype == dtype


@pytest.mark.parametrize(
    ("fn", "dtype_in", "dtype_out"),
    [
        (T.exp, "bool", "float32"),
        (T.exp, "int8", "float32"),
        (T.exp, "int16", "float32"),
        (T.exp, "uint8", "float32"),
        (T.exp, "uint16", "float32"),
        (T.exp, "int32", "float64"),
        (T.exp, "int64", "float64"),
        (T.exp, "float32", "float32"),
        (T.log, "float64", "float64"),
        (T.sqrt, "int8", "float32"),
    ],
)
def test_upgrade_to_float(fn, dtype_in, dtype_out):
    assert fn(vec(dtype_in)).dtype == dtype_out


def test_sub_refuses_bools():
    with pytest.raises(TypeError, match=r"sub does not accept bool inputs"):
        vec("bool") - vec("bool")


def test_bitwise_ops_refuse_floats():
    with pytest.raises(TypeError, match=r"invert does not accept float or complex"):
        ~T.dvector()
    with pytest.raises(TypeError, match=r"and_ does not accept float or complex"):
        T.dvector() & T.dvector()


@given(
    a=st.sampled_from(DTYPES),
    b=st.sampled_from(DTYPES),
    op=st.sampled_from(["add", "mul"]),
)
def test_add_mul_promote_like_numpy(a, b, op):
    out = getattr(T, op)(vec(a), vec(b))
    expected = np.result_type(np.empty(1, dtype=a), np.empty(1, dtype=b))
    assert out.dtype == str(expected)


@given(a=st.sampled_from(DTYPES), b=st.sampled_from(DTYPES))
def test_true_div_promotes_like_numpy_except_discrete(a, b):
    out = vec(a) / vec(b)
    if a in DISCRETE and b in DISCRETE:
        # PyTensor: int/int true division gives floatX.
        assert out.dtype == "float64"
    else:
        expected = np.result_type(np.empty(1, dtype=a), np.empty(1, dtype=b))
        assert out.dtype == str(expected)


# --- static broadcasting ---


def _broadcast_dim(dims):
    """PyTensor's broadcast_static_dim_lengths; `False` when incompatible."""
    known = {d for d in dims if d is not None and d != 1}
    if len(known) > 1:
        return False
    if known:
        return known.pop()
    return None if None in dims else 1


def _padded(shapes):
    ndim = max(len(s) for s in shapes)
    return [(1,) * (ndim - len(s)) + tuple(s) for s in shapes]


def _expected_shape(shapes):
    dims = [_broadcast_dim(col) for col in zip(*_padded(shapes), strict=True)]
    return None if False in dims else tuple(dims)


DIMS = st.sampled_from([1, None, 2, 3])
SHAPES = st.lists(DIMS, max_size=3).map(tuple)


@given(s1=SHAPES, s2=SHAPES)
def test_static_broadcasting_matches_the_rules(s1, s2):
    x, y = T.tensor(shape=s1), T.tensor(shape=s2)
    expected = _expected_shape([s1, s2])
    if expected is None:
        message = f"Incompatible Elemwise input shapes {_padded([s1, s2])}"
        with pytest.raises(ValueError, match=re.escape(message)):
            x + y
    else:
        assert (x + y).type.shape == expected


@given(s1=SHAPES, s2=SHAPES)
def test_static_broadcasting_agrees_with_numpy_on_known_shapes(s1, s2):
    known1 = tuple(2 if d is None else d for d in s1)
    known2 = tuple(2 if d is None else d for d in s2)
    x, y = T.tensor(shape=known1), T.tensor(shape=known2)
    try:
        want = np.broadcast_shapes(known1, known2)
    except ValueError:
        with pytest.raises(ValueError, match="Incompatible Elemwise input shapes"):
            x * y
    else:
        assert (x * y).type.shape == want


@given(shapes=st.lists(SHAPES, min_size=1, max_size=4))
def test_static_broadcasting_of_many_inputs(shapes):
    inputs = [T.tensor(shape=s) for s in shapes]
    expected = _expected_shape(shapes)
    if expected is None:
        with pytest.raises(ValueError, match="Incompatible Elemwise input shapes"):
            T.add(*inputs)
    else:
        out = T.add(*inputs)
        assert out.type.shape == expected
        # Lower-rank inputs were left-padded with an ExpandDims DimShuffle.
        for original, used in zip(inputs, out.owner.inputs, strict=True):
            assert used.ndim == len(expected)
            if original.ndim < len(expected):
                assert isinstance(used.owner.op, DimShuffle)
                assert used.owner.inputs[0] is original
            else:
                assert used is original


def test_broadcasting_error_messages():
    with pytest.raises(ValueError, match="Incompatible") as info:
        T.tensor(shape=(2,)) + T.tensor(shape=(3,))
    assert str(info.value) == "Incompatible Elemwise input shapes [(2,), (3,)]"
    with pytest.raises(ValueError, match="Incompatible") as info:
        T.add(T.tensor(shape=(2, 3)), T.tensor(shape=(3, 2)), T.dscalar())
    assert str(info.value) == (
        "Incompatible Elemwise input shapes [(2, 3), (3, 2), (1, 1)]"
    )


def test_scalar_is_expanded_with_dimshuffle():
    x = T.dvector("x")
    y = x * 2.0
    assert str(y.owner.inputs[1].owner.op) == "ExpandDims{axis=0}"
    assert y.owner.inputs[1].type == TensorType("float32", (1,))
    m = T.dmatrix("m") + 1
    assert str(m.owner.inputs[1].owner.op) == "ExpandDims{axes=(0, 1)}"


# --- the Elemwise op ---


def test_elemwise_identity():
    assert Elemwise(S.add) == T.add
    assert hash(Elemwise(S.add)) == hash(T.add)
    assert Elemwise(S.add) != T.mul
    assert str(T.add) == "Add"
    assert repr(T.add) == "Elemwise(scalar_op=add,inplace_pattern={})"
    assert str(Elemwise(S.add, name="plus")) == "plus"
    assert T.add.scalar_op == S.add
    assert T.add.destroy_map == {}
    assert T.add.view_map == {}


def test_elemwise_wrong_arity():
    with pytest.raises(TypeError, match=r"Wrong number of inputs for exp.make_node"):
        T.exp(T.dvector(), T.dvector())
    with pytest.raises(TypeError, match="add needs at least one input"):
        T.add()


def test_elemwise_wraps_raw_inputs():
    out = T.add(T.dvector("x"), [1.0, 2.0])
    assert out.type == TensorType("float64", (2,))
    with pytest.raises(TypeError, match="Cannot convert 'a'"):
        T.add(T.dvector(), "a")


def test_comparisons_give_bool():
    x = T.dvector()
    for out in (x < 1, x <= 1, x > 1, x >= 1, T.eq(x, 1), T.neq(x, 1)):
        assert out.dtype == "bool"


# --- DimShuffle ---


@pytest.mark.parametrize(
    ("ndim", "order", "text"),
    [
        (2, (1, 0), "MatrixTranspose"),
        (1, ("x", 0), "ExpandDims{axis=0}"),
        (1, (0, "x", "x"), "ExpandDims{axes=(1, 2)}"),
        (3, (0, 2), "Squeeze{axis=1}"),
        (3, (1,), "Squeeze{axes=(0, 2)}"),
        (3, (1, 0, 2), "Transpose{axes=(1, 0, 2)}"),
        (2, ("x", 1, 0), "DimShuffle{order=[x,1,0]}"),
    ],
)
def test_dimshuffle_str(ndim, order, text):
    assert str(DimShuffle(input_ndim=ndim, new_order=order)) == text


def test_dimshuffle_props():
    op = DimShuffle(input_ndim=3, new_order=("x", 2, 0))
    assert op.input_ndim == 3
    assert op.new_order == ("x", 2, 0)
    assert op.view_map == {0: [0]}
    assert op == DimShuffle(input_ndim=3, new_order=["x", 2, 0])
    assert hash(op) == hash(DimShuffle(input_ndim=3, new_order=["x", 2, 0]))
    assert op != DimShuffle(input_ndim=3, new_order=("x", 0, 2))
    assert repr(op) == "DimShuffle(input_ndim=3,new_order=('x', 2, 0))"


def test_dimshuffle_types():
    x = T.tensor(shape=(2, 1, None))
    assert x.dimshuffle(2, "x", 0).type.shape == (None, 1, 2)
    assert x.dimshuffle(0, 2).type.shape == (2, None)
    assert x.dimshuffle((2, 1, 0)).type.shape == (None, 1, 2)


def test_dimshuffle_errors():
    m = T.tensor(shape=(2, 3))
    with pytest.raises(TypeError, match="Input dropped dimension 1 must have length 1"):
        m.dimshuffle(0)
    with pytest.raises(ValueError, match="may not appear twice"):
        m.dimshuffle(0, 0)
    with pytest.raises(ValueError, match="the input only has 2 axes"):
        m.dimshuffle(2, 0)
    with pytest.raises(TypeError, match="must be Python ints or 'x'; got 'y'"):
        m.dimshuffle("y", 0)
    with pytest.raises(TypeError, match="must be non-negative, got -1"):
        m.dimshuffle(-1, 0)
    with pytest.raises(TypeError, match="Expected 2, got 1"):
        DimShuffle(input_ndim=2, new_order=(1, 0))(T.dvector())


# --- CAReduce ---


def test_careduce_ops():
    s = T.Sum(axis=1)
    assert str(s) == "Sum{axis=1}"
    assert repr(s) == (
        "Sum(scalar_op=add,axis=(1,),dtype=None,acc_dtype=None,"
        "upcast_discrete_output=True)"
    )
    out = s(T.dmatrix())
    assert repr(out.owner.op) == (
        "Sum(scalar_op=add,axis=(1,),dtype=float64,acc_dtype=float64,"
        "upcast_discrete_output=True)"
    )
    assert out.type == T.dvector
    assert str(T.Max(axis=None)) == "Max{axes=None}"
    assert T.Sum(axis=None) == T.Sum(axis=None)
    assert T.Sum(axis=0) != T.Prod(axis=0)
    with pytest.raises(TypeError, match="axis must be None, an int or a sequence"):
        T.Sum(axis="a")

"""The `TensorVariable` API: operators, properties, reductions, reshape,
astype and dot, with their output types and errors."""

import operator

import numpy as np
import oxtensor.tensor as T
import pytest
from oxtensor.tensor import TensorType, TensorVariable


def op_name(var):
    return str(var.owner.op)


# --- operators ---


ARITHMETIC = [
    (operator.add, "Add"),
    (operator.sub, "Sub"),
    (operator.mul, "Mul"),
    (operator.truediv, "True_div"),
    (operator.floordiv, "Int_div"),
    (operator.mod, "Mod"),
    (operator.pow, "Pow"),
]


@pytest.mark.parametrize(
    ("fn", "name", "flipped"),
    [(fn, name, name) for fn, name in ARITHMETIC]
    + [
        # `2 < x` is Python's `x > 2`.
        (operator.lt, "Lt", "Gt"),
        (operator.le, "Le", "Ge"),
        (operator.gt, "Gt", "Lt"),
        (operator.ge, "Ge", "Le"),
    ],
)
def test_binary_operators(fn, name, flipped):
    x, y = T.dmatrix("x"), T.dmatrix("y")
    out = fn(x, y)
    assert isinstance(out, TensorVariable)
    assert op_name(out) == name
    assert out.owner.inputs == [x, y]
    # With a Python number on either side.
    assert op_name(fn(x, 2)) == name
    assert op_name(fn(2, x)) == flipped


@pytest.mark.parametrize(("fn", "name"), ARITHMETIC)
def test_reflected_operators_put_the_number_first(fn, name):
    x = T.dvector("x")
    out = fn(3.0, x)
    assert op_name(out) == name
    assert out.owner.inputs[1] is x
    assert out.owner.inputs[0].owner.inputs[0].data == 3.0


@pytest.mark.parametrize(
    ("fn", "name"),
    [(operator.and_, "And"), (operator.or_, "Or"), (operator.xor, "Xor")],
)
def test_bitwise_operators(fn, name):
    i, j = T.imatrix("i"), T.imatrix("j")
    assert op_name(fn(i, j)) == name
    assert fn(i, j).dtype == "int32"
    assert op_name(fn(1, i)) == name
    b = T.tensor(dtype="bool", shape=(None,))
    assert fn(b, b).dtype == "bool"


def test_unary_operators():
    x = T.dmatrix("x")
    assert op_name(-x) == "Neg"
    assert op_name(abs(x)) == "Abs"
    i = T.ivector()
    assert op_name(~i) == "Invert"
    assert (~i).dtype == "int32"
    for out in (-x, abs(x)):
        assert out.type == x.type
        assert out.owner.inputs == [x]


def test_comparisons_with_numbers_on_the_left():
    x = T.dvector("x")
    out = 1 < x
    assert op_name(out) == "Gt"
    assert out.owner.inputs[0] is x


def test_ndarray_on_the_left_defers_to_the_variable():
    x = T.dvector("x")
    for out, name in ((np.ones(3) + x, "Add"), (np.ones(3) * x, "Mul")):
        assert isinstance(out, TensorVariable)
        assert op_name(out) == name
        assert out.owner.inputs[1] is x
        assert out.type == TensorType("float64", (3,))
    m = T.dmatrix("m")
    assert op_name(np.ones((2, 2)) @ m) == "Matmul"


def test_matmul():
    m, v = T.dmatrix("m"), T.dvector("v")
    assert op_name(m @ m) == "Matmul"
    assert (m @ m).type == T.dmatrix
    assert (m @ v).type == T.dvector
    assert (v @ v).type == T.dscalar


def test_pow_with_modulus_is_refused():
    with pytest.raises(TypeError, match="pow\\(\\) with a modulus is not supported"):
        pow(T.dvector(), 2, 3)


def test_eq_is_identity_not_elementwise():
    x, y = T.dvector(), T.dvector()
    assert (x == x) is True
    assert (x == y) is False
    assert (x != y) is True
    assert hash(x) != hash(y)
    assert {x: 1}[x] == 1
    assert op_name(T.eq(x, y)) == "Eq"


@pytest.mark.parametrize("convert", [bool, int, float, complex])
def test_python_conversions_raise(convert):
    with pytest.raises(TypeError):
        convert(T.dscalar())


def test_if_on_a_comparison_raises():
    condition = T.dscalar() < 1
    with pytest.raises(TypeError, match="do not support boolean operations"):
        condition.__bool__()
    with pytest.raises(TypeError, match="do not support boolean operations"):
        assert condition


# --- properties ---


def test_properties():
    x = T.tensor("x", dtype="float32", shape=(2, None, 1))
    assert x.ndim == 3
    assert x.dtype == "float32"
    assert x.type == TensorType("float32", (2, None, 1))
    assert x.broadcastable == (False, False, True)


def test_transpose():
    m = T.tensor(shape=(2, 3))
    assert m.T.type.shape == (3, 2)
    assert str(m.T.owner.op) == "MatrixTranspose"
    t = T.tensor(shape=(2, 3, 4))
    assert t.T.type.shape == (4, 3, 2)
    assert t.transpose(1, 0, 2).type.shape == (3, 2, 4)
    assert t.transpose((2, 0, 1)).type.shape == (4, 2, 3)
    assert t.transpose().type.shape == (4, 3, 2)


def test_dimshuffle_method():
    m = T.tensor(shape=(2, 3))
    assert m.dimshuffle("x", 1, 0).type.shape == (1, 3, 2)
    assert m.dimshuffle(["x", 1, 0]).type.shape == (1, 3, 2)
    assert m.dimshuffle(0, 1, "x").type.shape == (2, 3, 1)


def test_shape():
    m = T.tensor(shape=(2, None))
    s = m.shape
    assert str(s.owner.op) == "Shape"
    assert s.type == TensorType("int64", (2,))
    assert s.owner.inputs == [m]
    assert T.shape(m).type == s.type
    assert str(T.shape_i(m, 1).owner.op).startswith("Shape_i")
    assert T.shape_i(m, 1).type == T.lscalar


# --- reductions ---

X3 = dict(dtype="float32", shape=(2, None, 4))


@pytest.mark.parametrize("method", ["sum", "prod", "max", "min", "mean"])
@pytest.mark.parametrize(
    ("axis", "shape", "kept"),
    [
        (None, (), (1, 1, 1)),
        (0, (None, 4), (1, None, 4)),
        (1, (2, 4), (2, 1, 4)),
        (-1, (2, None), (2, None, 1)),
        ((0, 2), (None,), (1, None, 1)),
        ((-1, 0), (None,), (1, None, 1)),
    ],
)
def test_reductions_shapes(method, axis, shape, kept):
    x = T.tensor("x", **X3)
    out = getattr(x, method)(axis=axis)
    assert out.type.shape == shape
    assert out.dtype == "float32"
    assert getattr(x, method)(axis=axis, keepdims=True).type.shape == kept


@pytest.mark.parametrize("method", ["all", "any"])
def test_logical_reductions(method):
    x = T.tensor("x", **X3)
    assert getattr(x, method)().dtype == "bool"
    assert getattr(x, method)(axis=1).type == TensorType("bool", (2, 4))
    assert getattr(x, method)(axis=1, keepdims=True).type.shape == (2, 1, 4)


def test_reduction_ops_and_strings():
    x = T.tensor("x", **X3)
    assert str(x.sum().owner.op) == "Sum{axes=None}"
    assert str(x.sum(axis=1).owner.op) == "Sum{axis=1}"
    assert str(x.max(axis=-1).owner.op) == "Max{axis=2}"
    assert str(x.prod(axis=(0, 2)).owner.op) == "Prod{axes=[0, 2]}"
    assert str(x.sum(axis=0, keepdims=True).owner.op) == "ExpandDims{axis=0}"


def test_reduction_dtypes():
    assert T.imatrix().sum().dtype == "int64"
    assert T.bvector().sum().dtype == "int64"
    assert T.tensor(dtype="bool", shape=(None,)).sum().dtype == "int64"
    assert T.ubscalar().sum().dtype == "uint64"
    assert T.bvector().max().dtype == "int8"
    assert T.imatrix().mean().dtype == "float64"
    assert T.fmatrix().mean().dtype == "float32"
    assert T.dvector().sum(dtype="float32").dtype == "float32"
    assert T.dvector().mean(dtype="float32").dtype == "float32"


def test_mean_divides_the_sum_by_the_lengths():
    x = T.dmatrix("x")
    out = x.mean(axis=0)
    assert op_name(out) == "True_div"
    assert str(out.owner.inputs[0].owner.op) == "Sum{axis=0}"


def test_module_level_reductions_match_methods():
    from tests.helpers import assert_equal_computations

    x = T.dmatrix("x")
    for name in ["sum", "prod", "max", "min", "mean", "all", "any"]:
        fn = getattr(T, name)
        assert_equal_computations([fn(x, axis=1)], [getattr(x, name)(axis=1)])


@pytest.mark.parametrize(
    ("axis", "exc", "match"),
    [
        (3, ValueError, "axis 3 is out of bounds for array of dimension 3"),
        (-4, ValueError, "axis -4 is out of bounds for array of dimension 3"),
        ((0, 0), ValueError, "repeated axis 0"),
        ("a", TypeError, "axis must be None, an int or a sequence of ints"),
    ],
)
def test_bad_axis(axis, exc, match):
    x = T.tensor("x", **X3)
    with pytest.raises(exc, match=match):
        x.sum(axis=axis)


# --- reshape, astype, dot ---


@pytest.mark.parametrize(
    ("shape", "static"),
    [
        ((6, 4), (6, 4)),
        ((-1, 4), (6, 4)),
        ((-1,), (24,)),
        (-1, (24,)),
        ((2, 3, 2, 2), (2, 3, 2, 2)),
    ],
)
def test_reshape_known_shapes(shape, static):
    x = T.tensor(dtype="float32", shape=(2, 3, 4))
    out = x.reshape(shape)
    # A -1 is resolved because the input's size is known statically.
    assert out.type == TensorType("float32", static)
    assert str(out.owner.op) == f"Reshape{{{len(static)}}}"


def test_reshape_variants():
    m = T.dmatrix("m")
    assert m.reshape((-1, 3)).type.shape == (None, 3)
    assert m.reshape((2, 3, -1)).type.shape == (2, 3, None)
    assert m.reshape(6, 1).type.shape == (6, 1)
    assert m.reshape(T.lvector(), ndim=2).type == T.dmatrix
    assert m.flatten().type == T.dvector
    assert T.reshape(m, (3, -1)).type.shape == (3, None)


@pytest.mark.parametrize(
    ("shape", "exc", "match"),
    [
        (
            (5, 4),
            ValueError,
            "Input shape .2, 3, 4. is incompatible with new shape .5, 4.",
        ),
        ((-1, -1), ValueError, "at most one -1"),
        ((-2, 3), ValueError, "at most one -1"),
        ((1.5,), TypeError, "cannot be represented exactly as int64"),
    ],
)
def test_reshape_errors(shape, exc, match):
    x = T.tensor(dtype="float32", shape=(2, 3, 4))
    with pytest.raises(exc, match=match):
        x.reshape(shape)


def test_reshape_symbolic_shape_needs_ndim():
    with pytest.raises(ValueError, match="pass ndim="):
        T.dmatrix().reshape(T.lvector())


def test_astype():
    m = T.dmatrix("m")
    assert m.astype("int32").type == T.imatrix
    assert str(m.astype(np.float32).owner.op) == "Cast{float32}"
    assert m.astype("float64") is m
    assert T.cast(m, "int8").type == T.bmatrix
    with pytest.raises(TypeError, match="Unsupported dtype 'foo'"):
        m.astype("foo")


@pytest.mark.parametrize(
    ("a", "b", "shape"),
    [
        ((2, 3), (3, 5), (2, 5)),
        ((2, 3), (3,), (2,)),
        ((3,), (3, 5), (5,)),
        ((3,), (3,), ()),
        ((None, 3), (None, None), (None, None)),
    ],
)
def test_dot_shapes(a, b, shape):
    out = T.tensor(shape=a).dot(T.tensor(shape=b))
    assert out.type.shape == shape
    assert str(out.owner.op) == "Dot"
    assert T.dot(T.tensor(shape=a), T.tensor(shape=b)).type.shape == shape


def test_dot_dtype_and_errors():
    assert T.fmatrix().dot(T.imatrix()).dtype == "float64"
    with pytest.raises(ValueError, match="Incompatible shapes for Dot: \\(2, 3\\)"):
        T.tensor(shape=(2, 3)).dot(T.tensor(shape=(4, 5)))
    with pytest.raises(TypeError, match="Dot takes vectors and matrices"):
        T.dtensor3().dot(T.dmatrix())
    with pytest.raises(ValueError, match="matmul operand cannot be scalar"):
        T.dmatrix() @ 3

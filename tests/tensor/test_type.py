"""`TensorType` (anatomy §1.7) and the variable constructors."""

import pickle

import numpy as np
import oxtensor.tensor as T
import pytest
from oxtensor.tensor import TensorType, TensorVariable

# --- construction, str and repr ---


@pytest.mark.parametrize(
    ("ty", "text", "rep"),
    [
        (TensorType("float64", ()), "Scalar(float64, shape=())", "shape=()"),
        (TensorType("float64", (None,)), "Vector(float64, shape=(?,))", "(None,)"),
        (
            TensorType("float64", (None, 1)),
            "Matrix(float64, shape=(?, 1))",
            "(None, 1)",
        ),
        (TensorType("int32", (1, None)), "Matrix(int32, shape=(1, ?))", "(1, None)"),
        (TensorType("float32", (2, None, 1)), "Tensor3(float32, shape=(2, ?, 1))", ""),
        (TensorType("int8", (None,) * 5), "Tensor5(int8, shape=(?, ?, ?, ?, ?))", ""),
    ],
)
def test_str_and_repr(ty, text, rep):
    assert str(ty) == text
    assert repr(ty).startswith(f"TensorType({ty.dtype}, shape=")
    assert rep in repr(ty)


def test_repr_exact():
    assert repr(TensorType("float64", (None,))) == "TensorType(float64, shape=(None,))"
    assert repr(T.irow) == "TensorType(int32, shape=(1, None))"


def test_attributes():
    ty = TensorType("float32", (2, None, 1))
    assert ty.dtype == "float32"
    assert ty.shape == (2, None, 1)
    assert ty.ndim == 3
    assert ty.broadcastable == (False, False, True)
    assert TensorType("float64", (1, 1)).broadcastable == (True, True)
    assert T.dscalar.broadcastable == ()


def test_dtype_spellings():
    assert TensorType(np.float32, (None,)).dtype == "float32"
    assert TensorType(np.dtype("int16"), ()).dtype == "int16"
    assert TensorType("floatX", ()).dtype == "float64"


def test_legacy_bool_shapes_and_broadcastable():
    assert TensorType("float64", shape=(True, False)).shape == (1, None)
    with pytest.warns(DeprecationWarning, match="broadcastable"):
        assert TensorType("float64", broadcastable=(True, False)).shape == (1, None)


@pytest.mark.parametrize(
    ("args", "exc", "match"),
    [
        (("float65", (None,)), TypeError, "Unsupported dtype 'float65'"),
        (("float64", (-1,)), ValueError, "non-negative, got -1"),
        (("float64", (1.5,)), ValueError, "integer or None, got 1.5"),
        (
            ("float64", (None,) * 65),
            ValueError,
            "maximum supported dimension for a TensorType is currently 64, found 65",
        ),
    ],
)
def test_bad_construction(args, exc, match):
    with pytest.raises(exc, match=match):
        TensorType(*args)


def test_equality_and_hash():
    a = TensorType("float64", (None, 3))
    b = TensorType("float64", (None, 3))
    assert a == b
    assert hash(a) == hash(b)
    assert a != TensorType("float64", (None, None))
    assert a != TensorType("float32", (None, 3))
    assert a != T.dvector
    assert len({a, b, T.dmatrix}) == 2
    assert T.dmatrix == TensorType("float64", (None, None))


def test_clone():
    assert T.dvector.clone(shape=(3,)) == TensorType("float64", (3,))
    assert T.dvector.clone(dtype="int8") == T.bvector
    assert T.dvector.clone() == T.dvector


def test_pickle_round_trip():
    assert pickle.loads(pickle.dumps(T.drow)) == T.drow


def test_call_makes_tensor_variables():
    x = T.dmatrix("x")
    assert isinstance(x, TensorVariable)
    assert x.type == T.dmatrix
    assert x.name == "x"
    assert x.owner is None
    assert T.dmatrix() is not T.dmatrix()
    assert T.dmatrix.make_variable("y").name == "y"
    with pytest.raises(TypeError, match="name must be a string"):
        T.dmatrix(3)


# --- filter ---

IVECTOR = TensorType("int32", (None,))

LOSSY = (
    "Vector(int32, shape=(?,)) cannot store a value of dtype float64 without risking "
    "loss of precision. If you do not mind this loss, you can: 1) explicitly cast your "
    'data to int32, or 2) set "allow_input_downcast=True" when calling "function". '
    'Value: "array([1.5])"'
)


def test_filter_exact_dtype_passes_through():
    data = np.array([1, 2], dtype="int32")
    assert IVECTOR.filter(data) is data


def test_filter_lossless_conversions():
    for data in ([1, 2], [1.0, 2.0], np.array([1, 2], dtype="int16"), (1, 2)):
        out = IVECTOR.filter(data)
        assert isinstance(out, np.ndarray)
        assert out.dtype == np.int32
        np.testing.assert_array_equal(out, [1, 2])
    assert T.dvector.filter(np.ones(3, dtype="float32")).dtype == np.float64


def test_filter_python_float_goes_to_floatx():
    out = T.dscalar.filter(1.5)
    assert out.dtype == np.float64
    assert out == 1.5


def test_filter_lossy_precision_message():
    with pytest.raises(TypeError) as info:
        IVECTOR.filter(np.array([1.5]))
    assert str(info.value) == LOSSY


@pytest.mark.parametrize(
    ("ty", "data", "have"),
    [
        (IVECTOR, np.array([1, 2], dtype="int64"), "int64"),
        (T.fscalar, 0.1, "float64"),
        (T.fvector, np.ones(3), "float64"),
        (IVECTOR, [1.5], "float64"),
    ],
)
def test_filter_lossy_values_are_refused(ty, data, have):
    with pytest.raises(
        TypeError, match=f"cannot store a value of dtype {have} without"
    ):
        ty.filter(data)


@pytest.mark.parametrize(
    ("ty", "data"), [(T.bscalar, 300), (T.ubscalar, -1), (T.bvector, [3, 312])]
)
def test_filter_python_integers_out_of_range_overflow(ty, data):
    # NumPy's conversion decides, as in PyTensor (NumPy >= 2: OverflowError).
    with pytest.raises(OverflowError, match="out of bounds"):
        ty.filter(data)


def test_filter_allow_downcast():
    out = IVECTOR.filter(np.array([1.5, 2.7]), allow_downcast=True)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [1, 2])
    assert T.fscalar.filter(0.1, allow_downcast=True).dtype == np.float32


def test_filter_strict():
    data = np.array([1], dtype="int32")
    assert IVECTOR.filter(data, strict=True) is data
    with pytest.raises(
        TypeError, match=r"expected an ndarray object with dtype = int32"
    ):
        IVECTOR.filter(np.array([1], dtype="int16"), strict=True)
    with pytest.raises(TypeError, match=r"\(got list\)"):
        IVECTOR.filter([1], strict=True)


def test_filter_wrong_ndim():
    with pytest.raises(TypeError) as info:
        T.dvector.filter(np.ones((2, 2)))
    assert str(info.value) == (
        "Wrong number of dimensions: expected 1, got 2 with shape (2, 2)."
    )


def test_filter_static_shape():
    with pytest.raises(TypeError) as info:
        TensorType("float64", (3,)).filter(np.ones(2))
    assert (
        str(info.value)
        == "The type's shape ((3,)) is not compatible with the data's ((2,))"
    )
    assert TensorType("float64", (None, 2)).filter(np.ones((5, 2))).shape == (5, 2)
    with pytest.raises(TypeError, match="not compatible"):
        T.drow.filter(np.ones((2, 3)))


@pytest.mark.parametrize("data", [None, object()])
def test_filter_non_numeric(data):
    with pytest.raises(TypeError, match="cannot store a value of type"):
        T.dvector.filter(data)


def test_filter_text_fails_as_numpy_conversion_does():
    with pytest.raises(ValueError, match="could not convert string to float"):
        T.dvector.filter("abc")


def test_is_valid_value():
    assert T.dvector.is_valid_value(np.ones(3))
    # strict by default: a list is not an ndarray of the right dtype
    assert not T.dvector.is_valid_value([1.0, 2.0])
    assert T.dvector.is_valid_value([1.0, 2.0], strict=False)
    assert not T.dvector.is_valid_value(np.ones((2, 2)), strict=False)
    assert not T.dvector.is_valid_value("abc", strict=False)


# --- values_eq ---


def test_values_eq():
    ty = T.dvector
    assert ty.values_eq(np.ones(2), np.ones(2))
    assert ty.values_eq(np.array([np.nan, 1.0]), np.array([np.nan, 1.0]))
    assert not ty.values_eq(np.ones(2), np.ones(3))
    assert not ty.values_eq(np.ones(2), np.zeros(2))
    assert not ty.values_eq(np.ones(2), np.ones(2, dtype="float32"))
    assert ty.values_eq(np.ones(2), np.ones(2, dtype="float32"), force_same_dtype=False)
    assert T.ivector.values_eq(np.arange(3, dtype="int32"), np.arange(3, dtype="int32"))


def test_values_eq_approx():
    ty = T.dvector
    assert ty.values_eq_approx(np.ones(2), np.ones(2) + 1e-9)
    assert not ty.values_eq_approx(np.ones(2), np.ones(2) + 1e-3)
    assert ty.values_eq_approx(np.array([np.nan, np.inf]), np.array([np.nan, np.inf]))
    assert not ty.values_eq_approx(np.array([np.inf]), np.array([-np.inf]))
    assert not ty.values_eq_approx(np.array([np.nan]), np.array([1.0]))
    assert ty.values_eq_approx(
        np.array([np.nan]), np.array([1.0]), allow_remove_nan=True
    )
    assert ty.values_eq_approx(
        np.array([np.inf]), np.array([1.0]), allow_remove_inf=True
    )
    assert ty.values_eq_approx(np.ones(2), np.ones(2) + 1e-3, rtol=1e-2)
    # float32 gets float32's looser tolerance
    f = np.ones(2, dtype="float32")
    assert T.fvector.values_eq_approx(f, f + np.float32(1e-6))
    assert not T.dvector.values_eq_approx(np.ones(2), np.ones(2) + 1e-4)
    # discrete dtypes compare exactly; non-arrays never match
    assert T.ivector.values_eq_approx(np.ones(2, "int32"), np.ones(2, "int32"))
    assert not T.ivector.values_eq_approx([1], [1])


# --- convert_variable, in_same_class, is_super, filter_variable ---


def test_in_same_class():
    # same dtype and same broadcastable pattern
    assert T.drow.in_same_class(TensorType("float64", (1, 5)))
    assert T.dmatrix.in_same_class(TensorType("float64", (2, 5)))
    assert not T.drow.in_same_class(TensorType("float64", (2, 5)))
    assert not T.dmatrix.in_same_class(T.fmatrix)


def test_is_super():
    assert T.dmatrix.is_super(TensorType("float64", (2, 5))) is True
    assert T.dmatrix.is_super(T.drow) is True
    assert TensorType("float64", (2, 5)).is_super(T.dmatrix) is None
    assert T.dmatrix.is_super(T.fmatrix) is None
    assert T.dmatrix.is_super(T.dvector) is None
    assert T.dmatrix.is_super(T.dmatrix) is True


def test_convert_variable():
    specific = T.tensor(dtype="float64", shape=(2, 3))
    assert T.dmatrix.convert_variable(specific) is specific
    converted = TensorType("float64", (2, 3)).convert_variable(T.dmatrix("m"))
    assert str(converted.owner.op) == "SpecifyShape"
    assert converted.type.shape == (2, 3)
    assert (
        TensorType("float64", (2, 3)).convert_variable(T.tensor(shape=(4, 3))) is None
    )
    assert T.dmatrix.convert_variable(T.fmatrix()) is None
    assert T.dmatrix.convert_variable(T.dvector()) is None


def test_filter_variable():
    x = T.dmatrix("x")
    assert T.dmatrix.filter_variable(x) is x
    c = T.dvector.filter_variable(np.ones(3))
    assert c.type == TensorType("float64", (3,))
    assert type(c) is T.TensorConstant
    with pytest.raises(TypeError) as info:
        T.dmatrix.filter_variable(T.fmatrix("f"))
    assert str(info.value) == (
        "Cannot convert Type Matrix(float32, shape=(?, ?)) (of Variable f) into Type "
        "Matrix(float64, shape=(?, ?)). You can try to manually convert f into a "
        "Matrix(float64, shape=(?, ?))."
    )


def test_constant_type_and_make_constant():
    assert T.dvector.constant_type is T.TensorConstant
    assert T.dvector.variable_type is TensorVariable
    c = T.dvector.make_constant([1, 2], name="c")
    assert type(c) is T.TensorConstant
    assert c.name == "c"
    np.testing.assert_array_equal(c.data, [1.0, 2.0])


# --- constructors ---


@pytest.mark.parametrize(
    ("kind", "shape"),
    [
        ("scalar", ()),
        ("vector", (None,)),
        ("matrix", (None, None)),
        ("row", (1, None)),
        ("col", (None, 1)),
        ("tensor3", (None,) * 3),
        ("tensor4", (None,) * 4),
        ("tensor5", (None,) * 5),
        ("tensor6", (None,) * 6),
        ("tensor7", (None,) * 7),
    ],
)
def test_kind_constructors(kind, shape):
    make = getattr(T, kind)
    x = make("x")
    assert x.name == "x"
    assert x.type == TensorType("float64", shape)
    assert make(dtype="int16").type == TensorType("int16", shape)
    for prefix, dtype in [
        ("b", "int8"),
        ("w", "int16"),
        ("i", "int32"),
        ("l", "int64"),
        ("f", "float32"),
        ("d", "float64"),
        ("c", "complex64"),
        ("z", "complex128"),
    ]:
        ty = getattr(T, prefix + kind)
        assert isinstance(ty, TensorType)
        assert ty == TensorType(dtype, shape)


def test_unsigned_scalars():
    assert T.ubscalar == TensorType("uint8", ())
    assert T.uwscalar == TensorType("uint16", ())
    assert T.uiscalar == TensorType("uint32", ())
    assert T.ulscalar == TensorType("uint64", ())


def test_constructor_shape_argument():
    assert T.matrix(shape=(1, None)).type == T.drow
    assert T.vector(shape=(3,)).type.shape == (3,)
    with pytest.raises(ValueError, match="Shape must be a tuple of length 2"):
        T.matrix(shape=(1,))
    with pytest.raises(TypeError, match="Shape must be a tuple"):
        T.matrix(shape=[1, None])
    with pytest.raises(TypeError, match="Shape entries must be None or integer"):
        T.vector(shape=(1.0,))
    with pytest.raises(ValueError, match="first dimension of a `row` must have"):
        T.row(shape=(2, 5))
    assert T.col(shape=(5, None)).type.shape == (5, 1)


@pytest.mark.parametrize("name", ["float64", "floatX", bool, np.int64])
def test_dtype_name_is_refused_as_a_variable_name(name):
    with pytest.raises(ValueError, match="looks like a dtype"):
        T.tensor(name, shape=(None,))
    assert T.tensor("a", shape=(None,)).name == "a"


def test_broadcastable_keyword_is_deprecated():
    with pytest.warns(DeprecationWarning, match="broadcastable"):
        t = TensorType("float64", broadcastable=(True, False))
    assert t.shape == (1, None)
    with pytest.warns(DeprecationWarning, match="broadcastable"):
        assert t.clone(broadcastable=(False, True)).shape == (None, 1)
    flags = np.array([True, False])
    with pytest.warns(DeprecationWarning, match="broadcastable"):
        assert TensorType("int8", broadcastable=flags).shape == (1, None)
    with pytest.warns(DeprecationWarning, match="broadcastable"):
        v = T.tensor(dtype="int64", broadcastable=(True, False))
    assert v.type.shape == (1, None)


def test_unaligned_arrays_are_refused():
    raw = np.zeros(17, dtype=np.uint8)[1:].view(np.float64)
    assert not raw.flags.aligned
    with pytest.raises(TypeError, match="not aligned"):
        TensorType("float64", (None,)).filter(raw)


def test_tensor_constructor():
    x = T.tensor("x", dtype="int8", shape=(2, None))
    assert x.type == TensorType("int8", (2, None))
    assert x.name == "x"
    assert T.tensor(shape=(None,)).dtype == "float64"
    with pytest.raises(TypeError, match="needs a shape"):
        T.tensor()


def test_plural_constructors():
    x, y = T.dscalars("x", "y")
    assert (x.name, y.name) == ("x", "y")
    assert x.type == y.type == T.dscalar
    three = T.iscalars(3)
    assert len(three) == 3
    assert all(v.type == T.iscalar and v.name is None for v in three)
    a, b = T.dmatrices("a", "b")
    assert a.type == T.dmatrix
    assert b.name == "b"
    assert T.fmatrices("f").type == T.fmatrix
    assert T.zmatrices("z").type == T.zmatrix
    assert T.matrices("m").type == T.dmatrix
    assert T.scalars(2)[1].type == T.dscalar
    assert T.vectors("v", dtype="int8").type == T.bvector
    assert T.tensor3s("t").type == T.dtensor3
    assert T.fvectors("u", "v")[1].type == T.fvector
    # One string is a string of one-letter names, as in PyTensor.
    assert [v.name for v in T.scalars("xs")] == ["x", "s"]


def test_may_share_memory_static():
    a = np.arange(6.0)
    assert T.TensorType.may_share_memory(a, a[::2]) is True
    assert T.TensorType.may_share_memory(a, np.arange(6.0)) is False
    two = np.array(2)
    assert T.TensorType.may_share_memory(two, np.broadcast_to(two, (2, 3)))
    assert T.TensorType.may_share_memory(a, None) is False
    assert T.TensorType.may_share_memory([1.0], a) is False


def test_shape_entry_that_is_no_integer():
    with pytest.raises(ValueError, match="must be a boolean, integer or None, got '1'"):
        T.TensorType("float64", shape=("1", "2"))
    with pytest.raises(ValueError, match="must be a boolean, integer or None"):
        T.TensorType("float64", shape=(1.5,))

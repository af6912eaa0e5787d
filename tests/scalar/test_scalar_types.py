"""`oxtensor.scalar`: scalar types, variables and constants, scalar ops on
scalar variables compiled and run, `Composite` from Python, and the
float autocaster."""

import pickle

import numpy as np
import oxtensor
import oxtensor.scalar as ps
import oxtensor.tensor as pt
import pytest
from oxtensor.scalar.basic import ScalarConstant, ScalarType, ScalarVariable


class TestScalarType:
    def test_instances_and_str(self):
        assert ps.float64 == ScalarType("float64")
        assert hash(ps.float64) == hash(ScalarType(np.float64))
        assert ps.float64 != ps.float32
        assert str(ps.int16) == "int16"
        assert repr(ps.bool) == "ScalarType(bool)"
        assert ps.basic.int16 is ps.int16
        assert ps.complex128.dtype == "complex128"
        assert ps.float32.ndim == 0
        assert ps.float32.shape == ()

    def test_filter(self):
        v = ps.float64.filter(3)
        assert type(v) is np.float64
        assert v == 3.0
        assert type(ps.int8.filter(np.int8(5), strict=True)) is np.int8
        with pytest.raises(TypeError, match="expected a NumPy int8 scalar"):
            ps.int8.filter(5, strict=True)
        with pytest.raises(TypeError, match=r"Could not convert float .* to int8"):
            ps.int8.filter(1.5)
        assert ps.int8.filter(1.5, allow_downcast=True) == 1
        with pytest.raises(TypeError, match="to int8"):
            ps.int8.filter(1000)

    def test_values_eq_and_is_super(self):
        assert ps.float64.values_eq(np.float64(np.nan), np.float64(np.nan))
        assert not ps.float64.values_eq(1.0, 2.0)
        assert ps.float64.is_super(ps.float64)
        assert not ps.float64.is_super(ps.float32)
        assert not ps.float64.is_super(pt.dscalar().type)

    def test_pickle(self):
        assert pickle.loads(pickle.dumps(ps.uint16)) == ps.uint16

    def test_variables(self):
        x = ps.float64("x")
        assert isinstance(x, ScalarVariable)
        assert x.name == "x"
        assert x.type is ps.float64
        assert x.dtype == "float64"
        assert isinstance(ps.int32.make_variable(), ScalarVariable)

    def test_bad_dtype(self):
        with pytest.raises(Exception, match="nope"):
            ScalarType("nope")


class TestConstants:
    def test_scalar_constant(self):
        c = ScalarConstant(ps.float64, 3.14)
        assert type(c.data) is np.float64
        assert c.data == 3.14
        assert c.type == ps.float64
        assert ScalarConstant(ps.float64, 3.14).equals(c)

    def test_constant_autocasts(self):
        assert ps.constant(56).type == ps.int8
        assert ps.constant(1.5).type == ps.float32
        assert ps.constant(0.1).type == ps.float64
        assert ps.constant(3, dtype="float32").type == ps.float32
        with pytest.raises(TypeError, match="expects a value"):
            ps.constant(ps.float64())

    def test_as_scalar(self):
        x = ps.float64()
        assert ps.as_scalar(x) is x
        t = pt.lscalar()
        s = ps.as_scalar(t)
        assert s.type == ps.int64
        assert s.owner.op is pt.basic.scalar_from_tensor
        with pytest.raises(TypeError, match=r"Cannot convert .* to a scalar type"):
            ps.as_scalar(pt.dvector())
        with pytest.raises(TypeError, match="Cannot convert"):
            ps.as_scalar([1, 2])


class TestScalarGraphs:
    def test_ops_make_scalar_nodes(self):
        x, y = ps.float64("x"), ps.int8("y")
        z = ps.add(x, y)
        assert isinstance(z, ScalarVariable)
        assert z.type == ps.float64
        assert z.owner.op is ps.add
        assert (x * 2).owner.op is ps.mul
        assert (x < y).type == ps.bool
        with pytest.raises(TypeError, match="Cannot convert"):
            ps.add(x, pt.dvector())

    def test_function_returns_numpy_scalars(self):
        x, y = ps.float64("x"), ps.int8("y")
        f = oxtensor.function([x, y], [x * y + 1, -x])
        a, b = f(2.5, 3)
        assert type(a) is np.float64
        assert a == 8.5
        assert type(b) is np.float64
        assert b == -2.5
        g = oxtensor.function([x], x**2)
        assert type(g(3.0)) is np.float64
        assert g(3.0) == 9.0

    def test_operators_match_numpy(self):
        x, y = ps.float64("x"), ps.float64("y")
        exprs = [x + y, x - y, x * y, x / y, x // y, x % y, x**y, abs(-x), 2 - x, 1 / y]
        f = oxtensor.function([x, y], exprs)
        a, b = 5.5, 2.0
        want = [a + b, a - b, a * b, a / b, a // b, a % b, a**b, a, 2 - a, 1 / b]
        np.testing.assert_allclose(f(a, b), want)

    def test_composite_from_python(self):
        x, y = ps.float64("x"), ps.float64("y")
        c = ps.Composite([x, y], [x + y, ps.exp(x) * y])
        assert isinstance(c, ps.Composite)
        assert c.nout == 2
        assert [str(v.type) for v in c.fgraph.inputs] == ["float64", "float64"]
        a, b = pt.dvector("a"), pt.dvector("b")
        s, p = pt.elemwise.Elemwise(c)(a, b)
        f = oxtensor.function([a, b], [s, p])
        av, bv = np.array([0.5, 1.0]), np.array([2.0, -1.0])
        got = f(av, bv)
        np.testing.assert_allclose(got[0], av + bv)
        np.testing.assert_allclose(got[1], np.exp(av) * bv)
        v = pt.dvector("v")
        with pytest.raises(TypeError, match="inputs must be scalars, got v"):
            ps.Composite([v], [pt.exp(v)])


class TestTensorScalarConversions:
    def test_round_trip_and_types(self):
        s = ps.constant(56)
        t = pt.basic.tensor_from_scalar(s)
        assert t.owner.op is pt.basic.tensor_from_scalar
        assert t.type.shape == ()
        assert t.type.dtype == "int8"
        v = t.eval()
        assert isinstance(v, np.ndarray)
        assert v.shape == ()
        assert v == 56
        ss = pt.basic.scalar_from_tensor(pt.constant(7))
        assert ss.owner.op is pt.basic.scalar_from_tensor
        f = oxtensor.function([], ss)
        assert type(f()) is np.int8
        assert f() == 7

    def test_bad_inputs(self):
        with pytest.raises(TypeError, match="takes a scalar"):
            pt.basic.tensor_from_scalar(pt.dvector())
        with pytest.raises(TypeError, match="takes a 0-d tensor"):
            pt.basic.scalar_from_tensor(pt.dvector())

    def test_gradients(self):
        x = pt.dscalar("x")
        y = pt.basic.tensor_from_scalar(ps.exp(pt.basic.scalar_from_tensor(x)))
        g = oxtensor.grad(y, x)
        f = oxtensor.function([x], g)
        for v in (0.0, 0.7, -1.3):
            eps = 1e-6
            fd = (np.exp(v + eps) - np.exp(v - eps)) / (2 * eps)
            np.testing.assert_allclose(f(v), fd, rtol=1e-6)
        i = ps.constant(56)
        gi = oxtensor.grad(pt.basic.tensor_from_scalar(i), i)
        assert oxtensor.function([], gi)() == 0.0

    def test_pickle_ops(self):
        op = pt.basic.ScalarFromTensor()
        assert pickle.loads(pickle.dumps(op)) == op


class TestAutocast:
    def test_autocast_float_as(self):
        orig = ps.autocast_float.dtypes
        with ps.autocast_float_as("float32"):
            assert ps.autocast_float.dtypes == ("float32",)
            assert (pt.fvector() + 1.1).dtype == "float32"
            with ps.autocast_float_as("float64"):
                assert (pt.fvector() + 1.0).dtype == "float64"
        assert ps.autocast_float.dtypes == orig
        assert (pt.fvector() + 1.1).dtype == "float64"
        assert ps.autocast_float(1.5).dtype == np.float32

    def test_refuses_non_floats(self):
        with pytest.raises(ValueError, match="only takes float dtypes"):
            ps.autocast_float.dtypes = ("int8",)


def test_cast_output_types_preference_names_the_target_type():
    from oxtensor.scalar.basic import Cast, specific_out

    pref = Cast("int32").output_types_preference
    assert isinstance(pref, specific_out)
    assert pref.spec[0] == ps.int32
    assert pref.spec[0].dtype == "int32"


def test_scalar_variable_as_tensor():
    # As in PyTensor: a scalar variable becomes a 0-d tensor through
    # `tensor_from_scalar` wherever a tensor is wanted.
    from oxtensor.tensor.basic import TensorFromScalar

    s = ps.int8("s")
    t = pt.as_tensor_variable(s)
    assert isinstance(t.owner.op, TensorFromScalar)
    assert t.type == pt.TensorType("int8", ())
    x = pt.dvector("x")
    d = ps.float64("d")
    f = oxtensor.function([x, d], x + d)
    np.testing.assert_array_equal(f(np.arange(3.0), 2.0), np.arange(3.0) + 2.0)


def test_scalar_variable_as_index_and_bound():
    n = pt.dmatrix("n")
    i = ps.int32("i")
    out = n[i:, i]
    value = np.arange(12.0).reshape(3, 4)
    f = oxtensor.function([n, i], out)
    np.testing.assert_array_equal(f(value, 1), value[1:, 1])
    g = oxtensor.function([n, i], pt.set_subtensor(n[i], 0.0))
    expected = value.copy()
    expected[2] = 0.0
    np.testing.assert_array_equal(g(value, 2), expected)


def test_cast_and_named_scalar_constructors():
    from oxtensor.scalar.basic import cast, complexs, floats, ints

    x, y, z = floats("xyz")
    assert [v.name for v in (x, y, z)] == ["x", "y", "z"]
    assert x.type.dtype == "float64"
    i = ints("i")
    assert i.type.dtype == "int64"
    assert complexs(["a", "b"])[1].type.dtype == "complex128"
    assert cast(x, "float64") is x
    c = cast(x, "int16")
    assert c.type.dtype == "int16"
    f = oxtensor.function([x], c)
    assert f(2.7) == np.float64(2.7).astype("int16")
    assert cast(2.5, "int32").type.dtype == "int32"
    with pytest.raises(TypeError, match="complex to real"):
        cast(complexs("w"), "float64")
    with pytest.raises(TypeError, match="Unsupported dtype"):
        cast(x, "floaty")

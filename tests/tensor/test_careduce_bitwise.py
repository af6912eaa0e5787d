"""`CAReduce(and_/or_/xor)` of integers folds their bits, as NumPy's
`bitwise_and/or/xor.reduce` (identities included), keeping the dtype;
`xor` of bools is NumPy's `logical_xor.reduce`; floats are refused."""

import numpy as np
import oxtensor
import oxtensor.scalar as ps
import pytest
from oxtensor.tensor.elemwise import CAReduce
from oxtensor.tensor.type import TensorType

FOLDS = [
    (ps.and_, np.bitwise_and),
    (ps.or_, np.bitwise_or),
    (ps.xor, np.bitwise_xor),
]
AXES = [None, (0,), (1,), (-1,), (0, 1), ()]


def _fold(scalar_op, dtype, shape, axis, values):
    x = TensorType(dtype, shape=(None,) * len(shape))("x")
    out = CAReduce(scalar_op, axis=axis)(x)
    return out, oxtensor.function([x], out)(values)


@pytest.mark.parametrize(("scalar_op", "ufunc"), FOLDS)
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "int64", "uint64"])
@pytest.mark.parametrize("axis", AXES)
def test_integer_folds_match_numpy(scalar_op, ufunc, dtype, axis):
    rng = np.random.default_rng(3)
    info = np.iinfo(dtype)
    values = rng.integers(info.min, info.max, size=(5, 7), dtype=dtype, endpoint=True)
    out, got = _fold(scalar_op, dtype, values.shape, axis, values)
    want = ufunc.reduce(values, axis=axis) if axis != () else values
    assert out.dtype == dtype
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(("scalar_op", "ufunc"), FOLDS)
@pytest.mark.parametrize("dtype", ["int16", "uint8"])
def test_empty_folds_give_the_identity(scalar_op, ufunc, dtype):
    values = np.zeros((4, 0), dtype=dtype)
    _, got = _fold(scalar_op, dtype, values.shape, (1,), values)
    np.testing.assert_array_equal(got, ufunc.reduce(values, axis=1))


def test_strided_input():
    values = np.arange(60, dtype="int32").reshape(6, 10)[::2, ::3]
    _, got = _fold(ps.or_, "int32", values.shape, (0,), values)
    np.testing.assert_array_equal(got, np.bitwise_or.reduce(values, axis=0))


@pytest.mark.parametrize("axis", [None, (0,), (1,)])
def test_xor_of_bools(axis):
    values = np.random.default_rng(4).random((6, 5)) < 0.5
    out, got = _fold(ps.xor, "bool", values.shape, axis, values)
    assert out.dtype == "bool"
    np.testing.assert_array_equal(got, np.logical_xor.reduce(values, axis=axis))


def test_and_or_of_bools_stay_all_any():
    x = TensorType("bool", shape=(None,))("x")
    values = np.array([True, False, True])
    assert not oxtensor.function([x], CAReduce(ps.and_, axis=None)(x))(values)
    assert oxtensor.function([x], CAReduce(ps.or_, axis=None)(x))(values)


@pytest.mark.parametrize("scalar_op", [ps.and_, ps.or_, ps.xor])
def test_floats_are_refused(scalar_op):
    x = TensorType("float64", shape=(None,))("x")
    with pytest.raises(TypeError, match="folds the bits of integers or bools"):
        CAReduce(scalar_op, axis=None)(x)


def test_str_names_the_scalar_op():
    x = TensorType("int8", shape=(None, None))("x")
    assert str(CAReduce(ps.or_, axis=None)(x).owner.op) == "CAReduce{or_, axes=None}"
    assert str(CAReduce(ps.xor, axis=(1,))(x).owner.op) == "CAReduce{xor, axis=1}"


def test_no_gradient_flows_through_bits():
    x = TensorType("int64", shape=(None,))("x")
    g = oxtensor.grad(CAReduce(ps.xor, axis=None)(x).astype("float64"), x)
    np.testing.assert_array_equal(g.eval({x: np.arange(3)}), np.zeros(3))


def test_jax_folds_match_numpy():
    pytest.importorskip("jax")
    x = TensorType("int16", shape=(None, None))("x")
    outs = [CAReduce(op, axis=(1,))(x) for op, _ in FOLDS]
    f = oxtensor.function([x], outs, mode="JAX")
    values = np.random.default_rng(5).integers(-300, 300, size=(3, 4), dtype="int16")
    for got, (_, ufunc) in zip(f(values), FOLDS, strict=True):
        np.testing.assert_array_equal(np.asarray(got), ufunc.reduce(values, axis=1))

"""The native ops of ``oxtensor.tensor.extra_ops`` against NumPy: values,
dtypes and shapes, ``infer_shape``, gradients against finite differences,
and the errors PyTensor raises (type and message)."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.gradient import verify_grad
from oxtensor.npy_2_compat import old_np_unique
from oxtensor.tensor import extra_ops as eo

from tests.helpers import check_infer_shape

RNG = np.random.default_rng(28)


@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3), (3, 3, 3)])
def test_fill_diagonal_values_and_grad(shape):
    x = ot.tensor(dtype="float64", shape=(None,) * len(shape))
    v = ot.dscalar()
    a = RNG.random(shape)
    got = oxtensor.function([x, v], eo.fill_diagonal(x, v))(a, 7.0)
    want = a.copy()
    np.fill_diagonal(want, 7.0)
    np.testing.assert_array_equal(got, want)
    check_infer_shape([x, v], [eo.fill_diagonal(x, v)], [a, 7.0], eo.FillDiagonal)
    verify_grad(eo.fill_diagonal, [a, np.float64(0.3)], rng=RNG)


@pytest.mark.parametrize("offset", [-5, -1, 0, 2, 6])
@pytest.mark.parametrize("shape", [(4, 6), (6, 4)])
def test_fill_diagonal_offset(offset, shape):
    x, v, k = ot.dmatrix(), ot.dscalar(), ot.iscalar()
    a = RNG.random(shape)
    out = eo.fill_diagonal_offset(x, v, k)
    got = oxtensor.function([x, v, k], out)(a, 2.0, offset)
    want = a.copy()
    rows, cols = np.indices(shape)
    want[cols - rows == offset] = 2.0
    np.testing.assert_array_equal(got, want)
    check_infer_shape([x, v, k], [out], [a, 2.0, offset], eo.FillDiagonalOffset)
    verify_grad(lambda m, s: eo.fill_diagonal_offset(m, s, offset), [a, 0.5], rng=RNG)


def test_fill_diagonal_errors():
    with pytest.raises(TypeError, match="at least 2 dimensions"):
        eo.fill_diagonal(ot.dvector(), 1.0)
    with pytest.raises(TypeError, match="must be a scalar"):
        eo.fill_diagonal(ot.dmatrix(), ot.dvector())
    with pytest.raises(TypeError, match="same as"):
        eo.fill_diagonal(ot.imatrix(), ot.dscalar())
    with pytest.raises(TypeError, match="must be a matrix"):
        eo.fill_diagonal_offset(ot.dtensor3(), 1.0, 0)


@pytest.mark.parametrize("m", [-2, 0, 1, 2, 7])
def test_bartlett(m):
    M = ot.lscalar()
    out = eo.bartlett(M)
    got = oxtensor.function([M], out)(m)
    assert got.dtype == "float64"
    np.testing.assert_allclose(got, np.bartlett(m))
    check_infer_shape([M], [out], [m], eo.Bartlett)
    with pytest.raises(TypeError, match="integer scalar"):
        eo.bartlett(ot.dscalar())


def test_cpu_contiguous():
    x = ot.dmatrix()
    f = oxtensor.function([x], eo.cpu_contiguous(x.T))
    a = RNG.random((3, 4))
    got = f(a)
    assert got.flags["C_CONTIGUOUS"]
    np.testing.assert_array_equal(got, a.T)
    verify_grad(eo.cpu_contiguous, [RNG.random((2, 3))], rng=RNG)


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("v_dtype", ["float64", "float32", "int32"])
def test_searchsorted(side, v_dtype):
    x, v, s = ot.dvector(), ot.tensor(dtype=v_dtype, shape=(None, None)), ot.ivector()
    a = np.sort(RNG.integers(0, 10, 20)).astype("float64")
    b = RNG.integers(-1, 11, (3, 4)).astype(v_dtype)
    got = oxtensor.function([x, v], ot.searchsorted(x, v, side=side))(a, b)
    assert got.dtype == "int64"
    np.testing.assert_array_equal(got, np.searchsorted(a, b, side=side))
    shuffled = RNG.permutation(a)
    sorter = np.argsort(shuffled, kind="stable").astype("int32")
    out = x.searchsorted(v, side=side, sorter=s)
    got = oxtensor.function([x, v, s], out)(shuffled, b, sorter)
    want = np.searchsorted(shuffled, b, side=side, sorter=sorter)
    np.testing.assert_array_equal(got, want)
    check_infer_shape([x, v], [ot.searchsorted(x, v)], [a, b], eo.SearchsortedOp)


def test_searchsorted_errors_and_grad():
    with pytest.raises(ValueError, match="invalid value for keyword 'side'"):
        ot.searchsorted(ot.dvector(), ot.dvector(), side="middle")
    with pytest.raises(ValueError, match="must be a vector"):
        ot.searchsorted(ot.dmatrix(), ot.dvector())
    with pytest.raises(TypeError, match="integer vector"):
        ot.searchsorted(ot.dvector(), ot.dvector(), sorter=ot.fvector())
    f = oxtensor.function(
        [(s := ot.ivector())], ot.searchsorted([1.0, 2.0], 1.5, sorter=s)
    )
    with pytest.raises(ValueError, match="sorter index out of range"):
        f(np.array([0, 2], "int32"))
    x, v = ot.dvector(), ot.dvector()
    gx, gv = oxtensor.grad(ot.searchsorted(x, v).sum(), [x, v])
    got = oxtensor.function([x, v], [gx, gv])(np.arange(3.0), np.ones(2))
    np.testing.assert_array_equal(got[0], np.zeros(3))
    np.testing.assert_array_equal(got[1], np.zeros(2))


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("dtype", ["float64", "int16", "uint8"])
def test_unique(axis, dtype):
    x = ot.tensor(dtype=dtype, shape=(None, None))
    a = RNG.integers(0, 3, (5, 2)).astype(dtype)
    outs = ot.unique(x, True, True, True, axis=axis)
    got = oxtensor.function([x], outs)(a)
    want = old_np_unique(a, True, True, True, axis=axis)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
    assert got[0].dtype == dtype
    inverse = ot.unique(x, False, True, axis=axis)[1]
    check_infer_shape([x], [inverse], [a], eo.Unique)


def test_unique_single_output_and_errors():
    x = ot.dvector()
    out = ot.unique(x)
    np.testing.assert_array_equal(out.eval({x: [3.0, 1.0, 3.0]}), [1.0, 3.0])
    with pytest.raises(np.exceptions.AxisError):
        ot.unique(x, axis=1)
    with pytest.raises(TypeError, match="complex"):
        ot.unique(ot.zvector())


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("index_shape", [(), (6,), (3, 2)])
def test_unravel_and_ravel_round_trip(order, index_shape):
    dims = (3, 4, 5)
    flat = RNG.integers(0, 60, index_shape)
    coords = ot.unravel_index(flat, dims, order=order)
    got = [c.eval() for c in coords]
    want = np.unravel_index(flat, dims, order=order)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
        assert g.shape == np.shape(flat)
    back = ot.ravel_multi_index(coords, dims, order=order).eval()
    np.testing.assert_array_equal(back, flat)


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_ravel_multi_index_modes(mode):
    rows = np.array([-1, 0, 4]) if mode != "raise" else np.array([0, 2, 1])
    cols = np.array([[1], [3]])
    got = ot.ravel_multi_index((rows, cols), (3, 4), mode=mode).eval()
    np.testing.assert_array_equal(got, np.ravel_multi_index((rows, cols), (3, 4), mode))
    i = ot.lvector()
    out = ot.ravel_multi_index((i, ot.as_tensor(cols)), (3, 4), mode=mode)
    check_infer_shape([i], [out], [rows], eo.RavelMultiIndex)


def test_index_errors():
    with pytest.raises(ValueError, match="must be known statically"):
        ot.unravel_index(ot.ivector(), ot.ivector())
    with pytest.raises(TypeError, match="integers"):
        ot.unravel_index(ot.fvector(), (3, 4))
    with pytest.raises(TypeError, match="1-d"):
        ot.unravel_index((3, 4), 3)
    with pytest.raises(ValueError, match="out of bounds"):
        ot.unravel_index(12, (3, 4))[0].eval()
    with pytest.raises(TypeError, match="integers"):
        ot.ravel_multi_index((ot.fvector(), ot.ivector()), (3, 4))
    with pytest.raises(ValueError, match="invalid entry"):
        ot.ravel_multi_index(([3], [0]), (3, 4)).eval()
    with pytest.raises(TypeError, match="tuple or a list"):
        ot.ravel_multi_index(ot.ivector(), (3, 4))


def test_broadcast_shape():
    x1, y2 = ot.iscalar("x1"), ot.iscalar("y2")
    b = eo.broadcast_shape((x1, 2), (3, y2), arrays_are_shapes=True)
    assert [d.owner.inputs[0].data for d in b] == [3, 2]
    with pytest.raises(AssertionError, match="Could not broadcast"):
        b[0].eval({x1: 1})
    assert b[0].eval({x1: 3}) == 3
    b = eo.broadcast_shape(ot.zeros((3, 1)), ot.zeros(4))
    assert [int(d.eval()) for d in b] == [3, 4]
    s1, s2 = ot.lscalar(), ot.lscalar()
    b = eo.broadcast_shape(
        (s1,), (s2,), arrays_are_shapes=True, allow_runtime_broadcast=True
    )
    assert b[0].eval({s1: 1, s2: 5}) == 5
    with pytest.raises(ValueError, match="Could not broadcast"):
        eo.broadcast_shape((2,), (3,), arrays_are_shapes=True)


def test_old_np_unique_and_bitwidth():
    inverse = old_np_unique(np.array([[2, 1], [2, 3]]), return_inverse=True)[1]
    assert inverse.shape == (4,)
    from oxtensor.utils import LOCAL_BITWIDTH

    assert LOCAL_BITWIDTH == np.dtype(np.intp).itemsize * 8


def test_repeat_one_count_forms_and_static_shape():
    x = ot.tensor(dtype="float64", shape=(None, 1, 3))
    assert ot.repeat(x, 2, axis=1).type.shape == (None, 2, 3)
    assert ot.repeat(x, [2, 2, 2], axis=2).type.shape == (None, 1, 6)
    assert ot.repeat(x, [1, 2, 4], axis=2).type.shape == (None, 1, None)
    r = ot.tensor(dtype="int8", shape=(1,))
    out = ot.repeat(x, r, axis=0)
    f = oxtensor.function([x, r], out)
    assert not any(isinstance(n.op, eo.Repeat) for n in f.maker.fgraph.toposort())
    a = RNG.random((2, 1, 3))
    np.testing.assert_array_equal(f(a, np.array([3], "int8")), np.repeat(a, 3, axis=0))
    with pytest.raises(TypeError, match="uint64"):
        ot.repeat(x, ot.scalar(dtype="uint64"))


def test_repeat_grad_with_a_vector_of_counts():
    counts = np.array([2, 0, 3])
    verify_grad(lambda m: ot.repeat(m, counts, axis=1), [RNG.random((2, 3))], rng=RNG)
    verify_grad(lambda m: ot.repeat(m, counts, axis=0), [RNG.random((3, 2))], rng=RNG)


def test_squeeze_of_a_scalar_and_bincount_assert_nonneg():
    s = ot.dscalar()
    assert ot.squeeze(s, axis=(0,)) is s
    with pytest.raises(np.exceptions.AxisError, match=r"axis \(1,\) is out of bounds"):
        ot.squeeze(s, axis=1)
    x = ot.ivector()
    f = oxtensor.function([x], ot.bincount(x, assert_nonneg=True))
    np.testing.assert_array_equal(f(np.array([0, 2], "int32")), [1, 0, 1])
    with pytest.raises(AssertionError, match="negative"):
        f(np.array([-1, 2], "int32"))

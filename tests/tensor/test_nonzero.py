"""`nonzero`, `flatnonzero`, `nonzero_values`, `where(cond)` (the native
`Nonzero` op) and `to_one_hot` against NumPy: every dtype, 0-d and empty
inputs, non-contiguous inputs, errors, gradients and PyTensor's `str`."""

import pickle
import re

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.tensor.basic import Nonzero, flatnonzero, nonzero, nonzero_values
from oxtensor.tensor.extra_ops import to_one_hot

from tests.helpers import DTYPES, check_infer_shape, check_op_contract

RNG = np.random.default_rng(7)
SCALAR_MSG = re.escape("Nonzero only supports non-scalar arrays.")


def _sample(dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    """Values with about half zeros (NaN included for floats)."""
    v = RNG.integers(-2, 3, size=shape) * RNG.integers(0, 2, size=shape)
    a = v.astype(dtype) if dtype != "bool" else v != 0
    if dtype.startswith("float") and a.size:
        a.flat[0] = np.nan
    return a


def _run(outs, x, value):
    return oxtensor.function([x], outs)(value)


@pytest.mark.parametrize("dtype", DTYPES)
def test_nonzero_all_dtypes(dtype):
    a = _sample(dtype, (3, 4, 2))
    x = ot.tensor(dtype=dtype, shape=(None, None, None))
    got = _run(list(nonzero(x)), x, a)
    for g, want in zip(got, np.nonzero(a), strict=True):
        assert g.dtype == np.int64
        np.testing.assert_array_equal(g, want)
    np.testing.assert_array_equal(_run(flatnonzero(x), x, a), np.flatnonzero(a))
    values = _run(nonzero_values(x), x, a)
    assert values.dtype == a.dtype
    np.testing.assert_array_equal(values, a.flatten()[np.flatnonzero(a)])


@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 2, 5), (5,), (1, 1)])
def test_empty_and_small(shape):
    a = _sample("int32", shape)
    x = ot.tensor(dtype="int32", shape=(None,) * len(shape))
    for g, want in zip(_run(list(nonzero(x)), x, a), np.nonzero(a), strict=True):
        np.testing.assert_array_equal(g, want)
    zeros = np.zeros(shape, dtype="int32")
    assert all(g.shape == (0,) for g in _run(list(nonzero(x)), x, zeros))


def test_non_contiguous():
    base = _sample("float64", (6, 8))
    x = ot.dmatrix("x")
    for a in (base.T, base[::2, ::-3], np.broadcast_to(base[:1], (3, 8))):
        got = _run([*nonzero(x), flatnonzero(x), nonzero_values(x)], x, a)
        for g, want in zip(got[:2], np.nonzero(a), strict=True):
            np.testing.assert_array_equal(g, want)
        np.testing.assert_array_equal(got[2], np.flatnonzero(a))
        np.testing.assert_array_equal(got[3], a[a != 0])


def test_return_matrix():
    a = _sample("int64", (4, 3))
    x = ot.lmatrix("x")
    m = nonzero(x, return_matrix=True)
    assert m.type == ot.TensorType("int64", shape=(2, None))
    np.testing.assert_array_equal(_run(m, x, a), np.array(np.nonzero(a)))
    v = ot.lvector("v")
    m1 = nonzero(v, return_matrix=True)
    assert m1.type.shape == (1, None)
    np.testing.assert_array_equal(_run(m1, v, a[0]), np.array(np.nonzero(a[0])))


def test_where_one_argument():
    a = _sample("float32", (2, 5))
    x = ot.fmatrix("x")
    w = ot.where(x)
    assert isinstance(w, tuple)
    assert len(w) == 2
    for g, want in zip(_run(list(w), x, a), np.where(a), strict=True):
        np.testing.assert_array_equal(g, want)
    with pytest.raises(ValueError, match="either both or neither"):
        ot.where(x, 1.0)


def test_types_and_str():
    x = ot.dmatrix("x")
    rows = nonzero(x)
    assert [r.type for r in rows] == [ot.TensorType("int64", shape=(None,))] * 2
    assert str(rows[0].owner.op) == "Nonzero"
    assert repr(rows[0].owner.op) == "Nonzero()"
    assert str(rows) == "(Nonzero.0, Nonzero.1)"
    assert str(flatnonzero(x)) == "Nonzero.0"
    assert nonzero_values(x).type == ot.TensorType("float64", shape=(None,))
    assert Nonzero() == Nonzero()
    assert hash(Nonzero()) == hash(Nonzero())
    assert Nonzero.__props__ == ()
    assert pickle.loads(pickle.dumps(Nonzero())) == Nonzero()


def test_op_contract():
    x = ot.dmatrix("x")
    node = check_op_contract(Nonzero(), [x])
    assert len(node.outputs) == 2


def test_scalar_errors():
    for f in (nonzero, flatnonzero, nonzero_values):
        with pytest.raises(ValueError, match=SCALAR_MSG):
            f(ot.dscalar())
    with pytest.raises(ValueError, match=SCALAR_MSG):
        Nonzero().make_node(ot.dscalar())
    with pytest.raises(ValueError, match=SCALAR_MSG):
        ot.where(ot.iscalar())


def test_gradient_undefined():
    x = ot.dvector("x")
    cost = nonzero(x)[0].sum().astype("float64")
    with pytest.raises(oxtensor.gradient.NullTypeGradError, match="of the Nonzero op"):
        oxtensor.grad(cost, x)
    # Through the values the gradient is the indexing op's.
    g = oxtensor.grad(nonzero_values(x).sum(), x)
    a = np.array([0.0, 2.0, 0.0, -1.0])
    np.testing.assert_array_equal(_run(g, x, a), (a != 0).astype("float64"))


def test_constant_folds():
    rows = nonzero(ot.constant(np.array([0, 3, 0, 4], dtype="int8")))
    np.testing.assert_array_equal(rows[0].eval(), [1, 3])


@pytest.mark.parametrize("ydtype", ["int8", "int32", "int64", "uint8"])
@pytest.mark.parametrize("dtype", [None, "int32", "float32", "bool"])
def test_to_one_hot(ydtype, dtype):
    y = ot.tensor(dtype=ydtype, shape=(None,))
    out = to_one_hot(y, 5, dtype=dtype)
    want_dtype = "float64" if dtype is None else dtype
    assert out.type == ot.TensorType(want_dtype, shape=(None, 5))
    labels = np.array([0, 4, 2, 2], dtype=ydtype)
    got = _run(out, y, labels)
    assert got.dtype == want_dtype
    np.testing.assert_array_equal(got, np.eye(5, dtype=want_dtype)[labels])
    assert _run(out, y, labels[:0]).shape == (0, 5)
    np.testing.assert_array_equal(_run(out, y, labels[::-2]), np.eye(5)[labels[::-2]])


def test_to_one_hot_negative_and_out_of_range():
    y = ot.lvector("y")
    f = oxtensor.function([y], to_one_hot(y, 3))
    np.testing.assert_array_equal(f(np.array([-1, 0])), [[0, 0, 1], [1, 0, 0]])
    with pytest.raises(IndexError):
        f(np.array([3]))


def test_to_one_hot_infer_shape():
    y = ot.lvector("y")
    check_infer_shape([y], [to_one_hot(y, 4)], [np.array([1, 3, 0])])


def test_to_one_hot_errors():
    with pytest.raises(TypeError, match="to_one_hot needs an integer vector y, got"):
        to_one_hot(ot.dvector(), 3)
    with pytest.raises(TypeError, match="to_one_hot needs an integer vector y, got"):
        to_one_hot(ot.imatrix(), 3)
    with pytest.raises(TypeError, match="to_one_hot needs a Python int nb_class"):
        to_one_hot(ot.ivector(), 2.5)
    with pytest.raises(ValueError, match="nb_class >= 0"):
        to_one_hot(ot.ivector(), -1)

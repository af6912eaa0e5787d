"""`CAReduce(scalar_op, axis)` built directly, as PyTensor's base class:
values against NumPy's ``ufunc.reduce``, the input's dtype kept, its `str`,
copies, and the reductions it does not implement; `Elemwise.outer`."""

import copy
import pickle

import numpy as np
import oxtensor
import oxtensor.scalar as ps
import oxtensor.tensor as ot
import pytest
from oxtensor.tensor.elemwise import CAReduce

RNG = np.random.default_rng(7)


@pytest.mark.parametrize(
    ("scalar_op", "ufunc"),
    [
        (ps.add, np.add),
        (ps.mul, np.multiply),
        (ps.maximum, np.maximum),
        (ps.minimum, np.minimum),
    ],
)
@pytest.mark.parametrize("axis", [None, (0,), (1,), (-1,), (0, 2)])
def test_values_match_numpy_reduce(scalar_op, ufunc, axis):
    x = ot.dtensor3("x")
    out = CAReduce(scalar_op, axis=axis)(x)
    v = RNG.random((2, 3, 4))
    got = oxtensor.function([x], out)(v)
    np.testing.assert_allclose(got, ufunc.reduce(v, axis=axis), rtol=1e-12)
    assert isinstance(out.owner.op, CAReduce)


def test_input_dtype_is_kept_unless_upcast_is_asked():
    b = ot.bmatrix("b")
    kept = CAReduce(ps.add, axis=(0,))(b)
    assert kept.dtype == "int8"
    v = np.array([[100, 100], [100, 1]], dtype="int8")
    # int8 arithmetic wraps as NumPy's does in that dtype.
    np.testing.assert_array_equal(
        oxtensor.function([b], kept)(v), np.add.reduce(v, axis=0, dtype="int8")
    )
    upcast = CAReduce(ps.add, axis=(0,), upcast_discrete_output=True)(b)
    assert upcast.dtype == "int64"
    flags = ot.tensor("flags", dtype="bool", shape=(None,))
    assert CAReduce(ps.add)(flags).dtype == "bool"
    assert CAReduce(ps.and_)(flags).eval({flags: np.array([True, False])}) == np.False_


def test_str_props_and_copies():
    op = CAReduce(ps.add, axis=(1,))
    assert str(op) == "CAReduce{add, axis=1}"
    assert str(CAReduce(ps.add, axis=None)) == "CAReduce{add, axes=None}"
    assert op.scalar_op is ps.add
    assert op.axis == (1,)
    assert not op.upcast_discrete_output
    for made in (copy.copy(op), pickle.loads(pickle.dumps(op))):
        assert str(made) == str(op)
        assert made.scalar_op is ps.add


def test_errors():
    x = ot.dvector("x")
    with pytest.raises(ValueError, match="repeated axis"):
        CAReduce(ps.add, axis=(0, 0))(x)
    with pytest.raises(TypeError, match="needs a scalar op"):
        CAReduce("add")
    with pytest.raises(NotImplementedError, match="CAReduce of the scalar op sub"):
        CAReduce(ps.sub)
    with pytest.raises(TypeError, match="folds the bits of integers or bools"):
        CAReduce(ps.or_)(ot.dvector())


@pytest.mark.parametrize(
    ("op", "ufunc", "shape_x", "shape_y"),
    [(ot.add, np.add, (3, 5), (7, 1, 3)), (ot.mul, np.multiply, (2, 3), (1, 4))],
)
def test_elemwise_outer_is_numpy_outer(op, ufunc, shape_x, shape_y):
    x = ot.tensor("x", dtype="float64", shape=(None,) * len(shape_x))
    y = ot.tensor("y", dtype="float64", shape=(None,) * len(shape_y))
    xv, yv = RNG.random(shape_x), RNG.random(shape_y)
    got = oxtensor.function([x, y], op.outer(x, y))(xv, yv)
    np.testing.assert_allclose(got, ufunc.outer(xv, yv), rtol=1e-15)
    with pytest.raises(ValueError, match="outer needs an Elemwise of two inputs"):
        ot.exp.outer(x, y)

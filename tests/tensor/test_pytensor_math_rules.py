"""PyTensor's rules that its ``tests/tensor/test_math.py`` checks and
oxtensor follows: ``tensordot``'s checks and simple forms, ``isnan`` of
integers, ``maximum``'s gradient at a tie, ``Prod(no_zeros_in_input)``,
``divmod``, integer sums accumulated in floats, float16 means, and the
static shapes of ``dot``'s gradients."""

import pickle

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.graph.basic import equal_computations
from oxtensor.graph.traversal import ancestors
from oxtensor.raise_op import Assert
from oxtensor.tensor.math import Prod, dot, isinf, isnan, tensordot
from oxtensor.tensor.type import TensorType


def _asserts(out):
    return [v for v in ancestors([out]) if v.owner and isinstance(v.owner.op, Assert)]


@pytest.mark.parametrize(
    "axes", [(0, 1, 2), ((0, 1), (0,)), ((0, 1, 2), (0, 1, 2)), ((0,), (2,))]
)
def test_tensordot_refuses_axes_that_do_not_fit(axes):
    with pytest.raises(ValueError, match="tensordot: axes"):
        tensordot(ot.matrix(), ot.matrix(), axes)


def test_tensordot_refuses_lengths_that_differ_in_the_types():
    with pytest.raises(ValueError, match="inconsistent type shape"):
        tensordot(ot.ones(shape=(7, 4)), ot.ones(shape=(7, 4)), axes=1)


def test_tensordot_keeps_static_shapes():
    sy = ot.tensor("sy", shape=(None, 2))
    x = ot.ones(shape=(7, 3, 2))
    out = tensordot(x, sy, axes=[[-1], [-1]])
    assert out.type.shape == (7, 3, None)
    assert not _asserts(out)
    yv = np.ones((10, 2))
    np.testing.assert_allclose(
        out.eval({sy: yv}), np.tensordot(np.ones((7, 3, 2)), yv, [[-1], [-1]])
    )


def test_tensordot_asserts_several_unknown_contracted_lengths():
    x = ot.tensor(shape=(7, 3, None))
    y = ot.tensor(shape=(None, None, 3))
    out = tensordot(x, y, axes=[[1, 2], [1, 2]])
    assert _asserts(out)
    f = oxtensor.function([x, y], out)
    with pytest.raises(AssertionError, match="reduced axes of tensordot are not equal"):
        f(np.ones((7, 3, 2)), np.ones((7, 2, 3)))
    ok = tensordot(x, y, axes=[[0, 2], [0, 1]])
    xv, yv = np.ones((7, 3, 2)), np.ones((7, 2, 3))
    np.testing.assert_allclose(
        ok.eval({x: xv, y: yv}), np.tensordot(xv, yv, [[0, 2], [0, 1]])
    )
    # One contracted axis: the product itself refuses a mismatch.
    single = tensordot(x, y, axes=[[0], [0]])
    assert not _asserts(single)
    with pytest.raises(ValueError, match=r"(?i)shape"):
        single.eval({x: np.ones((7, 3, 1)), y: np.ones((100, 1, 3))})


def test_tensordot_of_vectors_and_matrices_is_one_dot():
    vec, mat = ot.vector(), ot.matrix()
    assert equal_computations([tensordot(mat, vec, [[-2], [-1]])], [dot(mat.T, vec)])
    assert equal_computations([tensordot(vec, mat, [[-1], [-1]])], [dot(vec, mat.T)])
    assert equal_computations([tensordot(mat, mat, [[-1], [-2]])], [dot(mat, mat)])
    scl = ot.scalar()
    assert equal_computations([tensordot(scl, scl, [[], []])], [scl * scl])


def test_isnan_and_isinf_of_integers_are_constant_false():
    for f in (isnan, isinf):
        y = f(ot.imatrix())
        assert not isinstance(y.owner.op, ot.elemwise.Elemwise)
        assert y.dtype == "bool"
    x = ot.imatrix("x")
    np.testing.assert_array_equal(
        isnan(x).eval({x: np.ones((2, 3), "int32")}), np.zeros((2, 3), bool)
    )
    assert isinstance(ot.math.isnan_(x).owner.op, ot.elemwise.Elemwise)


def test_maximum_and_minimum_give_a_tie_to_the_first_input():
    x, y = ot.dvector("x"), ot.dvector("y")
    for op in (ot.maximum, ot.minimum):
        g = oxtensor.grad(op(x, y).sum(), [x, y])
        got = oxtensor.function([x, y], g)([1.0, 2.0], [1.0, 3.0])
        np.testing.assert_array_equal(got[0], [1, op is ot.minimum])
        np.testing.assert_array_equal(got[1], [0, op is ot.maximum])


def test_prod_keeps_no_zeros_in_input():
    p = Prod(axis=1, no_zeros_in_input=True)
    assert p.no_zeros_in_input
    assert not Prod().no_zeros_in_input
    assert not pickle.loads(pickle.dumps(Prod())).no_zeros_in_input
    x = ot.dmatrix("x")
    data = np.array([[1, 2, 3], [4, 5, 6.0]])
    np.testing.assert_allclose(p(x).eval({x: data}), [6, 120])


def test_divmod_of_tensors():
    x, y = ot.fscalar("x"), ot.fscalar("y")
    d, r = divmod(x, y)
    f = oxtensor.function([x, y], [d, r])
    for a, b in ((1, 2), (-1, 2), (1, -2), (-7, -2), (0, 3)):
        np.testing.assert_array_equal(f(a, b), divmod(np.float32(a), np.float32(b)))
    d2, r2 = divmod(7, ot.lscalar("z"))
    assert d2.dtype == "int64"
    assert r2.dtype == "int64"


def test_integers_may_accumulate_in_any_float():
    s = ot.matrix(dtype="int16").sum(axis=1, acc_dtype="float16")
    assert s.owner.op.acc_dtype == "float16"
    with pytest.raises(TypeError, match="precision would be lost"):
        ot.matrix(dtype="float32").sum(acc_dtype="float16")


def test_float16_mean_sums_in_float32():
    x = ot.vector(dtype="float16")
    y = x.mean()
    assert y.dtype == "float16"
    assert oxtensor.function([x], y)(np.ones(100000, "float16")) == 1.0


def test_max_and_argmax_is_gone_with_pytensors_message():
    with pytest.raises(AttributeError, match="Call `Max` and `Argmax` seperately"):
        ot.math.MaxAndArgmax  # noqa: B018


def test_dot_gradients_keep_the_inputs_length_one_axes():
    for xs, ys in (((1,), (None,)), ((None,), (1, 1)), ((1, 1), (None, None))):
        x = TensorType("float64", shape=xs)()
        y = TensorType("float64", shape=ys)()
        z = ot.math.dense_dot(x, y)
        gx, gy = oxtensor.grad(z.sum(), [x, y])
        assert x.type.is_super(gx.type)
        assert y.type.is_super(gy.type)


def test_the_constant_of_a_fill_is_its_value():
    from oxtensor.tensor.basic import get_underlying_scalar_constant_value

    x = ot.matrix("x")
    gx = oxtensor.grad(ot.math.argmax(x, axis=0).sum(), x)
    assert get_underlying_scalar_constant_value(gx) == 0.0
    assert get_underlying_scalar_constant_value(ot.second(x, 3.0)) == 3.0

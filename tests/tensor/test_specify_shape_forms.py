"""The forms `specify_shape` takes (Ellipsis, a scalar, a vector of lengths),
when it returns its input unchanged, `specify_broadcastable`'s axes,
`shape_tuple`, and the gradient through `SpecifyShape`."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.scalar import ScalarConstant
from oxtensor.tensor.shape import (
    SpecifyShape,
    _specify_shape,
    shape_tuple,
    specify_broadcastable,
)


@pytest.mark.parametrize(
    ("shape", "expected"),
    [
        (..., (None, None, None, None)),
        ((..., 5), (None, None, None, 5)),
        ((5, ...), (5, None, None, None)),
        ((5, ..., 3, None), (5, None, 3, None)),
        ((5, 1, ..., 3, None), (5, 1, 3, None)),
    ],
)
def test_ellipsis_stands_for_unknown_lengths(shape, expected):
    x = ot.tensor("x", shape=(None,) * 4)
    assert ot.specify_shape(x, shape).type.shape == expected


def test_ellipsis_twice_is_refused():
    x = ot.tensor("x", shape=(None,) * 3)
    with pytest.raises(ValueError, match="Multiple Ellipsis in specify_shape"):
        ot.specify_shape(x, (..., None, ...))


def test_input_is_returned_when_nothing_new_is_said():
    x = ot.TensorType("float64", shape=(1, 2, None))("x")
    assert ot.specify_shape(x, (1, 2, None)) is x
    assert ot.specify_shape(x, (...,)) is x
    assert ot.specify_shape(x, (ot.constant(1), 2, None)) is x
    assert ot.specify_shape(x, (1, 2, 3)) is not x
    assert ot.specify_shape(x, (None, None, ot.lscalar())) is not x


def test_scalar_and_vector_shapes():
    x = ot.dvector("x")
    n = ot.lscalar("n")
    f = oxtensor.function([x, n], ot.specify_shape(x, n))
    np.testing.assert_array_equal(f(np.ones(3), 3), np.ones(3))
    y = ot.specify_shape(x, ot.as_tensor_variable([2]))
    assert y.type.shape == (2,)
    lengths = ot.lvector("lengths", shape=(1,))
    g = oxtensor.function([x, lengths], ot.specify_shape(x, lengths))
    np.testing.assert_array_equal(g(np.ones(2), [2]), np.ones(2))
    with pytest.raises(
        AssertionError, match="SpecifyShape: dim 0 of input has shape 2"
    ):
        g(np.ones(2), [3])


def test_bad_lengths_are_refused_with_pytensors_messages():
    with pytest.raises(TypeError, match="must be integer types"):
        ot.specify_shape([[1, 2, 3], [4, 5, 6]], (2.2, 3))
    with pytest.raises(TypeError, match="must be integer types"):
        _specify_shape([[1, 2, 3], [4, 5, 6]], 2.2, 3)
    with pytest.raises(ValueError, match="must have fixed dimensions"):
        ot.specify_shape(ot.dmatrix(), ot.ivector())
    with pytest.raises(ValueError, match="will never match"):
        ot.specify_shape(ot.dvector(), ())


def test_specify_broadcastable_axes():
    x = ot.dmatrix("x")
    assert specify_broadcastable(x, -1).type.shape == (None, 1)
    assert specify_broadcastable(x, 0, 1).type.shape == (1, 1)
    r = ot.row("r")
    assert specify_broadcastable(r, -2) is r
    with pytest.raises(
        ValueError, match="axis 2 is out of bounds for array of dimension 2"
    ):
        specify_broadcastable(x, 2)


def test_shape_tuple_constants_and_lengths():
    x = ot.tensor("x", shape=(1, 2, None))
    one, two, third = shape_tuple(x)
    assert isinstance(one, ScalarConstant)
    assert (one.data, two.data) == (1, 2)
    assert not isinstance(third, ScalarConstant)
    assert int(third.eval({x: np.zeros((1, 2, 7))})) == 7
    assert shape_tuple(oxtensor.graph.basic.Variable(ot.type_other.none_type_t)) == ()


def test_gradient_keeps_the_specified_shape():
    x = ot.dmatrix("x")
    y = ot.specify_shape(x, (2, 3))
    g = oxtensor.grad((y * y).sum(), x)
    assert isinstance(g.owner.op, SpecifyShape)
    assert g.type.shape == (2, 3)
    v = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(oxtensor.function([x], g)(v), 2 * v)


def test_raw_ops_take_pytensors_argument_forms():
    from oxtensor.tensor.shape import Shape_i
    from oxtensor.tensor.type_other import NoneConst

    x = ot.dmatrix("x")
    s = ot.iscalar("s")
    f = oxtensor.function([x, s], SpecifyShape()(x, None, s))
    assert f(np.zeros((3, 2)), 2).shape == (3, 2)
    with pytest.raises(AssertionError, match="SpecifyShape: dim 1 of input has"):
        f(np.zeros((3, 2)), 3)
    assert SpecifyShape()(x, NoneConst, 2).type.shape == (None, 2)
    with pytest.raises(TypeError, match="must be a Variable"):
        Shape_i(0)([1, 2])
    with pytest.raises(TypeError, match="more than 0 dimensions"):
        Shape_i(0)(ot.dscalar())

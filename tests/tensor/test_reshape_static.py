"""`reshape`'s static output shape from the entries of its shape that are
constants (PyTensor's `Reshape.make_node`), the length a static input size
gives the one unknown entry, the errors for shapes that cannot fit, and a
scalar shape; the DimShuffle and TensorType argument errors."""

import re

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.tensor.elemwise import DimShuffle
from oxtensor.tensor.shape import Shape_i


def test_constant_entries_give_static_lengths():
    dim = ot.lscalar("dim")
    x1 = ot.tensor("x1", shape=(2, 2, None))
    assert ot.reshape(x1, (6, 2)).type.shape == (6, 2)
    assert ot.reshape(x1, (6, -1)).type.shape == (6, None)
    assert ot.reshape(x1, (6, dim)).type.shape == (6, None)
    assert ot.reshape(x1, (6, dim, 2)).type.shape == (6, None, 2)


def test_a_static_input_size_gives_the_one_unknown_entry():
    dim = ot.lscalar("dim")
    x = ot.tensor("x", shape=(2, 2, 6))
    assert ot.reshape(x, (6, -1)).type.shape == (6, 4)
    assert ot.reshape(x, (6, dim)).type.shape == (6, 4)
    assert ot.reshape(x, (6, dim, 2)).type.shape == (6, 2, 2)
    f = oxtensor.function([x, dim], ot.reshape(x, (6, dim, 2)))
    v = np.arange(24.0).reshape(2, 2, 6)
    np.testing.assert_array_equal(f(v, 2), v.reshape(6, 2, 2))


@pytest.mark.parametrize(
    ("shape", "ndim", "static"),
    [
        ((None, None, None, None), 2, (None, None)),
        ((None, None, None, 1), 2, (None, None)),
        ((None, 1, None, 1), 2, (None, None)),
        ((None, 1, 1, 1), 2, (None, 1)),
        ((1, None, 1, 1), 3, (1, None, 1)),
        ((None, 2, 3), 2, (None, 6)),
    ],
)
def test_the_input_s_own_lengths_leave_the_rest_to_deduce(shape, ndim, static):
    # flatten is `x.reshape((Shape_i{0}(x), ..., -1))`: the free length is
    # the product of the axes not named, when those are static.
    x = ot.tensor("x", shape=shape)
    out = ot.flatten(x, ndim=ndim)
    assert out.type.shape == static
    f = oxtensor.function([x], out)
    v = np.arange(np.prod([d or 3 for d in shape]), dtype="float64").reshape(
        [d or 3 for d in shape]
    )
    np.testing.assert_array_equal(f(v), v.reshape(*v.shape[: ndim - 1], -1))


def test_a_length_named_twice_deduces_nothing():
    x = ot.tensor("x", shape=(None, 2, 3))
    n = Shape_i(0)(x)
    out = ot.reshape(x, ot.stack([n, n, -1]))
    assert out.type.shape == (None, None, None)


def test_shapes_that_cannot_fit_are_refused():
    x = ot.tensor("x", shape=(2, 2, 6))
    message = "Reshape: Input shape (2, 2, 6) is incompatible with new shape (6, 3, 99)"
    with pytest.raises(ValueError, match=re.escape(message)):
        ot.reshape(x, (6, 3, 99))
    with pytest.raises(ValueError, match="incompatible"):
        ot.reshape(x, (5, ot.lscalar()))


def test_scalar_shape_and_wrong_length_at_run_time():
    b = ot.dmatrix("b")
    c = ot.reshape(b, ot.as_tensor_variable(6), ndim=1)
    v = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(oxtensor.function([b], c)(v), v.ravel())
    shape = ot.ivector("shape")
    f = oxtensor.function([b, shape], b.reshape(shape, ndim=2))
    with pytest.raises(AssertionError, match="got a shape of length 3"):
        f(v, [3, 2, 1])
    with pytest.raises(ValueError, match="cannot reshape array of size 6"):
        f(v, [4, -1])


def test_dimshuffle_and_rank_errors():
    with pytest.raises(TypeError, match="input_ndim must be an integer"):
        DimShuffle(input_ndim=(True, False), new_order=(1, 0))
    assert DimShuffle(input_ndim=np.int64(2), new_order=(1, 0)).input_ndim == 2
    message = "maximum supported dimension for a TensorType is currently 64, found 65"
    with pytest.raises(ValueError, match=message):
        ot.dscalar().dimshuffle(("x",) * 65)


def test_entries_that_are_functions_of_constants_are_folded_and_rebuilt():
    from oxtensor.graph.replace import clone_replace

    x = ot.as_tensor_variable(50)
    i = ot.dvector("i")
    y = ot.reshape(i, (100 // x, x))
    assert y.type.shape == (2, 50)
    assert y.eval({i: np.zeros(100)}).shape == (2, 50)
    # The graph keeps `100 // x`: replacing x types the rebuilt node anew.
    y_new = clone_replace(y, {x: ot.as_tensor_variable(25)}, rebuild_strict=False)
    assert y_new.type.shape == (4, 25)
    assert y_new.eval({i: np.zeros(100)}).shape == (4, 25)
    m = ot.tensor("m", shape=(3, None))
    assert ot.reshape(ot.dvector(), (m.shape[0], -1)).type.shape == (3, None)

"""Shape ops run against NumPy: `Shape`, `Shape_i`, `Reshape` (with -1, on
strided input, errors naming the node) and `DimShuffle` as a view of its
input (transpose, expand, drop)."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.helpers import assert_matches


@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 0, 4), (1, 5, 1)])
def test_shape_and_shape_i_give_int64_lengths(shape, path):
    x = ot.tensor("x", dtype="float32", shape=(None,) * len(shape))
    outs = [ot.shape(path(x))] + [ot.shape_i(path(x), i) for i in range(len(shape))]
    got = oxtensor.function([x], outs)(np.zeros(shape, "float32"))
    assert_matches(got[0], np.array(shape, dtype="int64"))
    for i, n in enumerate(shape):
        assert_matches(got[1 + i], np.array(n, dtype="int64"))


@given(
    dims=st.lists(st.integers(1, 4), min_size=1, max_size=4),
    data=st.data(),
)
def test_reshape_matches_numpy(dims, data):
    size = int(np.prod(dims))
    order = data.draw(st.permutations(range(len(dims))))
    target = list(data.draw(st.permutations(dims)))
    if data.draw(st.booleans()):
        target[data.draw(st.integers(0, len(target) - 1))] = -1
    # A transposed input: reshape must read it in C order, as NumPy does.
    a = np.arange(size, dtype="float64").reshape(dims).transpose(order)
    x = ot.tensor("x", dtype="float64", shape=(None,) * len(dims))
    got = oxtensor.function([x], x.reshape(target))(a)
    assert_matches(got, a.reshape(target))


def test_reshape_with_a_symbolic_shape():
    x, s = ot.dvector("x"), ot.lvector("s")
    f = oxtensor.function([x, s], ot.reshape(x, s, ndim=2))
    assert_matches(f(np.arange(6.0), np.array([3, -1])), np.arange(6.0).reshape(3, 2))


@pytest.mark.parametrize("target", [(4, -1), (7,)])
def test_bad_reshape_raises_value_error_naming_the_node(target):
    x = ot.dmatrix("x")
    f = oxtensor.function([x], x.reshape(target))
    with pytest.raises(ValueError, match="reshape") as info:
        f(np.ones((2, 3)))
    assert "Apply node that caused the error: Reshape{" in str(info.value)


def test_two_free_lengths_are_refused_when_building():
    with pytest.raises(ValueError, match="at most one -1"):
        ot.dmatrix("x").reshape((-1, -1))


@pytest.mark.parametrize("target", [(-1, 5), (5, 0), (0, 2, 0)])
def test_reshape_of_empty_arrays(target):
    x = ot.dmatrix("x")
    a = np.ones((0, 5))
    assert_matches(oxtensor.function([x], x.reshape(target))(a), a.reshape(target))


def test_empty_reshape_with_a_free_length_is_ambiguous_as_in_numpy():
    x = ot.dmatrix("x")
    f = oxtensor.function([x], x.reshape((0, -1)))
    with pytest.raises(ValueError, match="cannot reshape array of size 0"):
        np.ones((0, 5)).reshape((0, -1))
    with pytest.raises(ValueError, match="cannot reshape array of size 0"):
        f(np.ones((0, 5)))


@pytest.mark.parametrize(
    ("make", "numpy"),
    [
        (lambda x: x.T, lambda a: a.T),
        (lambda x: x.dimshuffle(1, "x", 0), lambda a: a.T[:, None, :]),
        (lambda x: x.dimshuffle("x", 0, 1), lambda a: a[None]),
    ],
)
def test_dimshuffle_is_a_view_of_its_input(make, numpy, path):
    x = ot.dmatrix("x")
    a = np.arange(6.0).reshape(2, 3)
    borrowed = oxtensor.function(
        [oxtensor.In(x, borrow=True)], oxtensor.Out(make(x), borrow=True)
    )
    copied = oxtensor.function([x], make(x))
    view = borrowed(a)
    assert_matches(view, numpy(a))
    assert np.shares_memory(view, a), "a borrowed DimShuffle output views the input"
    out = copied(a)
    assert_matches(out, numpy(a))
    assert not np.shares_memory(out, a), "a default output is a copy"
    # Through a Python op the input is a fresh array, still viewed in place.
    assert_matches(oxtensor.function([x], make(path(x)))(a), numpy(a))


def test_dropping_a_broadcastable_dimension():
    x = ot.tensor("x", dtype="int32", shape=(None, 1))
    f = oxtensor.function([x], x.dimshuffle(0))
    a = np.arange(3, dtype="int32").reshape(3, 1)
    assert_matches(f(a), a[:, 0])


def test_dimshuffle_of_strided_input_then_elemwise():
    x = ot.dmatrix("x")
    f = oxtensor.function([x], x.T * 2 + x.T.sum(axis=0))
    a = np.arange(24.0).reshape(4, 6)[::-2, ::3]
    assert_matches(f(a), a.T * 2 + a.T.sum(axis=0))

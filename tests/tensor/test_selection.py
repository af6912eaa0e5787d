"""``choose`` (``Choose``), ``permute_row_elements`` (``PermuteRowElements``)
and ``inverse_permutation``: values against NumPy with broadcasting, modes,
static shapes, ``infer_shape``, gradients, errors."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.gradient import verify_grad
from oxtensor.tensor.basic import (
    Choose,
    PermuteRowElements,
    choose,
    inverse_permutation,
    permute_row_elements,
)

from tests.helpers import check_infer_shape

RNG = np.random.default_rng(3)


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_choose_matches_numpy(mode):
    a, c = ot.ivector("a"), ot.fmatrix("c")
    av = (
        np.array([0, 3, 1, 2], dtype="int32")
        if mode == "raise"
        else np.array([0, 5, -1, 2], dtype="int32")
    )
    cv = RNG.normal(size=(4, 4)).astype("float32")
    got = oxtensor.function([a, c], choose(a, c, mode=mode))(av, cv)
    np.testing.assert_array_equal(got, np.choose(av, cv, mode=mode))
    got = oxtensor.function([a, c], a.choose(c, mode=mode))(av, cv)
    np.testing.assert_array_equal(got, av.choose(cv, mode=mode))


def test_choose_broadcasts_lists_of_choices():
    a = ot.itensor3("a")
    b, c = ot.ftensor3("b"), ot.ftensor3("c")
    av = RNG.integers(0, 2, (2, 1, 1)).astype("int32")
    bv = RNG.normal(size=(1, 6, 1)).astype("float32")
    cv = RNG.normal(size=(1, 1, 5)).astype("float32")
    got = oxtensor.function([a, b, c], choose(a, (b, c)))(av, bv, cv)
    np.testing.assert_array_equal(got, np.choose(av, (bv, cv)))
    assert choose(ot.iscalar(), ot.tensor(shape=(4, 1))).type.shape == (1,)


def test_choose_infer_shape_and_errors():
    a = ot.tensor(dtype="int32", shape=(None, 1))
    c = ot.tensor(dtype="float32", shape=(None, 4))
    av = np.zeros((5, 1), dtype="int32")
    cv = np.ones((7, 4), dtype="float32")
    check_infer_shape([a, c], [choose(a, c)], [av, cv], Choose)
    with pytest.raises(TypeError, match="must be an integer array"):
        choose(ot.fscalar(), ot.fmatrix())
    with pytest.raises(ValueError, match="mode must be one of"):
        Choose("nope")
    f = oxtensor.function([a, c], choose(a, c))
    with pytest.raises(ValueError, match="invalid entry 9"):
        f(np.full((5, 1), 9, dtype="int32"), cv)
    assert Choose("clip") == Choose("clip")
    assert Choose("clip").mode == "clip"


@pytest.mark.parametrize(
    ("x_shape", "p_shape"),
    [
        ((5,), (5,)),
        ((3, 5), (5,)),
        ((3, 5), (3, 5)),
        ((5,), (3, 5)),
        ((4, 1, 5), (3, 5)),
    ],
)
def test_permute_row_elements_matches_indexing(x_shape, p_shape):
    x = ot.tensor(
        "x", dtype="float64", shape=tuple(1 if s == 1 else None for s in x_shape)
    )
    p = ot.tensor("p", dtype="int32", shape=(None,) * len(p_shape))
    xv = RNG.normal(size=x_shape)
    pv = np.stack([RNG.permutation(5) for _ in range(int(np.prod(p_shape[:-1])))])
    pv = pv.reshape(p_shape).astype("int32")
    got = oxtensor.function([x, p], permute_row_elements(x, p))(xv, pv)
    shape = np.broadcast_shapes(xv.shape, pv.shape)
    want = np.take_along_axis(
        np.broadcast_to(xv, shape), np.broadcast_to(pv, shape), axis=-1
    )
    np.testing.assert_array_equal(got, want)
    y = ot.tensor("y", dtype="float64", shape=(None,) * want.ndim)
    back = oxtensor.function([y, p], permute_row_elements(y, p, inverse=1))(want, pv)
    np.testing.assert_array_equal(back, np.broadcast_to(xv, want.shape))
    # The static length-1 axis tells the gradient to sum over it.
    verify_grad(
        lambda s: permute_row_elements(ot.specify_shape(s, xv.shape), pv), [xv], rng=RNG
    )
    check_infer_shape(
        [x, p], [permute_row_elements(x, p)], [xv, pv], PermuteRowElements
    )


def test_inverse_permutation():
    p = ot.imatrix("p")
    inv = inverse_permutation(p)
    assert inv.dtype == "int32"
    pv = np.stack([RNG.permutation(6) for _ in range(3)]).astype("int32")
    got = oxtensor.function([p], inv)(pv)
    np.testing.assert_array_equal(got, np.argsort(pv, axis=-1))
    np.testing.assert_array_equal(
        inverse_permutation([2, 4, 3, 0, 1]).eval(), [3, 4, 0, 2, 1]
    )


def test_permute_row_elements_errors():
    with pytest.raises(TypeError, match="y must be integers"):
        permute_row_elements(ot.dvector(), ot.dvector())
    f = oxtensor.function(
        [x := ot.dvector(), p := ot.lvector()], permute_row_elements(x, p)
    )
    with pytest.raises(IndexError, match="out of bounds"):
        f(np.zeros(2), np.array([0, 2]))
    with pytest.raises(ValueError, match="same length"):
        f(np.zeros(2), np.array([0]))

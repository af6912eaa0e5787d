"""Shape functions against NumPy: `specify_shape` (static refinement and the
runtime check), `tile`, `repeat` (the `Repeat` op and the `Alloc`/`Reshape`
form), `flatten(ndim)`, `expand_dims`, `squeeze`, `swapaxes`, `transpose`,
`moveaxis` and the `TensorVariable` methods; errors, gradients, `str`."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from hypothesis import given
from hypothesis import strategies as st
from oxtensor.gradient import Rop, verify_grad
from oxtensor.printing import debugprint

from tests.helpers import DTYPES, assert_matches, check_op_contract


def fn(inputs, outputs):
    return oxtensor.function(inputs, outputs, on_unused_input="ignore")


def test_specify_shape_refines_checks_and_is_a_view():
    x = ot.dmatrix("x")
    y = ot.specify_shape(x, (2, None))
    assert y.type.shape == (2, None)
    assert y.owner.op.view_map == {0: [0]}
    assert ot.specify_shape(x, (None, None)) is x
    a = np.arange(6.0).reshape(2, 3)
    assert_matches(fn([x], y)(a), a)
    with pytest.raises(
        AssertionError,
        match=r"(?s)dim 0 of input has shape 3, expected 2.*SpecifyShape",
    ):
        fn([x], y)(np.ones((3, 3)))
    with pytest.raises(
        ValueError, match="Input `x` is 2-dimensional and will never match"
    ):
        ot.specify_shape(x, (2,))
    with pytest.raises(ValueError, match="static shape 3, expected 2"):
        ot.specify_shape(ot.tensor(shape=(3, None)), (2, None))
    n = ot.iscalar("n")
    z = ot.specify_shape(x, (n, 3))
    assert z.type.shape == (None, 3)
    assert_matches(fn([x, n], z)(a, 2), a)
    check_op_contract(ot.SpecifyShape(), [x, 2, -1])


def test_specify_shape_gradient_and_rop():
    rng = np.random.default_rng(0)
    verify_grad(
        lambda x: ot.specify_shape(x, (2, 3)) ** 2,
        [rng.standard_normal((2, 3))],
        rng=rng,
    )
    x, v = ot.dvector("x"), ot.dvector("v")
    r = Rop(ot.specify_shape(x, (2,)) * 3, x, v)
    assert_matches(
        fn([x, v], r)(np.ones(2), np.array([1.0, 2.0])), np.array([3.0, 6.0])
    )


@pytest.mark.parametrize("dtype", DTYPES)
def test_tile_and_repeat_over_dtypes(dtype):
    a = (np.arange(6) % 3).astype(dtype).reshape(2, 3)
    x = ot.tensor("x", dtype=dtype, shape=(None, None))
    outs = [ot.tile(x, (2, 3)), ot.repeat(x, 2, axis=1), ot.repeat(x, [1, 0], axis=0)]
    got = fn([x], outs)(a)
    assert_matches(got[0], np.tile(a, (2, 3)))
    assert_matches(got[1], np.repeat(a, 2, axis=1))
    assert_matches(got[2], np.repeat(a, [1, 0], axis=0))


@pytest.mark.parametrize(
    ("shape", "reps"),
    [((3,), 2), ((2, 3), (2, 1, 2)), ((2, 3), (3,)), ((), (2, 2)), ((0, 2), (2, 2))],
)
def test_tile_matches_numpy(shape, reps):
    a = np.arange(int(np.prod(shape)), dtype="float64").reshape(shape)
    x = ot.tensor("x", dtype="float64", shape=(None,) * len(shape))
    assert_matches(fn([x], ot.tile(x, reps))(a), np.tile(a, reps))


def test_tile_static_shape_and_str():
    assert ot.tile(ot.tensor(shape=(2, 3)), (2, 3)).type.shape == (4, 9)
    text = debugprint(ot.tile(ot.dmatrix("x"), (2, 3)), file="str").splitlines()
    assert text[:3] == [
        "Reshape{2} [id A]",
        " ├─ Alloc [id B]",
        " │  ├─ ExpandDims{axes=(0, 2)} [id C]",
    ]


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_repeat_matches_numpy_on_strided_input(axis):
    a = np.arange(24.0).reshape(4, 6)[::2, ::-2]
    x = ot.dmatrix("x")
    r = ot.lvector("r")
    got = fn([x], ot.repeat(x, 3, axis=axis))(a)
    assert_matches(got, np.repeat(a, 3, axis=axis))
    if axis is not None:
        counts = np.arange(a.shape[axis]) % 3
        got = fn([x, r], ot.repeat(x, r, axis=axis))(a, counts)
        assert_matches(got, np.repeat(a, counts, axis=axis))


def test_repeat_op_errors_and_str():
    x, r = ot.dmatrix("x"), ot.lvector("r")
    node = ot.repeat(x, r, axis=0).owner
    assert str(node.op) == "Repeat{axis=0}"
    assert node.op.axis == 0
    f = fn([x, r], ot.repeat(x, r, axis=0))
    with pytest.raises(ValueError, match=r"(?s)could not be broadcast.*Repeat"):
        f(np.ones((2, 2)), [1, 2, 3])
    with pytest.raises(ValueError, match="negative"):
        f(np.ones((2, 2)), [1, -1])
    with pytest.raises(TypeError, match="integers"):
        ot.repeat(x, 1.5)
    with pytest.raises(ValueError, match="positive integer axis"):
        ot.Repeat(-1)
    check_op_contract(ot.Repeat(1), [x, r])


def test_repeat_gradients():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((2, 3))
    verify_grad(lambda x: ot.repeat(x, 3, axis=1), [a], rng=rng)
    verify_grad(lambda x: ot.Repeat(0)(x, ot.constant(np.int64(2))), [a], rng=rng)
    # A vector of counts (one per row) has a gradient too: each row's sum.
    counts = np.array([2, 0])
    verify_grad(lambda x: ot.repeat(x, ot.constant(counts), axis=0), [a], rng=rng)


@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_flatten(ndim):
    a = np.arange(24.0).reshape(2, 3, 4).transpose(2, 0, 1)
    x = ot.dtensor3("x")
    got = fn([x], [ot.flatten(x, ndim), x.flatten(ndim)])(a)
    want = a.reshape(*a.shape[: ndim - 1], -1)
    assert_matches(got[0], want)
    assert_matches(got[1], want)
    with pytest.raises(ValueError, match="out of bounds"):
        ot.flatten(x, 4)


def test_expand_dims_squeeze_and_transposes():
    a = np.arange(6.0).reshape(1, 2, 3)
    x = ot.tensor("x", dtype="float64", shape=(1, None, None))
    # Each case written once, for oxtensor and for NumPy (`m`).
    cases = [
        lambda m, v: m.expand_dims(v, (0, -1)),
        lambda m, v: m.squeeze(v),
        lambda m, v: v.squeeze(0),
        lambda m, v: m.swapaxes(v, 0, -1),
        lambda m, v: v.swapaxes(1, 2),
        lambda m, v: m.transpose(v, (2, 0, 1)),
        lambda m, v: m.transpose(v),
        lambda m, v: m.moveaxis(v, 0, -1),
        lambda m, v: m.moveaxis(v, [0, 1], [2, 0]),
    ]
    outs = [case(ot, x) for case in cases]
    got = fn([x], outs)(a)
    wants = [case(np, a) for case in cases]
    for g, w in zip(got, wants, strict=True):
        assert_matches(g, w)
    assert outs[1].type.shape == (None, None)
    assert str(ot.swapaxes(ot.dmatrix(), 0, 1).owner.op) == "MatrixTranspose"
    assert (
        str(ot.squeeze(ot.tensor(shape=(1, None, 1))).owner.op)
        == "Squeeze{axes=(0, 2)}"
    )


def test_squeeze_errors():
    with pytest.raises(TypeError, match="must have length 1"):
        ot.squeeze(ot.tensor(shape=(2, 3)), axis=0)
    x = ot.dmatrix("x")
    with pytest.raises(ValueError, match="cannot drop dimension 0"):
        fn([x], ot.squeeze(x, 0))(np.ones((2, 2)))
    with pytest.raises(np.exceptions.AxisError):
        ot.expand_dims(x, 5)


def test_tensor_variable_methods():
    x = ot.dmatrix("x")
    a = np.arange(6.0).reshape(2, 3)
    got = fn([x], [x.repeat(2), x.repeat(2, axis=0), x.swapaxes(0, 1)])(a)
    assert_matches(got[0], a.repeat(2))
    assert_matches(got[1], a.repeat(2, axis=0))
    assert_matches(got[2], a.swapaxes(0, 1))


@given(
    shape=st.lists(st.integers(0, 3), min_size=1, max_size=3),
    reps=st.integers(0, 3),
    data=st.data(),
)
def test_repeat_hypothesis(shape, reps, data):
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    a = np.arange(int(np.prod(shape)), dtype="int16").reshape(shape)
    x = ot.tensor("x", dtype="int16", shape=(None,) * len(shape))
    assert_matches(
        fn([x], ot.repeat(x, reps, axis=axis))(a), np.repeat(a, reps, axis=axis)
    )

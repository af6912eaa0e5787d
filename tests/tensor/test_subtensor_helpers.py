"""`tensor.subtensor`'s helpers: the canonical form of slices and indices,
proven signs, `flip`, `slice_at_axis`, `as_index_literal` and the shapes
indexing gives, each against NumPy."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.graph.basic import equal_computations
from oxtensor.tensor.exceptions import NotScalarConstantError
from oxtensor.tensor.subtensor import (
    _is_provably_non_negative,
    _is_provably_positive,
    as_index_literal,
    basic_shape,
    flip,
    get_canonical_form_slice,
    indexed_result_shape,
    slice_at_axis,
)
from oxtensor.tensor.type_other import NoneConst


def test_canonical_slices_match_numpy():
    start, stop, step, length = (ot.iscalar(n) for n in "besl")
    cnf, direction = get_canonical_form_slice(slice(start, stop, step), length)
    f = oxtensor.function(
        [start, stop, step, length],
        [ot.as_tensor_variable(v) for v in (cnf.start, cnf.stop, cnf.step, direction)],
    )
    a = np.arange(5)
    for b in [-8, -5, -1, 0, 1, 4, 8]:
        for e in [-8, -4, -1, 0, 3, 5, 8]:
            for s in [-6, -3, -1, 1, 2, 5]:
                lo, hi, st, d = (int(v) for v in f(b, e, s, 5))
                assert lo >= 0
                assert hi >= 0
                assert st > 0
                np.testing.assert_array_equal(a[lo:hi:st][::d], a[b:e:s])


def test_constant_steps_give_int_directions():
    assert get_canonical_form_slice(slice(None, None, -1), 10)[1] == -1
    res, direction = get_canonical_form_slice(slice(3, 7, 2), 10)
    assert isinstance(res, slice)
    assert direction == 1


def test_integer_indices_are_wrapped():
    length = ot.lscalar("n")
    zero = ot.as_tensor(0)
    assert get_canonical_form_slice(zero, length)[0] is zero
    minus = ot.as_tensor(-1)
    assert equal_computations(
        [get_canonical_form_slice(minus, length)[0]], [minus + length]
    )
    i = ot.lscalar("i")
    res, _ = get_canonical_form_slice(i, length)
    assert res.eval({i: -2, length: 5}) == 3
    assert res.eval({i: 2, length: 5}) == 2


@pytest.mark.parametrize("idx", [None, NoneConst, ot.vector(), ot.dscalar()])
def test_unsupported_indices(idx):
    with pytest.raises(ValueError, match="not a supported slice"):
        get_canonical_form_slice(idx, 5)


def test_zero_step_is_refused():
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        get_canonical_form_slice(slice(None, None, 0), ot.lscalar())


@pytest.mark.parametrize(
    ("data", "strict", "expected"),
    [([1.0, 2.0], True, True), ([0.0, 2.0], True, False), ([0.0, 2.0], False, True)],
)
def test_provably_positive_constants(data, strict, expected):
    assert _is_provably_positive(ot.constant(np.array(data)), strict=strict) is expected


def test_provably_non_negative():
    assert _is_provably_non_negative(ot.vector("v", dtype="uint8")) is True
    assert _is_provably_non_negative(ot.matrix("m").shape[0]) is True
    assert _is_provably_positive(ot.matrix("m").shape[0]) is False
    assert _is_provably_non_negative(ot.dvector("x")) is False
    assert _is_provably_positive(ot.maximum(5, -10)) is True
    assert _is_provably_positive(ot.minimum(2, 0)) is False


def test_as_index_literal():
    assert as_index_literal(slice(None, ot.as_tensor(1))) == slice(None, 1)
    assert as_index_literal(ot.as_tensor(2)) == 2
    assert as_index_literal(np.newaxis) is None
    with pytest.raises(NotScalarConstantError):
        as_index_literal(ot.lscalar())


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2)])
def test_flip_matches_numpy(axis):
    x = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(
        flip(ot.as_tensor(x), axis=axis).eval(), np.flip(x, axis)
    )


def test_slice_at_axis():
    x = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(x[slice_at_axis(slice(None, 1), 1)], x[:, :1])
    np.testing.assert_array_equal(x[slice_at_axis(slice(None, 1), -2)], x[:, :1, :])


@pytest.mark.parametrize(
    "idx", [(slice(1, 3),), (2,), ([1, 3, 2], slice(1, 3)), (slice(None), [0, 1])]
)
def test_indexed_result_shape(idx):
    x = np.zeros((5, 4))
    tidx = [i if isinstance(i, slice) else ot.as_tensor(i) for i in idx]
    res = indexed_result_shape(ot.as_tensor(x).shape, tidx)
    assert tuple(int(r.eval()) for r in res) == x[idx].shape
    shapes = [i if isinstance(i, slice) else tuple(np.shape(i)) for i in idx]
    res = indexed_result_shape((5, 4), shapes, indices_are_shapes=True)
    assert tuple(int(r.eval()) for r in res) == x[idx].shape


def test_basic_shape():
    assert tuple(int(r.eval()) for r in basic_shape((5, 4), (slice(1, 3),))) == (2,)
    with pytest.raises(TypeError, match="takes slices and None"):
        basic_shape((5, 4), (ot.lvector(),))


def test_specify_broadcastable_and_shape_tuple():
    from oxtensor.tensor.shape import _specify_shape, shape_tuple, specify_broadcastable

    x = ot.dmatrix("x")
    y = specify_broadcastable(x, 0)
    assert y.type.shape == (1, None)
    with pytest.raises(
        ValueError, match="axis 2 is out of bounds for array of dimension 2"
    ):
        specify_broadcastable(x, 2)
    z = _specify_shape(x, 2, None)
    assert z.type.shape == (2, None)
    dims = shape_tuple(z)
    assert int(dims[0].eval()) == 2
    assert int(dims[1].eval({x: np.zeros((2, 7))})) == 7


def test_canonical_form_of_scalar_constants():
    import oxtensor.scalar as ps

    length = ot.lscalar("n")
    assert get_canonical_form_slice(ps.as_scalar(0), length) == (0, 1)
    res, direction = get_canonical_form_slice(ps.as_scalar(-1), length)
    assert direction == 1
    assert res.eval({length: 7}) == 6
    sl, direction = get_canonical_form_slice(
        slice(ps.as_scalar(1), ps.as_scalar(5), ps.as_scalar(2)), ps.as_scalar(7)
    )
    assert direction == 1
    assert [sl.start.eval(), sl.stop.eval(), sl.step.eval()] == [1, 5, 2]

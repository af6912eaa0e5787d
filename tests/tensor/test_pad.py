"""`oxtensor.tensor.pad` against ``np.pad`` for every supported mode, with
shapes, widths and values drawn by hypothesis."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from oxtensor.tensor.pad import Pad, PadMode, pad

MODES = ["constant", "edge", "wrap", "reflect", "symmetric", "linear_ramp"]
STATS = ["mean", "maximum", "minimum"]


@st.composite
def padded(draw, min_side=0):
    """An array (no zero-length axis, NumPy refuses most modes there) and
    one (before, after) pair per axis."""
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    values = draw(
        hnp.arrays(
            "float64",
            shape,
            elements=st.floats(-100, 100, allow_nan=False, allow_infinity=False),
        )
    )
    width = st.integers(min_side, 6)
    widths = [(draw(width), draw(width)) for _ in shape]
    return values, widths


def _run(values, widths, mode, **kwargs):
    x = ot.tensor(dtype=values.dtype, shape=(None,) * values.ndim)
    return oxtensor.function([x], pad(x, widths, mode, **kwargs))(values)


@pytest.mark.parametrize("mode", MODES + STATS)
@settings(max_examples=15, deadline=None)
@given(case=padded())
def test_pad_matches_numpy(mode, case):
    values, widths = case
    got = _run(values, widths, mode)
    expected = np.pad(values, widths, mode)
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


@settings(max_examples=15, deadline=None)
@given(case=padded(), c=st.tuples(st.integers(-9, 9), st.integers(-9, 9)))
def test_constant_and_end_values_per_side(case, c):
    values, widths = case
    np.testing.assert_allclose(
        _run(values, widths, "constant", constant_values=c),
        np.pad(values, widths, "constant", constant_values=c),
    )
    np.testing.assert_allclose(
        _run(values, widths, "linear_ramp", end_values=c),
        np.pad(values, widths, "linear_ramp", end_values=c),
    )


@pytest.mark.parametrize("mode", ["mean", "linear_ramp", "reflect", "constant"])
def test_integer_arrays_keep_numpy_rounding(mode):
    values = np.array([[1, 2, 4], [7, 11, 16]], dtype="int32")
    widths = [(3, 2), (4, 1)]
    got = _run(values, widths, mode)
    expected = np.pad(values, widths, mode)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


def test_scalar_width_and_gradient():
    x = ot.dvector("x")
    v = np.array([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(pad(x, 2, "wrap").eval({x: v}), np.pad(v, 2, "wrap"))
    g = oxtensor.grad(pad(x, 1, "edge").sum(), x)
    np.testing.assert_array_equal(g.eval({x: v}), [2.0, 1.0, 2.0])


def test_bad_arguments():
    x = ot.dmatrix("x")
    with pytest.raises(ValueError, match="negative"):
        pad(x, -1)
    with pytest.raises(ValueError, match="does not fit"):
        pad(x, [(1, 1)] * 3)
    with pytest.raises(NotImplementedError, match="median"):
        pad(x, 1, "median")
    with pytest.raises(ValueError, match="Invalid mode: unknown"):
        pad(x, 1, "unknown")
    with pytest.raises(ValueError, match="reflect_type"):
        pad(x, 1, "reflect", reflect_type="sideways")
    with pytest.raises(ValueError, match="stat_length cannot be negative"):
        pad(x, 1, "mean", stat_length=-1)
    with pytest.raises(ValueError, match="does not take"):
        pad(x, 1, "edge", constant_values=3)
    with pytest.raises(TypeError, match="integers"):
        pad(x, 1.5)


@pytest.mark.parametrize("mode", ["reflect", "symmetric"])
@settings(max_examples=15, deadline=None)
@given(case=padded())
def test_odd_reflection_matches_numpy(mode, case):
    # Widths up to 6 on axes of 1 to 4: several periods, each shifted.
    values, widths = case
    np.testing.assert_allclose(
        _run(values, widths, mode, reflect_type="odd"),
        np.pad(values, widths, mode, reflect_type="odd"),
        rtol=1e-12,
        atol=1e-9,
    )


@pytest.mark.parametrize("mode", STATS)
@settings(max_examples=15, deadline=None)
@given(case=padded(), length=st.tuples(st.integers(1, 5), st.integers(1, 5)))
def test_stat_length_matches_numpy(mode, case, length):
    values, widths = case
    np.testing.assert_allclose(
        _run(values, widths, mode, stat_length=length),
        np.pad(values, widths, mode, stat_length=length),
        rtol=1e-12,
    )


def test_pad_op_records_its_mode():
    x = ot.dmatrix("x")
    for mode, kwargs in [
        ("constant", {}),
        ("symmetric", {"reflect_type": "odd"}),
        ("mean", {"stat_length": 2}),
    ]:
        op = pad(x, 1, mode, **kwargs).owner.op
        assert isinstance(op, Pad)
        assert op.pad_mode == mode
        assert mode in PadMode.__args__
    assert pad(x, 1, "symmetric", reflect_type="odd").owner.op.reflect_type == "odd"
    assert pad(x, 1, "mean", stat_length=2).owner.op.has_stat_length
    # Pads in different modes are different ops.
    assert pad(x, 1, "reflect").owner.op != pad(x, 1, "symmetric").owner.op
    assert pad(ot.tensor(shape=(8, 8)), [[1, 1], [2, 2]], "wrap").type.shape == (10, 12)

"""``argmin`` is ``Argmax(Neg(x))`` (``Invert`` for integers and bools) in
the graph, as in PyTensor; the specialize rewrite
``local_argmax_of_reversed`` makes the pair one ``Argmin``, the ``argmin``
kernel. Answers must be NumPy's whatever the path: first minimum, first
NaN, every dtype, axis and layout."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

RNG = np.random.default_rng(3)


def argmin_fn(value, axis, **kwargs):
    x = ot.tensor("x", dtype=str(value.dtype), shape=(None,) * value.ndim)
    return oxtensor.function([x], ot.argmin(x, axis=axis, **kwargs))


@pytest.mark.parametrize(
    "dtype", ["float64", "float32", "float16", "int8", "int64", "uint16", "bool"]
)
@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 1)])
@pytest.mark.parametrize("layout", ["C", "F", "stepped"])
def test_argmin_matches_numpy(dtype, axis, layout):
    base = RNG.integers(-20, 20, (37, 530)).astype(dtype)
    value = {"C": base, "F": np.asfortranarray(base), "stepped": base[::2, ::3]}[layout]
    got = argmin_fn(value, axis)(value)
    if isinstance(axis, tuple):
        want = value.reshape(-1).argmin()
    else:
        want = value.argmin(axis=axis)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == np.int64


def test_nan_first_ties_signed_zeros_and_infinities():
    v = np.array(
        [
            [3.0, np.nan, -1.0, np.nan],
            [0.0, -0.0, 0.0, 5.0],
            [np.inf, -np.inf, -np.inf, 1.0],
            [2.0, 2.0, 2.0, 2.0],
        ]
    )
    for axis in [0, 1, None]:
        np.testing.assert_array_equal(argmin_fn(v, axis)(v), v.argmin(axis=axis))
    long = RNG.standard_normal(600_000)
    long[[123_456, 500_001]] = long.min() - 1
    np.testing.assert_array_equal(argmin_fn(long, None)(long), long.argmin())
    long[400_000] = np.nan
    np.testing.assert_array_equal(argmin_fn(long, None)(long), 400_000)


def test_keepdims_graph_form_and_a_shared_negation():
    x = ot.dmatrix("x")
    out = ot.argmin(x, axis=1, keepdims=True)
    text = oxtensor.dprint(out, file="str")
    assert "Argmax{axis=(1,)}" in text
    assert "Neg" in text
    v = RNG.standard_normal((5, 7))
    np.testing.assert_array_equal(
        oxtensor.function([x], out)(v), v.argmin(axis=1, keepdims=True)
    )
    # The negated copy is also an output: both are computed.
    neg = -x
    f = oxtensor.function([x], [ot.argmax(neg, axis=0), neg])
    a, b = f(v)
    np.testing.assert_array_equal(a, v.argmin(axis=0))
    np.testing.assert_array_equal(b, -v)
    assert np.all(np.isfinite(v))  # the input is untouched


def test_argmax_of_negated_integers_keeps_its_own_answer():
    # -x overflows at the most negative value, so argmax(-x) is not argmin.
    v = np.array([[np.iinfo(np.int8).min, 5, -3]], dtype="int8")
    x = ot.bmatrix("x")
    got = oxtensor.function([x], ot.argmax(-x, axis=1))(v)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(got, (-v).argmax(axis=1))


def test_empty_lanes_raise_naming_the_node():
    v = np.zeros((2, 0))
    with pytest.raises(ValueError, match=r"argmin of an empty sequence") as info:
        argmin_fn(v, 1)(v)
    # specialize's local_argmax_of_reversed made the node an Argmin.
    assert "Argmin{axis=(1,)}" in str(info.value)


@settings(max_examples=40, deadline=None)
@given(
    value=hnp.arrays(
        dtype=st.sampled_from([np.float64, np.float32, np.int16]),
        shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=6),
        elements={"allow_nan": True},
    ),
    data=st.data(),
)
def test_random_arrays_and_axes(value, data):
    axis = data.draw(st.sampled_from([None, *range(-value.ndim, value.ndim)]))
    np.testing.assert_array_equal(
        argmin_fn(value, axis)(value), value.argmin(axis=axis)
    )

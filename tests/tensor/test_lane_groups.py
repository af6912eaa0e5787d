"""Float lanes read several at a time (``argmax``, ``max``/``min`` over the
last axes) and the packed bool loops (``isnan``, ``isinf``, comparisons)
against NumPy, with NaN, infinities and signed zeros at random positions."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
from hypothesis import given
from hypothesis import strategies as st

from tests.helpers import assert_matches

SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0]


@st.composite
def arrays(draw, max_rows=9, max_cols=70):
    dtype = draw(st.sampled_from(["float64", "float32"]))
    shape = (draw(st.integers(1, max_rows)), draw(st.integers(1, max_cols)))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    # Few distinct values, so that ties and equal neighbours are common.
    v = rng.integers(-3, 4, size=shape).astype(dtype)
    for _ in range(draw(st.integers(0, 6))):
        at = (rng.integers(shape[0]), rng.integers(shape[1]))
        v[at] = draw(st.sampled_from(SPECIAL))
    return v


def compiled(build, dtype):
    x = ot.matrix("x", dtype=dtype)
    return oxtensor.function([x], build(x))


@given(arrays(), st.sampled_from([None, 0, 1, -1]), st.booleans())
def test_argmax_argmin_max_min_match_numpy(v, axis, keepdims):
    cases = [
        (lambda x: ot.argmax(x, axis=axis, keepdims=keepdims), np.argmax),
        (lambda x: ot.argmin(x, axis=axis, keepdims=keepdims), np.argmin),
        (lambda x: x.max(axis=axis, keepdims=keepdims), np.max),
        (lambda x: x.min(axis=axis, keepdims=keepdims), np.min),
    ]
    for build, ref in cases:
        got = compiled(build, str(v.dtype))(v)
        assert_matches(got, ref(v, axis=axis, keepdims=keepdims))


def test_long_rows_cross_the_span_and_group_sizes():
    rng = np.random.default_rng(3)
    for rows, cols in [(4, 512), (5, 513), (7, 1500), (9, 1024)]:
        v = rng.normal(size=(rows, cols))
        v[1, cols - 1] = np.nan
        v[2, 0] = np.nan
        v[3, :] = 1.5  # all equal: the first index
        v[-1, cols // 2] = np.inf
        for build, ref in [
            (lambda x: ot.argmax(x, axis=1), lambda a: a.argmax(axis=1)),
            (lambda x: x.max(axis=1), lambda a: a.max(axis=1)),
            (lambda x: x.min(axis=-1), lambda a: a.min(axis=-1)),
        ]:
            assert_matches(compiled(build, "float64")(v), ref(v))


@given(arrays(max_rows=3, max_cols=200), st.sampled_from([-1.0, 0.0, 1.0, np.nan]))
def test_isnan_isinf_and_comparisons_match_numpy(v, s):
    x, y = ot.matrix("x", dtype=str(v.dtype)), ot.matrix("y", dtype=str(v.dtype))
    w = np.roll(v, 1)
    scalar = np.asarray(s, dtype=v.dtype)
    unary = [(ot.isnan, np.isnan), (ot.isinf, np.isinf)]
    for ours, ref in unary:
        assert_matches(oxtensor.function([x], ours(x))(v), ref(v))
    binary = [
        (ot.lt, np.less),
        (ot.gt, np.greater),
        (ot.le, np.less_equal),
        (ot.ge, np.greater_equal),
        (ot.eq, np.equal),
        (ot.neq, np.not_equal),
    ]
    for ours, ref in binary:
        assert_matches(oxtensor.function([x, y], ours(x, y))(v, w), ref(v, w))
        assert_matches(oxtensor.function([x], ours(x, scalar))(v), ref(v, scalar))
        assert_matches(oxtensor.function([x], ours(scalar, x))(v), ref(scalar, v))
        # A strided view takes the general path.
        assert_matches(
            oxtensor.function([x], ours(x, scalar))(v[:, ::2]), ref(v[:, ::2], scalar)
        )


def test_rows_around_the_vector_block_and_span_lengths():
    # Lengths around the AVX2 and AVX-512 blocks (32/64 float32, 16/32
    # float64) and spans (four blocks); odd lengths start the rows at every
    # alignment, so the extreme or NaN falls before the first aligned
    # vector in some rows and after it in others.
    rng = np.random.default_rng(11)
    for dtype in ("float32", "float64"):
        for n in (15, 16, 17, 31, 33, 63, 65, 127, 129, 255, 257, 511, 513):
            v = rng.integers(-3, 4, size=(12, n)).astype(dtype)
            v[0, n // 2] = np.nan
            v[1, 0] = 9  # the first element
            v[2, min(7, n - 1)] = 9  # likely in an unaligned head
            v[2, n - 1] = 9  # tied, later
            v[3, :] = -np.inf
            v[4, [min(11, n - 1), n - 1]] = np.nan
            v[5, :] = -0.0
            v[5, n - 1] = 0.0
            v[6, [n // 3, 2 * n // 3]] = -9
            for build, ref in [
                (lambda x: ot.argmax(x, axis=1), lambda a: a.argmax(axis=1)),
                (lambda x: ot.argmin(x, axis=1), lambda a: a.argmin(axis=1)),
                (lambda x: x.max(axis=1), lambda a: a.max(axis=1)),
                (lambda x: x.min(axis=1), lambda a: a.min(axis=1)),
            ]:
                assert_matches(compiled(build, dtype)(v), ref(v))

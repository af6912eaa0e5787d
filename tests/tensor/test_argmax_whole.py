"""``argmax``/``argmin`` over all axes of arrays long enough to be split
across threads (pieces of 2**18 elements): NumPy's first occurrence among
ties in different pieces, and the first NaN winning."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest

PIECE = 1 << 18


def whole(dtype, fn):
    x = ot.matrix("x", dtype=dtype)
    return oxtensor.function([x], fn(x))


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32"])
def test_ties_across_pieces_take_the_first(dtype):
    n = 3 * PIECE + 500
    v = (np.arange(n) * 37 % 1001).astype(dtype).reshape(n // 4, 4)
    f, g = whole(dtype, ot.argmax), whole(dtype, ot.argmin)
    assert f(v) == np.argmax(v)
    assert g(v) == np.argmin(v)
    flat = v.reshape(-1)
    flat[2 * PIECE + 3] = 5000
    flat[3 * PIECE + 1] = 5000
    assert f(v) == np.argmax(v) == 2 * PIECE + 3


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_first_nan_wins_in_any_piece(dtype):
    n = 4 * PIECE
    v = np.random.default_rng(1).random((n // 8, 8)).astype(dtype)
    f, g = whole(dtype, ot.argmax), whole(dtype, ot.argmin)
    flat = v.reshape(-1)
    flat[n - 1] = np.nan
    assert f(v) == g(v) == np.argmax(v) == n - 1
    flat[PIECE + 17] = np.nan
    assert f(v) == g(v) == np.argmin(v) == PIECE + 17
    # A transposed input is made contiguous first: positions in C order.
    assert f(v.T) == np.argmax(v.T)

"""Boolean masks at sizes where the packed-mask kernels split into words and
parts: `nonzero`/`flatnonzero`, `x[mask]` and `set_subtensor`/
`inc_subtensor` on `x[mask]` against NumPy, for masks of every density,
lengths around 64-element words, masks over x's leading axes, strided
operands, every dtype, empty results, errors and gradients."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from oxtensor.gradient import verify_grad

from tests.helpers import DTYPES

RNG = np.random.default_rng(3)
DENSITIES = [0.0, 0.01, 0.5, 1.0]


def _mask(shape: tuple[int, ...], density: float) -> np.ndarray:
    return RNG.random(shape) < density


def _values(dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    v = RNG.integers(-3, 4, size=shape)
    return v != 0 if dtype == "bool" else v.astype(dtype)


@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("shape", [(63,), (64,), (65,), (200_001,), (3, 70_001)])
def test_nonzero_and_flatnonzero(shape, density):
    x = ot.tensor("x", dtype="float64", shape=(None,) * len(shape))
    f = oxtensor.function([x], [*ot.nonzero(x > 0), ot.flatnonzero(x > 0)])
    a = np.where(_mask(shape, density), 1.5, -0.0)
    *coords, flat = f(a)
    for got, want in zip(coords, np.nonzero(a > 0), strict=True):
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(flat, np.flatnonzero(a > 0))


@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize(
    ("shape", "k"), [((130,), 1), ((70, 33), 2), ((70, 33), 1), ((4, 5, 6), 2)]
)
def test_mask_gather_and_scatter(shape, k, density):
    x = ot.tensor("x", dtype="float64", shape=(None,) * len(shape))
    b = ot.tensor("b", dtype="bool", shape=(None,) * k)
    a = RNG.standard_normal(shape)
    m = _mask(shape[:k], density)
    f = oxtensor.function(
        [x, b],
        [x[b], ot.set_subtensor(x[b], -7.0), ot.inc_subtensor(x[b], 2.0)],
    )
    got, setv, inc = f(a, m)
    np.testing.assert_array_equal(got, a[m])
    want = a.copy()
    want[m] = -7.0
    np.testing.assert_array_equal(setv, want)
    want = a.copy()
    want[m] += 2.0
    np.testing.assert_array_equal(inc, want)


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_dtype(dtype):
    a = _values(dtype, (9, 70))
    m = _mask((9, 70), 0.5)
    x = ot.tensor("x", dtype=dtype, shape=(None, None))
    b = ot.tensor("b", dtype="bool", shape=(None, None))
    y = ot.tensor("y", dtype=dtype, shape=(None,))
    vals = _values(dtype, (int(m.sum()),))
    f = oxtensor.function(
        [x, b, y], [x[b], ot.set_subtensor(x[b], y), ot.inc_subtensor(x[b], y)]
    )
    got, setv, inc = f(a, m, vals)
    assert got.dtype == a.dtype
    np.testing.assert_array_equal(got, a[m])
    want = a.copy()
    want[m] = vals
    np.testing.assert_array_equal(setv, want)
    want = a.copy()
    want[m] = want[m] + vals if dtype != "bool" else want[m] | vals
    np.testing.assert_array_equal(inc, want)


def test_strided_operands_and_row_values():
    base = RNG.standard_normal((80, 150))
    wide = _mask((80, 150), 0.4)
    x, b = ot.dmatrix("x"), ot.tensor("b", dtype="bool", shape=(None, None))
    rows = ot.tensor("rows", dtype="bool", shape=(None,))
    r, c = ot.dvector("r"), ot.dmatrix("c")
    f = oxtensor.function([x, b], [x[b], ot.inc_subtensor(x[b], 1.0)])
    for a, m in [(base.T, wide.T), (base[::2, ::-3], wide[1::2, ::3])]:
        got, inc = f(a, m)
        np.testing.assert_array_equal(got, a[m])
        want = a.copy()
        want[m] += 1.0
        np.testing.assert_array_equal(inc, want)
    # A mask over rows, with a row broadcast and one row per set position.
    g = oxtensor.function(
        [x, rows, r, c],
        [x[rows, :], ot.set_subtensor(x[rows], r), ot.set_subtensor(x[rows], c)],
    )
    a, m = base[:, ::5], _mask((80,), 0.5)
    got, one_row, each = g(a, m, base[0, :30], base[: m.sum(), 1:31])
    np.testing.assert_array_equal(got, a[m])
    want = a.copy()
    want[m] = base[0, :30]
    np.testing.assert_array_equal(one_row, want)
    want[m] = base[: m.sum(), 1:31]
    np.testing.assert_array_equal(each, want)


def test_empty_and_mismatched_masks():
    x, b = ot.dmatrix("x"), ot.tensor("b", dtype="bool", shape=(None, None))
    f = oxtensor.function([x, b], [x[b], ot.set_subtensor(x[b], 1.0)])
    got, setv = f(np.zeros((0, 3)), np.zeros((0, 3), bool))
    assert got.shape == (0,)
    assert setv.shape == (0, 3)
    got, _ = f(np.ones((2, 3)), np.zeros((2, 3), bool))
    assert got.shape == (0,)
    with pytest.raises(IndexError, match="boolean index did not match") as e:
        f(np.ones((2, 3)), np.ones((2, 4), bool))
    assert "Subtensor(x, " in str(e.value)
    y = ot.dvector("y")
    g = oxtensor.function([x, b, y], ot.set_subtensor(x[b], y))
    with pytest.raises(ValueError, match="cannot assign") as e:
        g(np.ones((2, 3)), np.ones((2, 3), bool), np.ones(4))
    assert "AdvancedSetSubtensor" in str(e.value)


def test_graph_keeps_the_boolean_index():
    x, b = ot.dmatrix("x"), ot.tensor("b", dtype="bool", shape=(None, None))
    assert str(x[b].owner.op) == "AdvancedSubtensor{idx_list=(0,)}"
    assert str(ot.set_subtensor(x[b], 0.0).owner.op) == "AdvancedSetSubtensor"


def test_gradients_through_masks():
    m = _mask((4, 5), 0.5)
    a = RNG.standard_normal((4, 5))
    verify_grad(lambda v: (v[ot.constant(m)] ** 2).sum(), [a], rng=RNG)
    verify_grad(
        lambda v, w: ot.inc_subtensor(v[ot.constant(m)], w),
        [a, RNG.standard_normal(int(m.sum()))],
        rng=RNG,
    )
    rows = ot.constant(_mask((4,), 0.5))
    verify_grad(lambda v: ot.set_subtensor(v[rows], 0.0).sum() * v[rows], [a], rng=RNG)


@pytest.mark.parametrize(
    ("mask", "extra", "static"),
    [
        ([True, False, True, True], (), (3, None, None)),
        ([[True, False, True, True], [True, False, False, True]], (), (5, None)),
        ([False, False, False, False], (), (0, None, None)),
        ([True, False, True, True], (slice(None), "idx"), (3, None)),
    ],
)
def test_a_constant_mask_gives_a_static_length(mask, extra, static):
    # As PyTensor: the mask selects as many as it has `true`s.
    y = ot.tensor("y", shape=(None, None, None))
    idx = ot.tensor("idx", shape=(3,), dtype="int64")
    m = ot.constant(np.array(mask))
    index = (m, *(idx if e == "idx" else e for e in extra))
    out = y[index]
    assert out.type.shape == static
    f = oxtensor.function([y, idx], out, on_unused_input="ignore")
    ms = np.shape(mask)
    yv = RNG.random((*ms, *(4, 5)[len(ms) - 1 :]))
    iv = np.array([0, 4, 2])
    np_index = (np.array(mask), *(iv if e == "idx" else e for e in extra))
    np.testing.assert_array_equal(f(yv, iv), yv[np_index])


def test_a_constant_mask_that_cannot_broadcast_is_refused():
    y = ot.tensor("y", shape=(None, None, None))
    idx = ot.tensor("idx", shape=(6,), dtype="int64")
    m = ot.constant(np.array([True, False, True, True]))
    with pytest.raises(
        IndexError,
        match=r"could not be broadcast together with shapes \[\(3,\), \(6,\)\]",
    ):
        y[m, idx]

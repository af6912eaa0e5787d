"""The copying kernels' paths against NumPy: tiled transposes (4x4
register blocks inside the tiles), repeats along the last axis, broadcast
fills, joins and gathers large enough to be split across threads, for
every element size (bool, float16, complex included), with negative
strides and odd shapes."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest

DTYPES = ["bool", "uint8", "float16", "int32", "float32", "float64", "complex128"]


def sample(dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    rng = np.random.default_rng(0)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    values = rng.integers(-100, 100, shape).astype(dtype)
    if dtype == "complex128":
        values = values + 1j * rng.integers(-9, 9, shape)
    return values


def check(got: np.ndarray, want: np.ndarray) -> None:
    assert got.dtype == want.dtype
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", DTYPES)
def test_transposed_and_reversed_copies(dtype: str) -> None:
    # 300x517: tiles of every size end in partial tiles; big enough for threads.
    a = sample(dtype, (300, 517))
    x = ot.tensor(dtype=dtype, shape=(None, None), name="x")
    f = oxtensor.function([x], [x.T, x[::-1, ::-2], x[:, ::-3].T])
    for got, want in zip(f(a), [a.T, a[::-1, ::-2], a[:, ::-3].T], strict=True):
        check(got, want)
        assert got.flags.c_contiguous


@pytest.mark.parametrize("dtype", DTYPES)
def test_joins_and_repeats(dtype: str) -> None:
    a, b = sample(dtype, (700, 301)), sample(dtype, (700, 5))
    x = ot.tensor(dtype=dtype, shape=(None, None), name="x")
    y = ot.tensor(dtype=dtype, shape=(None, None), name="y")
    # Each case written once, for oxtensor and for NumPy (`m`).
    cases = [
        lambda m, u, v: m.concatenate([u, v, u], axis=1),
        lambda m, u, v: m.concatenate([u.T, v.T], axis=0),
        lambda m, u, v: m.repeat(u, 3, axis=1),
        lambda m, u, v: m.repeat(u, 2, axis=-1),
        lambda m, u, v: m.repeat(u[:, ::-2], 4, axis=1),
        lambda m, u, v: m.repeat(u.T, 2, axis=1),
        lambda m, u, v: m.repeat(v, np.arange(700) % 3, axis=0),
        lambda m, u, v: m.tile(v, (2, 3)),
    ]
    f = oxtensor.function([x, y], [case(ot, x, y) for case in cases])
    wants = [case(np, a, b) for case in cases]
    for got, want in zip(f(a, b), wants, strict=True):
        check(got, want)


def test_fills_and_ranges() -> None:
    n = ot.lscalar("n")
    v = ot.dscalar("v")
    f = oxtensor.function(
        [n, v],
        [
            ot.zeros((n, 7)),
            ot.full((n, 3), v),
            ot.zeros((n,), dtype="complex64"),
            ot.arange(n, dtype="float64") * 1,
            ot.arange(3, n, 7),
            ot.arange(0.5, n, 0.25, dtype="float32"),
        ],
    )
    k = 70_001
    got = f(k, -0.0)
    wants = [
        np.zeros((k, 7)),
        np.full((k, 3), -0.0),
        np.zeros((k,), dtype="complex64"),
        np.arange(k, dtype="float64"),
        np.arange(3, k, 7),
        np.arange(0.5, k, 0.25, dtype="float32"),
    ]
    for g, want in zip(got, wants, strict=True):
        check(g, want)
    assert np.signbit(got[1]).all(), "-0.0 is not zero bytes"
    eye = oxtensor.function([n], ot.eye(n, n + 3, 2))
    for m in (0, 5, 700):
        check(eye(m), np.eye(m, m + 3, 2))


def test_large_gathers() -> None:
    rng = np.random.default_rng(1)
    a = rng.random((20_000, 8))
    idx = rng.integers(-20_000, 20_000, 50_000)
    cols = rng.integers(0, 8, 50_000)
    x, v, w = ot.dmatrix("x"), ot.lvector("v"), ot.lvector("w")
    f = oxtensor.function([x, v, w], [x[v], x.T[:, v], x[v, w]])
    for got, want in zip(
        f(a, idx, cols), [a[idx], a.T[:, idx], a[idx, cols]], strict=True
    ):
        check(got, want)

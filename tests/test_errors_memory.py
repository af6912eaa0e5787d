"""Sizes from user data are checked (`tensor/layout.rs` in the core): a size
that would wrap around 2**64, or that no allocation can satisfy, raises a
`MemoryError` or `ValueError` naming the node and the shape, and the process
survives (issue 30's programs used to crash it or read outside a buffer)."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest


def test_an_impossible_allocation_raises_and_the_process_survives():
    n = ot.lscalar("n")
    f = oxtensor.function([n], ot.zeros((n, n)))
    for size in (2**30, 2**31):  # too many bytes; more than a usize can count
        with pytest.raises(MemoryError, match=r"shape \(\d+, \d+\)"):
            f(np.int64(size))
    np.testing.assert_array_equal(f(np.int64(2)), np.zeros((2, 2)))


def test_an_allocation_the_system_refuses_reads_as_numpys():
    n = ot.lscalar("n")
    f = oxtensor.function([n], ot.exp(ot.zeros((n,))))
    with pytest.raises(
        MemoryError,
        match=r"Unable to allocate 8\.00 PiB .* \(1125899906842624,\) .* float64",
    ):
        f(np.int64(2**50))


def test_repeat_counts_summing_to_2_64():
    v, c = ot.dvector("v"), ot.lvector("c")
    f = oxtensor.function([v, c], ot.repeat(v, c))
    with pytest.raises(MemoryError, match=r"Repeat\{axis=0\}: the lengths add up") as e:
        f(np.ones(4), np.array([2**62] * 4))
    assert "Apply node that caused the error: Repeat{axis=0}(v, c)" in str(e.value)
    np.testing.assert_array_equal(f(np.ones(2), np.array([1, 2])), np.ones(3))


def test_reshape_to_a_product_that_wraps():
    v, n = ot.dvector("v"), ot.lscalar("n")
    f = oxtensor.function([v, n], v.reshape((n, 4)).sum(axis=0))
    with pytest.raises(ValueError, match=r"cannot reshape array of size 4 into shape"):
        f(np.arange(4.0), 2**62 + 1)
    np.testing.assert_array_equal(f(np.arange(4.0), 1), np.arange(4.0))


def test_reshape_entries_past_int64():
    v, s = ot.dvector("v"), ot.vector("s", dtype="uint64")
    f = oxtensor.function([v, s], v.reshape(s, ndim=2))
    # 2**64 - 1 read as int64 would be -1, NumPy's "fill in" length.
    with pytest.raises(ValueError, match="too large"):
        f(np.arange(4.0), np.array([2**64 - 1, 4], dtype=np.uint64))


def test_eye_whose_byte_size_wraps():
    n = ot.lscalar("n")
    f = oxtensor.function([n], ot.eye(n, 8).sum(axis=0))
    with pytest.raises(MemoryError, match=r"shape \(2305843009213693960, 8\)") as e:
        f(2**61 + 8)
    assert "Eye{dtype='float64'}" in str(e.value)
    k = ot.lscalar("k")
    g = oxtensor.function([n, k], ot.eye(n, 3, k))
    np.testing.assert_array_equal(g(3, -(2**63)), np.zeros((3, 3)))
    np.testing.assert_array_equal(g(3, 1), np.eye(3, 3, 1))


def test_zeros_too_big_for_memory_in_constant_folding():
    f = oxtensor.function([], ot.zeros((2**62,)))
    with pytest.raises(
        MemoryError, match=r"\(4611686018427387904,\) and data type float64"
    ) as e:
        f()
    assert "Alloc" in str(e.value)


LONG = 67280421310721  # 274177 * LONG = 2**64 + 1


@pytest.mark.parametrize(
    "build",
    [
        lambda a, b: a + b,
        lambda a, b: ot.sort(a + b),
        lambda a, b: (a + b).sum(),
        lambda a, b: (a + b)[::2],
        lambda a, b: ot.cumsum(a + b, axis=1),
        lambda a, b: ot.inc_subtensor((a + b)[0], 1.0),
        lambda a, b: ot.exp(a + b) * 2.0,
    ],
    ids=["add", "sort", "sum", "slice", "cumsum", "inc_subtensor", "fused"],
)
def test_broadcasting_to_more_than_2_64_elements(build):
    a = ot.tensor("a", dtype="float64", shape=(None, 1))
    b = ot.tensor("b", dtype="float64", shape=(1, None))
    f = oxtensor.function([a, b], build(a, b))
    wide = np.broadcast_to(np.ones((1, 1)), (1, LONG))  # a zero-stride view
    with pytest.raises(MemoryError, match=r"\(274177, 67280421310721\)") as e:
        f(np.ones((274177, 1)), wide)
    assert "Apply node that caused the error" in str(e.value)


@pytest.mark.parametrize(
    "build",
    [
        ot.sort,
        lambda b: b.sum(axis=0),
        lambda b: ot.cumsum(b, axis=1),
        lambda b: ot.inc_subtensor(b[0, :3], 1.0),
        lambda b: ot.concatenate([b, b, b, b], axis=1),
        lambda b: ot.repeat(b, 4, axis=1),
    ],
    ids=["sort", "sum", "cumsum", "inc_subtensor", "join", "repeat"],
)
def test_ops_on_a_huge_zero_stride_input(build):
    b = ot.tensor("b", dtype="float64", shape=(1, None))
    f = oxtensor.function([b], build(b))
    with pytest.raises(MemoryError, match=r"Unable to allocate|2\*\*63"):
        f(np.broadcast_to(np.ones((1, 1)), (1, LONG)))


def test_slices_with_extreme_steps():
    x = ot.dvector("x")
    lo, hi, st = ot.lscalar(), ot.lscalar(), ot.lscalar()
    f = oxtensor.function([x, lo, hi, st], x[lo:hi:st])
    xs = np.arange(5.0)
    for start, stop, step in [
        (0, 5, 2**63 - 1),
        (4, -(2**63), -(2**63)),
        (-(2**63), 2**63 - 1, 1),
        (2**63 - 1, -(2**63), -1),
    ]:
        np.testing.assert_array_equal(f(xs, start, stop, step), xs[start:stop:step])

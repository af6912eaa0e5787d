"""Reductions and products run against NumPy: `sum`, `prod`, `max`, `min`,
`all`, `any` and `mean` over axis None, an int, a tuple or negative axes,
with keepdims, over every dtype and empty inputs; `dot` and `@` for every
vector/matrix combination in float, int, bool and complex dtypes, with
strided operands."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.helpers import DTYPES, assert_matches

REDUCTIONS = ["sum", "prod", "max", "min", "all", "any"]


def sample(dtype, shape, rng, small=False):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        low, high = (-3, 3) if small else (info.min, info.max)
        return rng.integers(max(low, info.min), high, shape, dt, endpoint=True)
    if dt.kind == "c":
        return (rng.uniform(-2, 2, shape) + 1j * rng.uniform(-2, 2, shape)).astype(dt)
    return rng.uniform(-2, 2, shape).astype(dt)


def numpy_reduce(name, a, axis, keepdims, dtype):
    if name in ("sum", "prod"):
        # NumPy accumulates small floats in their own dtype; oxtensor in a
        # wider one (as PyTensor's acc_dtype) then rounds back.
        wide = {"f": np.float64, "c": np.complex128}.get(a.dtype.kind, dtype)
        fn = np.sum if name == "sum" else np.prod
        return fn(a, axis=axis, keepdims=keepdims, dtype=wide).astype(dtype)
    return getattr(np, name)(a, axis=axis, keepdims=keepdims)


def tolerance_scale(name, a, axis):
    """Products and sums of n terms round up to n times more."""
    n = a.size if axis is None else np.prod([a.shape[d] for d in np.atleast_1d(axis)])
    return max(1, n) if name in ("sum", "prod") else 1


AXES = [None, 0, 1, -1, (0, 2), (-1, -3), (0, 1, 2), ()]


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_reduction_matches_numpy(dtype, name, axis, keepdims):
    x = ot.tensor("x", dtype=dtype, shape=(None, None, None))
    rng = np.random.default_rng(3)
    # Products of small values, so integer products do not just wrap to 0.
    a = sample(dtype, (3, 4, 2), rng, small=name == "prod")
    out = getattr(ot, name)(x, axis=axis, keepdims=keepdims)
    f = oxtensor.function([x], out)
    want = numpy_reduce(name, a, axis, keepdims, out.dtype)
    assert_matches(f(a), want, out.dtype, scale=tolerance_scale(name, a, axis))


@pytest.mark.parametrize(
    ("dtype", "sum_dtype"),
    [
        ("bool", "int64"),
        ("int8", "int64"),
        ("int32", "int64"),
        ("uint8", "uint64"),
        ("uint32", "uint64"),
        ("float16", "float16"),
        ("float32", "float32"),
        ("complex64", "complex64"),
    ],
)
def test_sum_and_prod_dtypes_are_numpys(dtype, sum_dtype):
    x = ot.tensor("x", dtype=dtype, shape=(None,))
    a = np.ones(3, dtype)
    f = oxtensor.function([x], [x.sum(), x.prod()])
    for got in f(a):
        assert got.dtype == sum_dtype == np.sum(a).dtype


def test_small_integer_sums_do_not_wrap():
    x = ot.tensor("x", dtype="int8", shape=(None,))
    a = np.full(1000, 100, np.int8)
    assert_matches(oxtensor.function([x], x.sum())(a), np.sum(a))


def test_float16_sums_accumulate_in_float32():
    # 4096 * 0.1 in float16 arithmetic stalls at 256; NumPy's pairwise sum
    # and oxtensor's float32 accumulator do not.
    x = ot.tensor("x", dtype="float16", shape=(None,))
    a = np.full(4096, 0.1, np.float16)
    got = oxtensor.function([x], x.sum())(a)
    assert_matches(got, np.sum(a, dtype=np.float32).astype(np.float16))


@pytest.mark.parametrize("name", ["max", "min"])
def test_max_and_min_propagate_nan(name):
    x = ot.dmatrix("x")
    a = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, -1.0]])
    f = oxtensor.function([x], [getattr(x, name)(), getattr(x, name)(axis=0)])
    whole, cols = f(a)
    assert_matches(whole, getattr(np, name)(a))
    assert_matches(cols, getattr(np, name)(a, axis=0))


@pytest.mark.parametrize(
    ("shape", "axis"),
    [((0,), None), ((0, 3), 0), ((3, 0), 1), ((0, 0), 1), ((2, 0, 3), (0, 1))],
)
@pytest.mark.parametrize("name", ["max", "min"])
def test_empty_max_and_min_raise_like_numpy(name, shape, axis):
    x = ot.tensor("x", dtype="float64", shape=(None,) * len(shape))
    f = oxtensor.function([x], getattr(x, name)(axis=axis))
    with pytest.raises(ValueError, match="zero-size array to reduction"):
        getattr(np, name)(np.zeros(shape), axis=axis)
    with pytest.raises(ValueError, match="zero-size array to reduction") as info:
        f(np.zeros(shape))
    assert "Apply node that caused the error" in str(info.value)


EMPTY = [((0,), None), ((0, 3), 0), ((3, 0), 0), ((0, 3), 1), ((3, 0), 1)]


def reduces_nothing(shape, axis):
    axes = range(len(shape)) if axis is None else np.atleast_1d(axis)
    return np.prod([shape[d] for d in axes]) == 0


@pytest.mark.parametrize(
    ("name", "shape", "axis"),
    [
        (name, shape, axis)
        for name in REDUCTIONS
        for shape, axis in EMPTY
        # max/min of nothing is refused (above).
        if name not in ("max", "min") or not reduces_nothing(shape, axis)
    ],
)
def test_empty_reductions_give_numpys_result(name, shape, axis):
    x = ot.tensor("x", dtype="float64", shape=(None,) * len(shape))
    a = np.zeros(shape)
    out = getattr(x, name)(axis=axis)
    want = numpy_reduce(name, a, axis, False, out.dtype)
    assert_matches(oxtensor.function([x], out)(a), want)


@given(
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=4),
    data=st.data(),
    name=st.sampled_from(REDUCTIONS),
    dtype=st.sampled_from(["int16", "uint8", "float32", "float64", "bool"]),
)
def test_reduction_over_random_axes_of_strided_input(shape, data, name, dtype):
    ndim = len(shape)
    axes = data.draw(
        st.lists(st.integers(-ndim, ndim - 1), unique_by=lambda a: a % ndim)
    )
    keepdims = data.draw(st.booleans())
    rng = np.random.default_rng(len(shape))
    # A reversed, strided view: the kernel walks memory order, not C order.
    base = sample(dtype, [2 * n for n in shape], rng, small=True)
    a = base[tuple(slice(None, None, -2) for _ in shape)]
    x = ot.tensor("x", dtype=dtype, shape=(None,) * ndim)
    axis = tuple(axes)
    out = getattr(ot, name)(x, axis=axis, keepdims=keepdims)
    got = oxtensor.function([x], out)(a)
    want = numpy_reduce(name, a, axis, keepdims, out.dtype)
    assert_matches(got, want, out.dtype, scale=tolerance_scale(name, a, axis))


@pytest.mark.parametrize(
    "dtype", ["int8", "float16", "float32", "float64", "complex64"]
)
@pytest.mark.parametrize("axis", [None, 0, (0, 1), -1])
def test_mean_matches_numpy(dtype, axis):
    x = ot.tensor("x", dtype=dtype, shape=(None, None))
    a = sample(dtype, (3, 5), np.random.default_rng(5))
    out = ot.mean(x, axis=axis)
    got = oxtensor.function([x], out)(a)
    want = np.mean(a, axis=axis)
    assert got.dtype == out.dtype
    assert_matches(got, want.astype(got.dtype), scale=10)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_mean_keeps_the_float_dtype_like_numpy(dtype):
    x = ot.tensor("x", dtype=dtype, shape=(None,))
    assert ot.mean(x).dtype == np.mean(np.ones(2, dtype)).dtype


# --- dot and matmul ---

DOT_SHAPES = [
    ((4,), (4,)),
    ((3, 4), (4,)),
    ((4,), (4, 2)),
    ((3, 4), (4, 2)),
    ((3, 0), (0, 2)),
    ((0, 4), (4, 2)),
    ((3, 4), (4, 0)),
    ((0,), (0,)),
]


def dot_tolerance(dtype, k):
    # A sum of k products rounds k times.
    return max(1, k)


DOT_DTYPES = ["float16", "float32", "float64", "int8", "int32", "int64", "uint16"]
DOT_DTYPES += ["bool", "complex64", "complex128"]


@pytest.mark.parametrize(("sa", "sb"), DOT_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DOT_DTYPES)
def test_dot_matches_numpy(dtype, sa, sb):
    rng = np.random.default_rng(11)
    a, b = sample(dtype, sa, rng, small=True), sample(dtype, sb, rng, small=True)
    x = ot.tensor("x", dtype=dtype, shape=(None,) * len(sa))
    y = ot.tensor("y", dtype=dtype, shape=(None,) * len(sb))
    f = oxtensor.function([x, y], [ot.dot(x, y), x @ y])
    for got in f(a, b):
        assert_matches(got, np.dot(a, b), scale=dot_tolerance(dtype, sa[-1]))


@pytest.mark.parametrize(("da", "db"), [("float32", "float64"), ("int8", "uint8")])
def test_dot_of_mixed_dtypes_upcasts(da, db):
    x = ot.tensor("x", dtype=da, shape=(None, None))
    y = ot.tensor("y", dtype=db, shape=(None,))
    a, b = np.arange(6).reshape(2, 3).astype(da), np.arange(3).astype(db)
    out = ot.dot(x, y)
    assert_matches(oxtensor.function([x, y], out)(a, b), np.dot(a, b), out.dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "complex128"])
def test_dot_of_strided_transposed_and_reversed_operands(dtype):
    rng = np.random.default_rng(2)
    big = sample(dtype, (10, 12), rng, small=True)
    operands = [
        (big[::2, ::3], big[::-3, 1::2].T[:4]),
        (big.T[:5, :4], big[:4, ::-1][:, :3]),
        (np.asfortranarray(big[:3, :5]), big[::-2, ::-4][:5]),
    ]
    x = ot.tensor("x", dtype=dtype, shape=(None, None))
    y = ot.tensor("y", dtype=dtype, shape=(None, None))
    v = ot.tensor("v", dtype=dtype, shape=(None,))
    f = oxtensor.function([x, y, v], [x @ y, ot.dot(x, v)])
    for a, b in operands:
        vec = b[:, 0]
        mm, mv = f(a, b, vec)
        assert_matches(mm, a @ b, scale=a.shape[1])
        assert_matches(mv, a @ vec, scale=a.shape[1])


def test_large_float32_matmul_within_tolerance():
    # Large enough for the gemm crate's packed, multi-threaded path.
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((96, 128)), rng.standard_normal((128, 80))
    x, y = ot.fmatrix("x"), ot.fmatrix("y")
    got = oxtensor.function([x, y], x @ y)(a.astype("float32"), b.astype("float32"))
    np.testing.assert_allclose(got, a @ b, rtol=1e-4, atol=1e-3)


def test_dot_shape_mismatch_names_the_node():
    x, y = ot.dmatrix("x"), ot.dmatrix("y")
    f = oxtensor.function([x, y], ot.dot(x, y))
    with pytest.raises(ValueError, match="not aligned") as info:
        f(np.ones((2, 3)), np.ones((2, 3)))
    assert "Apply node that caused the error: Dot(x, y)" in str(info.value)

"""`matmul` (`@`, one native `Matmul` node), `tensordot`, `outer`, `vecdot`,
`matvec` and `vecmat` against NumPy: dtypes, vectors, batched broadcasting
(hypothesis over shapes), strided inputs, static types, errors, `str`
forms, gradients and `infer_shape`."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from hypothesis import given
from hypothesis import strategies as st
from oxtensor.gradient import verify_grad
from oxtensor.printing import debugprint

from tests.helpers import assert_matches, check_infer_shape

SHAPES = [
    ((4,), (4,)),
    ((3, 4), (4,)),
    ((4,), (4, 2)),
    ((3, 4), (4, 2)),
    ((2, 3, 4), (4, 5)),
    ((4,), (2, 4, 5)),
    ((2, 3, 4), (4,)),
    ((5, 1, 3, 4), (2, 4, 2)),
    ((0, 3, 4), (4, 2)),
    ((2, 3, 0), (2, 0, 2)),
    ((0,), (0,)),
]
DTYPES = ["float32", "float64", "float16", "int8", "int32", "int64", "bool"]
DTYPES += ["complex128"]


def sample(dtype, shape, rng):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dt.kind in "iu":
        return rng.integers(-3, 3, shape, endpoint=True).astype(dt)
    if dt.kind == "c":
        return (rng.uniform(-2, 2, shape) + 1j * rng.uniform(-2, 2, shape)).astype(dt)
    return rng.uniform(-2, 2, shape).astype(dt)


def var(name, value, static=True):
    shape = value.shape if static else tuple(1 if n == 1 else None for n in value.shape)
    return ot.tensor(name, dtype=str(value.dtype), shape=shape)


@pytest.mark.parametrize(("sa", "sb"), SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES)
def test_matmul_matches_numpy(dtype, sa, sb):
    rng = np.random.default_rng(3)
    a, b = sample(dtype, sa, rng), sample(dtype, sb, rng)
    x, y = var("x", a, static=False), var("y", b, static=False)
    out = x @ y
    assert out.type.shape == tuple(None if n != 1 else 1 for n in np.matmul(a, b).shape)
    got = oxtensor.function([x, y], [out, ot.matmul(x, y)])(a, b)
    for g in got:
        assert_matches(g, np.matmul(a, b), scale=max(1, sa[-1]))


def test_static_shapes_and_dtypes():
    x = ot.tensor("x", shape=(2, 3, 4))
    y = ot.tensor("y", shape=(5, 1, 4, 6))
    assert (x @ y).type.shape == (5, 2, 3, 6)
    i = ot.tensor("i", dtype="int32", shape=(2, 3, 4))
    f = ot.tensor("f", dtype="float32", shape=(4, 2))
    assert (i @ f).type == ot.TensorType("float64", (2, 3, 2))
    assert (ot.bmatrix("p") @ ot.bmatrix("q")).dtype == "int8"
    assert ot.matmul(f, f.T, dtype="float64").dtype == "float64"


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_strided_and_transposed_operands(dtype):
    rng = np.random.default_rng(5)
    big = sample(dtype, (4, 10, 12), rng)
    a, b = big[::2, ::3, ::2], big[1::2, ::-1, 1::2].transpose(0, 2, 1)[:, :6, :3]
    x, y = var("x", a, static=False), var("y", b, static=False)
    got = oxtensor.function([x, y], x @ y)(a, b)
    assert_matches(got, a @ b, scale=a.shape[-1])


@st.composite
def broadcast_pairs(draw):
    nb = draw(st.integers(0, 3))
    batch = draw(st.lists(st.integers(1, 3), min_size=nb, max_size=nb))
    m, k, n = (draw(st.integers(1, 4)) for _ in range(3))
    da, db = draw(st.integers(0, nb)), draw(st.integers(0, nb))
    sa = [1 if draw(st.booleans()) else d for d in batch[nb - da :]] + [m, k]
    sb = [1 if draw(st.booleans()) else d for d in batch[nb - db :]] + [k, n]
    return tuple(sa), tuple(sb)


@given(broadcast_pairs())
def test_batched_broadcasting_matches_numpy(shapes):
    sa, sb = shapes
    rng = np.random.default_rng(7)
    a, b = rng.normal(size=sa), rng.normal(size=sb)
    x, y = var("x", a), var("y", b)
    out = x @ y
    assert out.type.shape == np.matmul(a, b).shape
    assert_matches(oxtensor.function([x, y], out)(a, b), np.matmul(a, b), scale=8)


def test_runtime_broadcast_of_unknown_length_is_an_error():
    x, y = ot.tensor3("x"), ot.tensor3("y")
    f = oxtensor.function([x, y], x @ y)
    with pytest.raises(ValueError, match="batch axis 0 does not broadcast") as info:
        f(np.ones((1, 2, 3)), np.ones((4, 3, 2)))
    assert "Matmul(x, y)" in str(info.value)
    with pytest.raises(ValueError, match="contracted lengths differ"):
        f(np.ones((4, 2, 3)), np.ones((4, 2, 2)))


def test_build_errors():
    with pytest.raises(ValueError, match="matmul operand cannot be scalar"):
        ot.scalar("s") @ ot.matrix("m")
    x, y = ot.tensor("x", shape=(2, 3)), ot.tensor("y", shape=(4, 2))
    with pytest.raises(ValueError, match=r"Incompatible shared dimension.*\(2, 3\)"):
        x @ y
    with pytest.raises(ValueError, match="Incompatible Matmul batch"):
        ot.tensor("x", shape=(2, 3, 4)) @ ot.tensor("y", shape=(3, 4, 2))
    with pytest.raises(TypeError, match="same rank"):
        ot.Matmul()(ot.tensor3("a"), ot.matrix("b"))


def test_str_forms():
    a, b, v = ot.tensor3("a"), ot.matrix("b"), ot.vector("v")
    assert str((b @ b).owner.op) == "Matmul"
    assert debugprint(a @ b, file="str") == (
        "Matmul [id A]\n ├─ a [id B]\n └─ ExpandDims{axis=0} [id C]\n    └─ b [id D]\n"
    )
    assert str((v @ v).owner.op) == "Squeeze{axes=(0, 1)}"
    assert str((v @ b).owner.op) == "Squeeze{axis=0}"
    assert ot.Matmul() == ot.Matmul()
    assert np.ones((2, 2)) @ b is not None


@pytest.mark.parametrize(
    ("sa", "sb"),
    [
        ((3,), (3,)),
        ((2, 3), (3,)),
        ((3,), (3, 2)),
        ((2, 3, 4), (4, 2)),
        ((4,), (2, 4, 3)),
    ],
    ids=str,
)
def test_verify_grad(sa, sb):
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=sa), rng.normal(size=sb)
    verify_grad(lambda x, y: x @ y, [a, b], rng=rng)


def test_grad_sums_over_broadcast_batch_axes():
    x = ot.tensor("x", shape=(1, 2, 3))
    y = ot.tensor("y", shape=(4, 3, 2))
    gx, _ = oxtensor.grad((x @ y).sum(), [x, y])
    assert gx.type.shape == (1, 2, 3)
    a, b = np.ones((1, 2, 3)), np.arange(24.0).reshape(4, 3, 2)
    got = oxtensor.function([x, y], gx)(a, b)
    np.testing.assert_allclose(got, np.ones((1, 2, 2)) @ b.transpose(0, 2, 1).sum(0))


def test_infer_shape():
    x = ot.tensor("x", shape=(None, 1, None, None))
    y = ot.tensor("y", shape=(None, None, None))
    a, b = np.ones((2, 1, 3, 4)), np.ones((5, 4, 6))
    check_infer_shape([x, y], [x @ y], [a, b], ot.Matmul)


@pytest.mark.parametrize(
    ("sa", "sb", "axes"),
    [
        ((2, 3, 4), (3, 4, 5), 2),
        ((2, 3, 4), (4, 3, 5), ([1, 2], [1, 0])),
        ((3, 4), (4, 5), 1),
        ((2, 3), (4,), 0),
        ((2, 3, 4), (5, 2), ([0], [-1])),
    ],
    ids=str,
)
@pytest.mark.parametrize("static", [True, False])
def test_tensordot_matches_numpy(sa, sb, axes, static):
    rng = np.random.default_rng(9)
    a, b = rng.normal(size=sa), rng.normal(size=sb)
    x, y = var("x", a, static), var("y", b, static)
    got = oxtensor.function([x, y], ot.tensordot(x, y, axes))(a, b)
    assert_matches(got, np.tensordot(a, b, axes), scale=30)


def test_outer_vecdot_matvec_vecmat():
    rng = np.random.default_rng(4)
    m, v, w = rng.normal(size=(2, 3, 4)), rng.normal(size=4), rng.normal(size=3)
    xm, xv, xw = ot.tensor3("m"), ot.vector("v"), ot.vector("w")
    outs = [ot.outer(xv, xw), ot.vecdot(xm, xv), ot.matvec(xm, xv), ot.vecmat(xw, xm)]
    got = oxtensor.function([xm, xv, xw], outs)(m, v, w)
    want = [np.outer(v, w), (m * v).sum(-1), m @ v, w @ m]
    for g, e in zip(got, want, strict=True):
        assert_matches(g, e, scale=8)


def test_vecdot_conjugates_a_complex_first_operand():
    x = ot.zvector("x")
    y = ot.zvector("y")
    a = np.array([1 + 2j, 3 - 1j])
    b = np.array([2 - 1j, 1j])
    got = oxtensor.function([x, y], ot.vecdot(x, y))(a, b)
    np.testing.assert_allclose(got, np.vecdot(a, b))

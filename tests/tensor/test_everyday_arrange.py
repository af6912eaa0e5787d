"""The everyday composites that move or select elements: ``tri``/``tril``/
``triu``, ``diag``/``diagonal``/``trace``, ``flip``/``roll``/
``matrix_transpose``, ``atleast_*``/``shape_pad*``, ``broadcast_arrays``:
values against NumPy over dtypes, 0-d/empty/negative-axis/strided inputs,
static shapes as PyTensor gives them, ``infer_shape``, gradients, errors."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.exceptions import AxisError
from oxtensor.gradient import verify_grad

from tests.helpers import assert_matches, check_infer_shape

RNG = np.random.default_rng(42)
DTYPES = ["float32", "float64", "int8", "int64", "uint16", "bool"]


def values(shape, dtype):
    v = RNG.normal(size=shape) * 10
    return (v > 0) if dtype == "bool" else v.astype(dtype)


def run(out, *inputs_values):
    inputs = list(inputs_values[0::2])
    return oxtensor.function(inputs, out)(*inputs_values[1::2])


def strided(shape, dtype="float64"):
    """A non-contiguous array: every other column of a wider one."""
    wide = values((*shape[:-1], shape[-1] * 2), dtype)
    return wide[..., ::2]


# ---- tri, tril, triu -----------------------------------------------------


@pytest.mark.parametrize("k", [-5, -1, 0, 2, 7])
@pytest.mark.parametrize("dtype", [None, "int32", "bool", "float32"])
def test_tri_values_and_static_shape(k, dtype):
    out = ot.tri(3, 5, k, dtype=dtype)
    assert out.type.shape == (3, 5)
    assert out.dtype == (dtype or "float64")
    assert_matches(run(out), np.tri(3, 5, k, dtype=dtype or "float64"))
    assert_matches(ot.tri(4).eval(), np.tri(4))


def test_tri_symbolic_sizes():
    n, m = ot.lscalar("n"), ot.lscalar("m")
    out = ot.tri(n, m, 1)
    assert out.type.shape == (None, None)
    assert_matches(run(out, n, 4, m, 2), np.tri(4, 2, 1))
    assert_matches(run(ot.tri(n), n, 0), np.tri(0))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("k", [-2, 0, 1, 9])
@pytest.mark.parametrize("shape", [(3, 4), (2, 4, 3), (0, 3), (1, 1)])
def test_tril_triu_values(dtype, k, shape):
    x = ot.tensor("x", dtype=dtype, shape=(None,) * len(shape))
    v = values(shape, dtype)
    assert_matches(run(ot.tril(x, k), x, v), np.tril(v, k))
    assert_matches(run(ot.triu(x, k), x, v), np.triu(v, k))


def test_tril_triu_keep_static_shape_dtype_and_infinities():
    x = ot.tensor("x", shape=(2, 3, 4))
    assert ot.tril(x).type.shape == (2, 3, 4)
    assert ot.triu(ot.imatrix()).dtype == "int32"
    v = np.full((3, 3), np.inf)
    assert_matches(ot.tril(v).eval(), np.tril(v))
    m = ot.dmatrix("m")
    v = strided((4, 3))
    assert_matches(run(ot.triu(m, -1), m, v), np.triu(v, -1))


def test_tril_of_a_vector_follows_numpy():
    v = np.arange(1.0, 4.0)
    assert_matches(ot.tril(v).eval(), np.tril(v))
    assert_matches(ot.triu(v, 1).eval(), np.triu(v, 1))
    with pytest.raises(ValueError, match="tril needs an input of at least 1 dimension"):
        ot.tril(ot.dscalar())


def test_tril_triu_infer_shape_and_grad():
    x = ot.dtensor3("x")
    v = RNG.normal(size=(2, 3, 4))
    check_infer_shape([x], [ot.tril(x, 1), ot.triu(x, -1)], [v])
    verify_grad(lambda a: ot.tril(a, -1), [RNG.normal(size=(3, 4))], rng=RNG)
    verify_grad(lambda a: ot.triu(a, 1), [RNG.normal(size=(2, 3, 3))], rng=RNG)


# ---- diagonal, diag, trace ---------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("offset", [-4, -1, 0, 2, 6])
@pytest.mark.parametrize("axes", [(0, 1), (1, 0), (0, 2), (-1, -2), (2, 1)])
def test_diagonal_values(dtype, offset, axes):
    x = ot.tensor("x", dtype=dtype, shape=(None, None, None))
    v = values((3, 4, 5), dtype)
    want = np.diagonal(v, offset, *axes)
    assert_matches(run(ot.diagonal(x, offset, *axes), x, v), want)


def test_diagonal_static_shape_strided_and_empty():
    x = ot.tensor("x", shape=(2, 3, 4))
    assert ot.diagonal(x, 1, 0, 2).type.shape == (3, 2)
    assert ot.diagonal(x, 9, 0, 2).type.shape == (3, 0)
    m = ot.dmatrix("m")
    v = strided((4, 5))
    assert_matches(run(ot.diagonal(m, 1), m, v), np.diagonal(v, 1))
    assert_matches(run(ot.diagonal(m, -2), m, np.zeros((0, 3))), np.zeros(0))


@pytest.mark.parametrize("k", [-2, 0, 3])
@pytest.mark.parametrize("dtype", ["float32", "int16", "bool"])
def test_diag_builds_and_extracts(k, dtype):
    vec = ot.tensor("v", dtype=dtype, shape=(None,))
    v = values((4,), dtype)
    assert_matches(run(ot.diag(vec, k), vec, v), np.diag(v, k))
    mat = ot.tensor("m", dtype=dtype, shape=(None, None))
    m = values((3, 5), dtype)
    assert_matches(run(ot.diag(mat, k), mat, m), np.diag(m, k))
    assert_matches(run(ot.diag(vec, k), vec, v[:0]), np.diag(v[:0], k))


def test_diag_static_shapes_match_pytensor():
    assert ot.diag(ot.tensor(shape=(3,)), k=1).type.shape == (4, 4)
    assert ot.diag(ot.tensor(shape=(3, 5)), k=1).type.shape == (3,)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "uint8", "bool"])
def test_trace_values_and_dtypes(dtype):
    x = ot.tensor("x", dtype=dtype, shape=(None, None, None))
    v = values((3, 4, 5), dtype)
    for offset, a1, a2 in [(0, 0, 1), (1, 1, 2), (-1, 2, 0)]:
        got = run(ot.trace(x, offset, a1, a2), x, v)
        want = np.trace(v, offset, a1, a2)
        assert_matches(got, want, scale=10)
    assert ot.trace(ot.imatrix()).type.shape == ()


def test_diagonal_infer_shape_and_grad():
    x, vec = ot.dtensor3("x"), ot.dvector("v")
    v = RNG.normal(size=(3, 4, 5))
    outs = [ot.diagonal(x, 1, 0, 2), ot.trace(x, -1, 1, 2), ot.diag(x[0], 2)]
    check_infer_shape([x, vec], [*outs, ot.diag(vec, -1)], [v, RNG.normal(size=3)])
    verify_grad(lambda a: ot.diagonal(a, 1, 2, 0), [v], rng=RNG)
    verify_grad(lambda a: ot.diag(a, -1), [RNG.normal(size=4)], rng=RNG)
    verify_grad(lambda a: ot.trace(a), [RNG.normal(size=(4, 4))], rng=RNG)


def test_diag_and_diagonal_errors():
    with pytest.raises(ValueError, match=r"Input must be 1- or 2-d\. diag got a 3-d"):
        ot.diag(ot.tensor3())
    with pytest.raises(ValueError, match="axis1 and axis2 cannot be the same, got 1"):
        ot.diagonal(ot.dmatrix(), 0, 1, -1)
    with pytest.raises(AxisError, match="axis 1 is out of bounds"):
        ot.diagonal(ot.dvector())
    with pytest.raises(TypeError, match=r"offset must be a Python integer, got 1\.5"):
        ot.diagonal(ot.dmatrix(), 1.5)


# ---- flip, roll, matrix_transpose ----------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2), ()])
def test_flip_values(dtype, axis):
    x = ot.tensor("x", dtype=dtype, shape=(None, None, None))
    v = values((2, 3, 4), dtype)
    assert_matches(run(ot.flip(x, axis), x, v), np.flip(v, axis))
    s = ot.tensor("s", dtype=dtype, shape=())
    sv = values((), dtype)
    assert_matches(run(ot.flip(s), s, sv), np.flip(sv))


def test_flip_static_shape_grad_and_errors():
    x = ot.tensor("x", shape=(2, 3))
    assert ot.flip(x, 0).type.shape == (2, 3)
    m = ot.dmatrix("m")
    check_infer_shape([m], [ot.flip(m), ot.flip(m, -1)], [strided((3, 4))])
    verify_grad(lambda a: ot.flip(a, 1), [RNG.normal(size=(3, 4))], rng=RNG)
    with pytest.raises(AxisError, match="flip: axis 2 is out of bounds"):
        ot.flip(m, 2)
    with pytest.raises(ValueError, match="flip: repeated axis"):
        ot.flip(m, (0, -2))


@pytest.mark.parametrize("shift", [-7, -1, 0, 1, 3, 12, 13])
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2)])
@pytest.mark.parametrize("dtype", ["float64", "int8", "bool"])
def test_roll_values(shift, axis, dtype):
    x = ot.tensor("x", dtype=dtype, shape=(None, None, None))
    v = values((2, 3, 4), dtype)
    assert_matches(run(ot.roll(x, shift, axis), x, v), np.roll(v, shift, axis))


def test_roll_symbolic_shift_tuples_and_edges():
    x, s = ot.dmatrix("x"), ot.lscalar("s")
    v = strided((3, 5))
    f = oxtensor.function([x, s], ot.roll(x, s, axis=1))
    for shift in (-11, -5, 0, 2, 5, 17):
        assert_matches(f(v, shift), np.roll(v, shift, axis=1))
    assert_matches(f(np.zeros((3, 0)), 4), np.zeros((3, 0)))
    got = run(ot.roll(x, (1, -2), axis=(0, 1)), x, v)
    assert_matches(got, np.roll(v, (1, -2), axis=(0, 1)))
    assert_matches(ot.roll(np.zeros(0), 3).eval(), np.zeros(0))


def test_roll_static_shape_infer_shape_grad_and_errors():
    x = ot.tensor("x", shape=(2, 3))
    assert ot.roll(x, 1, axis=1).type.shape == (2, 3)
    assert ot.roll(x, 1).type.shape == (2, 3)
    t, s = ot.dtensor3("t"), ot.lscalar("s")
    check_infer_shape(
        [t, s], [ot.roll(t, s, 1), ot.roll(t, 2)], [RNG.normal(size=(2, 3, 4)), -1]
    )
    verify_grad(lambda a: ot.roll(a, 2, axis=0), [RNG.normal(size=(3, 4))], rng=RNG)
    verify_grad(lambda a: ot.roll(a, -5), [RNG.normal(size=(3, 4))], rng=RNG)
    with pytest.raises(
        TypeError, match=r"roll: shift must be an integer scalar, got 1\.5"
    ):
        ot.roll(x, 1.5)
    with pytest.raises(TypeError, match="roll: shift must be an integer scalar"):
        ot.roll(x, ot.dscalar("d"))
    with pytest.raises(AxisError, match="roll: axis 3 is out of bounds"):
        ot.roll(x, 1, axis=3)
    with pytest.raises(ValueError, match="differ in length"):
        ot.roll(x, (1, 2, 3), axis=(0, 1))


def test_matrix_transpose():
    x = ot.tensor("x", shape=(2, 3, 4))
    assert ot.matrix_transpose(x).type.shape == (2, 4, 3)
    v = RNG.normal(size=(2, 3, 4))
    assert_matches(run(ot.matrix_transpose(x), x, v), np.matrix_transpose(v))
    verify_grad(ot.matrix_transpose, [v], rng=RNG)
    with pytest.raises(ValueError, match="at least 2-dimensional, got 1-d"):
        ot.matrix_transpose(ot.dvector())


# ---- atleast_*, shape_pad* -----------------------------------------------


@pytest.mark.parametrize("ndim", [0, 1, 2, 3, 4])
def test_atleast_nd_match_numpy(ndim):
    v = RNG.normal(size=(2, 3, 4, 5)[:ndim])
    x = ot.tensor("x", shape=v.shape)
    for fn, ref in [(ot.atleast_1d, np.atleast_1d), (ot.atleast_2d, np.atleast_2d)]:
        out = fn(x)
        assert out.type.shape == ref(v).shape
        assert_matches(run(out, x, v), ref(v))
    # NumPy's atleast_3d puts a vector in the middle; PyTensor pads on the left.
    assert ot.atleast_3d(ot.tensor(shape=(3,))).type.shape == (1, 1, 3)
    right = ot.atleast_Nd(x, n=5, left=False)
    assert right.type.shape == v.shape + (1,) * (5 - ndim)


def test_shape_pad_functions():
    x = ot.tensor("x", shape=(2, 3))
    assert ot.shape_padleft(x, 2).type.shape == (1, 1, 2, 3)
    assert ot.shape_padright(x).type.shape == (2, 3, 1)
    assert ot.shape_padaxis(x, -1).type.shape == (2, 3, 1)
    assert ot.shape_padaxis(x, 1).type.shape == (2, 1, 3)
    assert ot.shape_padaxis(x, -3).type.shape == (1, 2, 3)
    v = RNG.normal(size=(2, 3))
    assert_matches(run(ot.shape_padaxis(x, 1), x, v), v[:, None])
    m = ot.dmatrix("m")
    check_infer_shape(
        [m], [ot.shape_padleft(m), ot.atleast_Nd(m, n=4, left=False)], [v]
    )
    verify_grad(lambda a: ot.shape_padaxis(a, 0), [v], rng=RNG)
    with pytest.raises(AxisError, match="shape_padaxis: axis 3 is out of bounds"):
        ot.shape_padaxis(x, 3)
    with pytest.raises(ValueError, match="n_ones must be >= 0, got -1"):
        ot.shape_padleft(x, -1)
    with pytest.raises(TypeError, match=r"n_ones must be an integer, got 1\.5"):
        ot.shape_padright(x, 1.5)


# ---- broadcast_arrays ------------------------------------------------------


def test_broadcast_arrays_types_values_and_grad():
    a = ot.tensor("a", shape=(1, 3))
    b = ot.tensor("b", dtype="int32", shape=(3,))
    c = ot.tensor("c", dtype="bool", shape=(None, 1))
    outs = ot.broadcast_arrays(a, b, c)
    assert [o.dtype for o in outs] == ["float64", "int32", "bool"]
    assert outs[0].type.shape == (None, 3)
    vals = [
        RNG.normal(size=(1, 3)),
        np.arange(3, dtype="int32"),
        np.array([[True], [False]]),
    ]
    got = oxtensor.function([a, b, c], list(outs))(*vals)
    for g, w in zip(got, np.broadcast_arrays(*vals), strict=True):
        assert_matches(g, w)
    check_infer_shape([a, b, c], list(outs), vals)
    verify_grad(
        lambda x, y: ot.broadcast_arrays(x, y)[1],
        [RNG.normal(size=(3, 4)), RNG.normal(size=(4,))],
        rng=RNG,
    )


@given(
    st.lists(st.integers(0, 3), min_size=0, max_size=3),
    st.lists(st.booleans(), min_size=3, max_size=3),
    st.integers(0, 3),
)
def test_broadcast_arrays_hypothesis(shape, ones, ndim_b):
    full = shape + [2] * (3 - len(shape))
    sa = [1 if one else n for one, n in zip(ones, full, strict=True)][: len(shape)]
    sb = full[len(full) - ndim_b :] if ndim_b else []
    va, vb = RNG.normal(size=sa), RNG.integers(0, 9, size=sb).astype("int16")
    # Length-1 axes are static, as broadcasting needs them to be.
    a = ot.tensor("a", shape=tuple(1 if n == 1 else None for n in sa))
    b = ot.tensor("b", dtype="int16", shape=tuple(1 if n == 1 else None for n in sb))
    try:
        want = np.broadcast_arrays(va, vb)
    except ValueError:
        return
    got = oxtensor.function([a, b], list(ot.broadcast_arrays(a, b)))(va, vb)
    for g, w in zip(got, want, strict=True):
        assert_matches(g, w)


def test_matrix_transpose_infer_shape():
    x = ot.dtensor3("x")
    check_infer_shape([x], [ot.matrix_transpose(x)], [RNG.normal(size=(2, 3, 4))])


def test_symbolic_offset_and_zero_d_inputs():
    k, x = ot.lscalar("k"), ot.dmatrix("x")
    v = RNG.normal(size=(3, 4))
    f = oxtensor.function([x, k], [ot.tril(x, k), ot.triu(x, k)])
    for kk in (-2, 0, 1, 5):
        low, up = f(v, kk)
        assert_matches(low, np.tril(v, kk))
        assert_matches(up, np.triu(v, kk))
    s = ot.dscalar("s")
    assert_matches(run(ot.roll(s, 1), s, np.float64(3.0)), np.roll(np.float64(3.0), 1))
    assert_matches(run(ot.atleast_1d(s), s, np.float64(3.0)), np.atleast_1d(3.0))

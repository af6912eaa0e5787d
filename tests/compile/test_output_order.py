"""Elementwise outputs are laid out as NumPy's ufuncs lay them out
(``order='K'``): ``x.T * 2`` is F-ordered, a permuted 3-d input gives the
same permutation, operands that disagree fall back to C order. Values,
strides and flags must equal NumPy's through fused steps and node by node
(profiling links without fusion), for small calls, single blocks, blocked
and parallel runs alike; outputs never alias the arguments.

NumPy references keep their intermediates in variables: NumPy computes
``tmp - y`` in place in a large temporary ``tmp`` (temporary elision), which
gives the result ``tmp``'s layout instead of the ufunc's own order."""

import numpy as np
import oxtensor.tensor as ot
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oxtensor import function
from oxtensor.compile.io import Out

# Element counts: a small call (<= 64), one block (<= 2048), blocks, and
# past the parallel threshold (2**16).
SIZES = [(3, 4), (20, 30), (70, 90), (300, 257)]


def compiled(inputs, output, fused):
    return function(inputs, output, profile=not fused)


def assert_like_numpy(out, want, atol=0.0):
    """Values as NumPy's (``atol``: for differences that cancel, where an ulp
    of a term is large against the result), strides and contiguity too."""
    assert (out.dtype, out.shape) == (want.dtype, want.shape)
    tol = 1e-12 if want.dtype == np.float64 else 1e-5
    np.testing.assert_allclose(out, want, rtol=tol, atol=atol)
    if want.size:
        assert out.strides == want.strides
        assert out.flags.c_contiguous == want.flags.c_contiguous
        assert out.flags.f_contiguous == want.flags.f_contiguous


def values(shape, seed=0, dtype="float64"):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("fused", [True, False])
@pytest.mark.parametrize("shape", SIZES)
def test_transposed_input_gives_f_ordered_output(fused, shape):
    x = ot.dmatrix("x")
    a = values(shape)
    for build, ref in [
        (lambda v: v.T * 2 + 1, lambda v: v.T * 2 + 1),
        (lambda v: v.T * 2, lambda v: v.T * 2),
        (lambda v: ot.exp(v.T) - v.T, lambda v: np.exp(v.T) - v.T),
    ]:
        out = compiled([x], build(x), fused)(a)
        assert_like_numpy(out, ref(a))
        assert out.flags.f_contiguous
        assert not np.shares_memory(out, a)


@pytest.mark.parametrize("fused", [True, False])
@pytest.mark.parametrize("shape", SIZES)
def test_f_ordered_inputs(fused, shape):
    x, y = ot.dmatrix("x"), ot.dmatrix("y")
    a, b = np.asfortranarray(values(shape)), np.asfortranarray(values(shape, 1))
    c = np.ascontiguousarray(b)
    f = compiled([x, y], x * y + 0.5, fused)
    assert_like_numpy(f(a, b), a * b + 0.5)
    # F and C operands disagree: C order wins, as in NumPy.
    assert_like_numpy(f(a, c), a * c + 0.5)
    assert_like_numpy(f(c, a), c * a + 0.5)
    assert_like_numpy(compiled([x], x * 2, fused)(a), a * 2)


@pytest.mark.parametrize("fused", [True, False])
@pytest.mark.parametrize("shape", SIZES)
def test_broadcast_rows_and_columns(fused, shape):
    x, r, c = ot.dmatrix("x"), ot.drow("r"), ot.dcol("c")
    a = values(shape[::-1])
    rv, cv = values((1, shape[1]), 1), values((shape[0], 1), 2)
    f = compiled([x, r, c], (x.T - r) * c, fused)
    assert_like_numpy(f(a, rv, cv), (a.T - rv) * cv)
    # A column times a row: nothing to follow, C order.
    g = compiled([r, c], c * r + 1.0, fused)
    assert_like_numpy(g(rv, cv), cv * rv + 1.0)


PERMS = [(1, 2, 0), (2, 0, 1), (0, 2, 1), (2, 1, 0), (1, 0, 2)]


@pytest.mark.parametrize("fused", [True, False])
@pytest.mark.parametrize("perm", PERMS)
def test_permuted_3d_inputs(fused, perm):
    x = ot.tensor("x", dtype="float64", shape=(None, None, None))
    y = ot.tensor("y", dtype="float64", shape=(None, None, None))
    a = values((30, 20, 40))
    f = compiled([x, y], ot.tanh(x.transpose(*perm)) * y, fused)
    t = np.tanh(a.transpose(perm))
    b = np.ascontiguousarray(values(t.shape, 1))
    assert_like_numpy(f(a, b), t * b)
    bp = values(a.shape, 1).transpose(perm)
    assert_like_numpy(f(a, bp), t * bp)


@pytest.mark.parametrize("fused", [True, False])
def test_reversed_and_strided_inputs(fused):
    x = ot.dmatrix("x")
    f = compiled([x], x * 3.0 - 1.0, fused)
    a = values((60, 80))
    for v in [a[::-1], a[:, ::-1], a[::-1].T, a[::2].T, a.T[::3], a[::-1, ::-2].T]:
        assert_like_numpy(f(v), v * 3.0 - 1.0)


@pytest.mark.parametrize("fused", [True, False])
def test_casts_and_float32(fused):
    i, s = ot.lmatrix("i"), ot.fmatrix("s")
    a = np.arange(12 * 70).reshape(12, 70)
    assert_like_numpy(compiled([i], i.T * 1.5, fused)(a), a.T * 1.5)
    f32 = compiled([i], i.T.astype("float32"), fused)
    assert_like_numpy(f32(a), a.T.astype("float32"))
    b = values((40, 50), dtype="float32")
    want = np.exp(b.T) * np.float32(2)
    assert_like_numpy(compiled([s], ot.exp(s.T) * 2, fused)(b), want)


@pytest.mark.parametrize("fused", [True, False])
def test_f_ordered_results_feed_other_ops(fused):
    x, y = ot.dmatrix("x"), ot.dmatrix("y")
    a, b = values((50, 40)), values((50, 30), 1)
    t = x.T * 2.0
    outs = [t.sum(axis=1), t.reshape((-1,)), ot.dot(t, y), t[1:3, ::2] + 1.0]
    outs.append(ot.exp(t) + x.T)
    got = compiled([x, y], outs, fused)(a, b)
    at = a.T * 2.0
    wants = [at.sum(axis=1), at.reshape(-1), at @ b, at[1:3, ::2] + 1.0]
    wants.append(np.exp(at) + a.T)
    for g, w in zip(got, wants, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-12)
    assert_like_numpy(got[4], wants[4])


def test_outputs_do_not_alias_arguments_or_each_other():
    x = ot.dmatrix("x")
    f = function([x], [x.T * 2.0, x.T + 0.0])
    a = values((300, 200))
    first = f(a)
    second = f(a + 1.0)
    np.testing.assert_array_equal(first[0], a.T * 2.0)
    for out in first + second:
        assert not np.shares_memory(out, a)
    assert not np.shares_memory(first[0], second[0])
    assert not np.shares_memory(first[0], first[1])


def test_borrowed_output_keeps_the_order():
    x = ot.dmatrix("x")
    f = function([x], Out(x.T * 2.0 + 1.0, borrow=True))
    a = values((200, 300))
    out = f(a)
    assert_like_numpy(out, a.T * 2.0 + 1.0)
    kept = out.copy()
    again = f(a)
    assert_like_numpy(again, a.T * 2.0 + 1.0)
    np.testing.assert_array_equal(kept, again)


@st.composite
def operands(draw):
    ndim = draw(st.integers(2, 4))
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=ndim, max_size=ndim)))
    if draw(st.booleans()):
        shape = (*(n * 7 for n in shape[:-1]), shape[-1] * 9)  # past a block
    layouts = []
    for _ in range(2):
        perm = tuple(draw(st.permutations(range(ndim))))
        flip = draw(st.lists(st.booleans(), min_size=ndim, max_size=ndim))
        layouts.append((perm, flip))
    bcast = draw(st.lists(st.booleans(), min_size=ndim, max_size=ndim))
    return shape, layouts, bcast


def laid_out(shape, perm, flip, seed):
    """Values of `shape` stored with axes in `perm` order, some reversed."""
    inv = np.argsort(perm)
    base = values(tuple(shape[p] for p in perm), seed)
    v = base.transpose(inv)
    return v[tuple(slice(None, None, -1) if f else slice(None) for f in flip)]


@settings(max_examples=60, deadline=None)
@given(operands(), st.booleans())
def test_random_layouts_match_numpy(case, fused):
    shape, ((pa, fa), (pb, fb)), bcast = case
    ndim = len(shape)
    a = laid_out(shape, pa, fa, 0)
    b_shape = tuple(1 if br else n for n, br in zip(shape, bcast, strict=True))
    b = laid_out(b_shape, pb, fb, 1)
    x = ot.tensor("x", dtype="float64", shape=(None,) * ndim)
    y = ot.tensor("y", dtype="float64", shape=tuple(1 if br else None for br in bcast))
    f = compiled([x, y], ot.exp(x * 0.5) - x * y, fused)
    e, ab = np.exp(a * 0.5), a * b
    # exp within 1 ulp (ours and NumPy's): 2 ulp of the terms may remain
    # where they cancel.
    ulp = np.spacing(np.maximum(np.abs(e), np.abs(ab)).max(initial=0.0))
    assert_like_numpy(f(a, b), e - ab, atol=4 * ulp)
    g = compiled([x], x * 2.0, fused)
    assert_like_numpy(g(a), a * 2.0)

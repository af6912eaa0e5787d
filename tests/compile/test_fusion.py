"""Elementwise fusion, the ``elemwise_fusion`` rewrite phase of FAST_RUN: a
chain of float elementwise nodes becomes one ``Elemwise(Composite)`` node,
run by the blocked fused kernel. Results must equal the unfused run's (the
same mode without ``fusion``) and NumPy's, for every size, layout and
broadcast; the compiled graph shows the ``Composite`` and ``dprint`` its
inner graph; the extra peak memory of a long chain is about one array."""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oxtensor import function
from oxtensor.compile.mode import get_mode
from oxtensor.scalar.basic import Composite

from tests.helpers import assert_within, chain_setup, peak_growth, product_error_bound

# FAST_RUN without the fusion phase: every elementwise node runs on its own.
UNFUSED = get_mode("FAST_RUN").excluding("fusion")


def chain(x, y):
    return ot.tanh(ot.exp(x * 2.0 - y) * x + 0.5) / (ot.sqr(y) + 1.0)


def chain_np(x, y):
    return np.tanh(np.exp(x * 2.0 - y) * x + 0.5) / (np.square(y) + 1.0)


def compiled(dtype, fused=True):
    x, y = ot.vector("x", dtype=dtype), ot.vector("y", dtype=dtype)
    return function([x, y], chain(x, y), mode=None if fused else UNFUSED)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("n", [0, 1, 10, 2048, 2049, 5000, 70_001])
def test_fused_chain_equals_unfused_and_numpy(dtype, n):
    rng = np.random.default_rng(n)
    a, b = rng.standard_normal((2, n)).astype(dtype)
    fused, plain = compiled(dtype), compiled(dtype, fused=False)
    out = fused(a, b)
    assert out.dtype == dtype
    assert out.shape == (n,)
    # Exact by construction: elementwise, each element by the same kernels
    # at this process's SIMD level, fused or not (threads split elements,
    # never an element's arithmetic).
    np.testing.assert_array_equal(out, plain(a, b))
    tol = 1e-12 if dtype == "float64" else 1e-5
    np.testing.assert_allclose(out, chain_np(a, b), rtol=tol, atol=tol)


def test_strided_and_reversed_inputs():
    f = compiled("float64")
    base = np.linspace(-1, 1, 41)
    a, b = base[::2], base[::-2]
    np.testing.assert_allclose(f(a, b), chain_np(a, b), rtol=1e-12)


def test_matrices_broadcast_rows_and_columns():
    x, r, c = ot.dmatrix("x"), ot.drow("r"), ot.dcol("c")
    f = function([x, r, c], ot.exp(x - r) * c + x)
    rng = np.random.default_rng(0)
    xv, rv, cv = rng.random((300, 40)), rng.random((1, 40)), rng.random((300, 1))
    np.testing.assert_allclose(f(xv, rv, cv), np.exp(xv - rv) * cv + xv, rtol=1e-12)
    xf = np.asfortranarray(xv)
    np.testing.assert_allclose(f(xf, rv, cv), np.exp(xf - rv) * cv + xf, rtol=1e-12)


def test_intermediate_outputs_are_computed_and_independent():
    x = ot.dvector("x")
    mid = x * 3.0
    f = function([x], [ot.exp(mid) + 1.0, mid])
    v = np.arange(5.0)
    out, m = f(v)
    np.testing.assert_allclose(out, np.exp(v * 3.0) + 1.0)
    np.testing.assert_array_equal(m, v * 3.0)
    assert not np.shares_memory(out, m)


def test_the_compiled_graph_shows_the_composite_and_its_inner_graph():
    x = ot.dvector("x")
    f = function([x], ot.exp(x * 2.0) + 1.0)
    [node] = f.maker.fgraph.toposort()
    assert isinstance(node.op.scalar_op, Composite)
    assert str(node.op) == "Composite{(exp((i0 * 2.0)) + 1.0)}"
    text = oxtensor.dprint(f, file="str")
    assert text.startswith(
        "Composite{(exp((i0 * 2.0)) + 1.0)} [id A] 0\n └─ x [id B]\n"
    )
    assert (
        "\nInner graphs:\n\nComposite{(exp((i0 * 2.0)) + 1.0)} [id A]\n ← add" in text
    )


def test_fast_compile_and_excluding_fusion_do_not_fuse():
    x = ot.dvector("x")
    for mode in ["FAST_COMPILE", UNFUSED]:
        f = function([x], ot.exp(x * 2.0) + 1.0, mode=mode)
        names = [str(node.op) for node in f.maker.fgraph.toposort()]
        assert names == ["Mul", "Exp", "Add"]


def test_profile_times_the_composite_that_runs():
    x = ot.dvector("x")
    f = function([x], ot.exp(x * 2.0) + 1.0, profile=True)
    f(np.ones(10))
    [node] = f.maker.fgraph.toposort()
    assert isinstance(node.op.scalar_op, Composite)


def test_errors_of_a_fused_chain_name_the_node():
    x, y = ot.dvector("x"), ot.dvector("y")
    f = function([x, y], ot.exp(x + y) * 2.0)
    with pytest.raises(
        ValueError, match=r"Composite\{\(exp\(\(i0 \+ i1\)\) \* 2.0\)\}"
    ) as err:
        f(np.ones(3), np.ones(4))
    assert str(err.value).count("Apply node that caused the error") == 1


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(0, 5000),
    start=st.integers(0, 3),
    step=st.sampled_from([1, 2, -1]),
)
def test_fused_equals_numpy_over_layouts(n, start, step):
    f = compiled("float64")
    base = np.random.default_rng(n).standard_normal(2 * n + 8)
    a = base[start : start + n * abs(step) : abs(step)][:: 1 if step > 0 else -1][:n]
    b = np.cos(base[:n])
    np.testing.assert_allclose(f(a, b), chain_np(a, b), rtol=1e-12, atol=1e-12)


MEMORY_SCRIPT = chain_setup(20, "4 * 10**6")


def test_a_fused_chain_needs_about_one_extra_array():
    growth = peak_growth(MEMORY_SCRIPT)
    assert growth <= 1.5, f"peak memory grew by {growth:.1f} arrays"


def broadcast_chain(x, r, c):
    return ot.tanh(x * r + c) - x * 0.5


def broadcast_chain_np(x, r, c):
    return np.tanh(x * r + c) - x * 0.5


def layout(a, how):
    """`a`'s values in another memory layout: C order, Fortran order (a
    transposed C array), every other element, or reversed."""
    if how == "F":
        return np.asfortranarray(a)
    if how == "step":
        wide = np.empty((*a.shape[:-1], 2 * a.shape[-1]), a.dtype)
        wide[..., ::2] = a
        return wide[..., ::2]
    if how == "reversed":
        return np.ascontiguousarray(a[::-1, ::-1])[::-1, ::-1]
    return np.ascontiguousarray(a)


LAYOUTS = st.sampled_from(["C", "F", "step", "reversed"])


@settings(max_examples=60, deadline=None)
@given(
    rows=st.sampled_from([0, 1, 2, 3, 7, 33, 70]),
    cols=st.sampled_from([0, 1, 5, 64, 300, 2047, 2049, 3000]),
    dtype=st.sampled_from(["float64", "float32"]),
    lx=LAYOUTS,
    lr=LAYOUTS,
    lc=LAYOUTS,
)
def test_partial_broadcasts_equal_unfused_and_numpy(rows, cols, dtype, lx, lr, lc):
    x = ot.matrix("x", dtype=dtype)
    r, c = ot.row("r", dtype=dtype), ot.col("c", dtype=dtype)
    fused = function([x, r, c], broadcast_chain(x, r, c))
    plain = function([x, r, c], broadcast_chain(x, r, c), mode=UNFUSED)
    rng = np.random.default_rng(rows * 10_000 + cols)
    xv = layout(rng.standard_normal((rows, cols)).astype(dtype), lx)
    rv = layout(rng.standard_normal((1, cols)).astype(dtype), lr)
    cv = layout(rng.standard_normal((rows, 1)).astype(dtype), lc)
    out = fused(xv, rv, cv)
    assert out.dtype == dtype
    assert out.shape == (rows, cols)
    # Exact by construction: elementwise, each element by the same kernels
    # at this process's SIMD level, fused or not (threads split elements,
    # never an element's arithmetic).
    np.testing.assert_array_equal(out, plain(xv, rv, cv))
    tol = 1e-12 if dtype == "float64" else 1e-5
    np.testing.assert_allclose(out, broadcast_chain_np(xv, rv, cv), rtol=tol, atol=tol)


def test_ml_layer_and_centering_patterns():
    x, w, b = ot.dmatrix("x"), ot.dmatrix("w"), ot.dvector("b")
    s = ot.dvector("s")
    layer = function([x, w, b], ot.tanh(ot.dot(x, w) + b))
    center = function([x], (x - x.mean(axis=0)) * 2.0 + 1.0)
    scale = function([x, s], ot.exp(x / s[:, None]) - 1.0)
    rng = np.random.default_rng(1)
    xv, wv = rng.standard_normal((300, 40)), rng.standard_normal((40, 500))
    bv, sv = rng.standard_normal(500), rng.random(300) + 0.5
    # The product's rounding depends on the engine (faer or a threaded BLAS)
    # and its SIMD build: tanh (slope at most 1) passes on the product's
    # error bound, plus a few ulps of its own and of the bias's addition.
    z = xv @ wv + bv
    eps = np.finfo(np.float64).eps
    bound = product_error_bound(xv, wv) + 4 * eps * (np.abs(z) + 1)
    assert_within(layer(xv, wv, bv), np.tanh(z), bound)
    np.testing.assert_allclose(
        center(xv.T), (xv.T - xv.T.mean(axis=0)) * 2.0 + 1.0, rtol=1e-12, atol=1e-12
    )
    np.testing.assert_allclose(
        scale(xv, sv), np.exp(xv / sv[:, None]) - 1.0, rtol=1e-12
    )


def test_a_length_one_row_that_may_not_broadcast_names_the_node():
    x, y = ot.dmatrix("x"), ot.dmatrix("y")
    f = function([x, y], ot.exp(x + y) * 2.0)
    with pytest.raises(
        ValueError, match="Apply node that caused the error: Composite"
    ) as err:
        f(np.ones((3, 3000)), np.ones((1, 3000)))
    assert str(err.value).count("Apply node that caused the error") == 1


BROADCAST_MEMORY_SCRIPT = """
x, r, c = ot.dmatrix("x"), ot.drow("r"), ot.dcol("c")
y = x * r + c
for k in range(20):
    y = ot.sqrt(ot.abs(y) + c) if k % 2 else y * r - 0.5
f = oxtensor.function([x, r, c], y)
rng = np.random.default_rng(0)
v = rng.random((2000, 2000)).T
rv, cv = rng.random((1, 2000)), rng.random((2000, 1))
f(v[:10, :10], rv[:, :10], cv[:10])
"""


def test_a_fused_chain_over_broadcasts_and_strides_needs_about_one_extra_array():
    # Run node by node, the chain would hold two or three intermediates at
    # once: the peak proves the blocked path ran for a transposed matrix, a
    # row and a column.
    growth = peak_growth(BROADCAST_MEMORY_SCRIPT, "out = f(v, rv, cv)")
    assert growth <= 1.5, f"peak memory grew by {growth:.1f} arrays"


AXES = st.sampled_from([None, 0, 1, (0, 1)])


@settings(max_examples=50, deadline=None)
@given(
    rows=st.sampled_from([0, 1, 3, 40, 300, 3000]),
    cols=st.sampled_from([1, 7, 64, 300, 2049]),
    dtype=st.sampled_from(["float64", "float32"]),
    axis=AXES,
    lx=LAYOUTS,
)
def test_sums_of_fused_groups_equal_unfused_and_numpy(rows, cols, dtype, axis, lx):
    x, r = ot.matrix("x", dtype=dtype), ot.row("r", dtype=dtype)
    expr = ot.sqr(x - r) * 0.5
    fused = function([x, r], expr.sum(axis=axis))
    plain = function([x, r], expr.sum(axis=axis), mode=UNFUSED)
    rng = np.random.default_rng(rows + cols)
    xv = layout(rng.standard_normal((rows, cols)).astype(dtype), lx)
    rv = rng.standard_normal((1, cols)).astype(dtype)
    out, want = fused(xv, rv), plain(xv, rv)
    assert out.dtype == want.dtype == dtype
    assert out.shape == want.shape
    # Large sums add in another order than the kernel (see kernels/fused/sum.rs).
    tol = 1e-12 if dtype == "float64" else 1e-5
    np.testing.assert_allclose(out, want, rtol=tol, atol=tol)
    expected = (np.square(xv.astype("float64") - rv) * 0.5).sum(axis=axis)
    np.testing.assert_allclose(out, expected, rtol=tol * 10, atol=tol * 10)
    if rows * cols <= 2048:
        # Exact by construction: up to one block the group's values are
        # materialised and summed by the unfused run's kernel, on one thread.
        np.testing.assert_array_equal(out, want)


def test_var_and_nan_through_a_fused_sum():
    x = ot.dmatrix("x")
    f = function([x], [ot.var(x, axis=0), ot.var(x, axis=1)])
    v = np.random.default_rng(3).standard_normal((700, 900))
    v[5, 7] = np.nan
    a, b = f(v)
    np.testing.assert_allclose(a, v.var(axis=0), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(b, v.var(axis=1), rtol=1e-12, atol=1e-12)
    assert np.isnan(a[7])
    assert np.isnan(b[5])
    assert np.isnan(a).sum() == 1
    assert np.isnan(b).sum() == 1


VAR_MEMORY_SCRIPT = """
x = ot.dmatrix("x")
f = oxtensor.function([x], ot.var(x, axis=0))
v = np.random.default_rng(0).random((2000, 2000))
f(v[:10])
"""


def test_var_never_materialises_the_squared_deviations():
    # Unfused, `sqr(x - mean)` is a full array (its peak: two, with `x -
    # mean`); fused into the sum, only partial sums exist.
    growth = peak_growth(VAR_MEMORY_SCRIPT)
    assert growth <= 0.5, f"peak memory grew by {growth:.2f} arrays"


def test_fusion_optimizer_fuses_a_function_graph():
    from oxtensor.graph.fg import FunctionGraph
    from oxtensor.graph.rewriting.basic import GraphRewriter
    from oxtensor.tensor.rewriting.elemwise import FusionOptimizer

    x = ot.dvector("x")
    fg = FunctionGraph([x], [ot.exp(x * 2.0) + 1.0])
    fuse = FusionOptimizer()
    assert isinstance(fuse, GraphRewriter)
    assert str(fuse) == "FusionOptimizer"
    fuse.rewrite(fg)
    [node] = [n for n in fg.toposort() if str(n.op).startswith("Composite")]
    assert isinstance(node.op.scalar_op, Composite)
    assert node.op.scalar_op.nout == 1


def test_fused_ops_pickle_and_come_back_equal():
    import pickle

    x = ot.dvector("x")
    outs = [ot.exp(x * 2.0) + 1.0, x * 2.0, ot.sqr(x - 1.0).sum()]
    f = function([x], outs)
    ops = [node.op for node in f.maker.fgraph.toposort()]
    assert {type(op).__name__ for op in ops} == {"Elemwise", "CAReduce"}
    for op in ops:
        again = pickle.loads(pickle.dumps(op))
        assert again == op
        assert hash(again) == hash(op)
        assert str(again) == str(op)


def test_set_core_refuses_a_python_graph_rewriter():
    from oxtensor.graph.rewriting.basic import GraphRewriter, graph_rewriter

    @graph_rewriter
    def nothing(fgraph):
        return None

    with pytest.raises(TypeError, match="written in Python"):
        GraphRewriter()._set_core(nothing)


@pytest.mark.parametrize(
    ("build", "want"),
    [
        (lambda x: ot.sqrt(ot.sqr(x).sum(axis=1)), lambda a: np.sqrt((a * a).sum(1))),
        (lambda x: ot.abs(x).sum(axis=0), lambda a: np.abs(a).sum(0)),
        (lambda x: ot.exp(x).sum(), lambda a: np.exp(a).sum()),
    ],
)
def test_a_lone_unary_map_folds_into_its_sum(build, want):
    """``sqr(x).sum(1)`` is one reduction reading ``x`` once (no squared
    copy), its values NumPy's within the sum's rounding."""
    x = ot.dmatrix("x")
    f = function([x], build(x))
    first = f.maker.fgraph.toposort()[0]
    assert type(first.op).__name__ == "CAReduce", first
    assert first.inputs[0].owner is None  # it reads x itself
    a = np.random.default_rng(0).uniform(-1.0, 1.0, (40, 30))
    np.testing.assert_allclose(f(a), want(a), rtol=40 * np.finfo(np.float64).eps)


def test_a_lone_binary_map_stays_apart_as_the_seeds_print():
    """The seeds' ``(v + 1).sum()`` compiles to ``Sum(Add)``."""
    v = ot.dvector("v")
    f = function([v], (v + 1).sum())
    kinds = [type(n.op).__name__ for n in f.maker.fgraph.toposort()]
    assert kinds == ["Elemwise", "Sum"]

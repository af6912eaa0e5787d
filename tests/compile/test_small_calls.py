"""Small calls take paths of their own (a fused group of at most 64 output
elements is evaluated element by element; arguments are wrapped without an
allocation). They must give exactly the unfused results (``profile=True``
links without fusion), keep argument arrays alive exactly as long as needed,
and never leak a reference."""

import functools
import gc
import sys

import numpy as np
import oxtensor.tensor as ot
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from oxtensor import function
from oxtensor.compile.io import In, Out
from oxtensor.compile.mode import Mode

from tests.helpers import assert_within

UNARY = {
    "neg": (ot.neg, np.negative),
    "abs": (ot.abs, np.abs),
    "sqr": (ot.sqr, np.square),
    "sqrt": (ot.sqrt, np.sqrt),
    "exp": (ot.exp, np.exp),
    "exp2": (ot.exp2, np.exp2),
    "expm1": (ot.expm1, np.expm1),
    "log": (ot.log, np.log),
    "log2": (ot.log2, np.log2),
    "log10": (ot.log10, np.log10),
    "log1p": (ot.log1p, np.log1p),
    "sin": (ot.sin, np.sin),
    "cos": (ot.cos, np.cos),
    "tan": (ot.tan, np.tan),
    "sinh": (ot.sinh, np.sinh),
    "cosh": (ot.cosh, np.cosh),
    "tanh": (ot.tanh, np.tanh),
    "sigmoid": (ot.sigmoid, lambda v: 1 / (1 + np.exp(-v))),
    "softplus": (ot.softplus, lambda v: np.logaddexp(0, v)),
    "reciprocal": (ot.reciprocal, np.reciprocal),
}
BINARY = {
    "add": (lambda a, b: a + b, np.add),
    "sub": (lambda a, b: a - b, np.subtract),
    "mul": (lambda a, b: a * b, np.multiply),
    "div": (lambda a, b: a / b, np.divide),
    "pow": (lambda a, b: a**b, np.power),
    "maximum": (ot.maximum, np.maximum),
    "minimum": (ot.minimum, np.minimum),
}


@st.composite
def programs(draw):
    """A random chain over x, y and a Python-float constant: a list of
    (kind, name, second operand) steps."""
    steps = []
    for _ in range(draw(st.integers(1, 6))):
        if draw(st.booleans()):
            steps.append(("u", draw(st.sampled_from(sorted(UNARY))), None))
        else:
            other = draw(st.sampled_from(["x", "y", "c"]))
            steps.append(("b", draw(st.sampled_from(sorted(BINARY))), other))
    return steps


def build(steps, x, y, c, table_index):
    acc = x
    for kind, name, other in steps:
        if kind == "u":
            acc = UNARY[name][table_index](acc)
        else:
            rhs = {"x": x, "y": y, "c": c}[other]
            acc = BINARY[name][table_index](acc, rhs)
    return acc


PERIODIC = {"sin", "cos", "tan"}


def flipped(fn):
    """``fn`` with its two arguments swapped (to bind the right one)."""
    return lambda b, a: fn(a, b)


def build_rounded(steps, x, y, c, dtype):
    """`build`'s NumPy chain, each step computed in float64 and rounded to
    ``dtype``; and how far a chain of kernels each within an ulp may drift
    from it, per element: every step adds an ulp of its value and scales
    the error carried in by its slope (a central difference in float64),
    so ``tan(tan(x))`` with the inner value near pi/2 is allowed its
    amplified error. A periodic step whose argument may be off by more
    than a small part of its period (``cos`` of 1e14, one ulp away) may
    give anything: those elements are not bounded (infinite drift), and
    every drift is at least an ulp of the largest magnitude reached."""
    acc = x
    wide = np.float64
    ulp = float(np.finfo(dtype).eps)
    drift = np.zeros(np.shape(x))
    largest = 1.0
    for kind, name, other in steps:
        if kind == "u":
            step = UNARY[name][1]
        else:
            rhs = np.asarray({"x": x, "y": y, "c": c}[other], wide)
            step = functools.partial(flipped(BINARY[name][1]), rhs)
        v = acc.astype(wide)
        drift_in = drift
        h = np.maximum(np.abs(v), 1.0) * 1e-10
        slope = np.abs((step(v + h) - step(v - h)) / (2 * h))
        acc = step(v).astype(dtype)
        drift = slope * drift + ulp * np.abs(acc.astype(wide))
        if name in PERIODIC:
            drift[drift_in > 1e-3] = np.inf
        finite = np.abs(acc[np.isfinite(acc)])
        largest = max(largest, float(finite.max(initial=0.0)))
    drift = np.maximum(drift, ulp * largest)
    drift[np.isnan(drift)] = np.inf
    return acc, drift


@settings(max_examples=60, deadline=None)
@given(
    steps=programs(),
    dtype=st.sampled_from(["float64", "float32"]),
    n=st.integers(0, 70),
    seed=st.integers(0, 2**16),
)
@example(
    steps=[("b", "add", "c"), ("u", "exp", None), ("u", "cos", None)],
    dtype="float32",
    n=5,
    seed=160,
)
@example(
    steps=[("u", "tan", None), ("u", "cosh", None), ("u", "cos", None)],
    dtype="float64",
    n=2,
    seed=3,
)
def test_small_fused_chains_equal_unfused_runs(steps, dtype, n, seed):
    x, y = ot.vector("x", dtype=dtype), ot.vector("y", dtype=dtype)
    out = build(steps, x, y, 0.75, 0)
    fused = function([x, y], out, on_unused_input="ignore")
    plain = function([x, y], out, profile=True, on_unused_input="ignore")
    # Against NumPy, the graph as written: rewrites may change results where
    # steps cancel (log1p(expm1(x)) is x, then x - x is exactly 0).
    bare = function([x, y], out, mode=Mode(optimizer=None), on_unused_input="ignore")
    rng = np.random.default_rng(seed)
    a = rng.uniform(-3, 3, n).astype(dtype)
    b = rng.uniform(0.1, 2, n).astype(dtype)
    got = fused(a, b)
    want = plain(a, b)
    assert got.dtype == want.dtype
    assert got.shape == want.shape == (n,)
    # Exact by construction: elementwise, each element by the same kernels
    # at this process's SIMD level, fused or not (threads split elements,
    # never an element's arithmetic).
    np.testing.assert_array_equal(got, want)
    with np.errstate(all="ignore"):
        # Each step in float64 rounded to the dtype (the correctly rounded
        # float32 in all but ties): NumPy's own float32 loops are up to a
        # few ulp off, which a step like log1p near -1 magnifies past rtol.
        ref, drift = build_rounded(steps, a, b, 0.75, dtype)
        # Kernels within a few ulp per step (exp within one, not correctly
        # rounded; 16 covers the reference's own rounding per step too),
        # carried through the chain; elements with an unbounded drift
        # (see build_rounded) are not compared.
        got = bare(a, b).astype(np.float64)
        rtol = 1e-4 if dtype == "float32" else 1e-10
        bound = 16 * drift + rtol * np.abs(ref.astype(np.float64))
        same = (got == ref) | (np.isnan(got) & np.isnan(ref))
        close = same | (np.abs(got - ref) <= bound) | np.isinf(bound)
    assert close.all(), (got[~close], ref[~close], bound[~close])


@pytest.mark.parametrize("n", [1, 63, 64, 65])
def test_scalar_inputs_broadcast_in_small_calls(n):
    x, s = ot.dvector("x"), ot.dscalar("s")
    f = function([x, s], ot.exp(x * s) - s)
    plain = function([x, s], ot.exp(x * s) - s, profile=True)
    a = np.linspace(-1, 1, n)
    # Exact by construction: each element by the same kernels, at this
    # process's SIMD level, fused or not.
    np.testing.assert_array_equal(f(a, 0.5), plain(a, 0.5))
    # Our exp and NumPy's (libm's or its AVX-512 loop's, by its CPU
    # dispatch) are each within 2 ulp; the subtraction is exact in ulps of
    # exp, not of the (smaller) difference.
    ex = np.exp(a * 0.5)
    assert_within(f(a, 0.5), ex - 0.5, 4 * np.finfo(np.float64).eps * ex)


def test_mismatched_small_inputs_name_the_node():
    x, y = ot.dvector("x"), ot.dvector("y")
    f = function([x, y], ot.exp(x + y) * 2)
    with pytest.raises(ValueError, match="Input dimension mismatch") as info:
        f(np.ones(3), np.ones(4))
    assert "Apply node that caused the error" in str(info.value)


def test_arguments_are_not_leaked_nor_freed_early():
    x = ot.dvector("x")
    f = function([x], x * 2 + 1)
    a = np.arange(10.0)
    before = sys.getrefcount(a)
    for _ in range(1000):
        f(a)
    gc.collect()
    assert sys.getrefcount(a) == before
    # A borrowed output viewing the argument keeps it alive.
    g = function([In(x, borrow=True)], Out(x[::2], borrow=True))
    b = np.arange(10.0)
    alone = sys.getrefcount(b)
    view = g(b)
    assert sys.getrefcount(b) == alone + 1  # held by the view's buffer
    del b
    gc.collect()
    np.testing.assert_array_equal(view, np.arange(10.0)[::2])
    with pytest.raises(ValueError, match="read-only"):
        view[0] = 1.0  # argument memory is read-only through the view


@pytest.mark.parametrize(
    ("dtype", "n"), [("float64", 10), ("float64", 128), ("float32", 0), ("int8", 7)]
)
def test_small_results_are_fresh_arrays_each_call(dtype, n):
    # Results of at most 1 KiB are copied into arrays NumPy owns while the
    # program keeps their buffer for the next call: a returned array must
    # never change when the function runs again.
    x = ot.vector("x", dtype=dtype)
    f = function([x], x * 2 + 1)
    a = np.arange(n).astype(dtype)
    first = f(a)
    kept = first.copy()
    second = f(a + 1)
    np.testing.assert_array_equal(first, kept)
    np.testing.assert_array_equal(second, (a + 1) * 2 + 1)
    assert first.dtype == second.dtype == np.dtype(dtype)
    assert first.flags.writeable
    assert first.flags.c_contiguous
    assert first.flags.owndata
    assert not np.shares_memory(first, second)
    first[...] = 0  # writing to one result leaves the next call alone
    np.testing.assert_array_equal(f(a), kept)


def test_large_and_strided_results_are_not_copied():
    x = ot.dmatrix("x")
    f = function([x], (x * 2).T)  # a transposed view of a fresh result
    a = np.arange(12.0).reshape(3, 4)
    out = f(a)
    np.testing.assert_array_equal(out, (a * 2).T)
    assert not out.flags.owndata  # handed over as it is, not copied
    g = function([x], x * 2)
    big = np.ones((40, 40))
    assert not g(big).flags.owndata  # 12.8 kB: a view of our buffer


def test_every_call_form_gives_the_same_result():
    # After the first call, calls arrive through vectorcall (arguments as a
    # C array); keywords and partial positional calls take the tuple path.
    import functools

    x, y = ot.dvector("x"), ot.dvector("y")
    f = function([x, y], x * 2 + y)
    a, b = np.arange(3.0), np.ones(3)
    want = a * 2 + b
    calls = [
        lambda: f(a, b),
        lambda: f(a, y=b),
        lambda: f(x=a, y=b),
        lambda: f(y=b, x=a),
        lambda: f(*(a, b)),
        lambda: f(**{"x": a, "y": b}),
        lambda: functools.partial(f, a)(b),
        lambda: f.__call__(a, b),
        lambda: type(f).__call__(f, a, b),
        lambda: f([0.0, 1.0, 2.0], [1.0, 1.0, 1.0]),  # lists go through filter
    ]
    for _ in range(2):
        for call in calls:
            np.testing.assert_array_equal(call(), want)
    with pytest.raises(TypeError, match="takes 2 arguments but 3 were given"):
        f(a, b, b)
    with pytest.raises(TypeError, match="Missing required input: y"):
        f(a)
    with pytest.raises(TypeError, match="unexpected keyword argument 'z'"):
        f(a, b, z=b)
    with pytest.raises(ValueError, match="Bad input argument"):
        f("no", b)
    np.testing.assert_array_equal(f(a, b), want)  # still usable

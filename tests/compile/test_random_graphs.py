"""Random expressions compiled with ``FAST_RUN`` and ``FAST_COMPILE`` give
NumPy's values: whatever the rewrites do, they must not change results.

Each expression is a tree over a float matrix, a float row (broadcast
against it), a float column and an integer matrix: elementwise unary and
binary ops, reductions (keepdims, so shapes stay broadcastable), transposes
and expand/drop of broadcast axes, a matrix product with a fixed second
operand, and slicing. Both dtypes of float run. ``HYPOTHESIS_PROFILE``
decides how many are drawn; ``make random-graphs`` draws 2,000.
"""

import numpy as np
import oxtensor
import oxtensor.tensor as ot
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROWS, COLS = 3, 4

UNARY = {
    "neg": (ot.neg, np.negative),
    "exp": (lambda v: ot.exp(ot.tanh(v)), lambda v: np.exp(np.tanh(v))),
    "log1p": (lambda v: ot.log(1 + ot.sqr(v)), lambda v: np.log(1 + np.square(v))),
    "sqr": (lambda v: v**2, np.square),
    "abs": (ot.abs, np.abs),
    "tanh": (ot.tanh, np.tanh),
    "sigmoid": (ot.sigmoid, lambda v: 1 / (1 + np.exp(-v))),
    "sqrt": (lambda v: ot.sqrt(ot.abs(v) + 1), lambda v: np.sqrt(np.abs(v) + 1)),
}
BINARY = {
    "add": (lambda a, b: a + b, np.add),
    "sub": (lambda a, b: a - b, np.subtract),
    "mul": (lambda a, b: a * b, np.multiply),
    "div": (lambda a, b: a / (ot.abs(b) + 1), lambda a, b: a / (np.abs(b) + 1)),
    "max": (ot.maximum, np.maximum),
    "self_div": (lambda a, b: a * b / b, lambda a, b: a * b / b),
    "self_sub": (lambda a, b: a + b - b, lambda a, b: a + b - b),
}
REDUCE = {
    "sum0": (lambda v: v.sum(axis=0, keepdims=True), lambda v: v.sum(0, keepdims=True)),
    "sum1": (lambda v: v.sum(axis=1, keepdims=True), lambda v: v.sum(1, keepdims=True)),
    "mean": (
        lambda v: v.mean(axis=0, keepdims=True),
        lambda v: v.mean(0, keepdims=True),
    ),
    "max1": (lambda v: v.max(axis=1, keepdims=True), lambda v: v.max(1, keepdims=True)),
    "var0": (lambda v: v.var(axis=0, keepdims=True), lambda v: v.var(0, keepdims=True)),
}


@st.composite
def expressions(draw, depth=3):
    """A tree as nested tuples: ``("leaf", name)``, ``("u", op, t)``,
    ``("b", op, t, t)``, ``("r", op, t)``, ``("t", t)`` (transpose twice),
    ``("dot", t)``, ``("slice", t)``."""
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return ("leaf", draw(st.sampled_from(["x", "row", "col", "k"])))
    kind = draw(st.sampled_from(["u", "b", "b", "r", "t", "dot", "slice"]))
    sub = expressions(depth=depth - 1)
    if kind == "u":
        return ("u", draw(st.sampled_from(sorted(UNARY))), draw(sub))
    if kind == "b":
        return ("b", draw(st.sampled_from(sorted(BINARY))), draw(sub), draw(sub))
    if kind == "r":
        return ("r", draw(st.sampled_from(sorted(REDUCE))), draw(sub))
    return (kind, draw(sub))


def evaluate(tree, leaves, lib):
    """The expression on symbolic (``lib=0``) or NumPy (``lib=1``) leaves."""
    kind = tree[0]
    if kind == "leaf":
        return leaves[tree[1]]
    if kind == "u":
        return UNARY[tree[1]][lib](evaluate(tree[2], leaves, lib))
    if kind == "b":
        a, b = (evaluate(t, leaves, lib) for t in tree[2:])
        return BINARY[tree[1]][lib](a, b)
    if kind == "r":
        return REDUCE[tree[1]][lib](evaluate(tree[2], leaves, lib))
    inner = evaluate(tree[1], leaves, lib)
    if kind == "t":
        return inner.T.T
    if kind == "dot":
        # (rows, cols) @ (cols, cols) keeps the shape; broadcast operands
        # (a row, a column) are first widened to the full matrix.
        full = inner + leaves["zeros"]
        return full @ leaves["w"]
    return (inner + leaves["zeros"])[::-1][:, ::-1]


def values(dtype):
    rng = np.random.default_rng(1)
    return {
        "x": rng.uniform(-2, 2, (ROWS, COLS)).astype(dtype),
        "row": rng.uniform(-2, 2, (1, COLS)).astype(dtype),
        "col": rng.uniform(-2, 2, (ROWS, 1)).astype(dtype),
        "k": rng.integers(-3, 4, (ROWS, COLS)).astype("int64"),
        "zeros": np.zeros((ROWS, COLS), dtype),
        "w": rng.uniform(-1, 1, (COLS, COLS)).astype(dtype),
    }


def symbols(dtype):
    return {
        "x": ot.matrix("x", dtype=dtype),
        "row": ot.tensor("row", dtype=dtype, shape=(1, None)),
        "col": ot.tensor("col", dtype=dtype, shape=(None, 1)),
        "k": ot.lmatrix("k"),
        "zeros": ot.matrix("zeros", dtype=dtype),
        "w": ot.matrix("w", dtype=dtype),
    }


NAMES = ["x", "row", "col", "k", "zeros", "w"]


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=expressions())
def test_random_expressions_match_numpy(mode, dtype, tree):
    syms, vals = symbols(dtype), values(dtype)
    out = evaluate(tree, syms, 0)
    f = oxtensor.function(
        [syms[n] for n in NAMES], out, mode=mode, on_unused_input="ignore"
    )
    got = f(*[vals[n] for n in NAMES])
    with np.errstate(all="ignore"):
        want = np.asarray(evaluate(tree, vals, 1))
    assert got.shape == want.shape
    # float32 graphs may compute in float64 where NumPy's promotion of the
    # int64 leaf does; compare in the wider of the two, within the narrower
    # dtype's rounding over a few dozen operations.
    rtol = 1e-4 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(got, want.astype(got.dtype), rtol=rtol, atol=rtol)

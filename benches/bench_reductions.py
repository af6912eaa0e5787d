"""Reductions and softmax-like ops: compiled functions against NumPy,
PyTensor and JAX (the tensor-library issue's targets).

Workloads, each timed in this one process as the best of several repeats:

* sum over axis 0, axis 1 and all axes of a 4000x4000 float64 matrix;
* argmax over axis 1 and ``var`` over axis 0 of the same matrix;
* the other reductions over the axes that take other kernels (argmax and
  argmin down columns, var/std over rows and everything, prod, any, all),
  and float32 sums, argmax, any and logsumexp (float32 sums accumulate in
  float64, PyTensor's ``acc_dtype``);
* softmax, log-softmax and logsumexp over the rows of 2000x2000 float64
  (NumPy computes them the stable way: subtract the row maximum first).

Ratios are ``other / oxtensor`` times (above 1: oxtensor is faster). The
timing helpers are ``bench_execution``'s.
"""

import importlib
from collections.abc import Callable
from typing import Any

import numpy as np
import oxtensor
import oxtensor.tensor as ot
from bench_execution import (
    best,
    jax_fn,
    jax_mod,
    jax_timed,
    pt_mod,
    report_skipped,
    row,
    timed,
)


def np_softmax(v: np.ndarray) -> np.ndarray:
    e = np.exp(v - v.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def np_log_softmax(v: np.ndarray) -> np.ndarray:
    s = v - v.max(axis=1, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=1, keepdims=True))


def np_logsumexp(v: np.ndarray) -> np.ndarray:
    m = v.max(axis=1, keepdims=True)
    return (np.log(np.exp(v - m).sum(axis=1, keepdims=True)) + m)[:, 0]


def pt_build(expr: Callable[[Any, Any], Any], dtype: str = "float64") -> Any:
    """``expr(pytensor.tensor, x)`` compiled with PyTensor's default mode."""
    if pt_mod is None:
        return None
    pt = importlib.import_module("pytensor.tensor")
    importlib.import_module("pytensor.tensor.special")
    x = pt.matrix("x", dtype=dtype)
    return pt_mod.function([x], expr(pt, x))


def jax_build(expr: Callable[[Any], Any]) -> Any:
    return jax_fn(expr) if jax_mod is not None else None


def compare(
    label: str, a: np.ndarray, ours: Any, theirs: dict[str, Any], n: int
) -> None:
    x = ot.matrix("x", dtype=str(a.dtype))
    f = oxtensor.function([x], ours(x))
    others = {
        "numpy": best(lambda: theirs["numpy"](a), n),
        "pytensor": timed(theirs["pytensor"], a, number=n),
        "jax": jax_timed(theirs["jax"], a, number=n),
    }
    row(label, best(lambda: f(a), n), others)


def compare_method(label: str, a: np.ndarray, name: str, axis: Any, n: int) -> None:
    """``compare`` of ``x.<name>(axis=axis)``, the same call in every system."""

    def call(v: Any) -> Any:
        return getattr(v, name)(axis=axis)

    theirs = {
        "numpy": call,
        "pytensor": pt_build(lambda pt, x: call(x), str(a.dtype)),
        "jax": jax_build(call),
    }
    compare(label, a, call, theirs, n)


def sums() -> None:
    m = np.random.default_rng(0).random((4000, 4000))
    for axis in (0, 1, None):
        compare_method(f"sum axis={axis}, 4000^2", m, "sum", axis, 10)
    compare_method("argmax axis=1, 4000^2", m, "argmax", 1, 10)
    compare_method("var axis=0, 4000^2", m, "var", 0, 5)


# (label, oxtensor and NumPy method name, axis, float32); every one is
# `x.<name>(axis=axis)` in all three systems but logsumexp.
MORE = [
    ("argmax axis=0", "argmax", 0, False),
    ("argmin axis=0", "argmin", 0, False),
    ("max axis=0", "max", 0, False),
    ("prod axis=1", "prod", 1, False),
    ("var axis=1", "var", 1, False),
    ("var axis=None", "var", None, False),
    ("std axis=0", "std", 0, False),
    ("any axis=1", "any", 1, False),
    ("all axis=None", "all", None, False),
    ("f32 sum axis=0", "sum", 0, True),
    ("f32 sum axis=1", "sum", 1, True),
    ("f32 mean axis=None", "mean", None, True),
    ("f32 argmax axis=1", "argmax", 1, True),
    ("f32 argmax axis=None", "argmax", None, True),
    ("f32 any axis=1", "any", 1, True),
    ("f32 var axis=0", "var", 0, True),
]


def more() -> None:
    m = np.random.default_rng(0).random((4000, 4000))
    m32 = m.astype("float32")
    for label, name, axis, narrow in MORE:
        compare_method(f"{label}, 4000^2", m32 if narrow else m, name, axis, 5)
    compare(
        "f32 logsumexp all, 4000^2",
        m32,
        lambda x: ot.logsumexp(x),
        {
            "numpy": lambda v: np.log(np.exp(v - v.max()).sum()) + v.max(),
            "pytensor": pt_build(lambda pt, x: pt.logsumexp(x), "float32"),
            "jax": jax_build(
                lambda v: importlib.import_module("jax.scipy.special").logsumexp(v)
            ),
        },
        5,
    )


def softmaxes() -> None:
    a = np.random.default_rng(1).normal(size=(2000, 2000))
    jnn = importlib.import_module("jax.nn") if jax_mod else None
    jsp = importlib.import_module("jax.scipy.special") if jax_mod else None
    cases = [
        (
            "softmax rows, 2000^2",
            lambda x: ot.special.softmax(x, axis=1),
            np_softmax,
            lambda pt, x: pt.special.softmax(x, axis=1),
            jnn and (lambda v: jnn.softmax(v, axis=1)),
        ),
        (
            "log_softmax rows, 2000^2",
            lambda x: ot.special.log_softmax(x, axis=1),
            np_log_softmax,
            lambda pt, x: pt.special.log_softmax(x, axis=1),
            jnn and (lambda v: jnn.log_softmax(v, axis=1)),
        ),
        (
            "logsumexp rows, 2000^2",
            lambda x: ot.logsumexp(x, axis=1),
            np_logsumexp,
            lambda pt, x: pt.logsumexp(x, axis=1),
            jsp and (lambda v: jsp.logsumexp(v, axis=1)),
        ),
    ]
    for label, ours, ref, pt_expr, jx in cases:
        compare(
            label,
            a,
            ours,
            {
                "numpy": ref,
                "pytensor": pt_build(pt_expr),
                "jax": jax_build(jx) if jx else None,
            },
            10,
        )


def main() -> None:
    report_skipped()
    sums()
    softmaxes()
    more()


if __name__ == "__main__":
    main()
